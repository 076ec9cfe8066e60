"""Ask: past questions deduplicated, and apart from the questions evaluation runs asked (by who
asked, not by the words), the gold answer of a benchmark question, and a buffer that shows the
cited and matched turns first."""

from __future__ import annotations

from typing import Any

from components.buffer_view import key_turns, split
from components.past_questions import group, normalise
from components.past_questions import split as split_questions
from memory_core.models import TraceRow
from tests.app.conftest import SAMPLE_ID, all_text, button, full_trace, html_bodies, no_errors, shown, widget

OWN = "Which city did Jonas move to?"


def test_grouping_merges_repeats_and_keeps_evaluation_runs_apart() -> None:
    rows = [TraceRow("t4", "Who is Ana?", "bm25", "fake", None, by_evaluation=True),
            TraceRow("t3", "Where is Lisbon? ", "bm25", "fake", None),
            TraceRow("t2", "where is  lisbon", "ensimem", "fake", None),
            TraceRow("t1", "Who is Ana?", "bm25", "fake", None)]
    asked = group(rows)
    assert [(a.latest_id, a.times, a.strategies) for a in asked] == [("t4", 2, ["bm25"]),
                                                                   ("t3", 2, ["bm25", "ensimem"])]
    mine, bench = split_questions(rows)  # by who asked, not by the words
    assert [a.latest_id for a in mine] == ["t3", "t1"] and [a.latest_id for a in bench] == ["t4"]
    assert normalise(" Who  is Ana?? ") == "who is ana"


def test_a_typed_benchmark_question_is_a_past_question_and_evaluation_runs_are_apart(open_app,
                                                                                     app_services) -> None:
    gold = app_services.raw_store().qa_items(SAMPLE_ID)[-1]
    for question, strategy in ((OWN, "bm25"), (OWN.lower(), "ensimem"), (gold.question, "bm25")):
        app_services.queries.ask(SAMPLE_ID, question, strategy=strategy)  # typed by hand
    ran = gold.question.lower()[:30]
    run = next(q for q in app_services.raw_store().qa_items(SAMPLE_ID) if q.question != gold.question)
    app_services.queries.ask_detailed(SAMPLE_ID, run.question, asked_by="evaluation")  # an evaluation run
    at = open_app("pages/ask.py", conv=SAMPLE_ID)
    no_errors(at)
    labels = [p.proto.label for p in at.get("page_link")]
    own = [lab for lab in labels if "jonas move to" in lab.lower().replace("&#63;", "?")]
    assert len(own) == 1 and "asked 2×" in own[0], own
    bench = [e for e in at.expander if e.label.startswith("Questions asked by evaluation runs")]
    assert len(bench) == 1
    mine = next(e for e in at.expander if e.label.startswith("Past questions"))

    def said(link: Any) -> str:  # a Streamlit test element (untyped)
        return shown(str(link.proto.label)).lower()

    assert any(said(p).startswith(ran) for p in mine.get("page_link"))  # typed: the user's own
    assert any(said(p).startswith(run.question.lower()[:30]) for p in bench[0].get("page_link"))
    assert all("jonas move to" not in said(p) for p in bench[0].get("page_link"))
    # search narrows the list
    widget(at.text_input, "Filter by words").input("nothing-like-this").run()
    assert "No past question matches." in all_text(at)


def test_a_benchmark_question_shows_its_gold_answer_and_a_short_buffer(open_app, app_services) -> None:
    gold = next(q for q in app_services.raw_store().qa_items(SAMPLE_ID) if q.answer)
    at = open_app("pages/ask.py", conv=SAMPLE_ID, timeout=120)
    widget(at.text_input, "Question").input(gold.question)
    button(at, "Ask").click().run()
    no_errors(at)
    assert f"the gold answer is: {gold.answer}" in all_text(at).replace("**", "")
    full_trace(at)
    trace = app_services.queries.trace(at.query_params["trace"])
    first, rest = split(trace, app_services.raw_store().records(SAMPLE_ID))  # all records: an upper bound
    keys = key_turns(trace)
    assert set(trace.answer.cited_turn_ids) <= keys
    body = html_bodies(at)
    shown_turns = body.count('id="turn-')
    if rest and keys:
        assert shown_turns < len(trace.buffer)  # only the key turns
        widget(at.toggle, f"Show all {len(trace.buffer)} turns of the buffer").set_value(True).run()
        assert html_bodies(at).count('id="turn-') > shown_turns
    assert first or rest


