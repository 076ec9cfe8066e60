"""Standing instructions: a user's rule for later answers reaches the evidence of the questions
it governs, though it shares hardly a word with them (real store, embedder, fitted retrieval)."""

from __future__ import annotations

from datetime import datetime

from memory_core.models import Conversation, Session, Turn
from memory_core.query.standing import is_standing, rule_clause

RULE = "Always give quantities in grams when I ask about a baking recipe, cups confuse me."
CHAT = [
    ("user", "Hi! I'm planning my week, can you help me sort out a few errands?"),
    ("assistant", "Of course. List the errands and I'll group them by where they take you."),
    ("user", RULE),
    ("assistant", "Noted: grams it is for recipes."),
    ("user", "I need to return a parcel, pick up my bike from the repair shop and renew my library card."),
    ("assistant", "The repair shop and the library are both in the centre; go there on Tuesday."),
    ("user", "What's a good way to keep my plants alive while I'm away for a week?"),
    ("assistant", "Group them in a shady spot and water them well the evening before you leave."),
    ("user", "Can you suggest a stretching routine for after cycling to work?"),
    ("assistant", "Try calf stretches, a hip flexor lunge and a hamstring fold, thirty seconds each."),
    ("user", "My neighbour's dog keeps barking at night. How do I bring it up politely?"),
    ("assistant", "Pick a calm moment, say how it affects your sleep and ask what might help."),
]


def _chat(conv_id: str, speakers: tuple[str, str]) -> Conversation:
    when = datetime(2024, 3, 4, 9, 0)
    names = dict(zip(("user", "assistant"), speakers, strict=True))
    turns = tuple(Turn(id=f"D1:{i + 1}", session=1, index=i, speaker=names[who], text=text, session_time=when)
                  for i, (who, text) in enumerate(CHAT))
    session = Session(index=1, time=when, time_text="9:00 am on 4 March, 2024", turns=turns)
    return Conversation(id=conv_id, speakers=speakers, source_format="test", sessions=(session,))


def test_rules_and_preferences_are_told_from_other_talk() -> None:
    assert is_standing(RULE)
    assert is_standing("Thanks. From now on, keep the answers short.")
    assert is_standing("I'd prefer examples in Python over pseudocode.")
    assert not is_standing("I always forget my keys.")  # a habit told, no rule for the assistant
    assert not is_standing("Which do you prefer, tea or coffee?")
    assert not is_standing("Never mind, I found the receipt.")
    # the rule's own clause, not the request it is told in
    assert rule_clause("I'm sorting my photos, so I prefer short steps, how do I tag them by year?") == \
        "I prefer short steps"
    assert rule_clause("I run Darktable 4.6 and I'd rather not use plugins, can you help?") == \
        "I'd rather not use plugins"
    assert rule_clause(f"Hi!\n{RULE}") == RULE
    assert rule_clause("I framed the prints the way I prefer, but can you check the spacing?") is None


def test_a_users_standing_instruction_is_evidence_for_the_question_it_governs(services) -> None:
    services.raw_store().save_conversation(_chat("chat-rule", ("user", "assistant")))
    _trace, result = services.queries.ask_detailed("chat-rule", "How do I bake banana bread?",
                                                   budget_tokens=60, save=False)
    ci = services.queries.conversation_index("chat-rule")
    taken = {ci.turns[p].id: why for p, why in result.why.items()}
    assert taken.get("D1:3", "").startswith("standing instruction of user")
    assert sum(int(ci.turn_tokens[p]) for p in result.positions) <= 60  # within the cap all the same


def test_between_named_people_an_always_is_no_instruction_to_anyone(services) -> None:
    services.raw_store().save_conversation(_chat("chat-friends", ("Maya", "Jonas")))
    _trace, result = services.queries.ask_detailed("chat-friends", "How do I bake banana bread?",
                                                   budget_tokens=60, save=False)
    assert not any(why.startswith("standing") for why in result.why.values())


def test_a_request_is_answered_with_the_users_rule_for_it(services) -> None:
    services.raw_store().save_conversation(_chat("chat-ask", ("user", "assistant")))
    trace = services.queries.ask("chat-ask", "How do I bake banana bread?")
    assert trace.answer.text.startswith(f"Your standing instruction: “{RULE}”")
    assert trace.answer.cited_turn_ids == ("D1:3",)
    # a question about what was said is no request: the rule is not its answer
    for question in ("Can you list the order in which I brought up my errands?",
                     "Can you remind me which stretches you recommended after cycling?"):
        asked = services.queries.ask("chat-ask", question)
        assert "standing instruction" not in asked.answer.text, question
