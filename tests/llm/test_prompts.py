"""The pure parts of the LLM stages: message builders and validating converters (no model)."""

from __future__ import annotations

from datetime import datetime

from memory_core.backends.openai.prompts import answer, extract, judge, plan, segment
from memory_core.contracts import ConversationInfo, Vocabulary
from memory_core.models import BufferTurn, Episode, Modality, Plan, ReasoningType, Scope, Session, Turn

WHEN = datetime(2023, 5, 8, 13, 56)
INFO = ConversationInfo(conv_id="c1", speakers=("Ana", "Bo"))


def _session(n: int = 6) -> Session:
    texts = ["Hi Bo!", "Hey Ana, how are you?", "I adopted a puppy named Pixel last Sunday.",
             "Oh wow, what breed?", "A beagle. My sister Clara helped me pick him.",
             "I started a pottery class at Kleiwerk."]
    turns = tuple(Turn(id=f"D1:{i + 1}", session=1, index=i, speaker=("Ana", "Bo")[i % 2],
                       text=texts[i % len(texts)], session_time=WHEN) for i in range(n))
    return Session(index=1, time=WHEN, time_text="1:56 pm on 8 May, 2023", turns=turns)


def _span(start: str, end: str, **kw: str) -> segment.EpisodeSpan:
    return segment.EpisodeSpan(start=start, end=end, theme=kw.get("theme", "t"),
                               theme_type=kw.get("theme_type", "topic"))


# ---------------------------------------------------------------------------- segment
def test_segment_prompt_lists_every_turn_id_and_the_session_date() -> None:
    messages = segment.build_messages(_session(), INFO)
    body = messages[-1]["content"]
    assert [m["role"] for m in messages] == ["system", "user"]
    for i in range(1, 7):
        assert f"[D1:{i}] " in body
    assert "2023" in body and "JSON" in messages[0]["content"]


def test_segment_well_formed_reply_is_accepted_as_is() -> None:
    reply = segment.SegmentReply(episodes=[_span("D1:1", "D1:2"), _span("D1:3", "D1:6", theme_type="event")])
    checked = segment.to_episodes(reply, _session(), INFO)
    assert checked.problems == [] and not checked.severe
    assert checked.value is not None
    assert [e.turn_ids for e in checked.value] == [("D1:1", "D1:2"), ("D1:3", "D1:4", "D1:5", "D1:6")]
    assert [e.id for e in checked.value] == ["c1:S1:E1", "c1:S1:E2"]
    assert checked.value[1].theme_type.value == "event"


def test_segment_gaps_overlaps_and_order_are_repaired_to_an_exact_cover() -> None:
    reply = segment.SegmentReply(episodes=[_span("D1:4", "D1:6"), _span("D1:1", "D1:4"),
                                           _span("D1:9", "D1:9")])
    checked = segment.to_episodes(reply, _session(), INFO)
    assert checked.value is not None
    flat = [t for e in checked.value for t in e.turn_ids]
    assert flat == [f"D1:{i}" for i in range(1, 7)]
    text = " | ".join(checked.problems)
    assert "not in this session: D1:9" in text and "more than one episode: D1:4" in text
    assert "not in session order" in text


def test_segment_leaving_most_turns_uncovered_is_severe_and_nothing_valid_is_unusable() -> None:
    poor = segment.to_episodes(segment.SegmentReply(episodes=[_span("D1:1", "D1:1")]), _session(), INFO)
    assert poor.severe and "turns in no episode" in " ".join(poor.problems)
    assert poor.value is not None
    assert [t for e in poor.value for t in e.turn_ids] == [f"D1:{i}" for i in range(1, 7)]
    none = segment.to_episodes(segment.SegmentReply(episodes=[_span("X1", "X2"), _span("D1:5", "D1:2")]),
                               _session(), INFO)
    assert none.value is None and any("starts (D1:5) after it ends" in p for p in none.problems)


