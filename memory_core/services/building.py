"""Building memory: stream a conversation's build, list episodes, graphs, GraphML, history.

    BuildService(store, index, embedder, backend, queries)
    build(conv_id, backend=None, rebuild=False)  -> iterator of BuildEvent (see memory_core/progress.py)
    build_all(...)                               -> the same for every imported conversation
    episodes / entity_graph / event_graph        -> what the build made, for the UI (graphs as
                                                    typed views: memory_core/graph_view.py)
    export_graphml(conv_id, out)                 -> both graphs as GraphML files
    build_history(conv_id)                       -> the ``builds`` rows, newest first (BuildRun)
    build_tracked(conv_id, run_id, worker=...)   -> build(), writing the conversation's state
                                                    into the build-status table as it goes
    build_status(run_id=None)                    -> that table's rows of a run (BuildState; default: the
                                                    latest), what the Load page polls

The build-status table tells the app, from another process, where each conversation of a
cluster run is: ``queued``, ``building`` (stage: ``session 2 of 5``, ``graph``), ``done`` or
``failed`` with the one-line error. It is written by whoever builds: the committing client
(``build --workers``) or each worker (``build-cluster``, team mode), never inside a session's
transaction (a status row must be visible while the session is still being written).

``backend`` is this view's backend (``make_backend`` of its settings) unless a build is given
another ``Backend`` object (tests pass scripted ones). After a build the query service's
caches of the conversation are dropped.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.as_of import parse_day
from memory_core.contracts import Backend, RelationalStore, VectorStore
from memory_core.embeddings import Embedder
from memory_core.errors import BuildError, MnemoscopeError
from memory_core.graph_view import GraphView, view_of
from memory_core.models import Episode
from memory_core.progress import (
    BuildDone,
    BuildEvent,
    BuildStarted,
    ConversationQueued,
    EntitiesMerged,
    SessionDone,
    SessionStarted,
)
from memory_core.services.backend_choice import BackendChoice
from memory_core.services.querying import QueryService
from memory_core.summaries import BuildRun, BuildState

if TYPE_CHECKING:
    from spacy.tokens import Doc


class BuildService:
    def __init__(self, store: RelationalStore, index: VectorStore, embedder: Embedder, backend: Backend,
                 queries: QueryService) -> None:
        self.store = store
        self.index = index
        self.embedder = embedder
        self.backend = backend
        self.queries = queries

    def build(self, conv_id: str, *, backend: BackendChoice = None,
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

    def build_all(self, *, backend: BackendChoice = None, rebuild: bool = False,
                  discard_edits: bool = False) -> Iterator[BuildEvent]:
        chosen = self._backend(backend)
        for conv_id in self.store.conversation_ids():
            yield from self.build(conv_id, backend=chosen, rebuild=rebuild, discard_edits=discard_edits)

    def build_on_cluster(self, conv_ids: list[str], factory: Callable[[], Backend], *, client: Any,
                         rebuild: bool = False, discard_edits: bool = False,
                         run_id: str | None = None) -> Iterator[BuildEvent]:
        """Build ``conv_ids`` with their pure stages on a Dask cluster (``client``; workers make
        their backend with ``factory``) and the commits here (construct/distributed.py). Each
        conversation's state goes into the build-status table under ``run_id`` (default: a new
        run id): queued when sent, building while its result is committed, done or failed."""
        from memory_core.construct.distributed import build_on_cluster

        for conv_id in conv_ids:
            self._check_rebuild(conv_id, rebuild, discard_edits)
        run = run_id or new_run_id()
        self.queue(conv_ids, run)
        events = build_on_cluster(self.store, self.index, self.embedder, self.backend, factory, conv_ids,
                                  client=client, rebuild=rebuild,
                                  on_result=lambda conv_id, _: self.queries.invalidate(conv_id))
        yield from self._tracked(events, run, "client", conv_ids)
        for conv_id in conv_ids:
            self.queries.invalidate(conv_id)

    def queue(self, conv_ids: Sequence[str], run_id: str) -> None:
        """Mark these conversations queued in run ``run_id`` of the build-status table (the Load
        page shows them waiting before a worker takes them)."""
        for conv_id in conv_ids:
            self.store.require_conversation(conv_id)
        for conv_id in conv_ids:
            self.store.set_build_status(conv_id, run_id, "queued", stage="waiting for a worker",
                                        worker="client")

    def build_tracked(self, conv_id: str, run_id: str, *, worker: str = "", backend: BackendChoice = None,
                      rebuild: bool = False, discard_edits: bool = False) -> Iterator[BuildEvent]:
        """``build`` that writes the conversation's state into the build-status table (a
        cluster worker building one conversation of run ``run_id``)."""
        self.store.require_conversation(conv_id)  # no status row for a conversation that is not there
        self.store.set_build_status(conv_id, run_id, "building", stage="starting", worker=worker)
        yield from self._tracked(self.build(conv_id, backend=backend, rebuild=rebuild,
                                            discard_edits=discard_edits), run_id, worker, [conv_id])

    def build_status(self, run_id: str | None = None) -> list[BuildState]:
        return [BuildState.of(row) for row in self.store.build_status(run_id)]

    def mark_failed(self, conv_id: str, run_id: str, error: BaseException | str, *, worker: str = "") -> None:
        """Record that ``conv_id`` failed in run ``run_id`` (e.g. its worker died for good)."""
        self.store.set_build_status(conv_id, run_id, "failed", error=one_line(error), worker=worker)

    def _tracked(self, events: Iterator[BuildEvent], run_id: str, worker: str,
                 conv_ids: list[str]) -> Iterator[BuildEvent]:
        """Pass ``events`` on, writing each conversation's stage when it changes; when the
        stream raises, every conversation of ``conv_ids`` not done yet is marked failed with
        the error's one line (then the error propagates): the conversation the error is about
        (the one being built, or named in it) gets the line itself, the others "not built"."""
        pending = {conv_id: 0 for conv_id in conv_ids}  # conversation -> sessions it will build
        done: set[str] = set()
        current = ""
        try:
            for event in events:
                if isinstance(event, BuildStarted | BuildDone):  # the conversation being committed
                    current = event.conv_id if isinstance(event, BuildStarted) else ""
                update = _status_of(event, pending)
                if update is not None and not self.store.in_transaction():
                    state, stage = update
                    self.store.set_build_status(event.conv_id, run_id, state, stage=stage, worker=worker)
                    if state == "done":
                        done.add(event.conv_id)
                yield event
        except BaseException as exc:  # an interrupted or abandoned run must not stay "building"
            if not self.store.in_transaction():
                line = one_line(exc) if isinstance(exc, Exception) else "interrupted"
                for conv_id in conv_ids:
                    if conv_id in done:
                        continue
                    about = conv_id == current or f"'{conv_id}'" in line or len(conv_ids) == 1
                    error = line if about else f"not built: the run stopped ({line})"
                    self.mark_failed(conv_id, run_id, error, worker=worker)
            raise

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

    def _backend(self, backend: BackendChoice) -> Backend:
        """``backend`` resolved (``services/backend_choice.py``); None: this service's backend."""
        return self.backend if backend is None else self.queries.backends.resolve(backend)

    def episodes(self, conv_id: str) -> list[Episode]:
        self.store.require_conversation(conv_id)
        return self.store.episodes(conv_id)

    def entity_graph(self, conv_id: str) -> GraphView:
        """The stored entity graph as a typed view (``memory_core.graph_view``)."""
        from memory_core.construct.graphs import entity_graph

        self.store.require_conversation(conv_id)
        return view_of(entity_graph(self.store, conv_id))

    def event_graph(self, conv_id: str) -> GraphView:
        """The stored event graph as a typed view (``memory_core.graph_view``)."""
        from memory_core.construct.graphs import event_graph

        self.store.require_conversation(conv_id)
        return view_of(event_graph(self.store, conv_id))

    def export_graphml(self, conv_id: str, out_path: str | Path, *,
                       as_of: date | str | None = None) -> list[Path]:
        """``out.graphml`` -> ``out-entities.graphml`` + ``out-events.graphml``; a directory ->
        ``<dir>/<conv>-entities.graphml`` + ``<dir>/<conv>-events.graphml``. Returns the paths.
        ``as_of`` (a day): both graphs as they stood then (``memory_core.as_of``, the rule of the
        Records page's and the Graphs page's "Memory as of")."""
        from memory_core.construct.graphs import write_graphml

        day = None if as_of is None else parse_day(as_of, what="as_of")
        self.store.require_conversation(conv_id)
        return write_graphml(self.store, conv_id, Path(out_path), day=day)

    def build_history(self, conv_id: str) -> list[BuildRun]:
        self.store.require_conversation(conv_id)
        return [BuildRun.of(row) for row in self.store.builds(conv_id)]

    # ------------------------------------------------------------------ measuring (bench)
    def measure(self, conv_id: str, parse: Callable[[list[str]], list[Doc]] | None = None) -> dict[str, Any]:
        """What the build made of the conversation, measured (``eval.build_figures``: episodes,
        records, coverage, graph) plus the records' fidelity to LoCoMo's observations."""
        from memory_core.eval.build_figures import measure
        from memory_core.eval.fidelity import fidelity

        self.store.require_conversation(conv_id)
        row = measure(self.store, conv_id, parse)
        conv = self.store.load_conversation(conv_id, with_qa=False)
        row["fidelity"] = fidelity(conv.meta, self.store.records(conv_id), conv.turns, self.embedder.embed)
        return row

    def memory_ids(self, conv_id: str) -> tuple[tuple[str, ...], ...]:
        """The ids of what the build made (episodes in order; records of any status, events and
        entities sorted): two builds made the same memory when these are equal."""
        store = self.store
        return (tuple(e.id for e in store.episodes(conv_id)),
                tuple(sorted(r.id for r in store.records(conv_id, include_inactive=True))),
                tuple(sorted(v.id for v in store.events(conv_id))),
                tuple(sorted(e.id for e in store.entities(conv_id))))


def new_run_id() -> str:
    return f"run-{uuid.uuid4().hex[:12]}"


def one_line(error: BaseException | str) -> str:
    """An error as the one line a user sees: project errors as they are, others with their type."""
    if isinstance(error, str):
        text = error
    elif isinstance(error, MnemoscopeError):
        text = str(error)
    else:
        text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    first = text.strip().splitlines()[0] if text.strip() else "failed"
    return first[:300]


def _status_of(event: BuildEvent, pending: dict[str, int]) -> tuple[str, str] | None:
    """The (state, stage) an event moves its conversation to, or None (no visible change)."""
    match event:
        case ConversationQueued():
            pending[event.conv_id] = event.sessions_pending
            return "queued", "sent to the cluster"
        case BuildStarted():
            pending[event.conv_id] = event.sessions_pending
            return "building", "starting"
        case SessionStarted() | SessionDone():
            total = pending.get(event.conv_id)
            of = f" ({total} to build)" if total else ""
            saved = " saved" if isinstance(event, SessionDone) else ""
            return "building", f"session {event.session}{saved}{of}"
        case EntitiesMerged():
            return "building", "graph"
        case BuildDone():
            return "done", ""
    return None
