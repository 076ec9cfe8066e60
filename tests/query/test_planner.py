"""The offline planner: reasoning types, scopes, requirements, vocabulary alignment, time."""

from __future__ import annotations

import pytest

from memory_core.backends.offline.planner import find_entities, plan_question
from memory_core.contracts import Vocabulary
from memory_core.models import ReasoningType, Scope

VOCAB = Vocabulary(
    speakers=("Alice", "Bob"),
    entities=(("Biscuit", "animal"), ("Carol", "person"), ("Berlin", "place")),
    properties=("adopt", "hobby", "job", "pet name", "painting", "travel", "favorite trail"),
)


@pytest.mark.parametrize(
    ("question", "reasoning", "scope"),
    [
        ("When did Alice adopt her puppy?", ReasoningType.TEMPORAL, Scope.POINT),
        ("How long has Alice been painting?", ReasoningType.TEMPORAL, Scope.POINT),
        ("How many times did Bob go hiking?", ReasoningType.AGGREGATION, Scope.ALL),
        ("What is the total number of trails Bob hiked?", ReasoningType.AGGREGATION, Scope.ALL),
        ("What was the total amount Alice spent on paint?", ReasoningType.AGGREGATION, Scope.ALL),
        ("What trails has Bob hiked?", ReasoningType.AGGREGATION, Scope.ALL),
        ("Do Alice and Bob both like baking?", ReasoningType.COMPARISON, Scope.ALL),
        ("Would Alice enjoy a trip to Germany?", ReasoningType.OPEN_DOMAIN, Scope.ALL),
        ("What is Bob's favorite trail?", ReasoningType.POINT, Scope.POINT),
        ("Where does Alice's sister work?", ReasoningType.MULTI_HOP, Scope.POINT),
        # two names gather only when asked about together; a second name after the verb is
        # where the asked thing went, not a second person to ask about
        ("What did Alice and Bob cook in Berlin?", ReasoningType.MULTI_HOP, Scope.ALL),
        ("What did Biscuit bring Alice at night?", ReasoningType.POINT, Scope.POINT),
        ("What book did Alice lend to Carol in Berlin?", ReasoningType.POINT, Scope.POINT),
    ],
)
def test_reasoning_type_and_scope(question: str, reasoning: ReasoningType, scope: Scope) -> None:
    plan = plan_question(question, VOCAB)
    assert plan.reasoning_type == reasoning
    assert plan.scope == scope
    assert plan.question == question


def test_a_name_after_the_verb_is_a_constraint_not_a_second_target() -> None:
    plan = plan_question("What did Biscuit bring Alice at night?", VOCAB)
    assert [(r.entity, r.role) for r in plan.requirements] == [("Biscuit", "target"), ("Alice", "constraint")]
    assert plan.requirements[1].property is None  # Alice is who got it, not who brought something
    joined = plan_question("What did Alice and Bob cook in Berlin?", VOCAB)
    assert [(r.entity, r.role) for r in joined.requirements] == [
        ("Alice", "target"), ("Bob", "target"), ("Berlin", "constraint")]


def test_requirements_name_the_entities_of_the_question() -> None:
    plan = plan_question("Did Alice and Bob both go hiking?", VOCAB)
    assert [r.entity for r in plan.requirements] == ["Alice", "Bob"]
    assert all(r.entity_type == "person" for r in plan.requirements)
    assert all(r.property and "hiking" in r.property for r in plan.requirements)


def test_property_is_aligned_with_the_home_vocabulary_by_fuzzy_match() -> None:
    plan = plan_question("What hobbies does Bob have?", VOCAB)
    assert plan.requirements[0].property == "hobby"


def test_a_light_verb_alone_aligns_no_property() -> None:
    vocab = Vocabulary(speakers=("Alice", "Bob"), properties=("takes_place", "gets_job", "takes_up"))
    assert plan_question("What sports has Bob taken up?", vocab).requirements[0].property == "takes_up"
    place_only = Vocabulary(speakers=("Alice", "Bob"), properties=("takes_place",))
    picked = plan_question("What crafts has Bob taken up?", place_only).requirements[0].property
    assert picked != "takes_place"  # "take" alone says nothing of a place


