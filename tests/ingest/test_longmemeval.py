"""LongMemEval import: each item is one conversation with its question attached."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from memory_core.errors import IngestError
from memory_core.ingest import load_file


def item(qid: str = "q-001", **overrides: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "question_id": qid,
        "question_type": "single-session-user",
        "question": "What colour is my bike?",
        "answer": "red",
        "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_session_ids": ["s-a", "s-b"],
        "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/22 (Mon) 18:05"],
        "haystack_sessions": [
            [{"role": "user", "content": "I need tyre advice."},
             {"role": "assistant", "content": "Sure, what bike?"}],
            [{"role": "user", "content": "My bike is red, by the way.", "has_answer": True},
             {"role": "assistant", "content": "Noted!", "has_answer": False}],
        ],
        "answer_session_ids": ["s-b"],
    }
    value.update(overrides)
    return value


def test_items_become_conversations_with_their_question(write):
    loaded = load_file(write("lme.json", [item("q-001"), item("q-002", answer=3)]))
    assert loaded.format == "longmemeval"
    assert loaded.warnings == []
    conv = loaded.conversations[0]
    assert [c.id for c in loaded.conversations] == ["q-001", "q-002"]
    assert conv.speakers == ("user", "assistant")
    assert [t.id for t in conv.turns] == ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert [t.speaker for t in conv.turns] == ["user", "assistant", "user", "assistant"]
    assert conv.sessions[0].time == datetime(2023, 5, 20, 2, 21)
    assert conv.sessions[1].time_text == "2023/05/22 (Mon) 18:05"
    (qa,) = conv.qa
    assert (qa.qid, qa.question, qa.answer, qa.evidence) == (0, "What colour is my bike?", "red", ("D2:1",))
    assert qa.question_time == datetime(2023, 5, 30, 23, 40)
    assert conv.meta["question_type"] == "single-session-user"
    assert conv.meta["answer_session_ids"] == ["s-b"]
    assert conv.meta["haystack_session_ids"] == ["s-a", "s-b"]
    assert loaded.conversations[1].qa[0].answer == "3"


@pytest.mark.parametrize(
    ("change", "where", "what"),
    [
        ({"haystack_dates": ["2023/05/20 (Sat) 02:21"]}, "$[0].haystack_dates", "1 dates for 2 sessions"),
        ({"question_id": None}, "$[0].question_id", "missing question_id"),
        ({"haystack_sessions": [[{"content": "hi"}]], "haystack_dates": [], "haystack_session_ids": []},
         "$[0].haystack_sessions[0][0].role", "missing"),
        ({"haystack_sessions": [[{"role": "user", "content": ""}]], "haystack_dates": [],
          "haystack_session_ids": []}, "$[0].haystack_sessions[0][0]", "neither text nor image caption"),
        ({"haystack_sessions": "none"}, "$[0].haystack_sessions", "expected a list of sessions"),
    ],
)
def test_bad_items_are_refused_with_their_path(write, change, where, what):
    with pytest.raises(IngestError) as err:
        load_file(write("lme.json", [item(**change)]))
    assert (err.value.where, what in err.value.what) == (where, True), str(err.value)


def test_unreadable_haystack_date_is_a_warning(write):
    loaded = load_file(write("lme.json", [item(haystack_dates=["2023/05/20 (Sat) 02:21", "soon"])]))
    assert loaded.conversations[0].sessions[1].time is None
    assert any("$[0].haystack_dates[1]" in w for w in loaded.warnings)


def test_duplicate_question_ids_are_refused(write):
    with pytest.raises(IngestError, match="appears more than once"):
        load_file(write("lme.json", [item("same"), item("same")]))
