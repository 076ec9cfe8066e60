"""Talking to an OpenAI-compatible endpoint: client, cache, accounting, structured parsing.

    client.py      LLMClient.chat: retries (transient only), cache lookup, one log line per call
    cache.py       the DuckDB-backed call cache, keyed by sha256(endpoint, model, messages, params)
    accounting.py  llm_scope(conv_id, scope), tokens / latency / estimated cost per stage
    parsing.py     request_structured: JSON mode, tolerant parsing, one repair, validation
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from memory_core.llm.accounting import PRICES, estimate_cost, llm_scope, usage
from memory_core.llm.cache import cache_key

if TYPE_CHECKING:
    from memory_core.llm.client import Completion, LLMClient
    from memory_core.llm.parsing import Checked, Outcome, extract_json, request_structured

# the client and parsing pull in the openai SDK (~1.5 s to import): loaded on first use, so
# offline commands (`list`, `stats`, the app's pages) never pay for it
_LAZY = {"Completion": "client", "LLMClient": "client", "Checked": "parsing", "Outcome": "parsing",
         "extract_json": "parsing", "request_structured": "parsing"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f"memory_core.llm.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'memory_core.llm' has no attribute '{name}'")

__all__ = [
    "PRICES",
    "Checked",
    "Completion",
    "LLMClient",
    "Outcome",
    "cache_key",
    "estimate_cost",
    "extract_json",
    "llm_scope",
    "request_structured",
    "usage",
]
