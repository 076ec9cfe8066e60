"""REALTALK chats as published: sessions by the dia_id's D number, per-turn dates, evidence
ranges, questions that cannot be resolved set aside — checked on invented files and against
the bench's own conversion of the raw files."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

import pytest

from memory_core.cli import main
from memory_core.errors import IngestError
from memory_core.ingest import detect_format, load_file
from memory_core.timeexpr import parse_datetime


def turn(dia_id: str, speaker: str, text: str, when: str, **extra: Any) -> dict[str, Any]:
    return {"clean_text": text, "speaker": speaker, "date_time": when, "img_file": [], "img_url": [],
            "dia_id": dia_id, **extra}


def realtalk_chat() -> dict[str, Any]:
    """Two speakers over three days; the file's third session key holds the D3 turns under
    ``session_4`` (renumbered), and the questions carry the evidence quirks of the real files."""
    return {
        "name": {"speaker_1": "Ana", "speaker_2": "Ben"},
        "session_1": [
            turn("D1:1", "Ana", "Morning! Off to the climbing gym.", "04.03.2024, 08:02:11"),
            turn("D1:2", "Ben", "Send a picture of the wall!", "04.03.2024, 08:05:40"),
            turn("D1:3", "Ana", "[https://example.org/wall.jpg]", "04.03.2024, 09:30:00",
                 img_url=["https://example.org/wall.jpg"], blip_caption="a climbing wall with holds"),
        ],
        "events_session_1": {"agent_a": [{"sub-event": "Ana climbs.", "date": "", "id": "E"}], "agent_b": []},
        "session_2": [
            turn("D2:1", "Ben", "I sprained my wrist at work.", "05.03.2024, 18:20:00"),
            turn("D2:2", "Ana", "Oh no, rest it!", "05.03.2024, 18:21:30"),
        ],
        "session_4": [
            turn("D3:1", "Ana", "How is the wrist?", "07.03.2024, 10:00:00"),
            turn("D3:2", "Ben", "Better, thanks.", "07.03.2024, 10:15:00"),
        ],
        "session_1_date_time": "04.03.2024, 08:02:11",
        "session_2_date_time": "05.03.2024, 18:20:00",
        "session_4_date_time": "01.01.2020, 00:00:00",  # the key's own date is not used
        "qa": [
            {"question": "Where did Ana go on 4 March?", "answer": "The climbing gym.",
             "evidence": ["D1:1"], "category": 2},
            {"question": "What did Ben hurt?", "answer": "His wrist.", "evidence": ["D2:1; D3:2"],
             "category": 1},
            {"question": "What did Ana show Ben?", "answer": "A climbing wall.", "evidence": ["D1:1-D1:3."],
             "category": 3},
            {"question": "Who rests?", "answer": "Ben.", "evidence": ["D:56", "D2:2"], "category": 3},
            {"question": "Who asked first?", "answer": "Ana.", "evidence": [], "category": 1},
            {"question": "How long did the wrist hurt?", "answer": "Two days.", "evidence": ["D2:1", "D3:2"],
             "category": 2},
        ],
    }


def test_a_chat_is_read_by_d_number_with_its_turns_dates(write):
    path = write("Chat_3_Ana_Ben.json", realtalk_chat())
    assert detect_format(path) == "realtalk"
    loaded = load_file(path)
    (conv,) = loaded.conversations
    assert (loaded.format, conv.id, conv.speakers) == ("realtalk", "realtalk-3", ("Ana", "Ben"))
    assert [(s.index, s.time, s.time_text) for s in conv.sessions] == [
        (1, datetime(2024, 3, 4, 8, 2, 11), "04.03.2024, 08:02:11"),
        (2, datetime(2024, 3, 5, 18, 20), "05.03.2024, 18:20:00"),
        (3, datetime(2024, 3, 7, 10, 0), "07.03.2024, 10:00:00"),
    ]
    wall = conv.sessions[0].turns[2]
    assert (wall.id, wall.text, wall.image_caption, wall.image_url) == (
        "D1:3", "[https://example.org/wall.jpg]", "a climbing wall with holds", "https://example.org/wall.jpg")
    assert [t.id for t in conv.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D3:1", "D3:2"]
    assert conv.meta["turn_times"]["D3:2"] == "2024-03-07 10:15:00"
    assert conv.meta["events"]["events_session_1"]["agent_a"][0]["sub-event"] == "Ana climbs."
    assert any("$: session_4 hold turns of other D numbers" in w for w in loaded.warnings)


def test_questions_are_resolved_or_set_aside_as_the_bench_does(write):
    loaded = load_file(write("Chat_3_Ana_Ben.json", realtalk_chat()))
    (conv,) = loaded.conversations
    assert [(q.qid, q.question, q.evidence, q.category) for q in conv.qa] == [
        (0, "Where did Ana go on 4 March?", ("D1:1",), 2),
        (1, "What did Ben hurt?", ("D2:1", "D3:2"), 1),
        (2, "What did Ana show Ben?", ("D1:1", "D1:2", "D1:3"), 3),
        (3, "How long did the wrist hurt?", ("D2:1", "D3:2"), 2),
    ]
    aside = conv.meta["qa_unresolved"]
    assert [(u["index"], u["question"], u["unmatched"]) for u in aside] == [
        (3, "Who rests?", ["D:56"]), (4, "Who asked first?", ["(no evidence)"])]
    (warning,) = [w for w in loaded.warnings if "set aside" in w]
    assert warning.endswith("Chat_3_Ana_Ben.json: $.qa: 2 question(s) whose evidence is no turn of the "
                            "file were set aside (meta qa_unresolved): qa[3] 'D:56'; "
                            "qa[4] '(no evidence)'")


@pytest.mark.parametrize(
    ("change", "where", "what"),
    [
        (lambda c: c["session_2"][0].pop("dia_id"), "$.session_2[0].dia_id", "missing"),
        (lambda c: c["session_2"][0].update(dia_id="turn 4"), "$.session_2[0].dia_id",
         "expected 'D<session>:<turn>', got 'turn 4'"),
        (lambda c: c["session_2"][1].update(dia_id="D2:1"), "$.session_2[1]", "duplicate turn id 'D2:1'"),
        (lambda c: c.update(session_2={"D2:1": "hi"}), "$.session_2", "expected a list of turns, got object"),
        (lambda c: c["session_2"][0].pop("speaker"), "$.session_2[0].speaker", "missing"),
    ],
)
def test_broken_chats_are_refused_in_one_line(write, change, where, what):
    value = realtalk_chat()
    change(value)
    with pytest.raises(IngestError) as err:
        load_file(write("Chat_3_Ana_Ben.json", value))
    assert err.value.where == where and what in err.value.what, str(err.value)
    assert "\n" not in str(err.value)


def test_an_unreadable_turn_date_is_a_warning(write):
    value = realtalk_chat()
    value["session_2"][0]["date_time"] = "sometime in spring"
    loaded = load_file(write("Chat_3_Ana_Ben.json", value))
    assert loaded.conversations[0].sessions[1].time is None
    assert any("$.session_2[0].date_time: cannot read the date 'sometime in spring'" in w
               for w in loaded.warnings)


# --------------------------------------------------------------------------- the raw files
def _converted(path: Any, sample_id: str) -> dict[str, Any]:
    (sample,) = [s for s in json.loads(path.read_text(encoding="utf-8")) if s["sample_id"] == sample_id]
    return sample


@pytest.mark.parametrize(("raw", "converted", "conv_id"), [
    ("raw/realtalk/Chat_7_Nebraas_Vanessa.json", "realtalk_check.json", "realtalk-7"),
    ("raw/realtalk/Chat_5_Nicolas_Nebraas.json", "realtalk_tune.json", "realtalk-5"),
])
def test_the_raw_file_reads_as_the_bench_converted_it(bench, raw, converted, conv_id):
    (conv,) = load_file(bench(raw)).conversations
    sample = _converted(bench(converted), conv_id)
    body = sample["conversation"]
    keys = sorted((int(m.group(1)), k) for k in body if (m := re.fullmatch(r"session_(\d+)", k)))
    theirs = [(n, t["dia_id"], t["speaker"], t["text"]) for n, k in keys for t in body[k]]
    assert [(t.session, t.id, t.speaker, t.text) for t in conv.turns] == theirs
    assert conv.speakers == (body["speaker_a"], body["speaker_b"])
    assert [(s.index, s.time.replace(second=0) if s.time else None) for s in conv.sessions] == [
        (n, parse_datetime(body[f"session_{n}_date_time"])) for n, _ in keys]
    assert [(q.question, list(q.evidence), q.category) for q in conv.qa] == [
        (q["question"], q["evidence"], q["category"]) for q in sample["qa"]]
    assert len(conv.meta["qa_unresolved"]) == len(sample["qa_unresolved"])


def test_the_raw_file_imports_with_the_cli(bench, tmp_path, capsys):
    raw = bench("raw/realtalk/Chat_7_Nebraas_Vanessa.json")
    code = main(["--home", str(tmp_path / "home"), "import", str(raw)])
    out, err = capsys.readouterr()
    sample = _converted(bench("realtalk_check.json"), "realtalk-7")
    sessions = [v for k, v in sample["conversation"].items() if re.fullmatch(r"session_\d+", k)]
    assert code == 0
    assert out.strip() == (f"imported realtalk-7 (realtalk): {len(sessions)} sessions, "
                           f"{sum(len(s) for s in sessions)} turns, {len(sample['qa'])} questions")
    assert "were set aside (meta qa_unresolved)" in err
