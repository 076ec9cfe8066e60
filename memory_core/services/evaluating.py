"""Evaluation part of the services: LoCoMo-format runs, recall-at-budget curves, triage.

``EvalService(store, imports, builds, queries, settings)``: a LoCoMo-layout source (a file, an
upload held in memory, or conversations already in the home) is read once by the importer; the
parsed conversations serve both the import of what the home lacks and the gold questions. The
questions are then asked through ``queries`` and scored by the plain functions of
``memory_core.eval``; each row keeps what triage needs, so triage never asks again.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memory_core.backends import make_judge
from memory_core.config import Settings
from memory_core.contracts import Backend, RelationalStore
from memory_core.errors import QueryError
from memory_core.eval import longmemeval as lme
from memory_core.eval.fit import Candidates
from memory_core.eval.locomo import (
    CATEGORY_NAMES,
    SCORED_CATEGORIES,
    GoldConversation,
    gold_from_conversation,
    gold_from_qa,
    matches,
)
from memory_core.eval.longmemeval import ABSTENTION, QUESTION_TYPES
from memory_core.eval.metrics import normalise_answer, summarise, token_f1
from memory_core.eval.run import (
    OUTCOMES,
    WRONG_F1,
    Asked,
    Judge,
    add_judge_accuracy,
    evaluate,
    evidence_missed,
    outcome,
    run_line,
    triage,
)
from memory_core.eval_rows import EvalRow, Triage
from memory_core.eval_summary import EvalSummary, GroupSummary
from memory_core.ids import normalise_evidence
from memory_core.ingest import Loaded, detect_bytes, detect_format
from memory_core.models import QAItem, Source, SourceLike
from memory_core.progress import CurvePoint, OnProgress, Step
from memory_core.query.strategies import strategy as get_strategy
from memory_core.query.strategies import strategy_names
from memory_core.services.backend_choice import BackendChoice
from memory_core.services.building import BuildService
from memory_core.services.importing import ImportService
from memory_core.services.querying import QueryService
from memory_core.store.activity import EVALUATION as ASKED_BY  # marks the traces a run saves

log = logging.getLogger(__name__)

CURVE_BUDGETS = (500, 1000, 2000, 4000, 8000)
LOCOMO_STYLE = ("realtalk", "beam")  # layouts besides LoCoMo whose QA is scored as LoCoMo's


# what a run reads its questions from: a file (a path, or an upload's bytes: ``models.Source``)
# or the ids of conversations already in the home
EvalSource = SourceLike | Sequence[str]


@dataclass
class EvalReport:
    """A run: one ``EvalRow`` per question (``memory_core.eval_rows``) and the summary per
    category (or question type) and overall (``memory_core.eval_summary``)."""

    strategy: str
    budget_tokens: int | None
    backend: str
    rows: list[EvalRow] = field(default_factory=list)
    summary: EvalSummary = field(default_factory=EvalSummary)
    conv_ids: list[str] = field(default_factory=list)
    seconds: float = 0.0
    line: Callable[[Mapping[str, Any]], dict[str, Any]] = run_line  # a row's run-file line

    def json_rows(self) -> list[dict[str, Any]]:
        """The rows as JSON objects (what the metrics, triage and the app read)."""
        return [row.to_json() for row in self.rows]

    def jsonl(self) -> str:
        """The run file: one line per row, in the benchmark's own line layout."""
        out = [json.dumps(self.line(row), ensure_ascii=False) for row in self.json_rows()]
        return "\n".join(out) + ("\n" if out else "")


def _parse_convs(convs: Sequence[str] | str | None) -> list[str] | None:
    if convs is None or convs == "" or convs == []:
        return None
    items = convs.split(",") if isinstance(convs, str) else list(convs)
    return [c.strip() for c in items if c.strip()]


