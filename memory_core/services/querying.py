"""Asking questions: plan, retrieve, answer, traces.

    QueryService(store, index, embedder, backend, settings, index_cache)

The backend (offline or openai, made once per services view by ``make_backend``) plans and
answers every question; retrieval is the same for all. The per-conversation in-memory
indexes live in ``index_cache``, shared by every view of one home and dropped for a
conversation by ``invalidate`` after a build or an edit.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
import uuid
from datetime import UTC, datetime

from memory_core.config import Settings
from memory_core.contracts import Backend, RelationalStore, VectorStore, Vocabulary
from memory_core.embeddings import Embedder
from memory_core.errors import QueryError, StoreError
from memory_core.llm.accounting import flat_cost, llm_scope, usage
from memory_core.models import Answer, Record, Trace, TraceRow
from memory_core.query.buffer import buffer_tokens, build_buffer
from memory_core.query.context import ConversationIndex, IndexCache
from memory_core.query.pipeline import key_records, run_question
from memory_core.query.qembed import embed_question, head_vector
from memory_core.query.retrieve import Retrieval, retrieve
from memory_core.query.strategies import strategy, strategy_names
from memory_core.services.backend_choice import BackendChoice, BackendChoices

log = logging.getLogger(__name__)


class QueryService:
    def __init__(self, store: RelationalStore, index: VectorStore, embedder: Embedder, backend: Backend,
                 settings: Settings, index_cache: IndexCache) -> None:
        self.store = store
        self.index = index
        self.embedder = embedder
        self.backend = backend
        self.backends = BackendChoices(settings, store, embedder, backend)  # ``backend=`` of every call
        self.settings = settings
        self.index_cache = index_cache
        self._index_usable: bool | None = None
        self._lock = threading.Lock()

    def conversation_index(self, conv_id: str) -> ConversationIndex:
        return self.index_cache.get(self.store, self._vector_index_or_none(), self.embedder, conv_id)

    def _vector_index_or_none(self) -> VectorStore | None:
        with self._lock:
            if self._index_usable is None:
                try:
                    self.index.count("records")  # opens the index on first use
                    self._index_usable = True
                except Exception as exc:  # the home's Chroma may be unavailable; vectors get embedded
                    log.warning("vector index unavailable (%s); embedding in memory", exc)
                    self._index_usable = False
            return self.index if self._index_usable else None

    def invalidate(self, conv_id: str) -> None:
        """Drop the conversation's in-memory indexes (its memory changed)."""
        self.index_cache.invalidate(conv_id)

    def warm(self, conv_id: str) -> None:
        """Build the conversation's in-memory index and embed its property vocabulary now, so the
        first question is not slower than the rest."""
        from memory_core.backends.offline.planner import align_property

        ci = self.conversation_index(conv_id)
        vocabulary = ci.vocabulary()
        if vocabulary.properties:
            align_property("index warm-up", vocabulary, self.embedder)  # embeds the property matrix

    def strategies(self) -> list[str]:
        return strategy_names()

    def vocabulary(self, conv_id: str) -> Vocabulary:
        return self.conversation_index(conv_id).vocabulary()

    def ask_detailed(
        self,
        conv_id: str,
        question: str,
        *,
        strategy_name: str | None = None,
        budget_tokens: int | None = None,
        backend: BackendChoice = None,
        save: bool = True,
        now: datetime | None = None,
        client: str = "",
        asked_by: str | None = None,
    ) -> tuple[Trace, Retrieval]:
        """Ask with this view's backend, or ``backend`` (a name or a backend object,
        ``services/backend_choice.py``) for this question. ``now`` is when the question is asked
        (relative dates in it count back from there); default: the last session's time.
        ``client``: the agent that asked (an MCP client's name), '' for a person."""
        question = (question or "").strip()
        if not question:
            raise QueryError("the question is empty")
        if budget_tokens is not None and budget_tokens <= 0:
            raise QueryError(f"--budget-tokens must be positive, got {budget_tokens}")
        cfg = strategy(strategy_name or self.settings.strategy)
        if budget_tokens is None:
            budget_tokens = self.settings.budget_tokens
        chosen = self.backends.resolve(backend)
        ci = self.conversation_index(conv_id)
        trace_id = uuid.uuid4().hex[:16]
        scope = f"trace:{trace_id}"
        with llm_scope(conv_id, scope):
            trace, result = run_question(ci, question, cfg, embedder=self.embedder, backend=chosen,
                                         budget_tokens=budget_tokens, now=now)
        cost = flat_cost(usage(self.store, scope)) if trace.backend != "offline" else {}
        details = {**trace.details, "asked_by": asked_by} if asked_by else trace.details
        trace = trace.model_copy(update={"id": trace_id, "cost": cost, "client": client, "details": details})
        if save:
            self.store.save_trace(trace)
        return trace, result

    def ask(self, conv_id: str, question: str, *, strategy: str | None = None,
            budget_tokens: int | None = None, now: datetime | None = None, client: str = "") -> Trace:
        trace, _ = self.ask_detailed(conv_id, question, strategy_name=strategy, budget_tokens=budget_tokens,
                                     now=now, client=client)
        return trace

    def search(self, conv_id: str, query: str, *, limit: int = 10, client: str = "",
               now: datetime | None = None) -> tuple[Trace, list[Record]]:
        """The ``limit`` records that answer ``query`` best (plan and retrieval as for a
        question, no answer): record matches by score, then records the retrieved turns
        support. Saved as a trace of kind "search" whose buffer is exactly the records' source
        turns handed over, in dialogue order, with their token count."""
        query = (query or "").strip()
        if not query:
            raise QueryError("the query is empty")
        if not 1 <= limit <= MAX_SEARCH:
            raise QueryError(f"limit must be between 1 and {MAX_SEARCH}, got {limit}")
        started = time.perf_counter()
        ci = self.conversation_index(conv_id)
        cfg = strategy(self.settings.strategy)
        qvec = embed_question(self.embedder, query)
        vocabulary = ci.vocabulary()
        if now is not None:
            vocabulary = dataclasses.replace(vocabulary, question_time=now)
        plan = self.backend.plan(query, vocabulary)
        result = retrieve(ci, plan, qvec, cfg, self.settings.budget_tokens, now=now,
                          hvec=head_vector(self.embedder, query))
        records = _chosen_records(self.store, ci, result, limit)
        handed = {t for r in records for t in r.evidence_turn_ids if t in ci.pos}
        buffer = build_buffer(ci, [ci.pos[t] for t in handed], plan)
        chosen = {r.id for r in records}
        trace = Trace(
            id=uuid.uuid4().hex[:16], conv_id=conv_id, question=query, strategy=cfg.name,
            backend=self.backend.name, plan=plan,
            matches=tuple(m for m in result.matches if m.record_id in chosen),
            episodes=tuple(result.episodes), buffer=tuple(buffer),
            answer=Answer(text=f"{len(records)} record(s)",
                          cited_turn_ids=tuple(bt.turn_id for bt in buffer)),
            timings={"total": round(time.perf_counter() - started, 5)}, buffer_tokens=buffer_tokens(buffer),
            budget_tokens=self.settings.budget_tokens, created_at=datetime.now(UTC).replace(tzinfo=None),
            details={"stop_reason": result.stop_reason, "records": [r.id for r in records]},
            client=client, kind="search")
        self.store.save_trace(trace)
        return trace, records

    def trace(self, trace_id: str) -> Trace:
        return self.store.trace(trace_id)

    def key_records(self, conv_id: str, trace: Trace, limit: int = 3) -> list[Record]:
        """The few records of conversation ``conv_id`` behind the trace's answer, as a reader
        should see them first (``pipeline.key_records``); a record deleted since the question
        was asked, or of another conversation, is skipped."""
        by_id: dict[str, Record] = {}
        for record_id in dict.fromkeys(m.record_id for m in trace.matches if m.record_id):
            try:
                record = self.store.record(record_id)
            except StoreError:
                continue
            if record.conv_id == conv_id:
                by_id[record_id] = record
        return key_records(trace.plan, trace.matches, by_id, trace.answer.cited_turn_ids, limit)

    def traces(self, conv_id: str, *, agents: bool | None = False, limit: int = 200) -> list[TraceRow]:
        """The newest ``limit``, newest first. ``agents``: False — people's questions, True —
        agent calls (MCP clients; each row names its ``client`` and ``kind``), None — both."""
        return [TraceRow.of(row) for row in self.store.traces(conv_id, limit, agents=agents)]


MAX_SEARCH = 50


def _chosen_records(store: RelationalStore, ci: ConversationIndex, result: Retrieval,
                    limit: int) -> list[Record]:
    """Active records: the record matches by score, then those the retrieved turns support
    (in the retrieval's turn order)."""
    active = {r.id: r for r in store.records(ci.conv_id)}
    ids = [m.record_id for m in sorted(result.matches, key=lambda m: -m.score)
           if m.record_id and m.record_id in active]
    by_turn: dict[str, list[str]] = {}
    for r in active.values():
        for t in r.evidence_turn_ids:
            by_turn.setdefault(t, []).append(r.id)
    for p in result.positions:
        ids.extend(by_turn.get(ci.turns[p].id, []))
    return [active[i] for i in list(dict.fromkeys(ids))[:limit]]
