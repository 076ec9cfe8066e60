"""The Chroma vector index: record text, turn text and entity names, keyed by our ids.

Chroma is always handed our own embeddings (``embeddings=`` on add, ``query_embeddings=`` on
query): its default embedding function would try to download a model. Collections are
created with ``embedding_function=None`` and cosine space; telemetry is off.
Scores returned are similarities (higher is better): ``1 - cosine distance``.

Chroma never receives a conversation's words: the build hands it vectors, ids and where-to
metadata only (``construct/indexing.py``), and the ids of ``entities``, which are made of names
("conv:ent:maya"), are kept as a digest. Text a Chroma process never held cannot be left in its
files after a forget (a Chroma server writes index files from memory it does not clear).

Two modes: embedded (``PersistentClient`` on ``home/chroma``, the default) and client-server
(``HttpClient`` on ``MNEMOSCOPE_CHROMA_URL=http://host:port``, a ``chroma run`` server shared
by many processes). A URL path names a Chroma database on that server
(``http://host:port/team_a``), created when missing, so several homes can share one server.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from memory_core.config import Settings
from memory_core.contracts import Hit
from memory_core.errors import StoreError

log = logging.getLogger(__name__)

COLLECTIONS = ("records", "turns", "entities")
CHROMA_DIR = "chroma"
DIGESTED = frozenset({"entities"})  # collections whose ids carry names: Chroma keeps their digest
DIGEST_PREFIX = "h:"
# the only metadata Chroma is given: where an item belongs, never what it says
WHERE_KEYS = frozenset({"conv_id", "session", "episode_id", "turn_id"})


def vector_key(collection: str, item_id: str) -> str:
    """The id Chroma keeps for an item: the id itself, or its digest where ids carry names."""
    if collection not in DIGESTED:
        return item_id
    return DIGEST_PREFIX + hashlib.blake2b(item_id.encode("utf-8"), digest_size=16).hexdigest()


class VectorIndex:
    """One Chroma client per data directory per process; ``path=None`` is ephemeral; ``url``
    connects to a Chroma server instead.

    The client opens on first use (``list``/``stats`` never pay for Chroma); an index that was
    never opened and has no directory yet has nothing to delete.
    """

    def __init__(self, path: str | Path | None = None, *, url: str | None = None) -> None:
        self.path = None if path is None or url is not None else Path(path)
        self.url = url
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
    def _nothing_on_disk(self) -> bool:
        """An embedded index never opened whose directory does not exist yet holds nothing."""
        return not self.is_open and self.path is not None and not self.path.exists()

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
            if self.url is not None:
                client = _http_client(self.url, settings)
            elif self.path is None:
                client = chromadb.EphemeralClient(settings=settings)
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                client = chromadb.PersistentClient(path=str(self.path), settings=settings)
            collections = {name: _collection(client, name) for name in COLLECTIONS}
        except StoreError:
            raise
        except Exception as exc:  # chroma raises many kinds; report one clear line
            if self.url is not None:
                raise StoreError(_server_down(self.url, exc)) from None
            raise StoreError(f"{self.path}: cannot open the vector index: {exc}") from None
        self._chroma = client
        return collections

    @classmethod
    def open_home(cls, home: str | Path) -> VectorIndex:
        return cls(Path(home) / CHROMA_DIR)

    @classmethod
    def open_settings(cls, settings: Settings) -> VectorIndex:
        """The Chroma server at ``settings.chroma_url`` when set, else the home's directory."""
        if settings.chroma_url:
            return cls(url=settings.chroma_url)
        return cls.open_home(settings.home)

    def upsert(self, collection: str, ids: Sequence[str], vectors: np.ndarray,
               metadatas: Sequence[dict[str, Any]]) -> None:
        """Store vectors under our ids; of the metadata only the ``WHERE_KEYS`` reach Chroma."""
        if not ids:
            return
        self._put(collection, [vector_key(collection, i) for i in ids], vectors,
                  [{k: v for k, v in m.items() if k in WHERE_KEYS} for m in metadatas])

    def _put(self, collection: str, keys: Sequence[str], vectors: np.ndarray,
             metadatas: Sequence[dict[str, Any]]) -> None:
        """Upsert under Chroma's own keys (``vector_key``)."""
        col = self._collections[collection]
        step = 4000  # below chroma's max batch size
        for i in range(0, len(keys), step):
            col.upsert(
                ids=list(keys[i:i + step]),
                embeddings=[v.tolist() for v in vectors[i:i + step]],
                metadatas=[dict(m) for m in metadatas[i:i + step]],
            )

    def delete(self, collection: str, *, ids: Sequence[str] | None = None,
               where: dict[str, Any] | None = None) -> None:
        col = self._collections[collection]
        if ids is not None:
            if ids:  # an index written before ids were digested keeps them as they are
                keys = {vector_key(collection, i) for i in ids} | set(ids)
                col.delete(ids=sorted(keys))
        elif where is not None:
            col.delete(where=where)

    def delete_conversation(self, conv_id: str) -> None:
        if self._nothing_on_disk:
            return  # nothing to forget (and no Chroma start-up for it)
        for name in COLLECTIONS:
            self.delete(name, where={"conv_id": conv_id})

    def compact(self) -> dict[str, int]:
        """Make deleted items' documents, metadata and vectors leave Chroma's files; the items
        kept, per collection.

        Chroma only marks deleted vectors in its HNSW segment and SQLite keeps freed pages, so
        each collection is rebuilt from what remains (read, drop, re-create, re-add) and, in
        embedded mode, the SQLite file is vacuumed. What is re-added is what the build gives
        Chroma now: vectors, keys (``vector_key``) and the ``WHERE_KEYS`` metadata — an index
        written when Chroma was still handed documents and names loses them here. A crash in
        between loses only vectors, which the next ``build`` re-indexes (it checks counts per
        session).
        """
        kept: dict[str, int] = {}
        if self._nothing_on_disk:
            return kept
        for name in COLLECTIONS:
            col = self._collections[name]
            keys: list[str] = []
            vectors: list[Any] = []
            metadatas: list[dict[str, Any]] = []
            page = 2000
            for offset in range(0, int(col.count()), page):
                got = col.get(include=["embeddings", "metadatas"], limit=page, offset=offset)
                keys += [k if k.startswith(DIGEST_PREFIX) else vector_key(name, k) for k in got["ids"]]
                vectors += list(got["embeddings"] if got.get("embeddings") is not None else [])
                metadatas += [{k: v for k, v in (m or {}).items() if k in WHERE_KEYS}
                              for m in (got.get("metadatas") or [])]
            self._client.delete_collection(name)
            self._collections[name] = _collection(self._client, name)
            if keys:
                self._put(name, keys, np.asarray(vectors, dtype=np.float32), metadatas)
            kept[name] = len(keys)
        if self.path is not None:  # embedded mode (a server keeps its own files)
            import sqlite3

            database = self.path / "chroma.sqlite3"
            if database.exists():
                con = sqlite3.connect(database, timeout=30)
                try:
                    con.execute("VACUUM")
                finally:
                    con.close()
        return kept

    def query(self, collection: str, vector: np.ndarray, *, k: int = 20,
              where: dict[str, Any] | None = None) -> list[Hit]:
        """The nearest items; a hit's id is Chroma's key (``vector_key``: a digest in ``entities``)."""
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
        keys = {vector_key(collection, i): i for i in ids}
        found = self._vectors_of(collection, keys)
        if collection in DIGESTED and len(found) < len(keys):  # an index written before digests
            found |= self._vectors_of(collection, {i: i for i in ids if i not in found})
        return found

    def _vectors_of(self, collection: str, keys: dict[str, str]) -> dict[str, np.ndarray]:
        """The vectors Chroma keeps under ``keys`` (Chroma key -> our id), by our id."""
        if not keys:
            return {}
        got = self._collections[collection].get(ids=list(keys), include=["embeddings"])
        embeddings = got.get("embeddings")
        if embeddings is None:
            return {}
        return {keys[k]: np.asarray(v, dtype=np.float32) for k, v in zip(got["ids"], embeddings, strict=True)}


