"""Evaluation: LoCoMo-format runs, recall-at-budget curves, triage of single questions."""

from __future__ import annotations

import json
import logging
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from memory_core.errors import ConfigError, QueryError
from memory_core.eval.locomo import (
    SCORED_CATEGORIES,
    GoldConversation,
    GoldQuestion,
    load_gold,
    normalise_evidence,
)
from memory_core.eval.metrics import evidence_hits, summarise, token_f1
from memory_core.models import Trace
from memory_core.query.strategies import strategy as get_strategy
from memory_core.query.strategies import strategy_names
from memory_core.services.base import ServicesBase

if TYPE_CHECKING:
    from memory_core.services.querying import QueryService

log = logging.getLogger(__name__)

Judge = Callable[[str, str, str], bool]
Progress = Callable[[dict[str, Any]], None]
CURVE_BUDGETS = (500, 1000, 2000, 4000, 8000)


@dataclass
class EvalReport:
    strategy: str
    budget_tokens: int | None
    backend: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    conv_ids: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def jsonl(self) -> str:
        keys = (
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
        )
        out = []
        for row in self.rows:
            line = {k: row[k] for k in keys}
            for extra in ("judge", "plan_retrieve_s", "budget_tokens", "backend"):
                if extra in row:
                    line[extra] = row[extra]
            out.append(json.dumps(line, ensure_ascii=False))
        return "\n".join(out) + ("\n" if out else "")


def _parse_convs(convs: Sequence[str] | str | None) -> list[str] | None:
    if convs is None or convs == "" or convs == []:
        return None
    items = convs.split(",") if isinstance(convs, str) else list(convs)
    return [c.strip() for c in items if c.strip()]


def _matches(conv_id: str, wanted: list[str]) -> bool:
    short = conv_id[5:] if conv_id.startswith("conv-") else conv_id
    return conv_id in wanted or short in wanted or f"conv-{short}" in wanted


