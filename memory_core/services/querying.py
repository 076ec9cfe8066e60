"""Asking questions: plan, retrieve, answer, traces.

    QueryService(store, index, embedder, backend, settings, index_cache)

The backend (offline or openai, made once per services view by ``make_backend``) plans and
answers every question; retrieval is the same for all. The per-conversation in-memory
indexes live in ``index_cache``, shared by every view of one home and dropped for a
conversation by ``invalidate`` after a build or an edit.
"""

from __future__ import annotations

import logging
import threading
import uuid
from datetime import datetime
from typing import Any

from memory_core.config import Settings
from memory_core.contracts import Backend, RelationalStore, VectorStore, Vocabulary
from memory_core.embeddings import Embedder
from memory_core.errors import QueryError
from memory_core.llm.accounting import flat_cost, llm_scope, usage
from memory_core.models import Trace
from memory_core.query.context import ConversationIndex, IndexCache
from memory_core.query.pipeline import run_question
from memory_core.query.retrieve import Retrieval
from memory_core.query.strategies import strategy, strategy_names

log = logging.getLogger(__name__)


class QueryService:
    def __init__(self, store: RelationalStore, index: VectorStore, embedder: Embedder, backend: Backend,
                 settings: Settings, index_cache: IndexCache) -> None:
        self.store = store
        self.index = index
        self.embedder = embedder
        self.backend = backend
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
        from memory_core.query.planner import align_property

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
        backend: Backend | None = None,
        save: bool = True,
        now: datetime | None = None,
        asked_by: str | None = None,
    ) -> tuple[Trace, Retrieval]:
        """Ask with this view's backend, or ``backend`` for this question (e.g. an evaluation
        that keeps one backend for its whole run). ``now`` is when the question is asked
        (relative dates in it count back from there); default: the last session's time."""
        question = (question or "").strip()
        if not question:
            raise QueryError("the question is empty")
        if budget_tokens is not None and budget_tokens <= 0:
            raise QueryError(f"--budget-tokens must be positive, got {budget_tokens}")
        cfg = strategy(strategy_name or self.settings.strategy)
        if budget_tokens is None:
            budget_tokens = self.settings.budget_tokens
        chosen = backend if backend is not None else self.backend
        ci = self.conversation_index(conv_id)
        trace_id = uuid.uuid4().hex[:16]
        scope = f"trace:{trace_id}"
        with llm_scope(conv_id, scope):
            trace, result = run_question(ci, question, cfg, embedder=self.embedder, backend=chosen,
                                         budget_tokens=budget_tokens, now=now)
        cost = flat_cost(usage(self.store, scope)) if trace.backend != "offline" else {}
        details = {**trace.details, "asked_by": asked_by} if asked_by else trace.details
        trace = trace.model_copy(update={"id": trace_id, "cost": cost, "details": details})
        if save:
            self.store.save_trace(trace)
        return trace, result

    def ask(self, conv_id: str, question: str, *, strategy: str | None = None,
            budget_tokens: int | None = None, now: datetime | None = None) -> Trace:
        trace, _ = self.ask_detailed(conv_id, question, strategy_name=strategy, budget_tokens=budget_tokens,
                                     now=now)
        return trace

    def trace(self, trace_id: str) -> Trace:
        return self.store.trace(trace_id)

    def traces(self, conv_id: str) -> list[dict[str, Any]]:
        return self.store.traces(conv_id)
