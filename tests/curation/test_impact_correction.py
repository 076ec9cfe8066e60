"""A correction reaches the answer: edit a record's value, re-ask, and the impact report says
the question changed, with the new value in the answer and a word-level diff to show."""

from __future__ import annotations

from memory_core.curation.impact import word_diff
from tests.curation.handmade import CONV

QUESTION = "Where is Ben going in July?"
TRIP = "c1:S1:E2:R1"  # Ben · destination = Lisbon (planned, July)
BACK = "c1:S2:E1:R1"  # Ben · destination = Lisbon (back from it)


def test_an_edited_value_is_in_the_re_asked_answer_and_reported_changed(built) -> None:
    before = built.queries.ask(CONV, QUESTION)
    for rid in (TRIP, BACK):
        rec = built.raw_store().record(rid)
        built.curation.edit_record(rid, {"value": "Porto"}, who="ana", why="said Porto later",
                                   expected_version=rec.version, via="edit form")
    report = built.curation.impact(CONV)
    (row,) = [r for r in report.rows if r.question == QUESTION]
    assert row.before_trace_id == before.id and row.before_answer == before.answer.text
    after = built.raw_store().trace(row.after_trace_id)
    matched = {m.record_id for m in after.matches if m.record_id}
    assert matched & {TRIP, BACK}  # the corrected records are what the re-asked question finds
    # the corrected record answers: its value is in the re-asked answer
    assert "porto" in {w.strip(".,;:!?[]()").lower() for w in row.after_answer.split()}, row.after_answer
    assert row.changed and row in report.changed
    ops = word_diff(row.before_answer or "", row.after_answer)
    assert ("+", "Porto") in [(op, w.strip(".,;:!?")) for op, text in ops for w in text.split()] and \
        any(op == "-" for op, _ in ops)


def test_an_edit_that_does_not_touch_the_answer_leaves_it_unchanged(built) -> None:
    built.queries.ask(CONV, QUESTION)
    rec = built.raw_store().record("c1:S1:E2:R2")  # Lisbon · has = trams: not what the question asks
    built.curation.edit_record(rec.id, {"confidence": 0.5}, who="ana", expected_version=rec.version)
    (row,) = [r for r in built.curation.impact(CONV).rows if r.question == QUESTION]
    assert row.before_answer == row.after_answer and not row.changed
