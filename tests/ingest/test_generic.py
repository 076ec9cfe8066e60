"""The generic chat format: JSON (three shapes), JSONL and CSV."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest

from memory_core.errors import IngestError
from memory_core.ingest import load_file

TURNS: list[dict[str, Any]] = [
    {"conversation_id": "c1", "session": 1, "session_time": "2023-05-01T10:00:00", "speaker": "Eve",
     "text": "Booked the train!"},
    {"conversation_id": "c1", "session": 1, "session_time": "2023-05-01T10:00:00", "speaker": "Sam",
     "text": "", "image_caption": "a ticket", "image_url": "https://example.org/t.jpg"},
    {"conversation_id": "c1", "session": 2, "session_time": "14 May 2023", "speaker": "Eve",
     "text": "Back home.", "turn_id": "x-9"},
    {"conversation_id": "c2", "speaker": "Ann", "text": "Other chat."},
]


def test_json_list_of_turns_groups_by_conversation(write):
    loaded = load_file(write("turns.json", TURNS))
    assert loaded.format == "json" and loaded.warnings == []
    c1, c2 = loaded.conversations
    assert (c1.id, c2.id) == ("c1", "c2")
    assert c1.speakers == ("Eve", "Sam")
    assert [t.id for t in c1.turns] == ["D1:1", "D1:2", "x-9"]
    assert c1.turns[1].text == "" and c1.turns[1].image_caption == "a ticket"
    assert c1.turns[1].image_url == "https://example.org/t.jpg"
    assert c1.sessions[0].time == datetime(2023, 5, 1, 10, 0)
    assert c1.sessions[1].time == datetime(2023, 5, 14) and c1.sessions[1].time_text == "14 May 2023"
    assert c2.sessions[0].index == 1 and c2.sessions[0].time is None  # no session: session 1


def test_json_object_form_with_qa_and_speakers(write):
    doc = {"conversation_id": "trip", "speakers": ["Eve", "Sam", "Zed"],
           "turns": [{k: v for k, v in t.items() if k != "conversation_id"} for t in TURNS[:3]],
           "qa": [{"question": "What did Eve book?", "answer": "a train", "evidence": ["D1:1"],
                   "question_time": "2023-05-20"}],
           "meta": {"note": "hand-made"}}
    conv = load_file(write("trip.json", doc)).conversations[0]
    assert conv.id == "trip" and conv.speakers == ("Eve", "Sam", "Zed")
    assert conv.qa[0].evidence == ("D1:1",) and conv.qa[0].question_time == datetime(2023, 5, 20)
    assert conv.meta == {"note": "hand-made"}


def test_json_list_of_objects_and_ids_from_the_file_name(write):
    doc = [{"turns": [{"speaker": "A", "text": "one"}]}, {"turns": [{"speaker": "B", "text": "two"}]}]
    loaded = load_file(write("pair.json", doc))
    assert [c.id for c in loaded.conversations] == ["pair-1", "pair-2"]
    one = load_file(write("solo chat.json", [{"speaker": "A", "text": "x"}])).conversations[0]
    assert one.id == "solo-chat"


def test_turns_in_any_session_order_keep_file_order_inside_a_session(write):
    rows = [{"speaker": "A", "text": "s2 first", "session": 2},
            {"speaker": "B", "text": "s1 first", "session": 1},
            {"speaker": "A", "text": "s2 second", "session": "2"}]
    conv = load_file(write("order.json", rows)).conversations[0]
    assert [(t.id, t.text) for t in conv.turns] == [
        ("D1:1", "s1 first"), ("D2:1", "s2 first"), ("D2:2", "s2 second")]


def test_jsonl_streams_turns_and_names_bad_lines(write):
    lines = [json.dumps(t) for t in TURNS]
    loaded = load_file(write("chat.jsonl", "\n".join(lines) + "\n\n"))
    assert loaded.format == "jsonl"
    assert [c.id for c in loaded.conversations] == ["c1", "c2"]
    assert [t.id for t in loaded.conversations[0].turns] == ["D1:1", "D1:2", "x-9"]
    bad = [*lines[:2], '{"speaker": "Eve", "text": "oops"', *lines[2:]]
    with pytest.raises(IngestError) as err:
        load_file(write("bad.jsonl", "\n".join(bad)))
    assert err.value.where.startswith("line 3, column ")
    assert "invalid JSON" in err.value.what or "truncated" in err.value.what
    wrong = [*lines[:3], '["Eve", "hi"]']
    with pytest.raises(IngestError) as err:
        load_file(write("wrong.jsonl", "\n".join(wrong)))
    assert (err.value.where, err.value.what) == ("line 4", "expected a turn object, got list")
    field = [*lines[:1], '{"speaker": ["Eve"], "text": "hi"}']
    with pytest.raises(IngestError) as err:
        load_file(write("field.jsonl", "\n".join(field)))
    assert err.value.where == "line 2, $.speaker" and "expected a string, got list" in err.value.what


def test_csv_with_the_same_columns(write):
    text = ("conversation_id,session,session_time,speaker,text,turn_id,image_caption\n"
            "c1,1,2023-05-01 10:00,Eve,\"Hi, Sam\",,\n"
            "c1,1,2023-05-01 10:00,Sam,,,a photo of a ticket\n"
            "c1,2,14 May 2023,Eve,\"Multi\nline\",t-3,\n")
    loaded = load_file(write("chat.csv", text))
    assert loaded.format == "csv"
    conv = loaded.conversations[0]
    assert [t.id for t in conv.turns] == ["D1:1", "D1:2", "t-3"]
    assert conv.turns[0].text == "Hi, Sam" and conv.turns[1].image_caption == "a photo of a ticket"
    assert conv.turns[2].text == "Multi\nline"
    assert conv.sessions[0].time == datetime(2023, 5, 1, 10, 0)


def test_csv_missing_columns_are_named(write):
    with pytest.raises(IngestError) as err:
        load_file(write("cols.csv", "conversation_id,session,who,message\nc,1,Eve,hi\n"))
    assert err.value.where == "line 1 (header)"
    assert "missing CSV column(s) speaker, text" in err.value.what


def test_csv_bad_rows_name_their_line(write):
    with pytest.raises(IngestError) as err:
        load_file(write("rows.csv", "speaker,text\nEve,hi\nSam,hi,extra\n"))
    assert err.value.where == "line 3" and "expected 2 fields" in err.value.what
    with pytest.raises(IngestError) as err:
        load_file(write("session.csv", "speaker,text,session\nEve,hi,first\n"))
    assert err.value.where == "line 2, column session" and "whole number" in err.value.what
    with pytest.raises(IngestError) as err:
        load_file(write("zero.csv", "speaker,text,session\nEve,hi,0\n"))
    assert "expected a number >= 1" in err.value.what


def test_conflicting_ids_and_duplicates(write):
    with pytest.raises(IngestError) as err:
        load_file(write("dup.json", [{"speaker": "A", "text": "1", "turn_id": "t"},
                                     {"speaker": "B", "text": "2", "turn_id": "t"}]))
    assert err.value.where == "$[1]" and "duplicate turn id 't' (first at $[0])" in err.value.what
    doc = {"conversation_id": "x", "turns": [{"conversation_id": "y", "speaker": "A", "text": "1"}]}
    with pytest.raises(IngestError) as err:
        load_file(write("mix.json", doc))
    assert err.value.where == "$.turns[0].conversation_id"
    twice = [{"conversation_id": "x", "turns": [{"speaker": "A", "text": "1"}]},
             {"conversation_id": "x", "turns": [{"speaker": "A", "text": "2"}]}]
    with pytest.raises(IngestError, match="duplicate conversation id 'x'"):
        load_file(write("twice.json", twice))
