"""The one services object the CLI and the app call: ``Services.open(settings)``.

A small facade over five parts, each given exactly what it needs when it is made:

    imports     ImportService(store, index, settings)                 import / list / stats / export
    queries     QueryService(store, index, embedder, backend,         ask -> Trace, traces, caches
                             settings, index_cache)
    builds      BuildService(store, index, embedder, backend, queries) build (streamed events), graphs
    curation    CurationService(store, index, embedder, queries)       versioned edits, merges, reverts
    evaluation  EvalService(store, imports, builds, queries, settings) LoCoMo-format runs, curves, triage

The store (DuckDB), the vector index (Chroma, opened on first use), the embedder (its model
loads on first use) and the backend (``make_backend`` of the settings) are made here once;
``with_settings`` makes a view with other settings over the same store, index, embedder and
query index cache, with its own backend.
"""

from __future__ import annotations

from memory_core.backends import make_backend
from memory_core.config import Settings
from memory_core.contracts import Backend, RelationalStore, VectorStore
from memory_core.embeddings import Embedder, shared_embedder
from memory_core.errors import ConfigError
from memory_core.query.context import IndexCache
from memory_core.services.building import BuildService
from memory_core.services.curation import CurationService
from memory_core.services.evaluating import EvalService
from memory_core.services.importing import ImportResult, ImportService
from memory_core.services.querying import QueryService
from memory_core.store import Store, VectorIndex


class Services:
    def __init__(self, settings: Settings, *, store: RelationalStore | None = None,
                 index: VectorStore | None = None, embedder: Embedder | None = None,
                 index_cache: IndexCache | None = None,
                 backend: Backend | None = None) -> None:
        self.settings = settings
        self.store: RelationalStore = store if store is not None else Store.open_settings(settings)
        self.index: VectorStore = index if index is not None else VectorIndex.open_settings(settings)
        self.embedder: Embedder = (embedder if embedder is not None
                                   else shared_embedder(settings.embed_precision))
        self.backend: Backend = backend if backend is not None else make_backend(
            settings, self.store, embedder=self.embedder, check_endpoint=False)
        self.imports = ImportService(self.store, self.index, settings)
        self.queries = QueryService(self.store, self.index, self.embedder, self.backend, settings,
                                    index_cache if index_cache is not None else IndexCache())
        self.builds = BuildService(self.store, self.index, self.embedder, self.backend, self.queries)
        self.curation = CurationService(self.store, self.index, self.embedder, self.queries)
        self.evaluation = EvalService(self.store, self.imports, self.builds, self.queries, settings)

    @classmethod
    def open(cls, settings: Settings) -> Services:
        return cls(settings)

    def with_settings(self, settings: Settings) -> Services:
        """A view with other settings (backend, endpoint, model, key, strategy) over the same
        home: it shares this object's store, vector index, embedder and query index cache. It
        gets its own backend when the backend or the LLM settings differ (a view that only
        changes the strategy or the budget keeps this one's), so it is cheap to make and meant
        to be short-lived (e.g. one app rerun).
        """
        if settings == self.settings:
            return self
        if settings.home.resolve() != self.settings.home.resolve():
            raise ConfigError("with_settings: a view must keep the same home")
        same_backend = (settings.backend, settings.llm) == (self.settings.backend, self.settings.llm)
        return Services(settings, store=self.store, index=self.index, embedder=self.embedder,
                        index_cache=self.queries.index_cache, backend=self.backend if same_backend else None)

    def close(self) -> None:
        self.store.close()


__all__ = ["ImportResult", "Services"]
