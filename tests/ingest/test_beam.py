"""BEAM chats as published: a directory with chat.json and its probing questions beside it —
checked on an invented chat and against the bench's own conversion of the raw files."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from memory_core.cli import main
from memory_core.config import Settings
from memory_core.errors import IngestError
from memory_core.ingest import detect_format, load_file
from memory_core.ingest.beam import MARKER
from memory_core.services import Services
from memory_core.timeexpr import parse_datetime


def msg(mid: int, role: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"role": role, "id": mid, "content": content, **extra}


def beam_chat() -> list[dict[str, Any]]:
    return [
        {"batch_number": 1, "time_anchor": None, "turns": [
            [msg(0, "user", "I am planning a balcony garden, which plants? ->-> 1,1",
                 time_anchor="March-04-2024", index="1,1", question_type="main_question"),
             msg(1, "assistant", "How much sun does it get?")],
            [msg(2, "user", "About six hours. ->-> 1,2", index="1,2", question_type="followup"),
             msg(3, "assistant", "Tomatoes and basil will do well.")],
        ]},
        {"batch_number": 2, "time_anchor": None, "turns": [
            [msg(4, "user", "The basil wilted, should I water more? ->-> 2,1", time_anchor="March-20-2024"),
             msg(5, "assistant", "Water in the morning, not at night. ->-> 2,N/A")],
        ]},
    ]


def questions() -> dict[str, Any]:
    return {
        "abstention": [{"question": "What is my neighbour's name?", "ideal_response": "Not mentioned.",
                        "source_chat_ids": None}],
        "information_extraction": [{"question": "How much sun does the balcony get?",
                                    "answer": "About six hours.", "source_chat_ids": [2]}],
        "temporal_reasoning": [{"question": "How many days between my garden questions?",
                                "answer": "16 days", "source_chat_ids": {"first_event": [4],
                                                                         "second_event": [0]}}],
        "contradiction_resolution": [{"question": "Did the basil thrive?", "ideal_answer": "Please clarify.",
                                      "source_chat_ids": {"first_statement": [3], "second_statement": [4]}}],
        "event_ordering": [{"question": "In which order did I ask?", "answer": "Plants, then water.",
                            "source_chat_ids": [[0, 4], 2]}],
        "preference_following": [{"question": "Suggest a herb.", "expected_compliance": "A hardy one.",
                                  "source_chat_ids": []},
                                 {"question": "Suggest a pot.", "expected_compliance": "A small one.",
                                  "source_chat_ids": [99]}],
        "summarization": [{"question": "Summarise my garden.", "ideal_summary": "…",
                           "source_chat_ids": [0, 4]}],
    }


@pytest.fixture
def chat_dir(tmp_path: Path) -> Path:
    root = tmp_path / "100K" / "7"
    (root / "probing_questions").mkdir(parents=True)
    (root / "chat.json").write_text(json.dumps(beam_chat()), encoding="utf-8")
    (root / "probing_questions" / "probing_questions.json").write_text(json.dumps(questions()),
                                                                       encoding="utf-8")
    return root


def test_a_chat_directory_reads_batches_as_sessions(chat_dir):
    assert detect_format(chat_dir) == "beam" == detect_format(chat_dir / "chat.json")
    loaded = load_file(chat_dir)
    (conv,) = loaded.conversations
    assert (loaded.format, conv.id, conv.speakers) == ("beam", "beam-100k-7", ("user", "assistant"))
    assert [(s.index, s.time, s.time_text) for s in conv.sessions] == [
        (1, datetime(2024, 3, 4), "March-04-2024"), (2, datetime(2024, 3, 20), "March-20-2024")]
    assert [(t.id, t.speaker, t.text) for t in conv.turns] == [
        ("D1:1", "user", "I am planning a balcony garden, which plants?"),
        ("D1:2", "assistant", "How much sun does it get?"),
        ("D1:3", "user", "About six hours."),
        ("D1:4", "assistant", "Tomatoes and basil will do well."),
        ("D2:5", "user", "The basil wilted, should I water more?"),
        ("D2:6", "assistant", "Water in the morning, not at night."),
    ]


def test_probing_questions_become_qa_with_the_bench_categories(chat_dir):
    loaded = load_file(chat_dir / "chat.json")
    (conv,) = loaded.conversations
    assert [(q.qid, q.question, q.answer, q.evidence, q.category) for q in conv.qa] == [
        (0, "How much sun does the balcony get?", "About six hours.", ("D1:3",), 4),
        (1, "How many days between my garden questions?", "16 days", ("D1:1", "D2:5"), 2),
        (2, "Did the basil thrive?", "Please clarify.", ("D1:4", "D2:5"), 3),
        (3, "In which order did I ask?", "Plants, then water.", ("D1:1", "D1:3", "D2:5"), 1),
    ]
    assert conv.meta["beam_types"] == ["information_extraction", "temporal_reasoning",
                                       "contradiction_resolution", "event_ordering"]
    assert [(u["type"], u["index"]) for u in conv.meta["qa_unresolved"]] == [
        ("preference_following", 0), ("preference_following", 1)]
    text = "\n".join(loaded.warnings)
    assert ("chat.json: probing_questions/probing_questions.json: left out 2 question(s) without "
            "turn evidence to score: 1 abstention, 1 summarization") in text
    assert "probing_questions.json: 2 question(s) whose source_chat_ids name no message" in text


def test_chat_json_alone_imports_without_questions(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(beam_chat()), encoding="utf-8")
    loaded = load_file(path)
    (conv,) = loaded.conversations
    assert conv.qa == () and len(conv.turns) == 6
    assert any("no probing_questions/probing_questions.json beside the chat" in w for w in loaded.warnings)


def test_the_questions_file_alone_is_refused_saying_what_to_import(chat_dir):
    with pytest.raises(IngestError) as err:
        load_file(chat_dir / "probing_questions" / "probing_questions.json")
    assert err.value.where == "$"
    assert err.value.what.startswith("BEAM probing questions alone: import the chat.json beside them")


@pytest.mark.parametrize(
    ("change", "where", "what"),
    [
        (lambda c: c[0]["turns"][0][1].pop("id"), "$[0].turns[0][1].id", "expected a whole number, got null"),
        (lambda c: c[1]["turns"][0][0].update(id=1), "$[1].turns[0][0].id",
         "message id 1 appears twice (first as turn 'D1:2')"),
        (lambda c: c[0]["turns"][0][0].update(content=["x"]), "$[0].turns[0][0].content",
         "expected a string, got list"),
        (lambda c: c[1].update(turns="none"), "$[1].turns", "expected a list of turns, got string"),
    ],
)
def test_broken_chats_are_refused_in_one_line(tmp_path, change, where, what):
    value = beam_chat()
    change(value)
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    with pytest.raises(IngestError) as err:
        load_file(path)
    assert err.value.where == where and what in err.value.what, str(err.value)
    assert "\n" not in str(err.value)


# --------------------------------------------------------------------------- the raw files
def _day(text: str) -> datetime:
    """The day the bench's converted date-time names (its time of day dropped)."""
    parsed = parse_datetime(text)
    assert parsed is not None, text
    return parsed.replace(hour=0, minute=0)


