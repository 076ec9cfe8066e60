"""Result types of the curation API: a page of records and the impact-of-corrections report.

They are frozen pydantic models like the domain models, so the app can hold them in
session state or dump them to JSON.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from memory_core.models import Record


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RecordPage(_Result):
    """One page of a record search: ``rows`` in the requested order, ``total`` matches."""

    rows: list[Record]
    total: int
    page: int = 1  # 1-based
    page_size: int = 50

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.page_size))


class ImpactRow(_Result):
    """One saved question re-asked against the corrected memory."""

    question: str
    strategy: str
    before_trace_id: str | None  # most recent earlier trace of the question (None: never asked)
    after_trace_id: str
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


class ImpactReport(_Result):
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
