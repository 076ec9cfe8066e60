"""Property families, question forms, and retrieval through the records (collection, ablation)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memory_core.backends.offline.planner import plan_question
from memory_core.contracts import Vocabulary
from memory_core.models import MatchKind, ReasoningType, Scope
from memory_core.query.families import property_families, question_families, value_families
from memory_core.query.qembed import embed_question
from memory_core.query.question_form import asks_for_list
from memory_core.query.retrieve import record_order, retrieve
from memory_core.query.scoring import requirement_families
from memory_core.query.strategies import PRESETS

VOCAB = Vocabulary(speakers=("Alice", "Bob"), entities=(("Carol", "person"),), properties=())


def test_property_names_and_question_words_meet_in_a_family() -> None:
    assert property_families("camps") == property_families("camping") >= {"activities"}
    assert property_families("looks_forward_to") >= {"plans"}
    assert property_families("enrolls_in") >= {"activities"}
    assert "relations" in property_families("child") and "places" in property_families("hometown")
    assert property_families("description") == frozenset() == property_families("shares_image")
    assert value_families("a painting of a sunset") >= {"activities", "creations"}
    assert question_families(["activities", "partake"], "list") == {"activities"}
    assert question_families(["camped"], "location") >= {"places", "activities"}
    assert question_families(["pets", "names"], "list") == {"relations"}


def test_a_bridge_asks_for_relations() -> None:
    plan = plan_question("What does Alice's sister do for work?", VOCAB)
    bridge = plan.requirements[0]
    assert bridge.role == "bridge" and requirement_families(plan, bridge) == {"relations"}
    assert "work" in requirement_families(plan, plan.requirements[1])


@pytest.mark.parametrize(
    ("question", "rtype"),
    [
        ("Would Alice move to Berlin if Carol asked her?", ReasoningType.OPEN_DOMAIN),
        ("What might Bob say about Alice's painting?", ReasoningType.OPEN_DOMAIN),
        ("Is Bob likely to open a third shop?", ReasoningType.OPEN_DOMAIN),
        ("What job does Bob have?", ReasoningType.POINT),  # no hypothetical mood: a stated fact
        ("What did Bob say he would bake for the opening?", ReasoningType.POINT),  # reported speech
        ("What instruments does Alice play?", ReasoningType.AGGREGATION),
        ("What are Alice's pets' names?", ReasoningType.AGGREGATION),
        # a habit (present tense, an action verb) is told on several occasions: gather
        ("What kind of bread does Bob bake?", ReasoningType.MULTI_HOP),
        ("What has Bob painted?", ReasoningType.MULTI_HOP),  # experience summed over time
        ("Why did Carol move to Berlin?", ReasoningType.MULTI_HOP),  # a reason spans turns
        ("What inspired Alice's painting?", ReasoningType.MULTI_HOP),
        ("How did Bob promote his shop?", ReasoningType.MULTI_HOP),
        ("How did Bob feel about the opening?", ReasoningType.POINT),  # a feeling: one turn
        ("What did Bob paint?", ReasoningType.POINT),  # one past occasion
        ("In what ways does Bob help Alice?", ReasoningType.AGGREGATION),
    ],
)
def test_reasoning_type_comes_from_the_question_form(question: str, rtype: ReasoningType) -> None:
    assert plan_question(question, VOCAB).reasoning_type == rtype


def test_plural_category_asks_for_a_list() -> None:
    assert asks_for_list("What LGBTQ+ events has Alice attended?")
    assert asks_for_list("What types of pottery have Alice and her kids made?")
    assert not asks_for_list("What kind of art does Alice make?")
    assert not asks_for_list("What is Bob's favorite trail?")


def test_records_of_the_asked_family_are_collected_across_sessions(built) -> None:
    ci = built.queries.conversation_index("conv-test")
    question = "What activities does Bob do?"
    plan = plan_question(question, ci.vocabulary())
    assert plan.scope == Scope.ALL
    first = replace(PRESETS["ensimem"], context_top=0)  # records are opened before any turn
    result = retrieve(ci, plan, embed_question(built.embedder, question), first)
    assert result.scored is not None
    ordered = [ci.records[r] for _s, _i, r in record_order(plan, result.scored, 0.45)]
    # Bob's hikes (three sessions) and baking are activities; his job and Alice's records are not
    assert {(r.property, r.evidence_turn_ids[0]) for r in ordered} == {
        ("hike", "D1:4"),
        ("hike", "D2:3"),
        ("hike", "D3:4"),
        ("bake", "D3:2"),
    }
    taken = {ci.turns[p].id for p, why in result.why.items() if why.startswith("record r0: Bob")}
    assert taken == {"D1:4", "D2:3", "D3:4", "D3:2"}


def test_the_ablation_preset_uses_no_record_channel(built) -> None:
    full = built.queries.ask("conv-test", "What activities does Bob do?")
    turns_only = built.queries.ask("conv-test", "What activities does Bob do?", strategy="ensimem-turns")
    assert any(m.kind == MatchKind.STRUCTURED for m in full.matches)
    assert not any(m.kind == MatchKind.STRUCTURED for m in turns_only.matches)
    cfg = PRESETS["ensimem-turns"]
    assert (cfg.w_record_lexical, cfg.w_record_dense, cfg.w_structured, cfg.record_share) == (0, 0, 0, 0)
    assert replace(PRESETS["ensimem"], families=False).families is False
