"""A process-wide memo of text embeddings, so one build embeds each turn text once.

Segmentation (turn similarity) and indexing (the ``turns`` collection) need the same vectors;
both ask ``embed_texts`` and the second call is a dictionary lookup. The memo is bounded
(oldest entries dropped first) and keyed by the exact text; every ``Embedder`` loads the same
model, so a vector is valid for any of them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from memory_core.embeddings import DIMENSION, Embedder

MAX_ENTRIES = 50_000


class TextEmbedder(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


_memo: OrderedDict[str, np.ndarray] = OrderedDict()
_lock = threading.Lock()


def seed_vectors(texts: Sequence[str], vectors: np.ndarray) -> None:
    """Put vectors made elsewhere (a build worker, same model) into the memo."""
    with _lock:
        for text, vector in zip(texts, np.asarray(vectors, dtype=np.float32), strict=True):
            _memo[text] = vector
            _memo.move_to_end(text)
        while len(_memo) > MAX_ENTRIES:
            _memo.popitem(last=False)


def embed_texts(embedder: TextEmbedder, texts: Sequence[str], *, threads: int | None = None) -> np.ndarray:
    """Vectors (n, 384) for ``texts``; only texts not seen before reach the model. ``threads``
    caps the model's threads when the embedder takes that (``Embedder`` does)."""
    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    with _lock:
        missing = list(dict.fromkeys(t for t in texts if t not in _memo))
    if missing:
        if threads is not None and isinstance(embedder, Embedder):
            fresh = embedder.embed(missing, threads=threads)
        else:
            fresh = embedder.embed(missing)
        with _lock:
            for text, vector in zip(missing, fresh, strict=True):
                _memo[text] = vector
            while len(_memo) > MAX_ENTRIES:
                _memo.popitem(last=False)
    with _lock:
        out = []
        for t in texts:
            vec = _memo.get(t)
            if vec is None:  # evicted between the two steps (only with huge batches)
                vec = embedder.embed([t])[0]
            out.append(vec)
    return np.vstack(out).astype(np.float32)
