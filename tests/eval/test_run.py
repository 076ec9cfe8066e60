"""The evaluation functions on hand-made inputs: rows, summary, judge accuracy, triage."""

from __future__ import annotations

from datetime import datetime

from memory_core.eval.locomo import GoldQuestion, gold_from_qa
from memory_core.eval.metrics import summarise
from memory_core.eval.run import Asked, add_judge_accuracy, evaluate, ranking_facts, run_line, triage
from memory_core.models import Answer, BufferTurn, Plan, QAItem, Trace


def _trace(question: str, turn_ids: list[str], answer: str, tokens: int) -> Trace:
    return Trace(
        id="t", conv_id="c", question=question, strategy="bm25", backend="offline",
        plan=Plan(question=question, keywords=("k",)),
        buffer=tuple(BufferTurn(turn_id=t, speaker="A", text="x", session=1) for t in turn_ids),
        answer=Answer(text=answer), timings={"total": 0.25, "plan_retrieve": 0.125},
        buffer_tokens=tokens, created_at=datetime(2023, 5, 8),
    )


Q1 = GoldQuestion(conv_id="c", qid=0, question="Where?", answer="Paris", evidence=("D1:2", "D1:4"),
                  category=1)
Q2 = GoldQuestion(conv_id="c", qid=3, question="When?", answer="May 2023", evidence=("D1:1",), category=2)
Q3 = GoldQuestion(conv_id="c", qid=4, question="Why?", answer="fun", evidence=(), category=3)
RANKING = [("D1:3", 0.9), ("D1:2", 0.8), ("D1:5", 0.75), ("D1:1", 0.5), ("D1:4", 0.25)]
ANSWERS = {
    0: Asked(_trace("Where?", ["D1:2", "D1:3"], "Paris [D1:2]", 20), RANKING),
    3: Asked(_trace("When?", ["D1:1"], "June", 10), RANKING),
    4: Asked(_trace("Why?", ["D1:5"], "fun", 30)),
}


def test_ranking_facts_rank_the_gold_turns_and_list_what_outranked_the_missing_one() -> None:
    facts = ranking_facts(("D1:2", "D1:4"), ["D1:2", "D1:3"], RANKING)
    assert facts == {
        "evidence_rank": {"D1:2": 2, "D1:4": 5},
        "outranked_by": [{"turn_id": "D1:3", "rank": 1, "score": 0.9},
                         {"turn_id": "D1:5", "rank": 3, "score": 0.75},
                         {"turn_id": "D1:1", "rank": 4, "score": 0.5}],
    }
    assert ranking_facts(("D1:2",), ["D1:2"], RANKING) == {"evidence_rank": {"D1:2": 2}, "outranked_by": []}
    assert ranking_facts(("D9:9",), [], ()) == {"evidence_rank": {"D9:9": None}, "outranked_by": []}


def test_evaluate_asks_each_question_once_and_rows_carry_their_gold() -> None:
    asked: list[int] = []
    seen: list[int] = []

    def ask(q: GoldQuestion) -> Asked:
        asked.append(q.qid)
        return ANSWERS[q.qid]

    typed = evaluate([Q1, Q2, Q3], ask, judge=lambda q, gold, answer: gold.lower() in answer.lower(),
                     on_row=lambda row: seen.append(row.qid))
    rows = [r.to_json() for r in typed]
    assert asked == [0, 3, 4] and seen == [0, 3, 4]
    first = rows[0]
    assert {k: first[k] for k in ("conv_id", "qid", "category", "question", "gold", "answer", "dia_ids",
                                  "context_tokens", "latency_s", "plan_retrieve_s", "strategy", "backend",
                                  "budget_tokens", "answer_f1", "evidence", "judge")} == {
        "conv_id": "c", "qid": 0, "category": 1, "question": "Where?", "gold": "Paris",
        "answer": "Paris [D1:2]", "dia_ids": ["D1:2", "D1:3"], "context_tokens": 20, "latency_s": 0.25,
        "plan_retrieve_s": 0.125, "strategy": "bm25", "backend": "offline", "budget_tokens": None,
        "answer_f1": 1.0, "evidence": ["D1:2", "D1:4"], "judge": True}
    assert first["evidence_rank"] == {"D1:2": 2, "D1:4": 5}
    assert [o["turn_id"] for o in first["outranked_by"]] == ["D1:3", "D1:5", "D1:1"]
    assert first["plan"]["keywords"] == ["k"]
    assert [r["judge"] for r in rows] == [True, False, True]
    assert rows[2]["evidence"] == [] and rows[2]["evidence_rank"] == {} and rows[2]["outranked_by"] == []


