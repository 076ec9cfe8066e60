"""Ask: past questions deduplicated and apart from benchmark questions, the gold answer of a
benchmark question, and a buffer that shows the cited and matched turns first."""

from __future__ import annotations

from components.buffer_view import key_turns, split
from components.past_questions import group, normalise
from components.past_questions import split as split_questions
from tests.app.conftest import SAMPLE_ID, all_text, button, html_bodies, no_errors, widget

OWN = "Which city did Jonas move to?"


def test_grouping_merges_repeats_and_keeps_benchmark_questions_apart() -> None:
    rows = [{"id": "t3", "question": "Where is Lisbon? ", "strategy": "bm25"},
            {"id": "t2", "question": "where is  lisbon", "strategy": "ensimem"},
            {"id": "t1", "question": "Who is Ana?", "strategy": "bm25"}]
    asked = group(rows)
    assert [(a.latest_id, a.times, a.strategies) for a in asked] == [("t3", 2, ["bm25", "ensimem"]),
                                                                   ("t1", 1, ["bm25"])]
    mine, bench = split_questions(asked, ["WHO is Ana"])
    assert [a.latest_id for a in mine] == ["t3"] and [a.latest_id for a in bench] == ["t1"]
    assert normalise(" Who  is Ana?? ") == "who is ana"


def test_past_questions_are_distinct_and_benchmark_questions_listed_apart(open_app, app_services) -> None:
    gold = app_services.store.qa_items(SAMPLE_ID)[0]
    for question, strategy in ((OWN, "bm25"), (OWN.lower(), "ensimem"), (gold.question, "bm25")):
        app_services.queries.ask(SAMPLE_ID, question, strategy=strategy)
    at = open_app("pages/ask.py", conv=SAMPLE_ID)
    no_errors(at)
    labels = [p.proto.label for p in at.get("page_link")]
    own = [lab for lab in labels if "jonas move to" in lab.lower().replace("&#63;", "?")]
    assert len(own) == 1 and "asked 2×" in own[0], own
    bench = [e for e in at.expander if e.label.startswith("Benchmark questions")]
    assert len(bench) == 1
    mine = next(e for e in at.expander if e.label.startswith("Past questions"))
    assert all("jonas move to" not in str(p.proto.label).lower() for p in bench[0].get("page_link"))
    assert any("jonas move to" in str(p.proto.label).lower() for p in mine.get("page_link"))
    # search narrows the list
    widget(at.text_input, "Filter by words").input("nothing-like-this").run()
    assert "No past question matches." in all_text(at)


def test_a_benchmark_question_shows_its_gold_answer_and_a_short_buffer(open_app, app_services) -> None:
    gold = next(q for q in app_services.store.qa_items(SAMPLE_ID) if q.answer)
    at = open_app("pages/ask.py", conv=SAMPLE_ID, timeout=120)
    widget(at.text_input, "Question").input(gold.question)
    button(at, "Ask").click().run()
    no_errors(at)
    assert f"the gold answer is: {gold.answer}" in all_text(at).replace("**", "")
    trace = app_services.queries.trace(at.query_params["trace"])
    first, rest = split(trace, app_services.store.records(SAMPLE_ID))  # all records: an upper bound
    keys = key_turns(trace)
    assert set(trace.answer.cited_turn_ids) <= keys
    body = html_bodies(at)
    shown_turns = body.count('id="turn-')
    if rest and keys:
        assert shown_turns < len(trace.buffer)  # only the key turns
        widget(at.toggle, f"Show all {len(trace.buffer)} turns of the buffer").set_value(True).run()
        assert html_bodies(at).count('id="turn-') > shown_turns
    assert first or rest
