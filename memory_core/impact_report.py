"""The impact-of-corrections report: each saved question re-asked against the corrected memory,
compared with the answer it had before.

    report = services.curation.impact(conv)       # an ImpactReport
    [r.question for r in report.changed]          # the answer's text or its cited turns differ

``memory_core.curation.impact.compare`` builds each ``ImpactRow`` from two traces;
``CurationService.impact`` returns the ``ImpactReport``; the History page keeps it in session
state and ``components.impact_view`` draws it. This module sits on the bottom floor: plain
values, no imports of ours.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ImpactRow:
    """One saved question re-asked against the corrected memory."""

    question: str
    strategy: str
    before_trace_id: str | None  # most recent earlier trace of the question (None: never asked)
    after_trace_id: str  # "" when the question could not be re-asked (``error``)
    before_answer: str | None
    after_answer: str
    answer_changed: bool
    plan_changed: bool
    buffer_added: tuple[str, ...] = ()  # turn ids now in the buffer that were not before
    buffer_removed: tuple[str, ...] = ()  # turn ids no longer in the buffer
    cited_added: tuple[str, ...] = ()  # turn ids the answer cites now and did not before
    cited_removed: tuple[str, ...] = ()  # turn ids the answer no longer cites
    error: str | None = None  # a question that could not be re-asked (one line)

    @property
    def changed(self) -> bool:
        """What the reader is told differs: the answer's text or the turns it cites (a new plan
        or buffer under the same answer and citations is not a change)."""
        return self.answer_changed or bool(self.cited_added or self.cited_removed)


@dataclass(frozen=True)
class ImpactReport:
    conv_id: str
    strategy: str | None
    rows: list[ImpactRow]
    edits_considered: int = 0  # edits in the log when the report was made
    seconds: float = 0.0

    @property
    def changed(self) -> list[ImpactRow]:
        return [r for r in self.rows if r.changed]

    @property
    def compared(self) -> int:
        return sum(1 for r in self.rows if r.before_trace_id is not None)


__all__ = ["ImpactReport", "ImpactRow"]
