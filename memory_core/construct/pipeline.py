"""The build: a conversation's sessions -> episodes, records, events -> graphs, streamed.

``build_conversation(store, index, embedder, conv_id, backend)`` is a generator of the
progress events of ``memory_core.progress``. It works with any ``Backend``:

1. sessions already built (``store.built_sessions``) are skipped unless ``rebuild``; their
   vectors are checked (Chroma counts against DuckDB) and re-indexed when some are missing.
   A session that grew (turns appended: its built mark dropped, its old memory still stored)
   is built again like a rebuilt one — so a conversation that grows is extended incrementally;
2. for each pending session, from its ``SessionSource`` (``construct.sessions``: computed
   here, or replayed from a Dask worker's result): ``backend.segment`` -> episodes
   (validated, ``construct.validate``: every turn of the session exactly once, in order),
   ``backend.extract`` per episode (validated: records and frames name their episode, cite
   turns inside it, have an entity and a property, unique ids prefixed by the episode id)
   -> one ``store.save_session_memory`` call, which is a single transaction (episodes +
   records + events + the ``built_sessions`` marker) — an interrupted build leaves whole
   sessions or nothing;
3. after the sessions' DuckDB commits, their vectors (``construct.indexing``), in one
   embedding batch (also when the build stops on an error or the consumer closes the
   stream): turns (``<conv>|<turn id>``), records (record id); stale record vectors of a
   rebuilt session are deleted first. A kill before that leaves committed sessions without
   vectors: the next run sees the counts differ and re-indexes them;
4. once per run with something built (or a missing graph): canonical entities, merges,
   edges, event links and importance recomputed for the whole conversation
   (``store.save_graph``), entity vectors refreshed.

Invalid backend output raises ``BuildError`` naming the conversation and session; nothing of
that session is written.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from memory_core.construct.embedcache import TextEmbedder, embed_texts
from memory_core.construct.graph_refresh import index_entities, refresh_graph
from memory_core.construct.indexing import Committed, index_committed, vectors_complete
from memory_core.construct.sessions import (
    ComputedConversation,
    ComputedHere,
    Replayed,
    SessionResult,
    SessionSource,
    conversation_info,
    with_names,
)
from memory_core.contracts import Backend, RelationalStore, VectorStore
from memory_core.errors import MnemoscopeError
from memory_core.models import Session
from memory_core.progress import (
    BuildDone,
    BuildEvent,
    BuildStarted,
    EntitiesMerged,
    GraphUpdated,
    SessionDone,
    SessionSkipped,
)

log = logging.getLogger(__name__)


class _Background:
    """Record vectors made on one torch thread while the build goes on (the memo keeps them,
    so indexing finds them ready); ``wait`` before indexing. Failures only cost a re-embed."""

    def __init__(self, embedder: TextEmbedder) -> None:
        self.embedder = embedder
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="build-embed")
        self.futures: list[Future[Any]] = []

    def embed(self, texts: list[str]) -> None:
        if texts:
            self.futures.append(self.pool.submit(embed_texts, self.embedder, texts, threads=1))

    def wait(self, timings: dict[str, float]) -> None:
        t = time.perf_counter()
        for future in self.futures:
            try:
                future.result()
            except Exception:
                log.warning("background embedding failed; indexing embeds again", exc_info=True)
        self.pool.shutdown(wait=True)
        timings["embed_wait"] += time.perf_counter() - t


# --------------------------------------------------------------------------- the build
def build_conversation(store: RelationalStore, index: VectorStore, embedder: TextEmbedder, conv_id: str,
                       backend: Backend, *, rebuild: bool = False,
                       computed: ComputedConversation | None = None) -> Iterator[BuildEvent]:
    """Build (or extend) a conversation's memory, yielding progress events.

    The pending sessions come from one ``SessionSource``: computed here, or — with ``computed``
    (the pure stages done by a worker for exactly the sessions this build finds pending) —
    replayed, nothing segmented, extracted or embedded here. Either way one commit loop stores
    them, indexes their vectors and draws the graph."""
    conv = store.load_conversation(conv_id, with_qa=False)
    built = store.built_sessions(conv_id)
    pending = [s for s in conv.sessions if rebuild or s.index not in built]
    pending_ids = {s.index for s in pending}
    name = backend.name
    known = tuple(e.name for e in store.entities(conv_id))
    source: SessionSource = (ComputedHere(backend, embedder) if computed is None
                             else Replayed(computed).check(conv_id, pending_ids, known))
    build_id = uuid.uuid4().hex[:12]
    started = time.perf_counter()
    timings: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    store.start_build(build_id, conv_id, name)
    yield BuildStarted(conv_id, len(conv.sessions), name, sessions_pending=len(pending),
                       turns_pending=sum(len(s.turns) for s in pending), rebuild=rebuild)
    try:
        source.prepare(pending, timings)
        info = conversation_info(conv, known)
        committed: list[Committed] = []
        background = _Background(embedder)
        try:
            with source.scope(conv_id, build_id):
                for session in conv.sessions:
                    if session.index not in pending_ids:
                        yield _skip_session(store, index, embedder, conv_id, session, timings, counts)
                        continue
                    result = yield from source.session(session, info, timings)
                    was_built = (built.get(session.index) is not None
                                 or bool(store.episodes(conv_id, session.index)))  # a grown session
                    yield _commit_session(store, name, conv_id, result, was_built, timings, counts, committed)
                    background.embed(source.fresh_texts(result))
                    info = with_names(info, result.records)
        finally:
            # vectors of the committed sessions in one batch (a kill before this is repaired on rerun)
            background.wait(timings)
            t = time.perf_counter()
            index_committed(index, embedder, conv_id, committed)
            timings["index"] += time.perf_counter() - t
        graph_missing = not store.entities(conv_id) and bool(store.records(conv_id))
        if pending or graph_missing or rebuild:
            yield from _build_graph(store, index, embedder, conv_id, conv.speakers, timings)
        elif index.count("entities", where={"conv_id": conv_id}) != len(store.entities(conv_id)):
            index_entities(index, embedder, conv_id, store.entities(conv_id))
        seconds = time.perf_counter() - started
        stats = _stats(conv_id, store, pending, timings, counts, seconds)
        store.finish_build(build_id, stats, backend.usage(f"build:{build_id}"))
        log.info("built %s in %.2fs: %s", conv_id, seconds, stats)
        yield BuildDone(conv_id, stats)
    except MnemoscopeError as exc:
        store.finish_build(build_id, {"error": str(exc), "seconds": round(time.perf_counter() - started, 3)},
                           {})
        raise


def _skip_session(store: RelationalStore, index: VectorStore, embedder: TextEmbedder, conv_id: str,
                  session: Session, timings: dict[str, float], counts: dict[str, int]) -> SessionSkipped:
    """A session built before: re-index its vectors when Chroma's counts do not match DuckDB's."""
    t = time.perf_counter()
    reason = "already built"
    if not vectors_complete(index, store, conv_id, session):
        eps = store.episodes(conv_id, session.index)
        recs = [r for e in eps for r in store.records(conv_id, episode_id=e.id)]
        index_committed(index, embedder, conv_id, [Committed(session, eps, recs, [])])
        reason = "already built; missing vectors re-indexed"
        counts["sessions_repaired"] += 1
    timings["index"] += time.perf_counter() - t
    return SessionSkipped(conv_id, session.index, reason)


def _commit_session(store: RelationalStore, name: str, conv_id: str, result: SessionResult, was_built: bool,
                    timings: dict[str, float], counts: dict[str, int], committed: list[Committed]
                    ) -> SessionDone:
    """One session's commit: a single ``save_session_memory`` transaction (episodes, records,
    events and the built marker); the session is appended to ``committed`` for indexing."""
    session, episodes, records, events = result.session, result.episodes, result.records, result.events
    turns = list(session.turns)
    t = time.perf_counter()
    stale: list[str] = []
    if was_built:
        old = {e.id for e in store.episodes(conv_id, session.index)}
        stale = [r.id for r in store.records(conv_id, include_inactive=True) if r.episode_id in old]
    store.save_session_memory(conv_id, session.index, episodes, records, events, backend=name, stats={
        "turns": len(turns), "episodes": len(episodes), "records": len(records), "events": len(events),
        "seconds": round(result.seconds, 3)})
    timings["persist"] += time.perf_counter() - t
    committed.append(Committed(session, episodes, records, stale))
    counts["sessions_built"] += 1
    counts["turns_built"] += len(turns)
    return SessionDone(conv_id, session.index, len(episodes), len(records),
                       result.seconds + time.perf_counter() - t, events=len(events), turns=len(turns))


def _build_graph(store: RelationalStore, index: VectorStore, embedder: TextEmbedder, conv_id: str,
                 speakers: Sequence[str], timings: dict[str, float]) -> Iterator[BuildEvent]:
    result = refresh_graph(store, index, embedder, conv_id, rebuild=True, speakers=speakers, timings=timings)
    if result is not None:
        yield EntitiesMerged(conv_id, result.merges, result.entities)
        yield GraphUpdated(conv_id, len(result.entities), len(result.edges), len(result.event_importance),
                           len(result.links))


def _stats(conv_id: str, store: RelationalStore, pending: Sequence[Session], timings: dict[str, float],
           counts: dict[str, int], seconds: float) -> dict[str, Any]:
    summary = store.stats(conv_id)
    turns_built = counts.get("turns_built", 0)
    return {
        "sessions_built": counts.get("sessions_built", 0),
        "sessions_repaired": counts.get("sessions_repaired", 0),
        "turns_built": turns_built,
        "seconds": round(seconds, 3),
        "turns_per_s": round(turns_built / seconds, 2) if seconds > 0 and turns_built else 0.0,
        "stages": {k: round(v, 3) for k, v in sorted(timings.items())},
        "episodes": summary["episodes"],
        "records": summary["records"],
        "entities": summary["entities"],
        "edges": summary["edges"],
        "events": summary["events"],
        "turns": summary["turns"],
    }