def _collection(client: Any, name: str) -> Any:
    return client.get_or_create_collection(name=name, embedding_function=None,
                                           metadata={"hnsw:space": "cosine"})


def _http_client(url: str, settings: Any) -> Any:
    """``HttpClient`` for ``http://host:port[/database]``; the database is created if missing."""
    import chromadb
    from chromadb.config import DEFAULT_DATABASE, DEFAULT_TENANT

    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 8000
    ssl = parts.scheme == "https"
    database = parts.path.strip("/") or DEFAULT_DATABASE
    if database != DEFAULT_DATABASE:
        from chromadb.config import Settings as ChromaSettings

        admin = chromadb.AdminClient(ChromaSettings(
            chroma_api_impl="chromadb.api.fastapi.FastAPI", chroma_server_host=host,
            chroma_server_http_port=port, chroma_server_ssl_enabled=ssl, anonymized_telemetry=False))
        try:
            admin.get_database(database, tenant=DEFAULT_TENANT)
        except Exception as exc:  # NotFoundError, or the server is down
            if "not found" not in str(exc).lower() and "does not exist" not in str(exc).lower():
                raise
            admin.create_database(database, tenant=DEFAULT_TENANT)
    return chromadb.HttpClient(host=host, port=port, ssl=ssl, tenant=DEFAULT_TENANT, database=database,
                               settings=settings)


def _server_down(url: str, exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    lowered = text.lower()
    if "could not connect" in lowered or ("connect" in lowered and "refused" in lowered):
        parts = urlsplit(url)
        return (f"vector index down: {url}: no Chroma server answers "
                f"(start one with `chroma run --path DIR --host {parts.hostname} --port {parts.port}`)")
    return f"vector index down: {url}: {text}"