def test_property_is_aligned_by_embedding_similarity(embedder) -> None:
    without = plan_question("What does Bob do for a living?", VOCAB)
    with_embedder = plan_question("What does Bob do for a living?", VOCAB, embedder=embedder)
    assert without.requirements[0].property != "job"
    assert with_embedder.requirements[0].property == "job"


def test_relative_time_is_kept_as_a_condition_not_resolved() -> None:
    plan = plan_question("What did Alice start doing last year?", VOCAB)
    assert plan.time_condition == "last year"
    assert plan.requirements[0].condition == "last year"
    dated = plan_question("What did Bob bake in May 2023?", VOCAB)
    assert dated.time_condition == "in May 2023"


def test_relation_becomes_a_bridge_hop() -> None:
    plan = plan_question("When did Alice's sister move to Berlin?", VOCAB)
    assert plan.hops == 2
    bridge = plan.requirements[0]
    assert bridge.role == "bridge" and bridge.value == "sister" and bridge.entity == "Alice's sister"
    assert all(r.depends_on == 0 for r in plan.requirements[1:])
    assert plan.answer_target == "time"


def test_answer_targets() -> None:
    assert plan_question("When did Bob hike Dipsea?", VOCAB).answer_target == "time"
    assert plan_question("How many dogs does Alice have?", VOCAB).answer_target == "count"
    assert plan_question("Where did Carol move?", VOCAB).answer_target == "location"
    assert plan_question("Why did Carol move to Berlin?", VOCAB).answer_target == "explanation"
    assert plan_question("Is Biscuit a golden retriever?", VOCAB).answer_target == "boolean"
    # a deadline is a time, asked with "what" ("What is the grant's deadline?")
    assert plan_question("What is the deadline for Carol's grant report?", VOCAB).answer_target == "time"
    assert plan_question("What deadline did Bob set for the fence?", VOCAB).answer_target == "time"
    assert plan_question("What is the grant report about?", VOCAB).answer_target == "value"


def test_entities_match_possessives_and_short_forms() -> None:
    names = [n for n, _t, _s in find_entities("What did Ali's dog and Carol do in Berlin?", VOCAB)]
    assert names == ["Alice", "Carol", "Berlin"]
    assert find_entities("What is the weather like?", VOCAB) == []


def test_question_without_entities_still_has_one_requirement() -> None:
    plan = plan_question("What breed is the puppy?", VOCAB)
    assert len(plan.requirements) == 1
    assert plan.requirements[0].entity is None
    assert "breed" in plan.keywords and "puppy" in plan.keywords


CHAT = Vocabulary(speakers=("user", "assistant"), properties=("siblings", "suggests"))


@pytest.mark.parametrize(
    ("question", "speaker"),
    [
        ("What is the total number of siblings I have?", "user"),
        ("Can you suggest some activities for my commute?", "user"),  # a request now, about me
        ("In our last chat you suggested three names for a cat; which was the first?", "assistant"),
        ("Remind me of the hotel you recommended in Lisbon.", "assistant"),
        ("What is the weather like?", None),
    ],
)
def test_a_chat_with_an_assistant_resolves_i_and_you_to_its_roles(question: str, speaker: str | None) -> None:
    plan = plan_question(question, CHAT)
    assert [r.entity for r in plan.requirements if r.role == "target"] == [speaker]


def test_named_speakers_are_not_resolved_from_pronouns() -> None:
    plan = plan_question("What did I tell you about my sister?", VOCAB)
    assert all(r.entity in (None, "Carol") or "'" in (r.entity or "") for r in plan.requirements)
    assert "Alice" not in {r.entity for r in plan.requirements}


@pytest.mark.parametrize(
    ("question", "keywords"),
    [
        ("What is the total number of siblings I have?", {"siblings"}),
        ("What was the total amount Alice spent on paint?", {"spent", "paint"}),
        ("What was the total cost of the trip?", {"cost", "trip"}),  # a cost is content
        ("What is Carol's phone number?", {"phone", "number"}),  # no count: "number" stays
    ],
)
def test_the_counting_operator_is_no_keyword(question: str, keywords: set[str]) -> None:
    assert set(plan_question(question, VOCAB).keywords) == keywords
