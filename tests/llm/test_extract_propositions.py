"""The openai extraction asks for proposition records; its converter resolves "you", merges
restatements and drops catch-all properties (scripted server, real openai client and socket)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from memory_core.backends.openai.backend import OpenAIBackend
from memory_core.backends.openai.prompts import extract
from memory_core.contracts import ConversationInfo
from memory_core.models import Episode, Turn
from tests.llm.conftest import Reply, ScriptedServer, first_user, stage_of

WHEN = datetime(2023, 5, 8, 13, 56)
INFO = ConversationInfo(conv_id="c1", speakers=("Ana", "Boris"))
TEXTS = [("Ana", "I'll add Little Women to my watch list."),
         ("Boris", "Keep going after your dreams! Family time matters to me."),
         ("Ana", "Yes, Little Women goes on my list for sure. You must be thrilled about the trip."),
         ("Boris", "That's awesome!")]
TURNS = [Turn(id=f"D1:{i + 1}", session=1, index=i, speaker=s, text=t, session_time=WHEN)
         for i, (s, t) in enumerate(TEXTS)]
EPISODE = Episode(id="c1:S1:E1", conv_id="c1", session=1, turn_ids=tuple(t.id for t in TURNS),
                  start_time=WHEN)

REPLY: dict[str, Any] = {"records": [
    {"entity": "Ana", "entity_type": "person", "property": "adds", "value": "Little Women to watch list",
     "modality": "planned", "evidence": ["D1:1"], "confidence": 0.9},
    {"entity": "Boris", "entity_type": "person", "property": "encourages",
     "value": "Ana to keep going after her dreams", "evidence": ["D1:2"]},
    {"entity": "Boris", "entity_type": "person", "property": "thinks",
     "value": "family time matters to Boris", "evidence": ["D1:2"]},
    {"entity": "Ana", "entity_type": "person", "property": "adds", "value": "Little  Women to watch list",
     "modality": "planned", "evidence": ["D1:3"]},
    {"entity": "you", "entity_type": "person", "property": "plans", "value": "a trip", "evidence": ["D1:3"]},
    {"entity": "Boris", "entity_type": "person", "property": "talks_about", "value": "awesome",
     "evidence": ["D1:4"]},
], "events": []}


def test_prompt_asks_for_propositions_in_the_speakers_world() -> None:
    body = extract.build_messages(EPISODE, TURNS, INFO)[-1]["content"]
    for rule in ('"Little Women to watch list" (not "to list")', 'property "thinks"', 'property "encourages"',
                 "it is the other speaker's name", "Leave out greetings",
                 "one record whose evidence lists both"):
        assert rule in body


def test_scripted_reply_becomes_faithful_records(server: ScriptedServer, llm_settings: Any) -> None:
    seen: list[str] = []

    def script(body: dict[str, Any], n: int) -> Reply:
        seen.append(stage_of(body))
        assert "[D1:3] Ana: Yes, Little Women" in first_user(body)
        return Reply(json.dumps(REPLY))

    server.script = script
    extraction = OpenAIBackend(llm_settings).extract(EPISODE, TURNS, INFO)
    assert seen == ["extract"]  # the fixes are no reason to ask again
    assert [(r.entity, r.property, r.value, r.modality.value, r.evidence_turn_ids)
            for r in extraction.records] == [
        ("Ana", "adds", "Little Women to watch list", "planned", ("D1:1", "D1:3")),
        ("Boris", "encourages", "Ana to keep going after her dreams", "observed", ("D1:2",)),
        ("Boris", "thinks", "family time matters to Boris", "observed", ("D1:2",)),
        ("Boris", "plans", "a trip", "observed", ("D1:3",)),  # "you" said by Ana is Boris
    ]


def test_converter_reports_each_fix() -> None:
    checked = extract.to_extraction(extract.ExtractReply.model_validate(REPLY), EPISODE, TURNS, INFO)
    text = " | ".join(checked.problems)
    assert "record 4 merged: duplicate" in text
    assert "second-person entity resolved to the other speaker 'Boris'" in text
    assert "record 6 dropped: catch-all property 'talks_about'" in text
    assert not checked.severe
