"""Evaluation as plain functions: ask each gold question once, keep one row per question.

    evaluate(questions, ask, judge=None, on_row=None) -> rows (``EvalRow``, memory_core/eval_rows.py)
    triage(row, turn_text, cited_by) -> why the row's gold evidence was (not) retrieved

``ask`` is given by the caller (the services ask the conversation's index; a test can hand in
anything that returns an ``Asked``). Each row carries its gold evidence and what triage needs
from that one retrieval — the rank of every gold turn in the fused ranking and the turns that
outranked the missing ones — so triage never asks the question again. Triage, the outcome
checks and the run-file line read a row's JSON form (``EvalRow.to_json()``, or a line read back).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from memory_core.eval.locomo import GoldQuestion
from memory_core.eval.metrics import evidence_hits, token_f1
from memory_core.eval_rows import EvalRow, EvidenceCheck, LmeFacts, Outranked, OutrankedTurn, Triage
from memory_core.eval_summary import OVERALL, EvalSummary
from memory_core.models import SupportLevel, Trace

Judge = Callable[[str, str, str], bool]
OUTRANKED_SHOWN = 10
TEXT_SHOWN = 160
RUN_KEYS = ("conv_id", "qid", "category", "question", "gold", "answer", "dia_ids", "context_tokens",
            "latency_s", "strategy")
RUN_EXTRAS = ("judge", "plan_retrieve_s", "budget_tokens", "backend", "support", "evidence", "evidence_rank",
              "outranked_by", "plan")


@dataclass(frozen=True)
class Asked:
    """One question asked: its trace and the retrieval's turn ranking (every turn id with its
    fused score, best first; empty when the strategy scores no turns)."""

    trace: Trace
    ranking: Sequence[tuple[str, float]] = ()


Ask = Callable[[GoldQuestion], Asked]


def ranking_facts(evidence: Sequence[str], retrieved: Iterable[str],
                  ranking: Sequence[tuple[str, float]]) -> dict[str, Any]:
    """The rank of each gold turn (None: not ranked) and, above the lowest-ranked missing gold
    turn, the first turns that are not gold (what outranked it)."""
    rank = {turn_id: i + 1 for i, (turn_id, _) in enumerate(ranking)}
    got = set(retrieved)
    worst = max((rank.get(t, 0) for t in evidence if t not in got), default=0)
    outranked = [{"turn_id": turn_id, "rank": i + 1, "score": round(float(score), 4)}
                 for i, (turn_id, score) in enumerate(ranking[:worst]) if turn_id not in evidence]
    return {"evidence_rank": {t: rank.get(t) for t in evidence}, "outranked_by": outranked[:OUTRANKED_SHOWN]}


def row_of(conv_id: str, qid: int, category: int | str, question: str, gold: str, evidence: Sequence[str],
           asked: Asked, *, lme: LmeFacts | None = None) -> EvalRow:
    """A benchmark row: the question, and what its trace (answer, buffer, timings) and the
    retrieval's ranking say about it."""
    trace = asked.trace
    dia_ids = [b.turn_id for b in trace.buffer]
    facts = ranking_facts(evidence, dia_ids, asked.ranking)
    return EvalRow(
        conv_id=conv_id, qid=qid, category=category, question=question,
        gold=gold,
        answer=trace.answer.text,
        dia_ids=dia_ids,
        context_tokens=trace.buffer_tokens,
        latency_s=round(trace.timings.get("total", 0.0), 5),
        strategy=trace.strategy,
        plan_retrieve_s=round(trace.timings.get("plan_retrieve", 0.0), 5),
        budget_tokens=trace.budget_tokens,
        backend=trace.backend,
        answer_f1=round(token_f1(trace.answer.text, gold), 4),
        trace_id=trace.id,  # the trace to open (when the run saved its traces)
        support=support_level(trace).value,
        evidence=list(evidence),
        evidence_rank=facts["evidence_rank"],
        outranked_by=[Outranked(**o) for o in facts["outranked_by"]],
        plan=trace.plan.model_dump(mode="json"),
        lme=lme,
    )


def support_level(trace: Trace) -> SupportLevel:
    """The answer's graded support, else the one its yes/no ``supported`` flag implies."""
    if trace.answer.support is not None:
        return trace.answer.support
    return SupportLevel.SUPPORTED if trace.answer.supported else SupportLevel.UNKNOWN


