"""Which records an answer shows first: those its cited turns gave, then the ones that are what
the plan asks for (entity and property, by name before by family), then the best matched."""

from __future__ import annotations

from memory_core.models import Match, MatchKind, Plan, Record, Requirement
from memory_core.query.pipeline import key_records, requirement_fit


def _record(rid: str, entity: str, prop: str, value: str, turn: str) -> Record:
    return Record(id=rid, conv_id="c", episode_id="e1", entity=entity, entity_type="person",
                  property=prop, value=value, evidence_turn_ids=(turn,))


PLAN = Plan(question="What did Tamsin bake last spring?", answer_target="value",
            requirements=(Requirement(entity="Tamsin", entity_type="person", property="bakes"),))
PLANS = _record("r1", "Tamsin", "has", "plans", "D1:1")
PLAYS = _record("r2", "Tamsin", "plays", "the cello", "D1:2")
BAKES = _record("r3", "Tamsin Okafor", "bakes", "rye loaves", "D1:3")
COOKS = _record("r4", "Tamsin", "cooks", "lentil soup", "D1:4")
OTHER = _record("r5", "Idris", "bakes", "scones", "D1:5")
KIN = _record("r6", "Tamsin's aunt", "bakes", "plum cake", "D1:6")
RECORDS = {r.id: r for r in (PLANS, PLAYS, BAKES, COOKS, OTHER, KIN)}


def _matches(scores: dict[str, float]) -> list[Match]:
    return [Match(requirement=0, kind=MatchKind.STRUCTURED, score=s, record_id=rid)
            for rid, s in scores.items()]


def test_the_fit_is_by_first_name_then_property_name_before_family() -> None:
    assert requirement_fit(PLAN, BAKES) == 2  # "Tamsin Okafor" is Tamsin
    assert requirement_fit(PLAN, COOKS) == 1  # cooking is of baking's family
    assert requirement_fit(PLAN, PLANS) == 0
    assert requirement_fit(PLAN, OTHER) == 0  # another person's baking
    assert requirement_fit(PLAN, KIN) == 0  # "Tamsin's aunt" is someone else
    bridging = PLAN.requirements[0].model_copy(update={"role": "bridge"})
    bridge = PLAN.model_copy(update={"requirements": (bridging,)})
    assert requirement_fit(bridge, BAKES) == 0


def test_records_that_are_what_is_asked_come_before_better_matched_others() -> None:
    matches = _matches({"r1": 0.9, "r5": 0.8, "r2": 0.7, "r4": 0.5, "r3": 0.4})
    shown = key_records(PLAN, matches, RECORDS, cited=[], limit=3)
    # the very property first; playing and cooking are both of baking's family: by match score
    assert [r.id for r in shown] == ["r3", "r2", "r4"]


def test_a_record_the_answer_cites_still_comes_first() -> None:
    matches = _matches({"r1": 0.9, "r3": 0.4})
    assert [r.id for r in key_records(PLAN, matches, RECORDS, cited=["D1:1"])] == ["r1", "r3"]


def test_the_service_reads_only_the_asked_conversations_records(built) -> None:
    trace = built.queries.ask("conv-test", "What did Bob bake for the shop opening?")
    shown = built.queries.key_records("conv-test", trace)
    assert shown and all(r.conv_id == "conv-test" for r in shown), shown
    # the same trace named under another conversation shows none of conv-test's records
    assert built.queries.key_records("conv-other", trace) == []
