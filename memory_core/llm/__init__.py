"""Talking to an OpenAI-compatible endpoint: client, cache, accounting, structured parsing.

    client.py      LLMClient.chat: retries (transient only), cache lookup, one log line per call
    cache.py       the DuckDB-backed call cache, keyed by sha256(endpoint, model, messages, params)
    accounting.py  llm_scope(conv_id, scope), tokens / latency / estimated cost per stage
    parsing.py     request_structured: JSON mode, tolerant parsing, one repair, validation
"""

from memory_core.llm.accounting import PRICES, estimate_cost, llm_scope, usage
from memory_core.llm.cache import cache_key
from memory_core.llm.client import Completion, LLMClient
from memory_core.llm.parsing import Checked, Outcome, extract_json, request_structured

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
