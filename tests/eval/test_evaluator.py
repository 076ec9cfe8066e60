"""The LoCoMo evaluator: JSONL schema, metrics, agreement with the independent bench scorer."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_core.eval.locomo import load_gold
from memory_core.eval.metrics import evidence_hits, percentile, summarise, token_f1
from memory_core.ids import normalise_evidence
from memory_core.models import Source
from memory_core.tokens import count_tokens

ROW_KEYS = {
    "conv_id",
    "qid",
    "category",
    "question",
    "gold",
    "answer",
    "dia_ids",
    "context_tokens",
    "latency_s",
    "strategy",
}

TINY = [
    {
        "sample_id": "conv-tiny",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "Hi Ben, how was your week?"},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "Great, I ran a charity marathon yesterday."},
                {
                    "speaker": "Ana",
                    "dia_id": "D1:3",
                    "text": "Amazing! I started learning the cello last month.",
                },
                {"speaker": "Ben", "dia_id": "D1:4", "text": "The cello is a beautiful instrument."},
                {
                    "speaker": "Ana",
                    "dia_id": "D1:5",
                    "text": "My cat Miso keeps sleeping on the sheet music.",
                },
            ],
            "session_2_date_time": "10:00 am on 20 June, 2023",
            "session_2": [
                {
                    "speaker": "Ben",
                    "dia_id": "D2:1",
                    "text": "I adopted a rescue dog named Pepper!",
                    "img_url": ["https://example.invalid/p.jpg"],
                    "blip_caption": "a photo of a small brown dog",
                },
                {"speaker": "Ana", "dia_id": "D2:2", "text": "Pepper looks adorable. Miso might be jealous."},
                {"speaker": "Ben", "dia_id": "D2:3", "text": "I am training for a triathlon in September."},
                {"speaker": "Ana", "dia_id": "D2:4", "text": "I played my first cello recital last weekend."},
            ],
        },
        "qa": [
            {
                "question": "When did Ben run a charity marathon?",
                "answer": "7 May 2023",
                "evidence": ["D1:2"],
                "category": 2,
            },
            {
                "question": "What pets do Ana and Ben have?",
                "answer": "a cat and a dog",
                "evidence": ["D1:5; D2:1"],
                "category": 1,
            },
            {
                "question": "What did Ana adopt?",
                "adversarial_answer": "a dog",
                "evidence": ["D2:1"],
                "category": 5,
            },
            {
                "question": "What is the name of Ben's dog?",
                "answer": "Pepper",
                "evidence": ["D:2:1"],
                "category": 4,
            },
            {"question": "Would Ana enjoy a concert?", "answer": "likely yes", "evidence": [], "category": 3},
            {
                "question": "What instrument does Ana play?",
                "answer": "cello",
                "evidence": ["D1:03", "D9:9"],
                "category": 4,
            },
        ],
    }
]


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny_locomo.json"
    path.write_text(json.dumps(TINY), encoding="utf-8")
    return path


def test_gold_evidence_is_normalised_like_the_scorer(tiny: Path) -> None:
    (gold,) = load_gold(tiny)
    assert gold.conv_id == "conv-tiny"
    evidence = {q.qid: q.evidence for q in gold.questions}
    assert evidence == {0: ("D1:2",), 1: ("D1:5", "D2:1"), 2: ("D2:1",), 3: ("D2:1",), 4: (), 5: ("D1:3",)}
    assert [q.qid for q in gold.scored()] == [0, 1, 3, 4, 5]
    assert normalise_evidence(["D:1:2", "D1:2", "bogus"], {"D1:2"}) == (["D1:2"], ["bogus"])


def test_metrics() -> None:
    assert token_f1("7 May 2023 [D1:2]", "7 May 2023") == 1.0
    assert token_f1("a cat", "the dog") == 0.0
    assert 0 < token_f1("a cat named Miso", "cat") < 1
    assert evidence_hits(("D1:1", "D1:2"), ["D1:2", "D3:3"]) == (False, 0.5)
    assert percentile([3.0, 1.0, 2.0, 4.0], 50) == 2.0
    assert percentile([3.0, 1.0, 2.0, 4.0], 95) == 4.0
    rows = [
        {
            "conv_id": "c",
            "qid": 0,
            "category": 1,
            "dia_ids": ["a", "b"],
            "context_tokens": 10,
            "answer": "x",
            "gold": "x",
            "latency_s": 0.1,
            "evidence": ["a", "b"],
        },
        {
            "conv_id": "c",
            "qid": 1,
            "category": 1,
            "dia_ids": ["a"],
            "context_tokens": 30,
            "answer": "y",
            "gold": "z",
            "latency_s": 0.3,
            "evidence": ["a", "b"],
        },
    ]
    summary = summarise(rows)
    assert summary["1"].full_recall == 0.5 and summary["1"].coverage == 0.75
    assert summary["overall"].tokens_mean == 20 and summary["overall"].answer_f1 == 0.5


def test_rows_follow_the_schema(services, tiny: Path) -> None:
    report = services.evaluation.evaluate(tiny, strategy="ensimem")
    assert [r["qid"] for r in report.json_rows()] == [0, 1, 3, 4, 5]
    turns = {t.id: t for t in services.raw_store().turns("conv-tiny")}
    order = list(turns)
    for row in report.json_rows():
        assert ROW_KEYS <= set(row)
        assert row["conv_id"] == "conv-tiny" and row["strategy"] == "ensimem"
        assert row["category"] in (1, 2, 3, 4)
        positions = [order.index(i) for i in row["dia_ids"]]
        assert positions == sorted(positions)
        assert row["context_tokens"] == sum(count_tokens(turns[i].render()) for i in row["dia_ids"])
        assert row["latency_s"] >= 0
    lines = [json.loads(line) for line in report.jsonl().splitlines()]
    assert len(lines) == 5 and all(ROW_KEYS <= set(line) for line in lines)
    assert report.summary["overall"].scored == 4  # qid 4 has no gold evidence


def test_budget_and_judge(services, tiny: Path) -> None:
    def judge(question: str, gold: str, answer: str) -> bool:
        return gold.lower() in answer.lower()

    report = services.evaluation.evaluate(tiny, strategy="bm25", budget_tokens=40, judge=judge)
    assert all(r["context_tokens"] <= 40 for r in report.json_rows())
    assert all(isinstance(r["judge"], bool) for r in report.json_rows())
    expected = sum(r["judge"] for r in report.json_rows()) / len(report.json_rows())
    assert report.summary["overall"].judge_accuracy == pytest.approx(expected)


def _score_py(scorer: Path, data: Path, run: Path, recount: bool) -> dict:
    cmd = [sys.executable, str(scorer), "--data", str(data), "--run", str(run), "--json"]
    if recount:
        cmd.append("--recount")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("strategy", ["ensimem", "bm25"])
def test_recall_agrees_with_the_bench_scorer(services, tiny: Path, tmp_path: Path, strategy: str,
                                             bench: Callable[[str], Path]) -> None:
    scorer = bench("score.py")
    report = services.evaluation.evaluate(tiny, strategy=strategy, budget_tokens=60)
    run = tmp_path / "run.jsonl"
    run.write_text(report.jsonl(), encoding="utf-8")
    theirs = _score_py(scorer, tiny, run, recount=False)
    for key in ("1", "2", "3", "4"):
        mine, other = report.summary[key], theirs["by_category"][key]
        assert mine.scored == other["scored"]
        if other["full_recall"] is not None:
            assert mine.full_recall is not None and mine.coverage is not None
            assert round(mine.full_recall, 4) == other["full_recall"]
            assert round(mine.coverage, 4) == other["coverage"]
    overall = report.summary["overall"]
    assert overall.full_recall is not None and overall.tokens_mean is not None
    assert round(overall.full_recall, 4) == theirs["overall"]["full_recall"]
    assert round(overall.tokens_mean, 1) == theirs["overall"]["tokens_mean"]


@pytest.mark.skipif(importlib.util.find_spec("tiktoken") is None,
                    reason="the bench scorer recounts with tiktoken, which is not installed")
def test_token_counts_agree_with_the_scorer_recount(services, tiny: Path, tmp_path: Path,
                                                    bench: Callable[[str], Path]) -> None:
    scorer = bench("score.py")
    report = services.evaluation.evaluate(tiny, strategy="full")
    run = tmp_path / "run.jsonl"
    run.write_text(report.jsonl(), encoding="utf-8")
    theirs = _score_py(scorer, tiny, run, recount=True)
    assert theirs["overall"]["recount_tokens_mean"] == theirs["overall"]["tokens_mean"]


def test_triage_explains_a_question_from_its_row(services, tiny: Path) -> None:
    report = services.evaluation.evaluate(tiny, strategy="bm25", budget_tokens=30)
    row = next(r for r in report.json_rows() if r["qid"] == 1)
    traces_before = len(services.raw_store().traces("conv-tiny"))
    info = services.evaluation.triage("conv-tiny", 1, row).to_json()
    assert len(services.raw_store().traces("conv-tiny")) == traces_before
    ci = services.queries.conversation_index("conv-tiny")
    turns = {t.id: t for t in services.raw_store().turns("conv-tiny")}
    got = set(row["dia_ids"])
    assert row["evidence"] == ["D1:5", "D2:1"]
    assert info["evidence"] == [
        {"turn_id": t, "retrieved": t in got, "rank": row["evidence_rank"][t],
         "cited_by_records": [r.id for r in ci.records if t in r.evidence_turn_ids],
         "text": turns[t].render()}
        for t in ("D1:5", "D2:1")]
    assert info["full_recall"] == ({"D1:5", "D2:1"} <= got)
    assert info["coverage"] == len({"D1:5", "D2:1"} & got) / 2
    assert (info["question"], info["gold"], info["category"]) == ("What pets do Ana and Ben have?",
                                                                   "a cat and a dog", 1)
    assert info["plan"] == row["plan"] and info["plan"]["question"] == "What pets do Ana and Ben have?"
    assert info["outranked_by"] == [{**o, "text": turns[o["turn_id"]].render()[:160]}
                                    for o in row["outranked_by"]]
    # the ranks are the fused ranking of the row's own retrieval: rank 1..n over every turn
    ranks = [r for r in row["evidence_rank"].values() if r is not None]
    assert all(1 <= r <= len(turns) for r in ranks)
    missing = [row["evidence_rank"][t] for t in row["evidence"] if t not in got]
    assert all(o["rank"] < max(missing) and o["turn_id"] not in row["evidence"] for o in row["outranked_by"])
    # a row read back from a run file triages the same (gold evidence and ranks travel with it)
    line = json.loads(report.jsonl().splitlines()[[r["qid"] for r in report.json_rows()].index(1)])
    assert services.evaluation.triage("conv-tiny", 1, line).to_json() == info


def test_evaluating_an_upload_reads_its_bytes_once_and_writes_no_file(services, tiny: Path,
                                                                      tmp_path: Path, monkeypatch) -> None:
    import tempfile


    made: list[str] = []
    real = tempfile.mkdtemp
    def mkdtemp(*a: Any, **k: Any) -> str:
        made.append("dir")
        return real(*a, **k)

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    report = services.evaluation.evaluate(Source.upload("my upload.json", tiny.read_bytes()), strategy="bm25")
    assert made == []
    assert report.conv_ids == ["conv-tiny"] and [r["qid"] for r in report.json_rows()] == [0, 1, 3, 4, 5]
    assert services.raw_store().load_conversation("conv-tiny").source_name == "my upload.json"
    from_file = services.evaluation.evaluate(tiny, strategy="bm25")  # now in the home: no re-import
    assert [r["dia_ids"] for r in from_file.json_rows()] == [r["dia_ids"] for r in report.json_rows()]


def test_a_bad_upload_is_one_line_naming_it(services) -> None:
    from memory_core.errors import IngestError

    with pytest.raises(IngestError) as err:
        services.evaluation.evaluate(Source.upload("bad.json",
                                            b'[{"sample_id": "x", "conversation": {"session_1": 5}}]'))
    assert str(err.value).startswith("bad.json: ") and "\n" not in str(err.value)
    assert services.raw_store().conversation_ids() == []


def test_cli_eval_writes_the_run_and_prints_tables(settings, tiny: Path, tmp_path: Path, capsys) -> None:
    from memory_core.cli import main

    out = tmp_path / "run.jsonl"
    code = main(
        [
            "--home",
            str(settings.home),
            "eval",
            "locomo",
            str(tiny),
            "--convs",
            "tiny",
            "--budget-tokens",
            "80",
            "--out",
            str(out),
            "--curve",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert "full_recall" in printed and "overall" in printed and "4 single-hop" in printed
    assert "budget" in printed and "ensimem" in printed and "bm25" in printed
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 5 and all(r["context_tokens"] <= 80 for r in rows)


def test_cli_eval_unknown_conversation_is_one_line_error(settings, tiny: Path, capsys) -> None:
    from memory_core.cli import main

    code = main(["--home", str(settings.home), "eval", "locomo", str(tiny), "--convs", "99"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: ") and "99" in err and len(err.strip().splitlines()) == 1


def test_cli_eval_with_check_runs_both_files_and_prints_the_gap(
        settings, tiny: Path, tmp_path: Path, capsys) -> None:
    from memory_core.cli import main

    check = tmp_path / "check.json"
    check.write_bytes(tiny.read_bytes())  # the held-out file: the same layout under another name
    out = tmp_path / "run.jsonl"
    code = main(["--home", str(settings.home), "eval", "locomo", str(tiny), "--check", str(check),
                 "--convs", "tiny", "--check-convs", "tiny", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    assert printed.count("support calibration") == 2
    gap = f"tune {tiny.name} vs check {check.name} (full-evidence recall, mean tokens, gap in points):"
    assert gap in printed
    tune = [json.loads(line) for line in out.read_text().splitlines()]
    held = [json.loads(line) for line in (tmp_path / "run.check.jsonl").read_text().splitlines()]
    assert len(tune) == len(held) == 5
    assert [r["question"] for r in tune] == [r["question"] for r in held]
    assert f"wrote {out}" in printed and f"wrote {tmp_path / 'run.check.jsonl'}" in printed