def test_segment_reply_model_tolerates_loose_types() -> None:
    reply = segment.SegmentReply.model_validate(
        {"episodes": [{"start": "D1:1", "end": "D1:6", "theme": None, "keywords": "pets", "extra": 1}]})
    checked = segment.to_episodes(reply, _session(), INFO)
    assert checked.value is not None
    assert checked.value[0].theme == ("pets",) and "has no theme" in checked.problems[0]


# ---------------------------------------------------------------------------- extract
def _episode() -> tuple[Episode, list[Turn]]:
    turns = list(_session().turns[2:5])
    ep = Episode(id="c1:S1:E2", conv_id="c1", session=1, turn_ids=tuple(t.id for t in turns),
                 theme=("puppy",), start_time=WHEN)
    return ep, turns


def test_extract_prompt_shows_only_the_episode_turns() -> None:
    ep, turns = _episode()
    body = extract.build_messages(ep, turns, INFO)[-1]["content"]
    assert "[D1:3] Ana: I adopted a puppy" in body and "[D1:1]" not in body and "c1:S1:E2" in body


def test_extract_keeps_grounded_records_and_reports_every_fix() -> None:
    ep, turns = _episode()
    reply = extract.ExtractReply.model_validate({"records": [
        {"entity": "I", "entity_type": "person", "property": "Adopted Pet", "value": "puppy Pixel",
         "evidence": ["D1:3"], "time_text": "last Sunday", "valid_time": "2023-05-07", "confidence": "high"},
        {"entity": "Pixel", "entity_type": "dog", "property": "breed", "value": "beagle",
         "evidence": "D1:5, D1:99", "modality": "uncertain"},
        {"entity": "Clara", "property": "helped_pick", "value": "Pixel", "evidence": ["D1:1"]},
        {"entity": "Zeppelin", "property": "flies", "value": "high", "evidence": ["D1:3"]},
        {"entity": "", "property": "x", "evidence": ["D1:3"]},
        {"entity": "Pixel", "entity_type": "dog", "property": "breed", "value": "beagle",
         "evidence": ["D1:5"]},
    ], "events": [{"action": "adopt a puppy", "participants": ["Ana", "Mars"], "evidence": ["D1:3"],
                   "valid_time": "last Sunday"},
                  {"action": "fly", "evidence": ["D9:9"]}]})
    checked = extract.to_extraction(reply, ep, turns, INFO)
    assert checked.value is not None
    records = checked.value.records
    assert [(r.entity, r.property, r.value) for r in records] == [
        ("Ana", "adopted_pet", "puppy Pixel"), ("Pixel", "breed", "beagle")]
    first, second = records
    assert first.valid_time == "2023-05-07" and first.valid_time_text == "last Sunday"
    assert first.confidence == 0.5 and first.source_speaker == "Ana" and first.origin == "openai"
    assert second.evidence_turn_ids == ("D1:5",) and second.entity_type == "other"
    assert second.modality is Modality.HYPOTHETICAL
    assert all(set(r.evidence_turn_ids) <= set(ep.turn_ids) and r.episode_id == ep.id for r in records)
    text = " | ".join(checked.problems)
    for expected in ("resolved to the speaker 'Ana'", "not in this episode: D1:99", "record 3 dropped",
                     "'Zeppelin' does not occur", "empty entity", "duplicate", "event 2 dropped"):
        assert expected in text
    (event,) = checked.value.events
    assert event.participants == ("Ana",) and event.time is None and event.time_text is None
    assert checked.severe  # 8 proposed, 5 dropped


def test_extract_clean_reply_has_no_problems() -> None:
    ep, turns = _episode()
    reply = extract.ExtractReply.model_validate({"records": [
        {"entity": "Ana", "entity_type": "person", "property": "adopted", "value": "a puppy named Pixel",
         "evidence": ["D1:3"], "modality": "observed", "confidence": 0.9}], "events": []})
    checked = extract.to_extraction(reply, ep, turns, INFO)
    assert checked.value is not None
    assert checked.problems == [] and not checked.severe and len(checked.value.records) == 1


