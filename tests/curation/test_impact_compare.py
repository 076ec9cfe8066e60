"""Impact of corrections, pure parts: which questions to re-ask and how traces compare."""

from __future__ import annotations

from datetime import datetime

from memory_core.curation.impact import compare, saved_questions, word_diff
from memory_core.models import Answer, BufferTurn, Plan, Requirement, Trace


def trace(tid: str, answer: str, buffer: list[str], prop: str = "destination", question: str = "Where?",
          strategy: str = "ensimem", cited: tuple[str, ...] = ()) -> Trace:
    return Trace(
        id=tid, conv_id="c1", question=question, strategy=strategy, backend="offline",
        plan=Plan(question=question, requirements=(Requirement(entity="Ben", property=prop),)),
        buffer=tuple(BufferTurn(turn_id=t, speaker="Ben", text="...", session=1) for t in buffer),
        answer=Answer(text=answer, cited_turn_ids=cited), created_at=datetime(2024, 1, 1),
    )


def test_compare_reports_answer_plan_and_buffer_changes() -> None:
    before = trace("t1", "Lisbon", ["D1:4", "D1:5"])
    after = trace("t2", " lisbon ", ["D1:5", "D2:1"], prop="visited", question="where?")
    row = compare(before, after)
    assert (row.before_trace_id, row.after_trace_id) == ("t1", "t2")
    assert not row.answer_changed  # same answer up to case and spacing
    assert row.plan_changed
    assert (row.buffer_added, row.buffer_removed) == (("D2:1",), ("D1:4",))
    assert not row.changed  # a new plan and buffer under the same answer is not a change


def test_same_answer_and_citations_is_unchanged_whatever_the_buffer() -> None:
    before = trace("t1", "Likely yes [D1:5]", ["D1:4", "D1:5"], cited=("D1:5",))
    after = trace("t2", "Likely yes [D1:5]", ["D1:5", "D2:1", "D2:2"], prop="trip", cited=("D1:5",))
    row = compare(before, after)
    assert row.plan_changed and row.buffer_added == ("D2:1", "D2:2")
    assert not row.changed and (row.cited_added, row.cited_removed) == ((), ())


def test_other_cited_turns_are_a_change_even_with_the_same_words() -> None:
    row = compare(trace("t1", "Lisbon", ["D1:4", "D2:1"], cited=("D1:4",)),
                  trace("t2", "Lisbon", ["D1:4", "D2:1"], cited=("D2:1", "D1:4", "D2:1")))
    assert not row.answer_changed and row.changed
    assert (row.cited_added, row.cited_removed) == (("D2:1",), ())


def test_a_new_answer_is_a_change_with_a_word_diff() -> None:
    row = compare(trace("t1", "Ben is going to Lisbon in July", ["D1:4"], cited=("D1:4",)),
                  trace("t2", "Ben is going to Porto in July", ["D1:4"], cited=("D1:4",)))
    assert row.answer_changed and row.changed
    assert word_diff(row.before_answer or "", row.after_answer) == [
        ("=", "Ben is going to"), ("-", "Lisbon"), ("+", "Porto"), ("=", "in July")]
    assert word_diff("Unknown", "Lisbon") == [("-", "Unknown"), ("+", "Lisbon")]
    assert word_diff("a  b", "a b") == [("=", "a b")]


def test_compare_identical_traces_is_unchanged() -> None:
    row = compare(trace("t1", "Lisbon", ["D1:4"]), trace("t2", "Lisbon", ["D1:4"]))
    assert not row.changed and row.before_answer == row.after_answer == "Lisbon"


def test_compare_without_earlier_trace() -> None:
    row = compare(None, trace("t2", "Porto", ["D1:4"]))
    assert row.before_trace_id is None and not row.changed and row.after_answer == "Porto"


def test_saved_questions_prefers_asked_ones_and_dedupes() -> None:
    rows = [  # newest first, as Store.traces returns them
        {"id": "t3", "question": "Where did Ben go?", "strategy": "glong"},
        {"id": "t2", "question": "where did  ben go?", "strategy": "ensimem"},
        {"id": "t1", "question": "What does Ana paint?", "strategy": "ensimem"},
    ]
    qa = ["What does Ana paint?", "When is the trip?", ""]
    chosen = saved_questions(rows, qa, strategy=None, default_strategy="ensimem")
    assert [(q.question, q.strategy, q.before_trace_id) for q in chosen] == [
        ("Where did Ben go?", "glong", "t3"),
        ("What does Ana paint?", "ensimem", "t1"),
        ("When is the trip?", "ensimem", None),
    ]
    chosen = saved_questions(rows, qa, strategy="ensimem", default_strategy="ensimem", cap=2)
    assert [(q.question, q.before_trace_id) for q in chosen] == [
        ("where did  ben go?", "t2"), ("What does Ana paint?", "t1")]
