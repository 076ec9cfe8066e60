"""Storage: one relational repository (``Store``) and one Chroma vector index (``VectorIndex``).

``Store(":memory:")`` works in tests; ``Store.open_home(dir)`` opens ``dir/mnemoscope.duckdb``;
``Store("postgresql://…")`` opens the same schema on PostgreSQL. ``Store.open_settings`` and
``VectorIndex.open_settings`` pick the engine and the index mode from ``Settings``.
"""

from __future__ import annotations

from pathlib import Path

from memory_core.config import Settings
from memory_core.contracts import RelationalStore, VectorStore
from memory_core.store.access import AccessStore
from memory_core.store.activity import ActivityStore
from memory_core.store.base import DB_FILE
from memory_core.store.conversations import ConversationStore
from memory_core.store.curation import CurationStore
from memory_core.store.forget import ForgetStore
from memory_core.store.memory import MemoryStore
from memory_core.store.vectors import VectorIndex


class Store(ForgetStore, ConversationStore, MemoryStore, ActivityStore, CurationStore, AccessStore):
    """The repository: the only place that talks SQL."""

    @classmethod
    def open_home(cls, home: str | Path, *, read_only: bool = False) -> Store:
        return cls(Path(home) / DB_FILE, read_only=read_only)

    @classmethod
    def open_settings(cls, settings: Settings, *, read_only: bool = False) -> Store:
        """PostgreSQL when ``settings.database_url`` is set, else the home's DuckDB file."""
        if settings.database_url:
            return cls(settings.database_url, read_only=read_only)
        return cls.open_home(settings.home, read_only=read_only)


__all__ = ["DB_FILE", "Store", "VectorIndex"]


def _conforms(store: Store, index: VectorIndex) -> tuple[RelationalStore, VectorStore]:
    """Never called: mypy checks here that both classes keep the contracts' surface."""
    return store, index