# ---------------------------------------------------------------------------- plan
def test_plan_prompt_carries_vocabulary_and_question_time() -> None:
    vocab = Vocabulary(speakers=("Ana", "Bo"), entities=(("Pixel", "animal"),), properties=("adopted",),
                       question_time=WHEN)
    body = plan.build_messages("When did Ana adopt Pixel?", vocab)[-1]["content"]
    assert "Pixel (animal)" in body and "adopted" in body and "Monday 08 May 2023" in body
    assert body.rstrip().endswith("Question: When did Ana adopt Pixel?")


def test_plan_validation_drops_empty_requirements_and_fixes_links() -> None:
    reply = plan.PlanReply.model_validate({
        "answer_target": "count", "reasoning_type": "aggregation", "scope": "point",
        "requirements": [{"entity": "", "property": ""},
                         {"entity": "Ana", "property": "Visited Place", "role": "target"},
                         {"entity": "Bo", "property": "likes", "role": "helper", "depends_on": 1},
                         {"entity": "Ana", "property": "x", "depends_on": "seven"}],
        "keywords": ["visited"]})
    checked = plan.to_plan(reply, "How many places did Ana visit?")
    p = checked.value
    assert isinstance(p, Plan) and p.scope is Scope.ALL and p.reasoning_type is ReasoningType.AGGREGATION
    assert [r.entity for r in p.requirements] == ["Ana", "Bo", "Ana"]
    assert p.requirements[0].property == "visited_place"
    assert p.requirements[1].role == "target" and p.requirements[1].depends_on == 0
    assert p.requirements[2].depends_on is None and p.hops == 2
    text = " | ".join(checked.problems)
    assert "requirement 0 dropped" in text and "unknown role" in text and "scope set to all" in text
    assert "depends_on -1" in text


def test_plan_without_requirements_is_unusable() -> None:
    checked = plan.to_plan(plan.PlanReply(requirements=[]), "hello?")
    assert checked.value is None and "no usable requirement" in checked.problems[0]


# ---------------------------------------------------------------------------- answer / judge
def _buffer() -> list[BufferTurn]:
    return [BufferTurn(turn_id=t.id, speaker=t.speaker, text=t.text, session=1, session_time=WHEN,
                       episode_id="c1:S1:E2") for t in _session().turns[2:5]]


def test_answer_prompt_groups_excerpts_and_validates_citations() -> None:
    p = Plan(question="What breed is Pixel?")
    body = answer.build_messages("What breed is Pixel?", p, _buffer())[-1]["content"]
    assert "--- c1:S1:E2 (session 1, 08 May 2023)" in body and "[D1:5] Ana: A beagle." in body
    checked = answer.to_answer(answer.AnswerReply(answer="A beagle", cited_turn_ids=["D1:5", "D1:1"]),
                               _buffer())
    assert checked.value is not None
    assert checked.value.cited_turn_ids == ("D1:5",) and checked.value.supported
    assert "D1:1" in checked.problems[0]
    unknown = answer.to_answer(answer.AnswerReply(answer="Unknown.", cited_turn_ids=["D1:5"],
                                                  supported=True), _buffer())
    assert unknown.value is not None
    assert unknown.value.supported is False and unknown.value.cited_turn_ids == ()
    assert answer.to_answer(answer.AnswerReply(answer="  "), _buffer()).value is None


def test_judge_labels_and_plain_text_rescue() -> None:
    assert judge.to_verdict(judge.JudgeReply(label="correct")).value is True
    assert judge.to_verdict(judge.JudgeReply(label="WRONG")).value is False
    assert judge.to_verdict(judge.JudgeReply(label="maybe")).value is None
    rescued = judge.plain_verdict("The answer is CORRECT.")
    assert rescued is not None and rescued.label == "CORRECT"
    assert judge.plain_verdict("CORRECT or WRONG?") is None
    body = judge.build_messages("Q?", "May 7, 2023", "7 May 2023")[-1]["content"]
    assert "Reference answer: May 7, 2023" in body and "Generated answer: 7 May 2023" in body
