"""Embedding one question, fast: a small LRU of recent questions.

(``Embedder.embed`` already runs small batches on one torch thread.)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

from memory_core.query.question_form import category_head

if TYPE_CHECKING:
    from memory_core.embeddings import Embedder

_LOCK = threading.Lock()
_CACHE: OrderedDict[tuple[int, str], np.ndarray] = OrderedDict()
_MAX = 2048


def head_vector(embedder: Embedder, question: str) -> np.ndarray | None:
    """The vector of the answer's category the question names ("Which drinks does she like?"
    -> "drinks"), or None: a turn about drinks is close to it whatever else the question says
    (the ranker's ``head_dense``)."""
    head = category_head(question)
    return embed_question(embedder, head) if head else None


def embed_question(embedder: Embedder, text: str) -> np.ndarray:
    key = (id(embedder), text)
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
        vec = np.asarray(embedder.embed_one(text), dtype=np.float32)
        _CACHE[key] = vec
        if len(_CACHE) > _MAX:
            _CACHE.popitem(last=False)
        return vec
