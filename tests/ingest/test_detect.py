"""Format detection from content (not the extension), the --format override, date reading."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from memory_core.errors import IngestError
from memory_core.ingest import detect_format, load_file
from memory_core.timeexpr import parse_datetime, search_datetime

from .samples import locomo_sample

LME = [{"question_id": "q1", "question": "?", "answer": "a", "haystack_sessions": [[
    {"role": "user", "content": "hi"}]]}]
CLAUDE = [{"uuid": "c", "name": "n", "created_at": "2024-01-01T00:00:00Z", "chat_messages": [
    {"sender": "human", "text": "hi", "content": [{"type": "text", "text": "hi"}]}]}]
REALTALK = {"name": {"speaker_1": "A", "speaker_2": "B"}, "session_1": [
    {"clean_text": "hi", "speaker": "A", "date_time": "01.02.2024, 10:00:00", "dia_id": "D1:1"}]}
BEAM = [{"batch_number": 1, "turns": [[{"role": "user", "id": 0, "content": "hi ->-> 1,1"}]]}]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (json.dumps([locomo_sample()]), "locomo"),
        (json.dumps(locomo_sample(), indent=2), "locomo"),
        (json.dumps(LME), "longmemeval"),
        (json.dumps(CLAUDE), "claude"),
        (json.dumps(REALTALK, indent=2), "realtalk"),
        (json.dumps(BEAM), "beam"),
        (json.dumps([{"speaker": "A", "text": "hi"}]), "json"),
        (json.dumps({"conversation_id": "c", "turns": [{"speaker": "A", "text": "hi"}]}, indent=1), "json"),
        ('{"speaker": "A", "text": "hi"}\n{"speaker": "B", "text": "yo"}\n', "jsonl"),
        ("speaker,text\nA,hi\n", "csv"),
        ("Ana: hi\nBen: hello\n", "text"),
        ("=== 8 May 2023 ===\nAna: hi\n", "text"),
    ],
)
def test_detected_from_content_whatever_the_extension(write, content, expected):
    path = write("file.dat", content)  # the extension says nothing
    assert detect_format(path) == expected
    assert load_file(path).format == expected


def test_extension_does_not_override_content(write):
    path = write("misleading.csv", "Ana: hi, how are you\nBen: fine\n")
    assert detect_format(path) == "text"


def test_format_override_forces_the_parser(write):
    path = write("locomo.json", [locomo_sample()])
    assert load_file(path, fmt="LoCoMo").format == "locomo"
    with pytest.raises(IngestError) as err:
        load_file(path, fmt="json")  # read as the generic format: a sample is not a turn
    assert err.value.where == "$[0].speaker" and err.value.what == "missing"
    with pytest.raises(IngestError) as err:
        load_file(path, fmt="xml")
    assert err.value.where == "format" and "unknown format 'xml'" in err.value.what


def test_unknown_formats_are_refused(write):
    for content in ("Just some prose without any speakers.\nMore prose.\n", "42\n", '"a string"'):
        with pytest.raises(IngestError, match="unknown format"):
            load_file(write("prose.txt", content))
    with pytest.raises(IngestError) as err:
        load_file(write("odd.json", {"hello": "world", "threads": []}))
    assert err.value.where == "$"
    assert err.value.what.startswith("unrecognised JSON shape (an object with keys 'hello', 'threads'): "
                                     "expected LoCoMo samples, LongMemEval items, a REALTALK chat, BEAM "
                                     "batches, ChatGPT or Claude.ai chats")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56)),
        ("12:09 am on 13 September, 2023", datetime(2023, 9, 13, 0, 9)),
        ("2023/05/20 (Sat) 02:21", datetime(2023, 5, 20, 2, 21)),
        ("2023-05-14", datetime(2023, 5, 14)),
        ("2023-05-14T10:00:00+02:00", datetime(2023, 5, 14, 8, 0)),
        ("Sunday, May 14, 2023 10:30 pm", datetime(2023, 5, 14, 22, 30)),
        ("14th May 2023 9am", datetime(2023, 5, 14, 9, 0)),
        ("14.05.2023", datetime(2023, 5, 14)),
        ("05/06/2023", None),  # ambiguous
        ("32 May 2023", None),
        ("last Saturday", None),
        ("8 May 2023 and then some", None),
        ("", None),
    ],
)
def test_parse_datetime(text, expected):
    assert parse_datetime(text) == expected


def test_search_datetime_inside_headers():
    assert search_datetime("=== Session 2 — 14 May 2023 ===") == datetime(2023, 5, 14)
    assert search_datetime("Session 3: 1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert search_datetime("Session 2") is None