def make_row(q: GoldQuestion, asked: Asked) -> EvalRow:
    return row_of(q.conv_id, q.qid, q.category, q.question, q.answer, q.evidence, asked)


def evaluate(questions: Iterable[GoldQuestion], ask: Ask, *, judge: Judge | None = None,
             on_row: Callable[[EvalRow], None] | None = None) -> list[EvalRow]:
    """One row per question, in order; ``judge(question, gold, answer)`` grades answers too."""
    rows = []
    for q in questions:
        asked = ask(q)
        row = make_row(q, asked)
        if judge is not None:
            row = replace(row, judge=bool(judge(q.question, q.answer, asked.trace.answer.text)))
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


OUTCOMES = ("missed evidence", "wrong answer", "both", "ok")
WRONG_F1 = 0.5  # an answer whose token F1 with the gold answer is below this counts as wrong


def evidence_missed(row: Mapping[str, Any]) -> bool | None:
    """Was some gold evidence turn left out of the buffer? (None: the row has no evidence)"""
    evidence = [str(t) for t in row.get("evidence") or ()]
    if not evidence:
        return None
    return not set(evidence) <= set(row.get("dia_ids") or ())


def answer_wrong(row: Mapping[str, Any], *, f1_below: float = WRONG_F1) -> bool:
    """A judge's verdict when the row has one; an abstention question's when it should have
    abstained; else token F1 below ``f1_below`` or an answer the evidence does not (fully) support."""
    if "judge" in row:
        return not row["judge"]
    if row.get("abstention"):
        return not row.get("abstained")
    f1 = row.get("answer_f1")
    return (f1 is not None and float(f1) < f1_below) or row.get("support") in ("weak", "unknown")


def outcome(row: Mapping[str, Any], *, f1_below: float = WRONG_F1) -> str:
    """One of ``OUTCOMES``: what went wrong with a row, for triage."""
    missed, wrong = bool(evidence_missed(row)), answer_wrong(row, f1_below=f1_below)
    return "both" if missed and wrong else "missed evidence" if missed else "wrong answer" if wrong else "ok"


def add_judge_accuracy(summary: EvalSummary, rows: Sequence[Mapping[str, Any]]) -> EvalSummary:
    """The summary with ``judge_accuracy`` of each group (rows that carry a judge verdict)."""
    accuracy: dict[str, float | None] = {}
    for key in summary:
        members = [r for r in rows if "judge" in r and (key == OVERALL or str(r["category"]) == key)]
        accuracy[key] = sum(bool(r["judge"]) for r in members) / len(members) if members else None
    return summary.judged(accuracy)


def triage(row: Mapping[str, Any], turn_text: Mapping[str, str],
           cited_by: Mapping[str, Sequence[str]]) -> Triage:
    """Why a question missed, from its row: its gold turns, whether they were retrieved, their
    rank, which records cite them, and what outranked them. ``turn_text`` renders turns by id;
    ``cited_by`` lists the records citing each turn."""
    evidence = [str(t) for t in row.get("evidence") or ()]
    got = set(row.get("dia_ids") or ())
    full, coverage = evidence_hits(evidence, got) if evidence else (False, 0.0)
    ranks = row.get("evidence_rank") or {}
    return Triage(
        conv_id=row["conv_id"], qid=int(row["qid"]), question=row["question"], gold=row["gold"],
        category=row["category"], full_recall=full, coverage=coverage,
        evidence=[EvidenceCheck(turn_id=t, retrieved=t in got, rank=ranks.get(t),
                                cited_by_records=list(cited_by.get(t, ())), text=turn_text.get(t))
                  for t in evidence],
        outranked_by=[OutrankedTurn(turn_id=o["turn_id"], rank=o["rank"], score=o["score"],
                                    text=(turn_text.get(o["turn_id"]) or "")[:TEXT_SHOWN])
                      for o in row.get("outranked_by") or ()],
        plan=row.get("plan"),
    )


def run_line(row: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON line of a row in a run file (what the bench scorer and ``triage`` read back)."""
    line = {k: row[k] for k in RUN_KEYS}
    line.update({k: row[k] for k in RUN_EXTRAS if k in row})
    return line


__all__ = ["OUTCOMES", "WRONG_F1", "Ask", "Asked", "Judge", "add_judge_accuracy", "answer_wrong", "evaluate",
           "evidence_missed", "make_row", "outcome", "ranking_facts", "row_of", "run_line", "support_level",
           "triage"]
