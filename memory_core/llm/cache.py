"""The LLM-call cache: identical requests to the same endpoint and model are answered once.

The key is the sha256 of a canonical JSON document holding the endpoint, the model, the
messages and every request parameter that can change the answer (temperature, seed,
response format, token limit). The API key is deliberately not part of it: the same
request answered for another key is the same answer. Rows live in the DuckDB table
``llm_cache`` through ``Store.cached_response`` / ``Store.cache_response``, tagged with the
conversation of the current ``llm_scope`` so that forgetting a conversation removes them.

Only answers that parsed and passed validation are kept (the caller decides, see
``LLMClient.keep``), so a garbled answer is asked again on the next run instead of being
replayed for ever.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory_core.contracts import RelationalStore
from memory_core.llm.accounting import current_scope

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CachedResponse:
    text: str
    tokens_in: int
    tokens_out: int


def cache_key(endpoint: str, model: str, messages: Sequence[Mapping[str, str]],
              params: Mapping[str, Any]) -> str:
    """sha256 hex digest of (endpoint, model, messages, parameters), order-stable."""
    document = {
        "endpoint": endpoint.rstrip("/"),
        "model": model,
        "messages": [dict(m) for m in messages],
        "params": dict(params),
    }
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class LLMCache:
    """Reads and writes cached responses through the store."""

    def __init__(self, store: RelationalStore) -> None:
        self.store = store

    def get(self, key: str) -> CachedResponse | None:
        row = self.store.cached_response(key)
        if row is None:
            return None
        text, tokens_in, tokens_out = row
        return CachedResponse(text, tokens_in, tokens_out)

    def put(self, key: str, endpoint: str, model: str, text: str, tokens_in: int, tokens_out: int) -> None:
        # the row names the conversation of the current llm_scope, so forgetting it removes the row
        conv_id = current_scope().conv_id
        self.store.cache_response(key, endpoint, model, text, tokens_in, tokens_out, conv_id=conv_id)
