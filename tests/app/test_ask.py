"""Ask: answer with citations, the trace walk, reopening past questions, comparing strategies."""

from __future__ import annotations

import re

from components.links import href_record
from components.text import anchor_id, esc
from tests.app.conftest import (
    SAMPLE_ID,
    all_text,
    button,
    full_trace,
    html_bodies,
    no_errors,
    shown,
    widget,
)

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
    full_trace(at)
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
    record = app_services.raw_store().record(follow.value)
    body = html_bodies(at)
    assert all(f'id="{anchor_id(t, "rec")}"' in body for t in record.evidence_turn_ids)
    # reopen from the URL in a new session
    again = open_app("pages/ask.py", conv=SAMPLE_ID, trace=trace_id)
    no_errors(again)
    assert any(shown(s.value) == QUESTION for s in again.subheader)
    assert "Past questions" in [e.label.split(" (")[0] for e in again.expander]


def test_the_story_view_tells_answer_records_and_turns_without_scores(open_app, app_services) -> None:
    from components.plain_words import SUPPORT_WORDS, record_line
    from components.support_view import level

    at = open_app("pages/ask.py", conv=SAMPLE_ID, timeout=120)
    widget(at.text_input, "Question").input(QUESTION)
    button(at, "Ask").click().run()
    no_errors(at)
    assert widget(at.toggle, "Full trace").value is False  # the story is the default
    trace = app_services.queries.trace(at.query_params["trace"])
    text, body = all_text(at), html_bodies(at)
    assert 'class="mn-answer"' in body and SUPPORT_WORDS[level(trace)] in text
    # the records that gave it, as entity · property · value with who said it and when
    matched = [m.record_id for m in trace.matches if m.record_id]
    assert matched, "the sample question matches records"
    listed = [r for r in app_services.raw_store().records(SAMPLE_ID)
              if f'href="{esc(href_record(SAMPLE_ID, r.id))}"' in body]  # "…:R1" is in "…:R12" too
    assert listed and {r.id for r in listed} <= set(matched) and len(listed) <= 3
    assert all(shown(record_line(r)) in shown(body) for r in listed)
    assert any(r.source_speaker and f"said by {r.source_speaker} on " in shown(body) for r in listed)
    # the cited source turns, highlighted, where the answer's citations jump
    for tid in trace.answer.cited_turn_ids:
        assert f'id="{anchor_id(tid)}"' in body
    assert body.count('id="turn-') < len(trace.buffer)
    # no internals: no score tables, no plan, no requirement codes
    assert not at.dataframe and not at.metric
    assert "Requirement" not in [s.label for s in at.selectbox]
    assert not any(w in text for w in ("fused", "[target]", "Evidence buffer", "boundary:"))
    assert not re.search(r"\(\d\.\d\d\)|score \d", text)  # no figures of a score
    # one toggle away: the full trace, requirements written as sentences
    full_trace(at)
    req = widget(at.selectbox, "Requirement")
    sentences = [o for o in req.options if o != "Matches for the question as a whole"]
    assert sentences and all(re.match(r"R\d+ · [A-Z][a-z ]+: ", o) and "[" not in o for o in sentences)
    assert any("Looking for: " in o for o in sentences)


