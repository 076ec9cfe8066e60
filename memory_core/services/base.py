"""The shared state of the services facade: settings, store, vector index, embedder.

Heavy parts (the Chroma client, the embedding model) are opened lazily on first use so
that ``list``/``stats`` stay instant.
"""

from __future__ import annotations

import logging
import threading
from functools import cached_property
from pathlib import Path

from memory_core.config import Settings
from memory_core.embeddings import Embedder
from memory_core.store import Store
from memory_core.store.vectors import VectorIndex

log = logging.getLogger(__name__)


class ServicesBase:
    def __init__(self, settings: Settings, *, store: Store | None = None,
                 index: VectorIndex | None = None, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.store = store if store is not None else Store.open_settings(settings)
        self._index = index
        self._embedder = embedder
        self._lazy_lock = threading.Lock()

    @property
    def home(self) -> Path:
        return self.settings.home

    @property
    def index(self) -> VectorIndex:
        with self._lazy_lock:
            if self._index is None:
                self._index = VectorIndex.open_settings(self.settings)
            return self._index

    @property
    def embedder(self) -> Embedder:
        with self._lazy_lock:
            if self._embedder is None:
                self._embedder = _shared_embedder()
            return self._embedder

    def close(self) -> None:
        self.store.close()


class _EmbedderHolder:
    @cached_property
    def embedder(self) -> Embedder:
        return Embedder()


_HOLDER = _EmbedderHolder()


def _shared_embedder() -> Embedder:
    """One embedding model per process (it is read-only and thread-safe to call)."""
    return _HOLDER.embedder
