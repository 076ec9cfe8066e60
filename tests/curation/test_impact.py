"""Impact of corrections end to end: saved questions re-asked through Services.ask."""

from __future__ import annotations

import pytest

from memory_core.errors import StoreError
from tests.curation.handmade import CONV

QUESTION = "Where is Ben going in July?"


def test_impact_compares_with_the_earlier_trace(built) -> None:
    before = built.queries.ask(CONV, QUESTION)
    for rid in ("c1:S1:E2:R1", "c1:S2:E1:R1"):  # both "Ben destination Lisbon" records are wrong
        built.curation.mark_wrong(rid, who="ana", why="test")
    progress: list[tuple[int, int]] = []
    report = built.curation.impact(CONV, on_progress=lambda step: progress.append((step.done, step.total)))
    assert report.conv_id == CONV and report.edits_considered == 2
    (row,) = [r for r in report.rows if r.question == QUESTION]
    assert row.before_trace_id == before.id and row.after_trace_id != before.id
    after = built.raw_store().trace(row.after_trace_id)  # the re-run is a saved trace, reopenable
    assert after.question == QUESTION and row.after_answer == after.answer.text
    assert row.before_answer == before.answer.text
    before_records = {m.record_id for m in before.matches if m.record_id}
    after_records = {m.record_id for m in after.matches if m.record_id}
    assert {"c1:S1:E2:R1", "c1:S2:E1:R1"} & before_records
    assert not {"c1:S1:E2:R1", "c1:S2:E1:R1"} & after_records  # wrong records are not retrieved
    assert row.buffer_added == tuple(t.turn_id for t in after.buffer
                                     if t.turn_id not in {b.turn_id for b in before.buffer})
    assert progress == [(i, len(report.rows)) for i in range(1, len(report.rows) + 1)]


def test_impact_right_after_impact_changes_nothing(built) -> None:
    built.queries.ask(CONV, QUESTION)
    built.queries.ask(CONV, "What does Ana paint?", strategy="bm25")
    first = built.curation.impact(CONV)
    second = built.curation.impact(CONV)
    assert {r.question for r in first.rows} == {QUESTION, "What does Ana paint?"}
    assert all(r.before_trace_id for r in second.rows)
    assert [r for r in second.rows if r.changed] == []  # same memory, same answers
    assert {r.strategy for r in second.rows} == {built.settings.strategy, "bm25"}


def test_impact_includes_qa_questions_and_caps(built) -> None:
    from memory_core.models import QAItem

    qa = [QAItem(qid=i, question=f"Question number {i} about Lisbon?") for i in range(5)]
    built.raw_store().executemany("INSERT INTO qa VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            [[CONV, q.qid, q.question, None, "[]", None, None, None] for q in qa])
    report = built.curation.impact(CONV, cap=3)
    assert len(report.rows) == 3 and all(r.before_trace_id is None for r in report.rows)
    with pytest.raises(StoreError, match="unknown conversation"):
        built.curation.impact("nope")