def test_an_answer_that_cites_no_turn_shows_the_closest_turns_as_such(open_app, app_services) -> None:
    from components.story_view import MAX_TURNS, source_turns
    from memory_core.models import Highlight

    # an invented question nothing in the sample answers
    trace = app_services.queries.ask(SAMPLE_ID, "What colour is the sailboat Jonas owns?")
    assert not trace.answer.cited_turn_ids
    at = open_app("pages/ask.py", conv=SAMPLE_ID, trace=trace.id)
    no_errors(at)
    text = all_text(at)
    assert "Closest turns" in text and "none of them was taken as its answer" in text
    assert "What was said" not in text
    body = html_bodies(at)
    listed = [r for r in app_services.raw_store().records(SAMPLE_ID)
              if f'href="{esc(href_record(SAMPLE_ID, r.id))}"' in body]  # "…:R1" is in "…:R12" too
    assert listed, "the closest records are listed"
    shown_turns = source_turns(trace, listed)
    assert 0 < len(shown_turns) <= MAX_TURNS
    assert all(f'id="{anchor_id(b.turn_id)}"' in body for b in shown_turns)
    # the turns the listed records come from are among them
    sourced = {t for r in listed for t in r.evidence_turn_ids} & {b.turn_id for b in trace.buffer}
    assert sourced and sourced <= {b.turn_id for b in shown_turns}
    worded_ids = {b.turn_id for b in trace.buffer if any(h.label != "entity" for h in b.highlights)}
    assert {b.turn_id for b in shown_turns} <= sourced | worded_ids, "no turn matched by a name only"
    # without records, a turn that says one of the question's own words comes before turns
    # matched by a name only
    scored = {m.turn_id for m in trace.matches if m.turn_id}
    plain = [b for b in trace.buffer if b.turn_id in scored and b not in source_turns(trace)]
    assert plain, "more matched turns than are shown"
    worded = plain[-1].model_copy(update={"highlights": (Highlight(start=0, end=3, label="keyword"),)})
    buffer = tuple(worded if b.turn_id == worded.turn_id else b for b in trace.buffer)
    assert worded.turn_id in {b.turn_id for b in source_turns(trace.model_copy(update={"buffer": buffer}))}


def test_requirements_read_as_sentences() -> None:
    from components.plain_words import requirement_sentence
    from memory_core.models import Requirement

    r = Requirement(entity="Ana", entity_type="person", property="takes_place", role="target")
    assert requirement_sentence(0, r, "location") == "R1 · Looking for: where Ana takes place"
    bridge = Requirement(entity="Ana's cat", property="relation", value="cat", role="bridge")
    assert requirement_sentence(0, bridge) == "R1 · First finding out: who or what Ana's cat is (cat)"
    uses = Requirement(entity="Ana", property="pet_name", role="target", depends_on=0)
    assert requirement_sentence(1, uses, "value") == \
        "R2 · Looking for: what Ana pet name (using the answer to R1)"
    ben = Requirement(entity="Ben", entity_type="person", role="constraint")
    assert requirement_sentence(1, ben, "value") == "R2 · Only where: Ben is part of it"


def test_compare_strategies_side_by_side(open_app, app_services) -> None:
    at = open_app("pages/ask.py", conv=SAMPLE_ID, timeout=180)
    widget(at.text_input, "Question").input("What pet does Maya have?")
    button(at, "Ask").click().run()
    full_trace(at)
    widget(at.multiselect, "Strategies").set_value(["ensimem", "bm25"]).run()
    button(at, "Compare").click().run()
    no_errors(at)
    text = all_text(at)
    assert "**ensimem**" in text and "**bm25**" in text


def test_where_a_place_is_is_answered_with_a_place(app_services) -> None:
    # the best turn also names a person the tagger takes for an organisation ("Anneke asked me")
    trace = app_services.queries.ask(SAMPLE_ID, "Where is Kleiwerk?")
    assert trace.answer.text.startswith("Utrecht")


def test_a_pet_is_named_with_what_it_is(app_services) -> None:
    # the owner's pet record names Biscuit; Biscuit's own record says what Biscuit is
    trace = app_services.queries.ask(SAMPLE_ID, "What pet does Maya have?")
    assert trace.answer.text.startswith("Biscuit, a cat [")


def test_the_name_of_a_band_is_no_persons_name(app_services) -> None:
    # the best turn names the band's singer ("Kai, our singer"); the band is named in another
    trace = app_services.queries.ask(SAMPLE_ID, "What is the name of Jonas's band?")
    assert "Low Tides" in trace.answer.text and "Kai" not in trace.answer.text