class EvalService:
    def __init__(self, store: RelationalStore, imports: ImportService, builds: BuildService,
                 queries: QueryService, settings: Settings) -> None:
        self.store = store
        self.imports = imports
        self.builds = builds
        self.queries = queries
        self.settings = settings

    def _backend(self, choice: BackendChoice) -> Backend:
        """``choice`` resolved (``services/backend_choice.py``): the queries' backend when it names
        the configured one, else one made (once) for the name, or the backend object given."""
        return self.queries.backends.resolve(choice)

    # ------------------------------------------------------------------ preparing the home
    def gold_questions(self, source: EvalSource, convs: Sequence[str] | str | None = None, *,
                       on_progress: OnProgress | None = None) -> list[GoldConversation]:
        """Gold questions of the wanted conversations, importing/building what the home lacks.

        ``source`` is a LoCoMo-layout file (a ``Source``: a path or an upload) or conversation
        ids already in the home.
        """
        wanted = _parse_convs(convs)
        if isinstance(source, Source) or (isinstance(source, (str, Path)) and Path(source).exists()):
            name, loaded = self._read(source)
            conversations = loaded.conversations
            if wanted is not None:
                unknown = [w for w in wanted if not any(matches(c.id, [w]) for c in conversations)]
                if unknown:
                    raise QueryError(f"{name}: no conversation {', '.join(unknown)} in the file")
                conversations = [c for c in conversations if matches(c.id, wanted)]
            self._import_missing(name, dataclasses.replace(loaded, conversations=conversations), on_progress)
            gold = [gold_from_conversation(c) for c in conversations]
        else:
            ids = [str(source)] if isinstance(source, (str, Path)) else list(source)
            if wanted is not None:
                ids = [i for i in ids if matches(i, wanted)]
            gold = [self._gold_from_store(i) for i in ids]
        for g in gold:
            self._build_if_needed(g.conv_id, on_progress)
        return gold

    def _read(self, source: SourceLike) -> tuple[str, Loaded]:
        """The file's conversations, read once by the importer: (name, what it read). A REALTALK
        or BEAM file is read as such (its QA is LoCoMo's); anything else as LoCoMo."""
        detected = self.benchmark_format(source)
        fmt = detected if detected in LOCOMO_STYLE else "locomo"
        src = Source.of(source)
        return src.name, self.imports.load(src, fmt=fmt)

    def gold_items(self, conv_id: str) -> list[QAItem]:
        """The conversation's stored benchmark questions, their evidence normalised against its
        turns as the evaluator does (what the Ask and Evaluate pages show beside a trace)."""
        self.store.require_conversation(conv_id)
        known = {t.id for t in self.store.turns(conv_id)}
        return [q.model_copy(update={"evidence": tuple(normalise_evidence(q.evidence, known)[0])})
                for q in self.store.qa_items(conv_id)]

    def llm_judge(self) -> Judge:
        """The LLM judge (LoCoMo-style CORRECT/WRONG) on the configured endpoint and judge model;
        its calls are cached and accounted in this home's store."""
        return make_judge(self.settings, self.store)

    def _gold_from_store(self, conv_id: str) -> GoldConversation:
        self.store.require_conversation(conv_id)
        return gold_from_qa(conv_id, (t.id for t in self.store.turns(conv_id)), self.store.qa_items(conv_id))

    def _import_missing(self, name: str, loaded: Loaded, on_progress: OnProgress | None) -> None:
        """Save the conversations of ``loaded`` the home lacks (those it has are kept as they are)."""
        missing = [c for c in loaded.conversations if not self.store.has_conversation(c.id)]
        if not missing:
            return
        if on_progress:
            on_progress(Step("import", detail=[c.id for c in missing]))
        self.imports.save_loaded(dataclasses.replace(loaded, conversations=missing), file=name)
        still = [c.id for c in missing if not self.store.has_conversation(c.id)]
        if still:
            raise QueryError(f"{name}: importing did not create {', '.join(still)}")

    def _build_if_needed(self, conv_id: str, on_progress: OnProgress | None) -> None:
        n_sessions = len(self.store.sessions(conv_id))
        if len(self.store.built_sessions(conv_id)) >= n_sessions:
            return
        if on_progress:
            on_progress(Step("build", conv_id=conv_id))
        for event in self.builds.build(conv_id, backend="offline"):
            if on_progress:
                on_progress(Step("build", conv_id=conv_id, detail=str(event)))

    # ------------------------------------------------------------------ evaluation
    def _asker(self, *, strategy_name: str, budget_tokens: int | None, backend: Backend,
               save: bool) -> Callable[..., Asked]:
        """``ask(conv_id, question, now=None)`` with the run's settings: the trace and the turn
        ranking; ``now`` is the question's own date when the benchmark gives one."""
        def ask(conv_id: str, question: str, now: datetime | None = None) -> Asked:
            trace, result = self.queries.ask_detailed(conv_id, question, strategy_name=strategy_name,
                                                      budget_tokens=budget_tokens, backend=backend, save=save,
                                                      now=now, asked_by=ASKED_BY)
            fused = result.scored.fused if result.scored is not None else None
            if fused is None:
                return Asked(trace)
            turns = self.queries.conversation_index(conv_id).turns
            order = fused.argsort()[::-1]
            return Asked(trace, [(turns[int(p)].id, float(fused[p])) for p in order])

        return ask

    def evaluate(
        self,
        source: EvalSource,
        *,
        strategy: str | None = None,
        budget_tokens: int | None = None,
        backend: BackendChoice = None,
        judge: Judge | None = None,
        on_progress: OnProgress | None = None,
        convs: Sequence[str] | str | None = None,
        save_traces: bool = False,
    ) -> EvalReport:
        started = time.perf_counter()
        cfg = get_strategy(strategy or self.settings.strategy)
        gold = self.gold_questions(source, convs, on_progress=on_progress)
        backend_name = self.queries.backends.name(backend)
        chosen = self._backend(backend)  # one backend for the whole run
        report = EvalReport(strategy=cfg.name, budget_tokens=budget_tokens, backend=backend_name,
                            conv_ids=[g.conv_id for g in gold])
        total = sum(len(g.scored()) for g in gold)
        ask = self._asker(strategy_name=cfg.name, budget_tokens=budget_tokens, backend=chosen,
                          save=save_traces)

        done = 0

        def progress(row: EvalRow) -> None:
            nonlocal done
            done += 1  # report.rows grows per conversation, after its questions
            if on_progress:
                on_progress(Step("question", done, total, conv_id=row.conv_id, detail=row.qid))

        for g in gold:
            self.queries.warm(g.conv_id)  # index building is a one-off cost, not a question's latency
            report.rows.extend(evaluate(g.scored(), lambda q: ask(q.conv_id, q.question), judge=judge,
                                        on_row=progress))
        rows = report.json_rows()
        report.summary = summarise(rows)
        if judge is not None:
            report.summary = add_judge_accuracy(report.summary, rows)
        report.seconds = time.perf_counter() - started
        return report

    def curve(
        self,
        source: EvalSource,
        *,
        strategies: Iterable[str] | None = None,
        budgets: Sequence[int] = CURVE_BUDGETS,
        convs: Sequence[str] | str | None = None,
        on_progress: OnProgress | None = None,
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
                report = self.evaluate([g.conv_id for g in gold], strategy=name, budget_tokens=budget,
                                       backend="offline")
                s = report.summary.overall
                recall, tokens = (s.full_recall, s.tokens_mean) if s is not None else (None, None)
                out[name][budget] = {"full_recall": recall or 0.0, "tokens_mean": tokens or 0.0}
                if on_progress:
                    point = CurvePoint(name, budget, out[name][budget]["full_recall"])
                    on_progress(Step("curve", detail=point))
        return out

    # ------------------------------------------------------------------ LongMemEval
    def benchmark_format(self, source: SourceLike) -> str:
        """The format the importer detects in a benchmark file or upload ("locomo",
        "longmemeval", …): which evaluation it takes."""
        src = Source.of(source)
        if src.data is not None:
            return detect_bytes(src.name, src.data, limits=self.settings.limits)
        return detect_format(src.file, limits=self.settings.limits)

    def longmemeval(
        self,
        path: SourceLike,
        *,
        types: Sequence[str] | None = None,
        limit: int | None = None,
        strategy: str | None = None,
        budget_tokens: int | None = None,
        backend: BackendChoice = None,
        on_progress: OnProgress | None = None,
        save_traces: bool = False,
    ) -> EvalReport:
        """Each item of a LongMemEval file, one at a time (a haystack in memory at once):
        imported if the home lacks it, built offline if unbuilt, then asked its question.
        Rows and summary as ``memory_core.eval.longmemeval`` defines them."""
        started = time.perf_counter()
        cfg = get_strategy(strategy or self.settings.strategy)
        backend_name = self.queries.backends.name(backend)
        ask = self._asker(strategy_name=cfg.name, budget_tokens=budget_tokens,
                          backend=self._backend(backend), save=save_traces)
        report = EvalReport(strategy=cfg.name, budget_tokens=budget_tokens, backend=backend_name,
                            line=lme.run_line)
        src = Source.of(path)
        name = src.name
        items: Iterable[tuple[Any, lme.LmeQuestion]]
        if src.data is not None:  # an upload: read from its bytes, its questions counted
            items = lme.read_questions_bytes(src.name, src.data, limits=self.settings.limits,
                                             types=types, limit=limit)
            total = len(items)
        else:
            items = lme.read_questions(src.file, limits=self.settings.limits, types=types, limit=limit)
            total = limit or 0
        for conv, q in items:
            self._import_missing(name, Loaded(format="longmemeval", conversations=[conv]), on_progress)
            self._build_if_needed(conv.id, on_progress)
            self.queries.warm(conv.id)
            report.rows.append(lme.make_row(q, ask(q.conv_id, q.question, now=q.question_time)))
            report.conv_ids.append(conv.id)
            self.queries.invalidate(conv.id)  # one haystack's index in memory at a time, not 32
            if on_progress:
                on_progress(Step("question", len(report.rows), total, conv_id=conv.id, detail=0))
        report.summary = lme.summarise(report.json_rows())
        report.seconds = time.perf_counter() - started
        return report

    def fit_candidates(self, path: str | Path, *, limit: int | None = None,
                       convs: Sequence[str] | None = None,
                       on_progress: OnProgress | None = None) -> Iterator[Candidates]:
        """The ranker fit's candidates of a LoCoMo-layout or LongMemEval file, importing and
        building what the home lacks (``services/fitting.py``)."""
        from memory_core.services.fitting import candidates

        return candidates(self, path, limit=limit, convs=convs, on_progress=on_progress)

    # ------------------------------------------------------------------ triage
    def triage(self, conv_id: str, qid: int, row: EvalRow | Mapping[str, Any]) -> Triage:
        """Why a question missed, from its evaluation row (the retrieval it kept): gold turns,
        whether records cite them, whether they were retrieved, and what outranked them.

        A row read back from an older run file without gold evidence takes it from the home.
        """
        row = row.to_json() if isinstance(row, EvalRow) else dict(row)
        if "evidence" not in row:
            gold = self._gold_from_store(conv_id)
            question = next((q for q in gold.questions if q.qid == qid), None)
            if question is None:
                raise QueryError(f"conversation '{conv_id}' has no question {qid}")
            row = {**row, "evidence": list(question.evidence)}
        ci = self.queries.conversation_index(conv_id)
        cited_by: dict[str, list[str]] = {t: [] for t in row["evidence"]}
        for rec in ci.records:
            for t in rec.evidence_turn_ids:
                if t in cited_by:
                    cited_by[t].append(rec.id)
        wanted = set(row["evidence"]) | {o["turn_id"] for o in row.get("outranked_by") or ()}
        turn_text = {t: ci.turns[ci.pos[t]].render() for t in wanted if t in ci.pos}
        return triage({**row, "conv_id": conv_id, "qid": qid}, turn_text, cited_by)


# what the app's pages use of the evaluation's plain functions (they reach the library through
# the services only)
__all__ = ["ABSTENTION", "CATEGORY_NAMES", "CURVE_BUDGETS", "OUTCOMES", "QUESTION_TYPES", "SCORED_CATEGORIES",
           "WRONG_F1", "EvalReport", "EvalRow", "EvalService", "EvalSource", "EvalSummary", "GroupSummary",
           "evidence_missed", "normalise_answer", "outcome", "token_f1"]
