"""The one services object the CLI and the app call: ``Services.open(settings)``.

A small facade over five parts, each given exactly what it needs when it is made:

    imports     ImportService(store, index, settings)                 import / list / stats / export
    queries     QueryService(store, index, embedder, backend,         ask -> Trace, traces, caches
                             settings, index_cache)
    builds      BuildService(store, index, embedder, backend, queries) build (streamed events), graphs
    curation    CurationService(store, index, embedder, queries)       versioned edits, merges, reverts
    evaluation  EvalService(store, imports, builds, queries, settings) LoCoMo-format runs, curves, triage

Every part is seen through ``guard.Guarded``: each call is checked against the principal the
services run as (``principal``; default ``access.local_principal()``, the OS user as admin, so
the embedded single-user home works as before) and audited with the front end (``frontend``).
``for_principal(p, frontend)`` makes a view for another principal (an app login, an API token
from ``access.verify_token``); ``access`` holds accounts, sessions, tokens and the audit trail.

The store (DuckDB), the vector index (Chroma, opened on first use), the embedder (its model
loads on first use) and the backend (``make_backend`` of the settings) are made here once and
kept private: front ends read and write only through the parts (``api.MemoryServices`` is the
facade they are typed against; tests reach the store through ``raw_store()``);
``with_settings`` makes a view with other settings over the same store, index, embedder and
query index cache, with its own backend.
"""

from __future__ import annotations

import copy
import ipaddress
from typing import Any, cast

from memory_core.backends import make_backend
from memory_core.config import Settings
from memory_core.contracts import Backend, RelationalStore, VectorStore
from memory_core.embeddings import Embedder, shared_embedder
from memory_core.errors import ConfigError
from memory_core.query.context import IndexCache
from memory_core.services.access import AccessService, Principal, local_principal
from memory_core.services.api import MemoryServices
from memory_core.services.building import BuildService
from memory_core.services.curation import CurationService
from memory_core.services.evaluating import EvalService
from memory_core.services.guard import Gate, Guarded
from memory_core.services.importing import ImportResult, ImportService
from memory_core.services.querying import QueryService
from memory_core.store import Store, VectorIndex


class Services:
    def __init__(self, settings: Settings, *, store: RelationalStore | None = None,
                 index: VectorStore | None = None, embedder: Embedder | None = None,
                 index_cache: IndexCache | None = None,
                 backend: Backend | None = None, principal: Principal | None = None,
                 frontend: str | None = None, access: AccessService | None = None) -> None:
        self.settings = settings
        self._store: RelationalStore = store if store is not None else Store.open_settings(settings)
        self._index: VectorStore = index if index is not None else VectorIndex.open_settings(settings)
        self.embedder: Embedder = (embedder if embedder is not None
                                   else shared_embedder(settings.embed_precision))
        self.backend: Backend = backend if backend is not None else make_backend(
            settings, self._store, embedder=self.embedder, check_endpoint=False)
        self.access = access if access is not None else AccessService(self._store, settings.access)
        imports = ImportService(self._store, self._index, settings)
        queries = QueryService(self._store, self._index, self.embedder, self.backend, settings,
                               index_cache if index_cache is not None else IndexCache())
        builds = BuildService(self._store, self._index, self.embedder, self.backend, queries)
        curation = CurationService(self._store, self._index, self.embedder, queries)
        self._raw: dict[str, Any] = {"imports": imports, "queries": queries, "builds": builds,
                                     "curation": curation}
        self._guard(principal or local_principal(), frontend or settings.frontend)

    def _guard(self, principal: Principal, frontend: str) -> None:
        """(Re)bind the guarded parts to ``principal`` calling through ``frontend``."""
        self.principal = principal
        self.frontend = frontend
        gate = Gate(principal, frontend, self.access, self._store)
        raw = self._raw
        self.imports = cast(ImportService, Guarded("imports", raw["imports"], gate))
        self.queries = cast(QueryService, Guarded("queries", raw["queries"], gate))
        self.builds = cast(BuildService, Guarded("builds", raw["builds"], gate))
        self.curation = cast(CurationService, Guarded("curation", raw["curation"], gate))
        # an evaluation imports/builds what the home lacks through the guarded parts; its
        # questions go to the plain query part (the run itself is checked and audited once)
        evaluation = EvalService(self._store, self.imports, self.builds, raw["queries"], self.settings)
        self.evaluation = cast(EvalService, Guarded("evaluation", evaluation, gate))

    def for_principal(self, principal: Principal, frontend: str) -> Services:
        """A view over the same home whose every call runs as ``principal`` through ``frontend``
        (cheap: shares the store, index, embedder, backend and caches)."""
        view = copy.copy(self)
        view._guard(principal, frontend)
        return view

    def requires_login(self, bind_address: str | None) -> bool:
        """Whether a server must ask who is there: a team home (database URL set), a server
        bound to anything but loopback, or MNEMOSCOPE_REQUIRE_LOGIN. The embedded home on
        127.0.0.1 runs as the local user."""
        return (self.settings.access.require_login or bool(self.settings.database_url)
                or not is_loopback(bind_address))

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
        return Services(settings, store=self._store, index=self._index, embedder=self.embedder,
                        index_cache=self._raw["queries"].index_cache,
                        backend=self.backend if same_backend else None, principal=self.principal,
                        frontend=self.frontend, access=self.access)

    def close(self) -> None:
        self._store.close()

    def raw_store(self) -> RelationalStore:
        """The relational store under the facade, for tests and measurement scripts that check
        what the services wrote. Front ends never call it: ``tests/test_layers.py`` refuses
        ``.store``, ``.index``, ``raw_store`` and ``raw_index`` outside ``services/`` and ``store/``."""
        return self._store

    def raw_index(self) -> VectorStore:
        """The vector index under the facade (see ``raw_store``)."""
        return self._index


def is_loopback(address: str | None) -> bool:
    """``127.x``, ``::1`` or ``localhost``; unset or ``0.0.0.0`` means every interface."""
    if not address:
        return False
    if address.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def _implements(services: Services) -> MemoryServices:
    return services  # mypy checks here that Services implements the front ends' protocol


__all__ = ["ImportResult", "MemoryServices", "Principal", "Services", "is_loopback"]
