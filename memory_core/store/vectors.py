"""The Chroma vector index: record text, turn text and entity names, keyed by our ids.

Chroma is always handed our own embeddings (``embeddings=`` on add, ``query_embeddings=`` on
query): its default embedding function would try to download a model. Collections are
created with ``embedding_function=None`` and cosine space; telemetry is off.
Scores returned are similarities (higher is better): ``1 - cosine distance``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memory_core.contracts import Hit
from memory_core.errors import StoreError

log = logging.getLogger(__name__)

COLLECTIONS = ("records", "turns", "entities")
CHROMA_DIR = "chroma"


class VectorIndex:
    """One Chroma client per data directory per process; ``path=None`` is ephemeral.

    The client opens on first use (``list``/``stats`` never pay for Chroma); an index that was
    never opened and has no directory yet has nothing to delete.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = None if path is None else Path(path)
        self._collections_by_name: dict[str, Any] | None = None
        self._chroma: Any = None
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        return self._collections_by_name is not None

    @property
    def _collections(self) -> dict[str, Any]:
        with self._lock:
            if self._collections_by_name is None:
                self._collections_by_name = self._open()
            return self._collections_by_name

    @property
    def _client(self) -> Any:
        """The Chroma client (opens the index)."""
        _ = self._collections
        return self._chroma

    def _open(self) -> dict[str, Any]:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        settings = ChromaSettings(anonymized_telemetry=False, allow_reset=True)
        try:
            if self.path is None:
                client = chromadb.EphemeralClient(settings=settings)
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                client = chromadb.PersistentClient(path=str(self.path), settings=settings)
        except Exception as exc:  # chroma raises many kinds; report one clear line
            raise StoreError(f"{self.path}: cannot open the vector index: {exc}") from None
        self._chroma = client
        return {
            name: client.get_or_create_collection(
                name=name, embedding_function=None, metadata={"hnsw:space": "cosine"}
            )
            for name in COLLECTIONS
        }

    @classmethod
    def open_home(cls, home: str | Path) -> VectorIndex:
        return cls(Path(home) / CHROMA_DIR)

    def upsert(self, collection: str, ids: Sequence[str], vectors: np.ndarray,
               metadatas: Sequence[dict[str, Any]], documents: Sequence[str] | None = None) -> None:
        if not ids:
            return
        col = self._collections[collection]
        step = 4000  # below chroma's max batch size
        for i in range(0, len(ids), step):
            col.upsert(
                ids=list(ids[i:i + step]),
                embeddings=[v.tolist() for v in vectors[i:i + step]],
                metadatas=[dict(m) for m in metadatas[i:i + step]],
                documents=None if documents is None else list(documents[i:i + step]),
            )

    def delete(self, collection: str, *, ids: Sequence[str] | None = None,
               where: dict[str, Any] | None = None) -> None:
        col = self._collections[collection]
        if ids is not None:
            if ids:
                col.delete(ids=list(ids))
        elif where is not None:
            col.delete(where=where)

    def delete_conversation(self, conv_id: str) -> None:
        if not self.is_open and self.path is not None and not self.path.exists():
            return  # no index on disk yet: nothing to forget (and no Chroma start-up for it)
        for name in COLLECTIONS:
            self.delete(name, where={"conv_id": conv_id})

    def query(self, collection: str, vector: np.ndarray, *, k: int = 20,
              where: dict[str, Any] | None = None) -> list[Hit]:
        col = self._collections[collection]
        total = col.count()
        if total == 0:
            return []
        result = col.query(
            query_embeddings=[vector.tolist()], n_results=min(k, total), where=where,
            include=["metadatas", "distances"],
        )
        ids = result["ids"][0]
        distances = (result.get("distances") or [[]])[0]
        metas = (result.get("metadatas") or [[]])[0]
        return [
            Hit(id=i, score=1.0 - float(d), metadata=dict(m or {}))
            for i, d, m in zip(ids, distances, metas, strict=True)
        ]

    def count(self, collection: str, where: dict[str, Any] | None = None) -> int:
        col = self._collections[collection]
        if where is None:
            return int(col.count())
        return len(col.get(where=where, include=[])["ids"])

    def get_vectors(self, collection: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        got = self._collections[collection].get(ids=list(ids), include=["embeddings"])
        embeddings = got.get("embeddings")
        if embeddings is None:
            return {}
        return {i: np.asarray(v, dtype=np.float32) for i, v in zip(got["ids"], embeddings, strict=True)}
