"""Ask: answer with citations, the trace walk, reopening past questions, comparing strategies."""

from __future__ import annotations

from components.text import anchor_id
from tests.app.conftest import SAMPLE_ID, all_text, button, html_bodies, no_errors, shown, widget

QUESTION = "Where does Maya's sister live?"


def test_ask_walk_and_reopen(open_app, app_services) -> None:
    at = open_app("pages/ask.py", conv=SAMPLE_ID, timeout=120)
    widget(at.text_input, "Question").input(QUESTION)
    button(at, "Ask").click().run()
    no_errors(at)
    trace_id = at.query_params["trace"]
    trace = app_services.queries.trace(trace_id)
    assert trace.question == QUESTION
    body = html_bodies(at)
    # the answer, its citations as in-page links to the buffer turns, the buffer with marks
    assert 'class="mn-answer"' in body
    for tid in trace.answer.cited_turn_ids:
        anchor = "turn-" + "".join(c if c.isalnum() else "-" for c in tid)
        assert f'href="#{anchor}"' in body and f'id="{anchor}"' in body
    assert "<mark" in body
    # walk: requirement -> matched records -> the record's episode with its evidence
    req = widget(at.selectbox, "Requirement")
    assert len(req.options) >= len(trace.plan.requirements) >= 1
    with_records = [i for i in range(len(trace.plan.requirements))
                    if any(m.record_id and m.requirement == i for m in trace.matches)]
    assert with_records, "the sample question matches records"
    req.set_value(with_records[0]).run()
    no_errors(at)
    records = [m.record_id for m in trace.matches if m.record_id and m.requirement == with_records[0]]
    follow = widget(at.selectbox, "Follow a matched record to its evidence")
    assert follow.value in records
    record = app_services.store.record(follow.value)
    body = html_bodies(at)
    assert all(f'id="{anchor_id(t, "rec")}"' in body for t in record.evidence_turn_ids)
    # reopen from the URL in a new session
    again = open_app("pages/ask.py", conv=SAMPLE_ID, trace=trace_id)
    no_errors(again)
    assert any(shown(s.value) == QUESTION for s in again.subheader)
    assert "Past questions" in [e.label.split(" (")[0] for e in again.expander]


def test_compare_strategies_side_by_side(open_app, app_services) -> None:
    at = open_app("pages/ask.py", conv=SAMPLE_ID, timeout=180)
    widget(at.text_input, "Question").input("What pet does Maya have?")
    button(at, "Ask").click().run()
    widget(at.multiselect, "Strategies").set_value(["ensimem", "bm25"]).run()
    button(at, "Compare").click().run()
    no_errors(at)
    text = all_text(at)
    assert "**ensimem**" in text and "**bm25**" in text
