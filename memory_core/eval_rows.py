"""One evaluation row per gold question: what was asked, what came back, and what triage needs
from that one retrieval (the rank of every gold turn, the turns that outranked the missing ones).

    row = EvalRow(conv_id="conv-7", qid=3, category=2, question=..., gold=..., answer=..., ...)
    row.to_json()   # the row as a JSON object: the keys and values the run files have always had

``EvalRow`` is what ``EvalService.evaluate`` / ``longmemeval`` return in ``EvalReport.rows`` (the
services' report) — LoCoMo-style rows, and LongMemEval rows with their own facts in ``lme``.
``Triage`` is what ``EvalService.triage`` makes of one row: each gold turn (retrieved? at what
rank? which records cite it?) and the turns that outranked the missing ones, with their text.
The metrics, triage and the run-file line read the JSON form (``to_json``), which is also what
the app keeps of a run. This module sits on the bottom floor: plain values, no imports of ours.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SESSION_KS = (5, 10)  # LongMemEval's session recall_all@k


@dataclass(frozen=True)
class Outranked:
    """A turn that is not gold but ranked above the lowest-ranked missing gold turn."""

    turn_id: str
    rank: int
    score: float

    def to_json(self) -> dict[str, Any]:
        return {"turn_id": self.turn_id, "rank": self.rank, "score": self.score}


@dataclass(frozen=True)
class LmeFacts:
    """A LongMemEval row's own fields (its question type is the row's ``category``)."""

    abstention: bool
    question_date: str | None
    answer_sessions: list[int]
    session_ranking: list[int]  # sessions best first (the first ``max(SESSION_KS)``)
    session_recall: dict[int, bool | None]  # k -> every answer session in the top k (None: n/a)
    abstained: bool | None = None  # abstention questions only: was the answer "unknown"


@dataclass(frozen=True)
class EvalRow:
    conv_id: str
    qid: int
    category: int | str  # a LoCoMo category code, or a LongMemEval question type
    question: str
    gold: str
    answer: str
    dia_ids: list[str]  # the buffer's turn ids
    context_tokens: int
    latency_s: float
    strategy: str
    plan_retrieve_s: float
    budget_tokens: int | None
    backend: str
    answer_f1: float
    trace_id: str
    support: str  # a SupportLevel value
    evidence: list[str]  # gold evidence turn ids
    evidence_rank: dict[str, int | None]  # gold turn -> its rank in the fused ranking
    outranked_by: list[Outranked] = field(default_factory=list)
    plan: dict[str, Any] = field(default_factory=dict)  # the trace's plan, as JSON
    judge: bool | None = None  # the LLM judge's verdict, when the run had one
    lme: LmeFacts | None = None

    def to_json(self) -> dict[str, Any]:
        """The row as a JSON object, keys in the order the run files have them."""
        out: dict[str, Any] = {
            "conv_id": self.conv_id, "qid": self.qid, "category": self.category, "question": self.question,
            "gold": self.gold, "answer": self.answer, "dia_ids": list(self.dia_ids),
            "context_tokens": self.context_tokens, "latency_s": self.latency_s, "strategy": self.strategy,
            "plan_retrieve_s": self.plan_retrieve_s, "budget_tokens": self.budget_tokens,
            "backend": self.backend, "answer_f1": self.answer_f1, "trace_id": self.trace_id,
            "support": self.support, "evidence": list(self.evidence),
        }
        lme = self.lme
        if lme is not None:
            out |= {"abstention": lme.abstention, "question_date": lme.question_date,
                    "answer_sessions": list(lme.answer_sessions),
                    "session_ranking": list(lme.session_ranking)}
        out |= {"evidence_rank": dict(self.evidence_rank),
                "outranked_by": [o.to_json() for o in self.outranked_by], "plan": self.plan}
        if lme is not None:
            out |= {f"session_recall_all@{k}": lme.session_recall.get(k) for k in SESSION_KS}
            if lme.abstention:
                out["abstained"] = lme.abstained
        if self.judge is not None:
            out["judge"] = self.judge
        return out


@dataclass(frozen=True)
class EvidenceCheck:
    """One gold evidence turn of a triaged question."""

    turn_id: str
    retrieved: bool  # in the buffer
    rank: int | None  # its place in the fused ranking (1 = best; None: not ranked)
    cited_by_records: list[str]  # ids of the records citing it
    text: str | None  # the turn rendered (None: not in the conversation)

    def to_json(self) -> dict[str, Any]:
        return {"turn_id": self.turn_id, "retrieved": self.retrieved, "rank": self.rank,
                "cited_by_records": list(self.cited_by_records), "text": self.text}


@dataclass(frozen=True)
class OutrankedTurn:
    """A turn that outranked the missing evidence (``Outranked``), with the start of its text."""

    turn_id: str
    rank: int
    score: float
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"turn_id": self.turn_id, "rank": self.rank, "score": self.score, "text": self.text}


@dataclass(frozen=True)
class Triage:
    """Why a question missed, from its row: its gold turns and what outranked them."""

    conv_id: str
    qid: int
    question: str
    gold: str
    category: int | str
    full_recall: bool
    coverage: float
    evidence: list[EvidenceCheck]
    outranked_by: list[OutrankedTurn]
    plan: dict[str, Any] | None  # the trace's plan, as JSON

    def to_json(self) -> dict[str, Any]:
        """As a JSON object, keys in the order triage has always given them."""
        return {"conv_id": self.conv_id, "qid": self.qid, "question": self.question, "gold": self.gold,
                "category": self.category, "full_recall": self.full_recall, "coverage": self.coverage,
                "evidence": [e.to_json() for e in self.evidence],
                "outranked_by": [o.to_json() for o in self.outranked_by], "plan": self.plan}


__all__ = ["SESSION_KS", "EvalRow", "EvidenceCheck", "LmeFacts", "Outranked", "OutrankedTurn", "Triage"]
