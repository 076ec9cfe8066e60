"""Accounting of LLM calls: tokens in/out, latency and estimated cost, per stage and scope.

Every call (cached or not) becomes one ``llm_calls`` row through ``Store.log_llm_call``,
tagged with the current *scope* — ``build:<build_id>``, ``trace:<trace_id>`` or
``eval:<run>`` — and conversation. The scope is set by whoever drives the work::

    with llm_scope(conv_id, f"build:{build_id}"):
        ...  # every LLM call in here (any thread started with the context copied) is tagged

Outside any ``llm_scope`` calls are tagged ``adhoc`` with no conversation.

A cached replay is recorded with zero tokens, zero cost and ``cached = true``: the row says
what *this* run spent, so a rebuild from the cache shows a cost of 0.

Cost is an estimate from ``PRICES`` (USD per million tokens, list prices of the public
OpenAI API as of 2025; edit the table for your contract). A model that is not in the
table — a local vLLM/Ollama/llama.cpp model, say — costs 0 and is reported as unpriced.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from memory_core.contracts import RelationalStore

log = logging.getLogger(__name__)

# model name (or prefix of a dated name) -> (USD per 1M input tokens, USD per 1M output tokens)
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5": (1.25, 10.00),
}

DEFAULT_SCOPE = "adhoc"


@dataclass(frozen=True)
class Scope:
    conv_id: str | None
    scope: str


_SCOPE: ContextVar[Scope | None] = ContextVar("mnemoscope_llm_scope", default=None)


@contextmanager
def llm_scope(conv_id: str | None, scope: str) -> Iterator[Scope]:
    """Tag every LLM call made inside the block with ``conv_id`` and ``scope``."""
    current = Scope(conv_id, scope)
    token = _SCOPE.set(current)
    try:
        yield current
    finally:
        _SCOPE.reset(token)


def current_scope() -> Scope:
    return _SCOPE.get() or Scope(None, DEFAULT_SCOPE)


def price_for(model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens, or None when the model is not priced."""
    name = model.lower()
    if name in PRICES:
        return PRICES[name]
    # dated variants ("gpt-4o-mini-2024-07-18"): the longest table name that prefixes it
    for known in sorted(PRICES, key=len, reverse=True):
        if name.startswith(known + "-"):
            return PRICES[known]
    return None


def estimate_cost(model: str, tokens_in: int, tokens_out: int) -> float:
    price = price_for(model)
    if price is None:
        return 0.0
    return (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000


class Accountant:
    """Writes one accounting row per call; warns once per unpriced model."""

    def __init__(self, store: RelationalStore | None) -> None:
        self.store = store
        self._warned: set[str] = set()
        self._lock = threading.Lock()

    def record(self, *, stage: str, model: str, tokens_in: int, tokens_out: int, latency_s: float,
               cached: bool) -> float:
        cost = 0.0 if cached else estimate_cost(model, tokens_in, tokens_out)
        if price_for(model) is None:
            with self._lock:
                if model not in self._warned:
                    self._warned.add(model)
                    log.info("no price known for model '%s': its cost is reported as 0", model)
        if self.store is not None:
            scope = current_scope()
            self.store.log_llm_call(conv_id=scope.conv_id, scope=scope.scope, stage=stage, model=model,
                                    tokens_in=tokens_in, tokens_out=tokens_out, latency_s=latency_s,
                                    cost_usd=cost, cached=cached)
        return cost


def usage(store: RelationalStore, scope_prefix: str, models: tuple[str, ...] = ()) -> dict[str, Any]:
    """Totals and per-stage figures for scopes starting with ``scope_prefix``.

    Returns ``{"calls", "cached", "tokens_in", "tokens_out", "latency_s", "cost_usd",
    "unpriced_models", "stages": {stage: {...same figures...}}}`` (``unpriced_models``: those of
    ``models`` — e.g. the backend's configured models — with no price) — the shape stored in a
    build's ``cost`` and a trace's ``cost`` (flattened there to numbers).
    """
    stages: dict[str, dict[str, float]] = {}
    totals = {"calls": 0.0, "cached": 0.0, "tokens_in": 0.0, "tokens_out": 0.0, "latency_s": 0.0,
              "cost_usd": 0.0}
    for row in store.llm_usage(scope_prefix):
        figures = {name: float(row[name] or 0) for name in totals}
        stages[str(row["stage"])] = figures
        for name in totals:
            totals[name] += figures[name]
    unpriced = sorted({m for m in models if price_for(m) is None})
    return {**totals, "unpriced_models": unpriced, "stages": stages}


def flat_cost(summary: dict[str, Any]) -> dict[str, float]:
    """The numeric part of ``usage`` (what ``Trace.cost`` holds)."""
    return {name: float(summary[name]) for name in
            ("calls", "cached", "tokens_in", "tokens_out", "latency_s", "cost_usd")}
