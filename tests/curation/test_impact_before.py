"""Impact of corrections against the state before an edit: only earlier traces are "before"."""

from __future__ import annotations

from datetime import UTC, datetime

from memory_core.curation.impact import saved_questions


def row(tid: str, question: str, at: datetime, strategy: str = "ensimem") -> dict[str, object]:
    return {"id": tid, "question": question, "strategy": strategy, "backend": "offline", "created_at": at}


EDIT = datetime(2024, 1, 2, 12, 0)
ROWS = [  # newest first, like Store.traces
    row("t3", "Where?", datetime(2024, 1, 3)),  # a re-run after the edit
    row("t2", "When?", datetime(2024, 1, 2, 13, 0), strategy="naive"),  # first asked after the edit
    row("t1", "Where?", datetime(2024, 1, 1)),  # asked before the edit
]


def test_without_before_the_newest_trace_is_compared() -> None:
    chosen = {q.question: q.before_trace_id for q in saved_questions(ROWS, [], strategy=None,
                                                                     default_strategy="ensimem")}
    assert chosen == {"Where?": "t3", "When?": "t2"}


def test_before_an_edit_only_earlier_traces_count() -> None:
    found = saved_questions(ROWS, ["Who?"], strategy=None, default_strategy="ensimem", before=EDIT)
    assert [(q.question, q.before_trace_id, q.strategy) for q in found] == [
        ("Where?", "t1", "ensimem"), ("When?", None, "naive"), ("Who?", None, "ensimem")]


def test_an_aware_edit_time_compares_with_naive_utc_trace_times() -> None:
    aware = datetime(2024, 1, 2, 14, 0, tzinfo=UTC)  # after t2 (13:00 UTC)
    found = saved_questions(ROWS, [], strategy=None, default_strategy="ensimem", before=aware)
    assert {q.question: q.before_trace_id for q in found} == {"Where?": "t1", "When?": "t2"}
