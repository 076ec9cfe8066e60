"""The one services object the CLI and the app call: ``Services.open(settings)``.

Each concern lives in its own mixin module; this class only composes them:

    importing   import / list / stats / export
    building    build (streamed events), graphs, GraphML
    querying    ask -> Trace, trace history
    evaluating  LoCoMo-format evaluation, curves, triage
    curation    versioned edits, merges, reverts, impact of corrections
"""

from __future__ import annotations

from memory_core.config import Settings
from memory_core.errors import ConfigError
from memory_core.services.base import ServicesBase
from memory_core.services.building import BuildService
from memory_core.services.curation import CurationService
from memory_core.services.evaluating import EvalService
from memory_core.services.importing import ImportService
from memory_core.services.querying import QueryService


class Services(ImportService, BuildService, QueryService, EvalService, CurationService, ServicesBase):
    @classmethod
    def open(cls, settings: Settings) -> Services:
        return cls(settings)

    def with_settings(self, settings: Settings) -> Services:
        """A view with other settings (backend, endpoint, model, key, strategy) over the same
        home: it shares this object's store, vector index, embedder and query index cache, so
        it costs nothing to make and is meant to be short-lived (e.g. one app rerun).
        """
        if settings == self.settings:
            return self
        if settings.home.resolve() != self.settings.home.resolve():
            raise ConfigError("with_settings: a view must keep the same home")
        view = Services(settings, store=self.store, index=self.index, embedder=self.embedder)
        view.__dict__["_index_cache"] = self.index_cache
        return view


__all__ = ["Services"]