def test_an_answer_shows_its_support_level_as_a_badge_in_words(open_app, app_services) -> None:
    from components.plain_words import GUESS_WORDS, SUPPORT_WORDS
    from components.support_view import is_guess, level, shown

    at = open_app("pages/ask.py", conv=SAMPLE_ID, timeout=120)
    widget(at.text_input, "Question").input("What pet does Maya have?")
    button(at, "Ask").click().run()
    no_errors(at)
    trace = app_services.queries.trace(at.query_params["trace"])
    color, label, meaning = shown(trace)
    text = all_text(at)  # the story view: the badge and the level in a plain sentence
    assert f":{color}-badge[Answer {label}]" in text
    assert (GUESS_WORDS if is_guess(trace) else SUPPORT_WORDS[level(trace)]) in text
    full_trace(at)
    text = all_text(at)
    assert f":{color}-badge[Answer {label}]" in text
    assert f"Support: {meaning}." in text


def test_a_current_state_answer_names_the_statement_it_updates() -> None:
    from datetime import datetime

    from components.trace_view import answer_html
    from memory_core.models import Answer, Plan, Trace

    trace = Trace(id="t1", conv_id="c", question="Where does Maya live now?", strategy="ensimem",
                  backend="offline", plan=Plan(question="q"), created_at=datetime(2024, 1, 1),
                  answer=Answer(text="Porto [D7:3]", cited_turn_ids=("D7:3",), updates="D2:4 (3 May 2023)"),
                  timings={"embed": 0.1, "retrieve": 0.2, "total": 0.5, "plan_retrieve": 0.3})
    html = answer_html(trace)
    assert "it updates" in html and ">D2:4</a> (3 May 2023)" in html
    assert "it updates" not in answer_html(trace.model_copy(update={
        "answer": trace.answer.model_copy(update={"updates": None})}))


def test_an_answer_says_which_names_of_the_question_no_turn_mentions() -> None:
    from datetime import datetime

    from components.trace_view import answer_html
    from memory_core.models import Answer, Plan, SupportLevel, Trace

    trace = Trace(id="t1", conv_id="c", question="q", strategy="ensimem", backend="offline",
                  plan=Plan(question="q"), created_at=datetime(2024, 1, 1),
                  answer=Answer(text="Unknown", supported=False, support=SupportLevel.UNKNOWN,
                                unmentioned=("software engineer manager",)))
    html = answer_html(trace)
    assert "no retrieved turn mentions “software engineer manager”" in html
    plain = trace.model_copy(update={"answer": trace.answer.model_copy(update={"unmentioned": ()})})
    assert "mentions" not in answer_html(plain) and "not supported by the evidence" in answer_html(plain)


def test_an_unsure_answer_quoting_its_cited_turn_is_shown_as_a_guess_not_as_missing_evidence() -> None:
    from datetime import datetime

    from components.support_view import LEVELS, is_guess, shown
    from components.trace_view import answer_html
    from memory_core.models import Answer, Plan, SupportLevel, Trace

    trace = Trace(id="t1", conv_id="c", question="How did Rex hurt his leg?", strategy="ensimem",
                  backend="offline", plan=Plan(question="q"), created_at=datetime(2024, 1, 1),
                  answer=Answer(text="cut it on a fence", cited_turn_ids=("D2:4",), supported=False,
                                support=SupportLevel.UNKNOWN))
    assert is_guess(trace) and shown(trace)[1] == "is a guess"
    html = answer_html(trace)
    assert "a guess: not shown to answer the question" in html and "not supported by the evidence" not in html
    nothing = trace.model_copy(update={"answer": Answer(text="Unknown", supported=False,
                                                        support=SupportLevel.UNKNOWN)})
    assert not is_guess(nothing) and shown(nothing) == LEVELS[SupportLevel.UNKNOWN]
    assert "not supported by the evidence" in answer_html(nothing)
    weak = trace.model_copy(update={"answer": trace.answer.model_copy(update={"support": SupportLevel.WEAK})})
    assert not is_guess(weak)
