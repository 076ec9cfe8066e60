"""LongMemEval import: each item is one conversation with its question attached."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from memory_core.config import ImportLimits
from memory_core.errors import IngestError
from memory_core.ingest import load_file, stream_file
from memory_core.progress import Step


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
        ({"haystack_sessions": [[{"role": "user", "content": 7}]], "haystack_dates": [],
          "haystack_session_ids": []}, "$[0].haystack_sessions[0][0].content", "expected a string"),
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


def test_an_empty_turn_is_kept_in_place_with_a_warning(write):
    sessions = [[{"role": "user", "content": "Any tips for my red bike?"},
                 {"role": "assistant", "content": ""},
                 {"role": "user", "content": "It is red.", "has_answer": True}]]
    loaded = load_file(write("lme.json", [item(haystack_sessions=sessions, haystack_dates=[],
                                               haystack_session_ids=[])]))
    conv = loaded.conversations[0]
    assert [(t.id, t.text) for t in conv.turns] == [
        ("D1:1", "Any tips for my red bike?"), ("D1:2", ""), ("D1:3", "It is red.")]
    assert conv.qa[0].evidence == ("D1:3",)
    assert [w for w in loaded.warnings if "$[0].haystack_sessions[0][1]" in w and "'D1:2' is empty" in w]


def test_abstention_items_are_marked_and_number_answers_kept_as_text(write):
    loaded = load_file(write("lme.json", [item("q-9_abs", answer="You did not mention it."),
                                          item("q-10", answer=12)]))
    abstained, counted = loaded.conversations
    assert abstained.meta["abstention"] is True and counted.meta["abstention"] is False
    assert counted.qa[0].answer == "12"


def test_a_file_over_the_limit_streams_item_by_item(write):
    items = [item(f"q-{i}", question=f"Question {i}?") for i in range(30)]
    path = write("lme.json", items)
    small = ImportLimits(max_file_mb=path.stat().st_size / 2**20 / 3)
    with pytest.raises(IngestError) as err:
        load_file(path, limits=small)
    assert "python -m memory_core import FILE" in err.value.what, str(err.value)
    steps: list[Step] = []
    streamed = stream_file(path, limits=small, on_progress=steps.append)
    progress = [(s.stage, s.done, s.total) for s in steps]
    assert streamed.per_item and streamed.format == "longmemeval"
    assert streamed.ids == [f"q-{i}" for i in range(30)] and streamed.turns == 120
    assert progress[-1] == ("checked", 30, 30)
    whole = load_file(path).conversations
    assert list(streamed.conversations()) == whole
    assert list(streamed.conversations()) == whole  # read again on demand


def test_the_turn_limit_applies_per_item_when_streamed(write):
    path = write("lme.json", [item(f"q-{i}") for i in range(3)])
    limits = ImportLimits(max_turns=5)
    with pytest.raises(IngestError, match="more than 5 turns"):
        load_file(path, limits=limits)
    assert stream_file(path, limits=limits).turns == 12


@pytest.mark.parametrize(
    ("content", "where", "what"),
    [
        (lambda t: t[: len(t) * 2 // 3], "$[", "truncated JSON"),
        (lambda t: t.replace('"question": "Question 7?"', '"question" "Question 7?"'), "$[7]",
         "invalid JSON"),
        (lambda t: t.replace('"answer": "red"', '"answer": ' + "[" * 100 + "]" * 100, 1), "$[0]",
         "nested deeper than 64 levels"),
    ],
)
def test_a_broken_big_file_is_refused_with_the_item_and_byte(write, content, where, what):
    text = json.dumps([item(f"q-{i}", question=f"Question {i}?") for i in range(12)])
    path = write("lme.json", content(text))
    small = ImportLimits(max_file_mb=len(text) / 2**20 / 4)
    with pytest.raises(IngestError) as err:
        stream_file(path, limits=small)
    assert err.value.where.startswith(where) and "near byte" in err.value.where, str(err.value)
    assert what in err.value.what


def test_a_duplicate_id_in_a_streamed_file_is_refused(write):
    path = write("lme.json", [item("a"), item("b"), item("a")])
    with pytest.raises(IngestError, match=r"'a'.*appears more than once"):
        stream_file(path, limits=ImportLimits(max_file_mb=0.0001))


def test_an_item_not_an_object_is_refused_by_its_index(write):
    path = write("lme.json", [item("a"), "b"])
    with pytest.raises(IngestError) as err:
        stream_file(path, limits=ImportLimits(max_file_mb=0.0001))
    assert err.value.where == "$[1]" and "a LongMemEval item object" in err.value.what


def test_the_official_dev_items_import_as_downloaded(bench: Callable[[str], Path]) -> None:
    dev = bench("lme_s_dev.json")
    streamed = stream_file(dev, limits=ImportLimits(max_file_mb=1))
    assert streamed.per_item and len(streamed.ids) == 15
    convs = {c.id: c for c in streamed.conversations()}
    raw = {x["question_id"]: x for x in json.loads(dev.read_text(encoding="utf-8"))}
    for qid, conv in convs.items():
        sessions = raw[qid]["haystack_sessions"]
        assert len(conv.turns) == sum(len(s) for s in sessions)
        gold = {f"D{k}:{n}" for k, s in enumerate(sessions, 1) for n, t in enumerate(s, 1)
                if t.get("has_answer")}
        assert set(conv.qa[0].evidence) == gold
        assert conv.meta["abstention"] == qid.endswith("_abs")
        assert conv.qa[0].answer == str(raw[qid]["answer"])
    empty = [(c.id, t.id) for c in convs.values() for t in c.turns if not t.text]
    assert len(empty) == 1
    conv_id, turn_id = empty[0]
    k, n = (int(x) for x in turn_id[1:].split(":"))
    assert raw[conv_id]["haystack_sessions"][k - 1][n - 1]["content"] == ""
    assert any(turn_id in w for w in streamed.warnings)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "cp1252"])
def test_a_streamed_file_in_another_encoding(write, encoding):
    items = [item(f"q-{i}", question=f"Où est mon vélo {i}?") for i in range(5)]
    path = write("lme.json", json.dumps(items, ensure_ascii=False).encode(encoding))
    streamed = stream_file(path, limits=ImportLimits(max_file_mb=0.0001))
    assert streamed.per_item and len(streamed.ids) == 5
    assert [c.qa[0].question for c in streamed.conversations()][4] == "Où est mon vélo 4?"