class EvalService(ServicesBase):
    # ------------------------------------------------------------------ preparing the home
    def gold_questions(
        self,
        source: str | Path | Sequence[str],
        convs: Sequence[str] | str | None = None,
        *,
        on_progress: Progress | None = None,
    ) -> list[GoldConversation]:
        """Gold questions of the wanted conversations, importing/building what the home lacks.

        ``source`` is a LoCoMo-layout file or a list of conversation ids already in the home.
        """
        wanted = _parse_convs(convs)
        if isinstance(source, (str, Path)) and Path(source).exists():
            gold = load_gold(source)
            if wanted is not None:
                unknown = [w for w in wanted if not any(_matches(g.conv_id, [w]) for g in gold)]
                if unknown:
                    raise QueryError(f"{source}: no conversation {', '.join(unknown)} in the file")
                gold = [g for g in gold if _matches(g.conv_id, wanted)]
            self._import_missing(Path(source), gold, on_progress)
        else:
            ids = [str(source)] if isinstance(source, (str, Path)) else list(source)
            if wanted is not None:
                ids = [i for i in ids if _matches(i, wanted)]
            gold = [self._gold_from_store(i) for i in ids]
        for g in gold:
            self._build_if_needed(g.conv_id, on_progress)
        return gold

    def _gold_from_store(self, conv_id: str) -> GoldConversation:
        self.store.require_conversation(conv_id)
        known = {t.id for t in self.store.turns(conv_id)}
        gold = GoldConversation(conv_id=conv_id, turn_ids=known)
        for q in self.store.qa_items(conv_id):
            gold.questions.append(
                GoldQuestion(
                    conv_id=conv_id,
                    qid=q.qid,
                    question=q.question,
                    answer=q.answer or "",
                    evidence=normalise_evidence(list(q.evidence), known),
                    category=int(q.category or 0),
                )
            )
        return gold

    def _import_missing(self, path: Path, gold: list[GoldConversation], on_progress: Progress | None) -> None:
        missing = [g.conv_id for g in gold if not self.store.has_conversation(g.conv_id)]
        if not missing:
            return
        importer = getattr(self, "import_file", None)
        if importer is None:
            raise ConfigError("importing is not available in this installation")
        data = json.loads(path.read_text(encoding="utf-8"))
        samples = data if isinstance(data, list) else [data]
        subset = [s for s in samples if isinstance(s, dict) and str(s.get("sample_id")) in missing]
        if on_progress:
            on_progress({"stage": "import", "conv_ids": missing})
        if len(subset) == len(missing):
            with tempfile.TemporaryDirectory() as tmp:
                part = Path(tmp) / path.name
                part.write_text(json.dumps(subset), encoding="utf-8")
                importer(part, fmt="locomo")
        else:
            importer(path, fmt="locomo")
        still = [c for c in missing if not self.store.has_conversation(c)]
        if still:
            raise QueryError(f"{path}: importing did not create {', '.join(still)}")

    def _build_if_needed(self, conv_id: str, on_progress: Progress | None) -> None:
        n_sessions = len(self.store.sessions(conv_id))
        if len(self.store.built_sessions(conv_id)) >= n_sessions:
            return
        build = getattr(self, "build", None)
        if build is None:
            log.warning("%s is not built and building is not available; using fallback windows", conv_id)
            return
        if on_progress:
            on_progress({"stage": "build", "conv_id": conv_id})
        result = build(conv_id)
        if result is not None and hasattr(result, "__iter__"):
            for event in result:
                if on_progress:
                    on_progress({"stage": "build", "conv_id": conv_id, "event": str(event)})

    # ------------------------------------------------------------------ evaluation
    def evaluate(
        self,
        source: str | Path | Sequence[str],
        *,
        strategy: str | None = None,
        budget_tokens: int | None = None,
        backend: str | None = None,
        judge: Judge | None = None,
        on_progress: Progress | None = None,
        convs: Sequence[str] | str | None = None,
        save_traces: bool = False,
    ) -> EvalReport:
        started = time.perf_counter()
        cfg = get_strategy(strategy or self.settings.strategy)
        gold = self.gold_questions(source, convs, on_progress=on_progress)
        backend_name = backend or self.settings.backend
        report = EvalReport(
            strategy=cfg.name,
            budget_tokens=budget_tokens,
            backend=backend_name,
            conv_ids=[g.conv_id for g in gold],
        )
        evidence: dict[tuple[str, int], tuple[str, ...]] = {}
        total = sum(len(g.scored()) for g in gold)
        done = 0
        ask = getattr(self, "ask_detailed", None)
        if ask is None:
            raise ConfigError("querying is not available in this installation")
        from memory_core.services.querying import answer_backend

        answerer, backend_label = answer_backend(self.settings, self.store, backend_name)  # one per run
        warm = getattr(self, "warm", None)
        for g in gold:
            if warm is not None:
                warm(g.conv_id)  # index building is a one-off cost, not a question's latency
            for q in g.scored():
                trace, _ = ask(
                    g.conv_id,
                    q.question,
                    strategy_name=cfg.name,
                    budget_tokens=budget_tokens,
                    backend=backend_label,
                    answerer=answerer,
                    save=save_traces,
                )
                row = self._row(g.conv_id, q, trace)
                if judge is not None:
                    row["judge"] = bool(judge(q.question, q.answer, trace.answer.text))
                report.rows.append(row)
                evidence[(g.conv_id, q.qid)] = q.evidence
                done += 1
                if on_progress:
                    on_progress(
                        {
                            "stage": "question",
                            "done": done,
                            "total": total,
                            "conv_id": g.conv_id,
                            "qid": q.qid,
                        }
                    )
        report.summary = summarise(report.rows, evidence)
        if judge is not None:
            for key, group in report.summary.items():
                members = [r for r in report.rows if key == "overall" or str(r["category"]) == key]
                group["judge_accuracy"] = (
                    (sum(r["judge"] for r in members) / len(members)) if members else None
                )
        report.seconds = time.perf_counter() - started
        return report

    @staticmethod
    def _row(conv_id: str, q: GoldQuestion, trace: Trace) -> dict[str, Any]:
        return {
            "conv_id": conv_id,
            "qid": q.qid,
            "category": q.category,
            "question": q.question,
            "gold": q.answer,
            "answer": trace.answer.text,
            "dia_ids": [b.turn_id for b in trace.buffer],
            "context_tokens": trace.buffer_tokens,
            "latency_s": round(trace.timings.get("total", 0.0), 5),
            "strategy": trace.strategy,
            "plan_retrieve_s": round(trace.timings.get("plan_retrieve", 0.0), 5),
            "budget_tokens": trace.budget_tokens,
            "backend": trace.backend,
            "answer_f1": round(token_f1(trace.answer.text, q.answer), 4),
        }

    def curve(
        self,
        source: str | Path | Sequence[str],
        *,
        strategies: Iterable[str] | None = None,
        budgets: Sequence[int] = CURVE_BUDGETS,
        convs: Sequence[str] | str | None = None,
        on_progress: Progress | None = None,
    ) -> dict[str, dict[int, dict[str, float]]]:
        """Full-evidence recall (and mean tokens) at each budget for each strategy."""
        names = list(strategies) if strategies is not None else strategy_names()
        for name in names:
            get_strategy(name)
        gold = self.gold_questions(source, convs, on_progress=on_progress)
        out: dict[str, dict[int, dict[str, float]]] = {}
        for name in names:
            out[name] = {}
            for budget in budgets:
                report = self.evaluate(
                    [g.conv_id for g in gold], strategy=name, budget_tokens=budget, backend="offline"
                )
                s = report.summary["overall"]
                out[name][budget] = {
                    "full_recall": s["full_recall"] or 0.0,
                    "tokens_mean": s["tokens_mean"] or 0.0,
                }
                if on_progress:
                    on_progress(
                        {
                            "stage": "curve",
                            "strategy": name,
                            "budget": budget,
                            "full_recall": out[name][budget]["full_recall"],
                        }
                    )
        return out

    # ------------------------------------------------------------------ triage
    def triage(self, conv_id: str, qid: int, trace_or_row: Trace | dict[str, Any]) -> dict[str, Any]:
        """Why a question missed: gold turns, whether records cite them, whether they were
        retrieved, and what outranked them."""
        gold = self._gold_from_store(conv_id)
        question = next((q for q in gold.questions if q.qid == qid), None)
        if question is None:
            raise QueryError(f"conversation '{conv_id}' has no question {qid}")
        if isinstance(trace_or_row, Trace):
            retrieved = [b.turn_id for b in trace_or_row.buffer]
            strategy_name = trace_or_row.strategy
            budget = trace_or_row.budget_tokens
        else:
            retrieved = list(trace_or_row.get("dia_ids", []))
            strategy_name = str(trace_or_row.get("strategy") or self.settings.strategy)
            budget = trace_or_row.get("budget_tokens")
        query = cast("QueryService", self)
        ask = query.ask_detailed
        _trace, result = ask(
            conv_id,
            question.question,
            strategy_name=strategy_name,
            budget_tokens=budget,
            backend="offline",
            save=False,
        )
        ci = query.conversation_index(conv_id)
        fused = result.scored.fused if result.scored is not None else None
        order = [] if fused is None else [int(p) for p in fused.argsort()[::-1]]
        rank = {ci.turns[p].id: i + 1 for i, p in enumerate(order)}
        cited_by: dict[str, list[str]] = {t: [] for t in question.evidence}
        for rec in ci.records:
            for t in rec.evidence_turn_ids:
                if t in cited_by:
                    cited_by[t].append(rec.id)
        got = set(retrieved)
        full, coverage = evidence_hits(question.evidence, got) if question.evidence else (False, 0.0)
        worst = max((rank.get(t, 0) for t in question.evidence if t not in got), default=0)
        outranked = [
            {
                "turn_id": ci.turns[p].id,
                "rank": i + 1,
                "score": round(float(fused[p]), 4),
                "text": ci.turns[p].render()[:160],
            }
            for i, p in enumerate(order[:worst])
            if fused is not None and ci.turns[p].id not in question.evidence
        ][:10]
        return {
            "conv_id": conv_id,
            "qid": qid,
            "question": question.question,
            "gold": question.answer,
            "category": question.category,
            "full_recall": full,
            "coverage": coverage,
            "evidence": [
                {
                    "turn_id": t,
                    "retrieved": t in got,
                    "rank": rank.get(t),
                    "cited_by_records": cited_by.get(t, []),
                    "text": ci.turns[ci.pos[t]].render() if t in ci.pos else None,
                }
                for t in question.evidence
            ],
            "outranked_by": outranked,
            "plan": _trace.plan.model_dump(mode="json"),
        }


__all__ = ["CURVE_BUDGETS", "SCORED_CATEGORIES", "EvalReport", "EvalService"]
