"""Asking questions: plan, retrieve, answer, traces."""

from __future__ import annotations

import logging
import threading
import uuid
from typing import Any

from memory_core.contracts import Vocabulary
from memory_core.errors import ConfigError, QueryError
from memory_core.llm.accounting import flat_cost, llm_scope, usage
from memory_core.models import Trace
from memory_core.query.context import ConversationIndex, IndexCache
from memory_core.query.pipeline import Answerer, run_question
from memory_core.query.retrieve import Retrieval
from memory_core.query.strategies import strategy, strategy_names
from memory_core.services.base import ServicesBase

log = logging.getLogger(__name__)

_CACHE_LOCK = threading.Lock()


def answer_backend(settings: Any, store: Any, name: str) -> tuple[Answerer | None, str]:
    """The answerer of backend ``name``: None for offline (the extractive answer)."""
    backend = llm_backend(settings, store, name)
    if backend is None:
        return None, "offline"
    return backend.answer, getattr(backend, "name", "openai")


def llm_backend(settings: Any, store: Any, name: str) -> Any:
    """The LLM backend for ``name`` ("openai"), or None for the offline one."""
    if name == "offline":
        return None
    if name != "openai":
        raise ConfigError(f"unknown backend '{name}' (offline, openai)")
    try:
        from memory_core import backends
    except ImportError as exc:  # pragma: no cover - the package always exists
        raise ConfigError(f"backend 'openai' is not available: {exc}") from None
    make_backend = getattr(backends, "make_backend", None)
    if make_backend is None:
        raise ConfigError(
            "backend 'openai' is not available in this installation "
            "(memory_core.backends.make_backend is missing)"
        )
    from dataclasses import replace

    return make_backend(replace(settings, backend="openai"), store)


class QueryService(ServicesBase):
    @property
    def index_cache(self) -> IndexCache:
        with _CACHE_LOCK:
            cache = self.__dict__.get("_index_cache")
            if cache is None:
                cache = IndexCache()
                self.__dict__["_index_cache"] = cache
            return cache

    def conversation_index(self, conv_id: str) -> ConversationIndex:
        return self.index_cache.get(self.store, self._vector_index_or_none(), self.embedder, conv_id)

    def _vector_index_or_none(self) -> Any:
        try:
            return self.index
        except Exception as exc:  # the home's Chroma may be unavailable; vectors get embedded
            log.warning("vector index unavailable (%s); embedding in memory", exc)
            return None

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
        backend: str | None = None,
        answerer: Answerer | None = None,
        save: bool = True,
    ) -> tuple[Trace, Retrieval]:
        question = (question or "").strip()
        if not question:
            raise QueryError("the question is empty")
        if budget_tokens is not None and budget_tokens <= 0:
            raise QueryError(f"--budget-tokens must be positive, got {budget_tokens}")
        cfg = strategy(strategy_name or self.settings.strategy)
        if budget_tokens is None:
            budget_tokens = self.settings.budget_tokens
        ci = self.conversation_index(conv_id)
        backend_name = backend or self.settings.backend
        planner = None
        if answerer is None:
            llm = llm_backend(self.settings, self.store, backend_name)
            if llm is not None:  # the LLM plans and answers; retrieval stays the same
                answerer = llm.answer
                planner = lambda q, index: llm.plan(q, index.vocabulary())  # noqa: E731
                backend_name = getattr(llm, "name", "openai")
        trace_id = uuid.uuid4().hex[:16]
        scope = f"trace:{trace_id}"
        with llm_scope(conv_id, scope):
            trace, result = run_question(
                ci,
                question,
                cfg,
                embedder=self.embedder,
                budget_tokens=budget_tokens,
                planner=planner,
                answerer=answerer,
                backend_name=backend_name,
            )
        cost = flat_cost(usage(self.store, scope)) if backend_name != "offline" else {}
        trace = trace.model_copy(update={"id": trace_id, "cost": cost})
        if save:
            self.store.save_trace(trace)
        return trace, result

    def ask(
        self,
        conv_id: str,
        question: str,
        *,
        strategy: str | None = None,
        budget_tokens: int | None = None,
        backend: str | None = None,
    ) -> Trace:
        trace, _ = self.ask_detailed(
            conv_id, question, strategy_name=strategy, budget_tokens=budget_tokens, backend=backend
        )
        return trace

    def trace(self, trace_id: str) -> Trace:
        return self.store.trace(trace_id)

    def traces(self, conv_id: str) -> list[dict[str, Any]]:
        return self.store.traces(conv_id)
