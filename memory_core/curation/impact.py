"""Impact of corrections: which saved questions answer differently after annotators' edits.

Pure parts only: choosing the questions to re-ask, comparing a question's earlier trace with
its new one, and the word-level diff of two answers. ``CurationService.impact`` asks the
questions through ``Services.ask``.

A question *changed* when what a reader is told differs: the answer's text (up to case and
spacing) or the turns it cites. A different plan or retrieval buffer under the same answer and
citations is reported (``plan_changed``, ``buffer_added`` / ``buffer_removed``) but is not a
change: "Likely yes [D5:23]" before and after is the same answer.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from memory_core.impact_report import ImpactRow
from memory_core.models import Plan, Trace

DEFAULT_CAP = 60


@dataclass(frozen=True)
class SavedQuestion:
    question: str
    strategy: str  # the strategy to re-ask with (that of the earlier trace, when there is one)
    before_trace_id: str | None  # the most recent earlier trace with this question and strategy


def saved_questions(
    trace_rows: Sequence[Mapping[str, Any]],
    qa_questions: Iterable[str],
    *,
    strategy: str | None,
    default_strategy: str,
    cap: int = DEFAULT_CAP,
    before: datetime | None = None,
) -> list[SavedQuestion]:
    """Distinct questions to re-ask: asked ones first (newest first), then QA questions.

    ``trace_rows`` are ``Store.traces`` rows (newest first). With ``strategy`` only traces of
    that strategy count as "before"; without it each question is re-asked with the strategy
    of its most recent trace. With ``before`` (e.g. the time of an edit) only traces made
    earlier count as "before", so the comparison is with the memory as it was then; questions
    first asked later are still re-asked, without a "before".
    """
    chosen: dict[str, SavedQuestion] = {}
    for row in trace_rows:
        question = str(row["question"])
        key = _key(question)
        if key in chosen or not key:
            continue
        if strategy is not None and row["strategy"] != strategy:
            continue
        if before is not None and not _earlier(row.get("created_at"), before):
            continue
        chosen[key] = SavedQuestion(question, str(row["strategy"]), str(row["id"]))
    if strategy is not None or before is not None:  # no earlier trace to compare with
        for row in trace_rows:
            key = _key(str(row["question"]))
            if key and key not in chosen:
                chosen[key] = SavedQuestion(str(row["question"]), strategy or str(row["strategy"]), None)
    for question in qa_questions:
        key = _key(question)
        if key and key not in chosen:
            chosen[key] = SavedQuestion(question, strategy or default_strategy, None)
    return list(chosen.values())[:cap]


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo is not None else moment


def _earlier(created: Any, before: datetime) -> bool:
    """Whether a trace row's ``created_at`` lies before ``before`` (naive times are UTC)."""
    return isinstance(created, datetime) and _utc(created) < _utc(before)


def _key(question: str) -> str:
    return " ".join(question.split()).lower()


def plan_signature(plan: Plan) -> dict[str, Any]:
    """What a plan decides, without the question text itself."""
    return plan.model_dump(mode="json", exclude={"question"})


def _normal(text: str) -> str:
    return " ".join(text.split()).lower()


def _gained(now: Sequence[str], was: Sequence[str]) -> tuple[str, ...]:
    """The ids in ``now`` that ``was`` lacks, in ``now``'s order, each once."""
    seen = set(was)
    return tuple(dict.fromkeys(x for x in now if x not in seen))


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """The answer's words as (op, text): ``"="`` kept, ``"-"`` only before, ``"+"`` only after,
    in reading order (removed words before the words that replace them)."""
    a, b = before.split(), after.split()
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("=", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("-", " ".join(a[i1:i2])))
        if j2 > j1:
            out.append(("+", " ".join(b[j1:j2])))
    return out


def compare(before: Trace | None, after: Trace) -> ImpactRow:
    after_buffer = [b.turn_id for b in after.buffer]
    if before is None:
        return ImpactRow(
            question=after.question, strategy=after.strategy, before_trace_id=None,
            after_trace_id=after.id, before_answer=None, after_answer=after.answer.text,
            answer_changed=False, plan_changed=False,
        )
    before_buffer = [b.turn_id for b in before.buffer]
    was, now = set(before_buffer), set(after_buffer)
    cited_before, cited_after = before.answer.cited_turn_ids, after.answer.cited_turn_ids
    return ImpactRow(
        question=after.question,
        strategy=after.strategy,
        before_trace_id=before.id,
        after_trace_id=after.id,
        before_answer=before.answer.text,
        after_answer=after.answer.text,
        answer_changed=_normal(before.answer.text) != _normal(after.answer.text),
        plan_changed=plan_signature(before.plan) != plan_signature(after.plan),
        buffer_added=tuple(t for t in after_buffer if t not in was),
        buffer_removed=tuple(t for t in before_buffer if t not in now),
        cited_added=_gained(cited_after, cited_before),
        cited_removed=_gained(cited_before, cited_after),
    )


def failed(question: SavedQuestion, error: str) -> ImpactRow:
    return ImpactRow(
        question=question.question, strategy=question.strategy,
        before_trace_id=question.before_trace_id, after_trace_id="", before_answer=None,
        after_answer="", answer_changed=False, plan_changed=False, error=error,
    )
