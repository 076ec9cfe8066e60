"""LongMemEval evaluation: rows, session recall_all@k, abstentions, the table, and the CLI."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from memory_core.eval.longmemeval import (
    LmeQuestion,
    evaluate,
    format_table,
    is_abstention_answer,
    read_questions,
    recall_all_at,
    run_line,
    session_ranking,
    summarise,
)
from memory_core.eval.run import Asked
from memory_core.models import Answer, BufferTurn, Plan, Trace


def _trace(turn_ids: list[str], answer: str, tokens: int) -> Trace:
    return Trace(
        id="t", conv_id="c", question="?", strategy="adaptive", backend="offline",
        plan=Plan(question="?"),
        buffer=tuple(BufferTurn(turn_id=t, speaker="user", text="x", session=int(t[1:].split(":")[0]))
                     for t in turn_ids),
        answer=Answer(text=answer), timings={"total": 0.5, "plan_retrieve": 0.25},
        buffer_tokens=tokens, created_at=datetime(2023, 5, 30),
    )


def _q(conv_id: str, qtype: str, evidence: tuple[str, ...], sessions: tuple[int, ...],
       answer: str = "red", abstention: bool = False) -> LmeQuestion:
    return LmeQuestion(conv_id=conv_id, question="What colour?", answer=answer, question_type=qtype,
                       evidence=evidence, answer_sessions=sessions, abstention=abstention)


def test_sessions_rank_by_their_best_turn_and_recall_all_needs_every_one() -> None:
    ranking = [("D7:2", 0.9), ("D3:1", 0.8), ("D7:5", 0.7), ("D1:1", 0.6), ("D9:4", 0.5), ("D2:2", 0.4)]
    assert session_ranking(ranking, ["D2:2"]) == [7, 3, 1, 9, 2]
    assert session_ranking((), ["D2:2", "D5:1", "D2:3"]) == [2, 5]
    sessions = [7, 3, 1, 9, 2, 4, 8]
    assert recall_all_at(sessions, [3, 2], 5) and not recall_all_at(sessions, [3, 8], 5)
    assert recall_all_at(sessions, [3, 8], 10)


def test_rows_and_summary_per_type_with_abstentions_apart() -> None:
    questions = [
        _q("a", "multi-session", ("D1:1", "D4:2"), (1, 4)),
        _q("b", "multi-session", ("D2:1",), (2,)),
        _q("c", "temporal-reasoning", ("D3:3",), (3,), answer="May 2023"),
        _q("d_abs", "knowledge-update", (), (5,), answer="You did not mention it.", abstention=True),
    ]
    asked = {
        "a": Asked(_trace(["D1:1", "D4:2"], "red", 100), [("D1:1", 0.9), ("D4:2", 0.8)]),
        "b": Asked(_trace(["D1:1"], "blue", 50), [("D1:1", 0.9), ("D2:1", 0.1)]),
        "c": Asked(_trace(["D3:3"], "May 2023", 30)),
        "d_abs": Asked(_trace(["D1:1"], "Unknown", 40)),
    }
    rows = [r.to_json() for r in evaluate(questions, lambda q: asked[q.conv_id])]
    a, b, _, d = rows
    assert (a["conv_id"], a["qid"], a["category"], a["dia_ids"], a["context_tokens"]) == (
        "a", 0, "multi-session", ["D1:1", "D4:2"], 100)
    assert a["session_recall_all@5"] is True and b["session_recall_all@5"] is True  # D2 ranked 2nd
    assert d["session_recall_all@5"] is None and d["abstained"] is True
    line = run_line(a)
    assert set(line) >= {"conv_id", "qid", "category", "question", "gold", "answer", "dia_ids",
                         "context_tokens", "latency_s", "strategy", "session_recall_all@5",
                         "session_recall_all@10", "abstention", "answer_sessions"}
    assert run_line(d)["abstained"] is True
    summary = summarise(rows)
    assert list(summary) == ["multi-session", "temporal-reasoning", "abstention", "overall"]
    ms = summary["multi-session"]
    assert (ms.n, ms.full_recall, ms.coverage, ms.tokens_mean) == (2, 0.5, 0.5, 75.0)
    assert ms.answer_f1 == 0.5 and ms.session_recall == {5: 1.0, 10: 1.0}
    assert summary["overall"].n == 3 and summary["overall"].full_recall == pytest.approx(2 / 3)
    assert summary["abstention"].abstained == 1.0 and summary["abstention"].full_recall is None
    assert list(ms.to_json())[-2:] == ["session_recall_all@5", "session_recall_all@10"]
    assert "abstained" not in ms.to_json() and summary["abstention"].to_json()["abstained"] == 1.0
    table = format_table(summary)
    assert "multi-session" in table and "correct abstentions 1.00" in table


def test_abstention_answers() -> None:
    assert is_abstention_answer("Unknown")
    assert is_abstention_answer("The information provided is not enough to tell.")
    assert not is_abstention_answer("Your bike is red.")


def _item(qid: str, qtype: str, content: str, **extra: Any) -> dict[str, Any]:
    has_answer = not qid.endswith("_abs")
    return {"question_id": qid, "question_type": qtype, "question": "What is my bike's colour?",
            "answer": "red", "question_date": "2023/05/30 (Tue) 23:40",
            "haystack_session_ids": ["s1", "s2"],
            "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/22 (Mon) 18:05"],
            "haystack_sessions": [
                [{"role": "user", "content": "I need tyre advice for a long ride."},
                 {"role": "assistant", "content": "Pick wider tyres for comfort."}],
                [{"role": "user", "content": content, "has_answer": has_answer},
                 {"role": "assistant", "content": ""}]],
            "answer_session_ids": ["s2"], **extra}


def test_read_questions_filters_types_and_limits(tmp_path: Path) -> None:
    path = tmp_path / "lme.json"
    items = [_item("q1", "single-session-user", "My bike is red."),
             _item("q2", "multi-session", "My bike is red."),
             _item("q3_abs", "multi-session", "My car is blue."),
             _item("q4", "multi-session", "My bike is red.")]
    path.write_text(json.dumps(items), encoding="utf-8")
    got = [q for _, q in read_questions(path, types=["multi-session"])]
    assert [q.conv_id for q in got] == ["q2", "q3_abs", "q4"]
    assert got[0].answer_sessions == (2,) and got[0].evidence == ("D2:1",)
    assert got[1].abstention and got[1].evidence == ()
    assert [q.conv_id for _, q in read_questions(path, limit=2)] == ["q1", "q2"]
    assert [q.conv_id for _, q in read_questions(path, types=["abstention"])] == ["q3_abs"]


def test_cli_eval_longmemeval_writes_rows_the_bench_scorer_reads(tmp_path: Path) -> None:
    from memory_core.cli import main

    path = tmp_path / "lme.json"
    path.write_text(json.dumps([_item("q1", "single-session-user", "By the way, my bike is red."),
                                _item("q2_abs", "single-session-user", "My car is blue.")]),
                    encoding="utf-8")
    out = tmp_path / "run.jsonl"
    code = main(["--home", str(tmp_path / "home"), "eval", "longmemeval", str(path), "--out", str(out)])
    assert code == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["conv_id"] for r in rows] == ["q1", "q2_abs"]
    assert rows[0]["category"] == "single-session-user" and rows[0]["qid"] == 0
    assert rows[0]["context_tokens"] > 0 and rows[0]["dia_ids"]
    assert rows[0]["answer_sessions"] == [2] and rows[1]["abstention"] is True
