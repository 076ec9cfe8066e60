"""Building memory: stream a conversation's build, list episodes, graphs, GraphML, history.

    build(conv_id, backend=None, rebuild=False)  -> iterator of BuildEvent (see build/events.py)
    build_all(...)                               -> the same for every imported conversation
    episodes / entity_graph / event_graph        -> what the build made, for the UI
    export_graphml(conv_id, out)                 -> both graphs as GraphML files
    build_history(conv_id)                       -> the ``builds`` rows, newest first

``backend`` may be ``None`` or ``"offline"`` (the process-wide offline backend: spaCy and the
embedding model load once), another backend name (made by ``memory_core.backends``), or any
object implementing the ``Backend`` protocol.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.contracts import Backend
from memory_core.construct.events import BuildEvent
from memory_core.errors import BuildError, ConfigError
from memory_core.models import Episode
from memory_core.services.base import ServicesBase

if TYPE_CHECKING:
    import networkx as nx


class BuildService(ServicesBase):
    def resolve_backend(self, backend: Backend | str | None = None) -> Backend:
        if backend is None or backend == "offline":
            from memory_core.backends.offline import shared_offline_backend

            return shared_offline_backend()
        if isinstance(backend, str):
            from memory_core.backends import make_backend

            return make_backend(dataclasses.replace(self.settings, backend=backend), self.store)
        if not isinstance(backend, Backend):
            raise ConfigError(f"not a backend: {type(backend).__name__} (needs segment/extract/plan/answer)")
        return backend

    def build(self, conv_id: str, *, backend: Backend | str | None = None,
              rebuild: bool = False, discard_edits: bool = False) -> Iterator[BuildEvent]:
        """Build (or extend) one conversation's memory, yielding progress events.

        A rebuild replaces every session's records, so on a conversation that annotators
        corrected it is refused unless ``discard_edits`` (the edit log keeps the history).
        """
        from memory_core.construct.pipeline import build_conversation

        self.store.require_conversation(conv_id)
        if rebuild and not discard_edits:
            corrected = len(self.store.edits(conv_id))
            if corrected:
                raise BuildError(
                    f"conversation '{conv_id}' has {corrected} annotator edit(s); a rebuild would "
                    "replace the corrected records (the edit log keeps them) — rebuild with "
                    "--discard-edits to do it anyway"
                )
        chosen = self.resolve_backend(backend)
        yield from build_conversation(self.store, self.index, self.embedder, conv_id, chosen, rebuild=rebuild)
        invalidate = getattr(self, "invalidate", None)
        if callable(invalidate):  # query caches of the conversation are stale now
            invalidate(conv_id)

    def build_all(self, *, backend: Backend | str | None = None, rebuild: bool = False,
                  discard_edits: bool = False) -> Iterator[BuildEvent]:
        chosen = self.resolve_backend(backend)
        for conv_id in self.store.conversation_ids():
            yield from self.build(conv_id, backend=chosen, rebuild=rebuild, discard_edits=discard_edits)

    def episodes(self, conv_id: str) -> list[Episode]:
        self.store.require_conversation(conv_id)
        return self.store.episodes(conv_id)

    def entity_graph(self, conv_id: str) -> nx.MultiDiGraph:
        from memory_core.construct.graphs import entity_graph

        self.store.require_conversation(conv_id)
        return entity_graph(self.store, conv_id)

    def event_graph(self, conv_id: str) -> nx.DiGraph:
        from memory_core.construct.graphs import event_graph

        self.store.require_conversation(conv_id)
        return event_graph(self.store, conv_id)

    def export_graphml(self, conv_id: str, out_path: str | Path) -> list[Path]:
        """``out.graphml`` -> ``out-entities.graphml`` + ``out-events.graphml``; a directory ->
        ``<dir>/<conv>-entities.graphml`` + ``<dir>/<conv>-events.graphml``. Returns the paths."""
        from memory_core.construct.graphs import write_graphml

        self.store.require_conversation(conv_id)
        return write_graphml(self.store, conv_id, Path(out_path))

    def build_history(self, conv_id: str) -> list[dict[str, Any]]:
        self.store.require_conversation(conv_id)
        return self.store.builds(conv_id)
