"""An uploaded LongMemEval file read from its bytes, the detector on bytes, and the outcome a
row gets in triage (missed evidence / wrong answer / both / ok)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memory_core.errors import IngestError
from memory_core.eval.longmemeval import read_questions, read_questions_bytes
from memory_core.eval.run import answer_wrong, evidence_missed, outcome
from memory_core.ingest import detect_bytes, detect_format
from tests.ingest.samples import locomo_sample


def _item(qid: str, qtype: str, line: str) -> dict[str, Any]:
    return {"question_id": qid, "question_type": qtype, "question": "Which city do I live in?",
            "answer": "Porto", "question_date": "2023/06/01 (Thu) 10:00",
            "haystack_session_ids": ["a", "b"],
            "haystack_dates": ["2023/05/20 (Sat) 09:00", "2023/05/25 (Thu) 09:00"],
            "haystack_sessions": [
                [{"role": "user", "content": "Any tips for houseplants?"},
                 {"role": "assistant", "content": "Water them weekly."}],
                [{"role": "user", "content": line, "has_answer": not qid.endswith("_abs")},
                 {"role": "assistant", "content": "Nice!"}]],
            "answer_session_ids": ["b"]}


def test_an_upload_reads_the_same_questions_as_the_file(tmp_path: Path) -> None:
    items = [_item("u1", "single-session-user", "I live in Porto now."),
             _item("u2", "multi-session", "I moved to Porto."),
             _item("u3_abs", "multi-session", "I like Lisbon.")]
    data = json.dumps(items).encode()
    path = tmp_path / "lme.json"
    path.write_bytes(data)
    from_file = [q for _, q in read_questions(path, types=["multi-session"])]
    from_bytes = [q for _, q in read_questions_bytes("up.json", data, types=["multi-session"])]
    assert from_bytes == from_file and [q.conv_id for q in from_bytes] == ["u2", "u3_abs"]
    assert [q.conv_id for _, q in read_questions_bytes("up.json", data, limit=1)] == ["u1"]
    assert detect_bytes("up.json", data) == detect_format(path) == "longmemeval"
    assert detect_bytes("lc.json", json.dumps([locomo_sample()]).encode()) == "locomo"
    with pytest.raises(IngestError, match=r"up\.json"):
        read_questions_bytes("up.json", b'[{"question_id": "x", "haystack_sessions": 3}]')


def test_outcomes_separate_missed_evidence_from_wrong_answers() -> None:
    base = {"evidence": ["D1:1", "D2:3"], "dia_ids": ["D1:1", "D2:3", "D4:1"], "answer_f1": 0.8,
            "support": "supported"}
    assert evidence_missed(base) is False and outcome(base) == "ok"
    missed = {**base, "dia_ids": ["D1:1"]}
    assert evidence_missed(missed) is True and outcome(missed) == "missed evidence"
    assert outcome({**base, "answer_f1": 0.2}) == "wrong answer"
    assert outcome({**base, "answer_f1": 0.2}, f1_below=0.1) == "ok"
    assert outcome({**base, "support": "weak"}) == "wrong answer"
    assert outcome({**missed, "support": "unknown"}) == "both"
    assert outcome({**base, "answer_f1": 0.0, "judge": True}) == "ok"  # a judge's verdict wins
    assert evidence_missed({"evidence": [], "dia_ids": []}) is None
    abstained = {"evidence": [], "dia_ids": ["D1:1"], "abstention": True, "answer_f1": 0.0}
    assert not answer_wrong({**abstained, "abstained": True})
    assert outcome({**abstained, "abstained": False}) == "wrong answer"
