"""Building memory: stream a conversation's build, list episodes, graphs, GraphML, history.

    BuildService(store, index, embedder, backend, queries)
    build(conv_id, backend=None, rebuild=False)  -> iterator of BuildEvent (see construct/events.py)
    build_all(...)                               -> the same for every imported conversation
    episodes / entity_graph / event_graph        -> what the build made, for the UI
    export_graphml(conv_id, out)                 -> both graphs as GraphML files
    build_history(conv_id)                       -> the ``builds`` rows, newest first

``backend`` is this view's backend (``make_backend`` of its settings) unless a build is given
another ``Backend`` object (tests pass scripted ones). After a build the query service's
caches of the conversation are dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.construct.events import BuildEvent
from memory_core.contracts import Backend, RelationalStore, VectorStore
from memory_core.embeddings import Embedder
from memory_core.errors import BuildError, ConfigError
from memory_core.models import Episode
from memory_core.services.querying import QueryService

if TYPE_CHECKING:
    import networkx as nx


class BuildService:
    def __init__(self, store: RelationalStore, index: VectorStore, embedder: Embedder, backend: Backend,
                 queries: QueryService) -> None:
        self.store = store
        self.index = index
        self.embedder = embedder
        self.backend = backend
        self.queries = queries

    def build(self, conv_id: str, *, backend: Backend | None = None,
              rebuild: bool = False, discard_edits: bool = False) -> Iterator[BuildEvent]:
        """Build (or extend) one conversation's memory, yielding progress events.

        A rebuild replaces every session's records, so on a conversation that annotators
        corrected it is refused unless ``discard_edits`` (the edit log keeps the history).
        """
        from memory_core.construct.pipeline import build_conversation

        chosen = self._backend(backend)
        self._check_rebuild(conv_id, rebuild, discard_edits)
        yield from build_conversation(self.store, self.index, self.embedder, conv_id, chosen, rebuild=rebuild)
        self.queries.invalidate(conv_id)  # the conversation's query caches are stale now

    def build_all(self, *, backend: Backend | None = None, rebuild: bool = False,
                  discard_edits: bool = False) -> Iterator[BuildEvent]:
        chosen = self._backend(backend)
        for conv_id in self.store.conversation_ids():
            yield from self.build(conv_id, backend=chosen, rebuild=rebuild, discard_edits=discard_edits)

    def build_on_cluster(self, conv_ids: list[str], factory: Callable[[], Backend], *, client: Any,
                         rebuild: bool = False, discard_edits: bool = False) -> Iterator[BuildEvent]:
        """Build ``conv_ids`` with their pure stages on a Dask cluster (``client``; workers make
        their backend with ``factory``) and the commits here (construct/distributed.py)."""
        from memory_core.construct.distributed import build_on_cluster

        for conv_id in conv_ids:
            self._check_rebuild(conv_id, rebuild, discard_edits)
        yield from build_on_cluster(self.store, self.index, self.embedder, self.backend, factory, conv_ids,
                                    client=client, rebuild=rebuild,
                                    on_result=lambda conv_id, _: self.queries.invalidate(conv_id))
        for conv_id in conv_ids:
            self.queries.invalidate(conv_id)

    def _check_rebuild(self, conv_id: str, rebuild: bool, discard_edits: bool) -> None:
        """The conversation exists; a rebuild over annotator edits needs ``discard_edits``."""
        self.store.require_conversation(conv_id)
        if rebuild and not discard_edits:
            corrected = len(self.store.edits(conv_id))
            if corrected:
                raise BuildError(
                    f"conversation '{conv_id}' has {corrected} annotator edit(s); a rebuild would "
                    "replace the corrected records (the edit log keeps them) — rebuild with "
                    "--discard-edits to do it anyway"
                )

    def _backend(self, backend: Backend | None) -> Backend:
        if backend is None:
            return self.backend
        if not isinstance(backend, Backend):  # callers outside mypy (scripts, tests) get one line
            raise ConfigError(f"not a backend: {type(backend).__name__} (needs segment/extract/plan/answer)")
        return backend

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