def test_summary_scores_recall_from_the_rows_own_gold() -> None:
    rows = [r.to_json() for r in evaluate([Q1, Q2, Q3], lambda q: ANSWERS[q.qid],
                                          judge=lambda q, gold, answer: gold in answer)]
    summary = summarise(rows)
    assert (summary["1"].scored, summary["1"].full_recall, summary["1"].coverage) == (1, 0.0, 0.5)
    assert (summary["2"].scored, summary["2"].full_recall, summary["2"].coverage) == (1, 1.0, 1.0)
    assert summary["3"].scored == 0 and summary["3"].full_recall is None
    overall = summary["overall"]
    assert (overall.n, overall.scored, overall.full_recall, overall.coverage) == (3, 2, 0.5, 0.75)
    assert overall.tokens_mean == 20
    assert list(overall.to_json()) == [  # the keys in the order the summaries have always had them
        "name", "n", "scored", "full_recall", "coverage", "tokens_mean", "answer_f1", "answer_em",
        "answer_contains", "latency_p50", "latency_p95", "plan_retrieve_p50", "plan_retrieve_p95"]
    assert "judge_accuracy" not in overall.to_json()  # a run without a judge has no such figure
    judged = add_judge_accuracy(summary, rows)
    assert list(judged.to_json()["overall"])[-1] == "judge_accuracy"
    assert judged["overall"].judge_accuracy == 2 / 3
    assert (judged["1"].judge_accuracy, judged["2"].judge_accuracy) == (1.0, 0.0)
    assert judged["4"].judge_accuracy is None and judged["4"].to_json()["judge_accuracy"] is None


def test_triage_reads_the_kept_retrieval() -> None:
    (row,) = [r.to_json() for r in evaluate([Q1], lambda q: ANSWERS[q.qid])]
    text = {"D1:2": "A: in Paris", "D1:4": "B: lovely", "D1:3": "A: hello", "D1:5": "B: " + "y" * 200}
    info = triage(row, text, {"D1:2": ["r1", "r7"]})
    assert info.to_json() == {
        "conv_id": "c", "qid": 0, "question": "Where?", "gold": "Paris", "category": 1,
        "full_recall": False, "coverage": 0.5,
        "evidence": [
            {"turn_id": "D1:2", "retrieved": True, "rank": 2, "cited_by_records": ["r1", "r7"],
             "text": "A: in Paris"},
            {"turn_id": "D1:4", "retrieved": False, "rank": 5, "cited_by_records": [], "text": "B: lovely"},
        ],
        "outranked_by": [
            {"turn_id": "D1:3", "rank": 1, "score": 0.9, "text": "A: hello"},
            {"turn_id": "D1:5", "rank": 3, "score": 0.75, "text": ("B: " + "y" * 200)[:160]},
            {"turn_id": "D1:1", "rank": 4, "score": 0.5, "text": ""},
        ],
        "plan": row["plan"],
    }


def test_run_lines_keep_the_scorer_keys_and_what_triage_needs() -> None:
    (row,) = [r.to_json() for r in evaluate([Q1], lambda q: ANSWERS[q.qid])]
    line = run_line(row)
    assert list(line)[:10] == ["conv_id", "qid", "category", "question", "gold", "answer", "dia_ids",
                               "context_tokens", "latency_s", "strategy"]
    assert line["evidence"] == ["D1:2", "D1:4"] and line["evidence_rank"] == {"D1:2": 2, "D1:4": 5}
    assert "answer_f1" not in line  # the run file keeps the scorer's schema plus the triage facts


def test_gold_from_qa_renormalises_evidence_and_defaults_category() -> None:
    qa = [QAItem(qid=0, question="q", answer=None, evidence=("D:1:02", "D1:2", "D9:9"), category=None),
          QAItem(qid=2, question="r", answer="a", evidence=("D1:1",), category=4)]
    gold = gold_from_qa("c", ["D1:1", "D1:2"], qa)
    assert gold.turn_ids == {"D1:1", "D1:2"}
    assert gold.questions == [
        GoldQuestion(conv_id="c", qid=0, question="q", answer="", evidence=("D1:2",), category=0),
        GoldQuestion(conv_id="c", qid=2, question="r", answer="a", evidence=("D1:1",), category=4),
    ]
    assert [q.qid for q in gold.scored()] == [2]


def test_a_typed_row_writes_the_json_row_it_replaced() -> None:
    """``EvalRow.to_json`` keeps the keys, their order and the values the row dicts had."""
    (row,) = evaluate([Q1], lambda q: ANSWERS[q.qid], judge=lambda q, gold, answer: True)
    assert row.qid == 0 and row.judge is True
    assert [o.turn_id for o in row.outranked_by] == ["D1:3", "D1:5", "D1:1"]
    data = row.to_json()
    assert list(data) == ["conv_id", "qid", "category", "question", "gold", "answer", "dia_ids",
                          "context_tokens", "latency_s", "strategy", "plan_retrieve_s", "budget_tokens",
                          "backend", "answer_f1", "trace_id", "support", "evidence", "evidence_rank",
                          "outranked_by", "plan", "judge"]
    assert data["outranked_by"][0] == {"turn_id": "D1:3", "rank": 1, "score": 0.9}
    assert data["support"] == "supported" and data["trace_id"] == "t"
    (unjudged,) = evaluate([Q1], lambda q: ANSWERS[q.qid])
    assert "judge" not in unjudged.to_json()  # no verdict, no key (as before)
