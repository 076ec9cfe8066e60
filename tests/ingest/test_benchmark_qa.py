"""REALTALK and BEAM questions are the conversation's QA: the Evaluate page scores them, from a
file on this machine (a BEAM chat directory too) or from what the home holds."""

from __future__ import annotations

import json
from pathlib import Path

from .test_beam import beam_chat, questions
from .test_realtalk import realtalk_chat


def test_a_realtalk_file_is_evaluated_like_locomo(services, tmp_path: Path) -> None:
    path = tmp_path / "Chat_3_Ana_Ben.json"
    path.write_text(json.dumps(realtalk_chat()), encoding="utf-8")
    assert services.evaluation.benchmark_format(str(path)) == "realtalk"
    report = services.evaluation.evaluate(path, strategy="bm25")
    assert report.conv_ids == ["realtalk-3"]
    assert [(r["qid"], r["category"]) for r in report.json_rows()] == [(0, 2), (1, 1), (2, 3), (3, 2)]
    stored = services.raw_store().load_conversation("realtalk-3")
    assert stored.source_format == "realtalk" and len(stored.qa) == 4
    again = services.evaluation.evaluate(["realtalk-3"], strategy="bm25")  # this conversation's questions
    assert [r["dia_ids"] for r in again.json_rows()] == [r["dia_ids"] for r in report.json_rows()]
    assert report.summary["overall"].n == 4


def test_a_beam_directory_is_evaluated_with_its_probing_questions(services, tmp_path: Path) -> None:
    root = tmp_path / "100K" / "2"
    (root / "probing_questions").mkdir(parents=True)
    (root / "chat.json").write_text(json.dumps(beam_chat()), encoding="utf-8")
    (root / "probing_questions" / "probing_questions.json").write_text(json.dumps(questions()),
                                                                       encoding="utf-8")
    assert services.evaluation.benchmark_format(str(root)) == "beam"
    report = services.evaluation.evaluate(str(root), strategy="bm25")
    assert report.conv_ids == ["beam-100k-2"]
    assert [(r["qid"], r["category"]) for r in report.json_rows()] == [(0, 4), (1, 2), (2, 3), (3, 1)]
