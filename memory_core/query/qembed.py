"""Embedding one question, fast: a small LRU of recent questions and a single torch thread.

One short text gains nothing from intra-op parallelism, and on a busy 2-core machine torch's
thread pool makes a single encode ~10x slower (spinning threads compete with other work).
The thread count is lowered only for the duration of the call and restored afterwards.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from memory_core.embeddings import Embedder

_LOCK = threading.Lock()
_CACHE: OrderedDict[tuple[int, str], np.ndarray] = OrderedDict()
_MAX = 2048


def embed_question(embedder: Embedder, text: str) -> np.ndarray:
    key = (id(embedder), text)
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
        try:
            import torch

            before = torch.get_num_threads()
            torch.set_num_threads(1)
        except ImportError:  # pragma: no cover - torch comes with sentence-transformers
            torch, before = None, 0  # type: ignore[assignment]
        try:
            vec = np.asarray(embedder.embed_one(text), dtype=np.float32)
        finally:
            if torch is not None:
                torch.set_num_threads(before)
        _CACHE[key] = vec
        if len(_CACHE) > _MAX:
            _CACHE.popitem(last=False)
        return vec