@pytest.mark.parametrize(("raw", "converted", "conv_id"), [
    ("raw/beam/100K/7", "beam_check.json", "beam-100k-7"),
    ("raw/beam/100K/1", "beam_tune.json", "beam-100k-1"),
])
def test_the_raw_directory_reads_as_the_bench_converted_it(bench, raw, converted, conv_id):
    (conv,) = load_file(bench(raw)).conversations
    (sample,) = [s for s in json.loads(bench(converted).read_text(encoding="utf-8"))
                 if s["sample_id"] == conv_id]
    body = sample["conversation"]
    keys = sorted((int(m.group(1)), k) for k in body if (m := re.fullmatch(r"session_(\d+)", k)))
    # the conversion leaves a marker it does not recognise (`->-> 5,14)`); the reader removes it
    theirs = [(n, t["dia_id"], t["speaker"], MARKER.sub("", t["text"])) for n, k in keys for t in body[k]]
    assert [(t.session, t.id, t.speaker, t.text) for t in conv.turns] == theirs
    assert [(s.index, s.time) for s in conv.sessions] == [
        (n, _day(body[f"session_{n}_date_time"])) for n, _ in keys]
    assert [(q.question, q.answer, list(q.evidence), q.category) for q in conv.qa] == [
        (q["question"], q["answer"], q["evidence"], q["category"]) for q in sample["qa"]]
    assert conv.meta["beam_types"] == [q["beam_type"] for q in sample["qa"]]


def test_the_raw_directory_imports_with_the_cli(bench, tmp_path, capsys):
    code = main(["--home", str(tmp_path / "home"), "import", str(bench("raw/beam/100K/7"))])
    out, err = capsys.readouterr()
    (sample,) = [s for s in json.loads(bench("beam_check.json").read_text(encoding="utf-8"))
                 if s["sample_id"] == "beam-100k-7"]
    sessions = [v for k, v in sample["conversation"].items() if re.fullmatch(r"session_\d+", k)]
    assert code == 0
    assert out.strip() == (f"imported beam-100k-7 (beam): {len(sessions)} sessions, "
                           f"{sum(len(s) for s in sessions)} turns, {len(sample['qa'])} questions")
    assert "left out" in err


@pytest.fixture
def services(settings: Settings) -> Iterator[Services]:
    s = Services(settings)  # no embedder needed to import
    yield s
    s.close()


def test_questions_are_stored_as_the_conversations_qa(services, chat_dir):
    result = services.imports.import_file(chat_dir)
    assert (result.ids, result.format) == (["beam-100k-7"], "beam")
    stored = services.raw_store().qa_items("beam-100k-7")
    assert [(q.qid, q.evidence, q.category) for q in stored] == [
        (0, ("D1:3",), 4), (1, ("D1:1", "D2:5"), 2), (2, ("D1:4", "D2:5"), 3),
        (3, ("D1:1", "D1:3", "D2:5"), 1)]
