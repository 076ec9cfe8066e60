"""The build: a conversation's sessions -> episodes, records, events -> graphs, streamed.

``build_conversation(store, index, embedder, conv_id, backend)`` is a generator of the
progress events of ``memory_core.construct.progress``. It works with any ``Backend``:

1. sessions already built (``store.built_sessions``) are skipped unless ``rebuild``; their
   vectors are checked (Chroma counts against DuckDB) and re-indexed when some are missing.
   A session that grew (turns appended: its built mark dropped, its old memory still stored)
   is built again like a rebuilt one — so a conversation that grows is extended incrementally;
2. for each pending session: ``backend.segment`` -> episodes (validated: every turn of the
   session exactly once, in order), ``backend.extract`` per episode (validated: records and
   frames name their episode, cite turns inside it, have an entity and a property, unique
   ids prefixed by the episode id) -> one ``store.save_session_memory`` call, which is a
   single transaction (episodes + records + events + the ``built_sessions`` marker) — an
   interrupted build leaves whole sessions or nothing;
3. after the sessions' DuckDB commits, their vectors, in one embedding batch (also when the
   build stops on an error or the consumer closes the stream): turns (``<conv>|<turn id>``),
   records (record id); stale record vectors of a rebuilt session are deleted first. A kill
   before that leaves committed sessions without vectors: the next run sees the counts differ
   and re-indexes them;
4. once per run with something built (or a missing graph): canonical entities, merges,
   edges, event links and importance recomputed for the whole conversation
   (``store.save_graph``), entity vectors refreshed.

Invalid backend output raises ``BuildError`` naming the conversation and session; nothing of
that session is written.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import Any

from memory_core.construct.embedcache import TextEmbedder, embed_texts, seed_vectors
from memory_core.construct.graph_refresh import index_entities, refresh_graph
from memory_core.construct.progress import (
    BuildDone,
    BuildEvent,
    BuildStarted,
    EntitiesMerged,
    EpisodeFormed,
    GraphUpdated,
    RecordsExtracted,
    SessionDone,
    SessionSkipped,
    SessionStarted,
)
from memory_core.contracts import Backend, ConversationInfo, Extraction, RelationalStore, VectorStore
from memory_core.errors import BuildError, MnemoscopeError
from memory_core.ids import turn_vector_id
from memory_core.models import Conversation, Episode, EventFrame, Record, Session, Turn

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- validation
def validate_episodes(conv_id: str, session: Session, episodes: Any, backend: str) -> list[Episode]:
    where = f"conversation '{conv_id}', session {session.index}: backend '{backend}'"
    if not isinstance(episodes, list | tuple) or not all(isinstance(e, Episode) for e in episodes):
        raise BuildError(f"{where} returned something other than a list of episodes")
    expected = [t.id for t in session.turns]
    got = [tid for e in episodes for tid in e.turn_ids]
    if got != expected:
        missing = [t for t in expected if t not in got]
        extra = [t for t in got if t not in expected]
        dupes = sorted({t for t in got if got.count(t) > 1})
        detail = "; ".join(part for part in (
            f"missing turns {', '.join(missing[:5])}" if missing else "",
            f"unknown turns {', '.join(extra[:5])}" if extra else "",
            f"turns in more than one episode {', '.join(dupes[:5])}" if dupes else "",
        ) if part) or "turns out of order"
        raise BuildError(f"{where} returned episodes that do not cover every turn exactly once, "
                         f"in order: {detail}")
    prefix = f"{conv_id}:S{session.index}:"
    ids = [e.id for e in episodes]
    for e in episodes:
        if e.conv_id != conv_id or e.session != session.index:
            raise BuildError(f"{where} returned episode '{e.id}' labelled conversation '{e.conv_id}', "
                             f"session {e.session}")
        if not e.turn_ids:
            raise BuildError(f"{where} returned the empty episode '{e.id}'")
        if not e.id.startswith(prefix):
            raise BuildError(f"{where} returned episode id '{e.id}' (ids must start with '{prefix}')")
    if len(set(ids)) != len(ids):
        raise BuildError(f"{where} returned duplicate episode ids")
    return list(episodes)


def validate_extraction(conv_id: str, session: int, episode: Episode, extraction: Any, backend: str,
                        seen: set[str]) -> Extraction:
    where = f"conversation '{conv_id}', session {session}: backend '{backend}', episode '{episode.id}'"
    if not isinstance(extraction, Extraction):
        raise BuildError(f"{where}: extract returned {type(extraction).__name__}, not an Extraction")
    inside = set(episode.turn_ids)
    prefix = f"{episode.id}:"
    for r in extraction.records:
        if not isinstance(r, Record):
            raise BuildError(f"{where}: a record is a {type(r).__name__}")
        what = f"{where}: record '{r.id}'"
        if r.conv_id != conv_id or r.episode_id != episode.id:
            raise BuildError(f"{what} belongs to '{r.conv_id}' / '{r.episode_id}'")
        if not r.entity.strip() or not r.property.strip():
            raise BuildError(f"{what} has an empty entity or property")
        if not r.evidence_turn_ids:
            raise BuildError(f"{what} cites no turn")
        outside = [t for t in r.evidence_turn_ids if t not in inside]
        if outside:
            raise BuildError(f"{what} cites turns outside its episode: {', '.join(outside[:5])}")
        if not r.id.startswith(prefix) or r.id in seen:
            raise BuildError(f"{what}: ids must be unique and start with '{prefix}'")
        seen.add(r.id)
    for v in extraction.events:
        if not isinstance(v, EventFrame):
            raise BuildError(f"{where}: an event frame is a {type(v).__name__}")
        what = f"{where}: event '{v.id}'"
        if v.conv_id != conv_id or v.episode_id != episode.id:
            raise BuildError(f"{what} belongs to '{v.conv_id}' / '{v.episode_id}'")
        outside = [t for t in v.source_turn_ids if t not in inside]
        if outside or not v.source_turn_ids:
            raise BuildError(f"{what} cites no turn or turns outside its episode: {', '.join(outside[:5])}")
        if not v.id.startswith(prefix) or v.id in seen:
            raise BuildError(f"{what}: ids must be unique and start with '{prefix}'")
        seen.add(v.id)
    return extraction


# --------------------------------------------------------------------------- vectors
def _session_filter(conv_id: str, session: int) -> dict[str, Any]:
    return {"$and": [{"conv_id": conv_id}, {"session": session}]}


@dataclass(frozen=True)
class _Committed:
    session: Session
    episodes: list[Episode]
    records: list[Record]
    stale: list[str]


def record_metadata(record: Record, session: int) -> dict[str, Any]:
    """A record vector's metadata in the ``records`` collection (the build and curation write
    the same keys)."""
    return {"conv_id": record.conv_id, "episode_id": record.episode_id, "entity": record.entity,
            "property": record.property, "session": session}


def _index_committed(index: VectorStore, embedder: TextEmbedder, conv_id: str,
                     committed: Sequence[_Committed]) -> None:
    """The sessions' turn and record vectors (after their DuckDB commit): one delete and one
    upsert per collection for all of them; stale record vectors of rebuilt sessions go first."""
    if not committed:
        return
    stale = [rid for c in committed for rid in c.stale]
    if stale:
        index.delete("records", ids=stale)
    sessions = [c.session.index for c in committed]
    index.delete("turns", where={"$and": [{"conv_id": conv_id}, {"session": {"$in": sessions}}]})
    turn_ids: list[str] = []
    texts: list[str] = []
    turn_meta: list[dict[str, Any]] = []
    record_ids: list[str] = []
    docs: list[str] = []
    record_meta: list[dict[str, Any]] = []
    for c in committed:
        episode_of = {tid: e.id for e in c.episodes for tid in e.turn_ids}
        for t in c.session.turns:
            turn_ids.append(turn_vector_id(conv_id, t.id))
            texts.append(t.render())
            turn_meta.append({"conv_id": conv_id, "session": c.session.index, "turn_id": t.id,
                              "episode_id": episode_of.get(t.id, "")})
        for r in c.records:
            if r.status.value != "active":
                continue
            record_ids.append(r.id)
            docs.append(r.text())
            record_meta.append(record_metadata(r, c.session.index))
    index.upsert("turns", turn_ids, embed_texts(embedder, texts), turn_meta, documents=texts)
    index.upsert("records", record_ids, embed_texts(embedder, docs), record_meta, documents=docs)


def vectors_complete(index: VectorStore, store: RelationalStore, conv_id: str, session: Session) -> bool:
    """Do Chroma's counts for this session match DuckDB (turns, active records)?"""
    if index.count("turns", where=_session_filter(conv_id, session.index)) != len(session.turns):
        return False
    episode_ids = [e.id for e in store.episodes(conv_id, session.index)]
    if not episode_ids:
        return True
    active = sum(len(store.records(conv_id, episode_id=e)) for e in episode_ids)
    where = {"$and": [{"conv_id": conv_id}, {"episode_id": {"$in": episode_ids}}]}
    return index.count("records", where=where) == active


# --------------------------------------------------------------------------- pure compute
@dataclass(frozen=True)
class SessionResult:
    """One session's pure stages (segment + extract, validated) and the events they yielded.

    Plain data (pydantic models and frozen dataclasses): a Dask worker returns it to the
    client, which commits it exactly as a local build commits its own."""

    session: Session
    episodes: list[Episode]
    records: list[Record]
    events: list[EventFrame]
    stream: list[BuildEvent]  # SessionStarted, EpisodeFormed..., RecordsExtracted...
    seconds: float  # segment + extract


@dataclass(frozen=True)
class ComputedConversation:
    """The pure part of a conversation's build, done elsewhere (a Dask worker).

    ``pending`` are the sessions computed (by index), ``known`` the entity names the worker
    started from; ``texts``/``vectors`` every embedding it made (turns, records, entity
    names), which seed the client's embedding memo so committing embeds nothing again;
    ``timings`` the worker's stage seconds (load, embed, segment, extract)."""

    conv_id: str
    pending: tuple[int, ...]
    known: tuple[str, ...]
    sessions: dict[int, SessionResult]
    texts: list[str]
    vectors: Any  # np.ndarray (len(texts), 384) float32
    timings: dict[str, float]
    worker: str = ""


def compute_session(backend: Backend, name: str, info: ConversationInfo, session: Session,
                    timings: dict[str, float]) -> Generator[BuildEvent, None, SessionResult]:
    """Segment and extract one session (validated), yielding its events as they happen; the
    generator returns the ``SessionResult`` (``result = yield from compute_session(...)``)."""
    conv_id = info.conv_id
    t_session = time.perf_counter()
    turns = list(session.turns)
    stream: list[BuildEvent] = []

    def emit(event: BuildEvent) -> BuildEvent:
        stream.append(event)
        return event

    yield emit(SessionStarted(conv_id, session.index, turns, session.time))
    t = time.perf_counter()
    episodes = validate_episodes(conv_id, session, backend.segment(session, info), name)
    timings["segment"] += time.perf_counter() - t
    for e in episodes:
        yield emit(EpisodeFormed(conv_id, e))
    by_id = {tt.id: tt for tt in turns}
    items: list[tuple[Episode, list[Turn]]] = [(e, [by_id[i] for i in e.turn_ids]) for e in episodes]
    records: list[Record] = []
    events: list[EventFrame] = []
    seen: set[str] = set()
    t = time.perf_counter()
    results = list(backend.extract_many(items, info))  # in order; the LLM backend fans out
    if len(results) != len(items):
        raise BuildError(f"conversation '{conv_id}', session {session.index}: backend '{name}' "
                         f"returned {len(results)} extractions for {len(items)} episodes")
    for (e, _), result in zip(items, results, strict=True):
        extraction = validate_extraction(conv_id, session.index, e, result, name, seen)
        records.extend(extraction.records)
        events.extend(extraction.events)
        yield emit(RecordsExtracted(conv_id, e.id, list(extraction.records), list(extraction.events)))
    timings["extract"] += time.perf_counter() - t
    return SessionResult(session, episodes, records, events, stream, time.perf_counter() - t_session)


def compute_conversation(conv: Conversation, pending: Sequence[int], known: Sequence[str], backend: Backend,
                         embedder: TextEmbedder) -> ComputedConversation:
    """Every pure stage of a conversation's pending sessions, without a store or an index:
    model load, the turns' embedding batch, segment + extract per session (the entity names
    known so far growing session by session, as in a local build), the records' vectors and
    the vectors of the names the entity canonicalisation will compare."""
    from memory_core.construct.entities import canonicalise

    name = backend.name
    timings: dict[str, float] = defaultdict(float)
    sessions = [s for s in conv.sessions if s.index in set(pending)]
    _prepare(backend, sessions, embedder, timings)
    info = ConversationInfo(conv.id, conv.speakers, known_entities=tuple(known))
    out: dict[int, SessionResult] = {}
    for session in sessions:
        gen = compute_session(backend, name, info, session, timings)
        while True:
            try:
                next(gen)
            except StopIteration as stop:
                result: SessionResult = stop.value
                break
        out[session.index] = result
        info = _with_names(info, result.records)
    t = time.perf_counter()
    texts = [tt.render() for s in sessions for tt in s.turns]
    records = [r for res in out.values() for r in res.records]
    texts += [r.text() for r in records]
    asked: list[str] = []

    def remember(names: list[str]) -> Any:
        asked.extend(names)
        return embed_texts(embedder, names)

    canonicalise(conv.id, records, conv.speakers, remember, [])
    texts = list(dict.fromkeys([*texts, *asked]))
    vectors = embed_texts(embedder, texts)  # the records' batch (turns and names are memo hits)
    timings["embed"] += time.perf_counter() - t
    return ComputedConversation(conv.id, tuple(pending), tuple(known), out, texts, vectors, dict(timings))


def _with_names(info: ConversationInfo, records: Sequence[Record]) -> ConversationInfo:
    """``info`` knowing the entity names of ``records`` too (first-seen order): the next
    session's stages resolve aliases against them."""
    known = dict.fromkeys([*info.known_entities, *(r.entity for r in records)])
    return replace(info, known_entities=tuple(known))


def _prepare(backend: Backend, pending: Sequence[Session], embedder: TextEmbedder,
             timings: dict[str, float]) -> None:
    """Load the models, then embed every pending turn in one batch — while the backend's
    optional ``warm(sessions)`` (the offline backend parses every turn with spaCy) runs in a
    thread beside it, the embedding on one torch thread so the two share two cores."""
    if not pending:
        return
    t = time.perf_counter()
    backend.prepare()
    timings["load"] += time.perf_counter() - t
    texts = [tt.render() for s in pending for tt in s.turns]
    thread: threading.Thread | None = None
    if backend.warms:
        def run() -> None:
            t0 = time.perf_counter()
            try:
                backend.warm(list(pending))
            except Exception:  # only a head start: the stages parse (and report) themselves
                log.warning("warming the backend failed", exc_info=True)
            timings["parse"] += time.perf_counter() - t0

        thread = threading.Thread(target=run, name="build-warm", daemon=True)
        thread.start()
    t = time.perf_counter()  # segmentation and indexing reuse these vectors
    embed_texts(embedder, texts, threads=1 if thread is not None else None)
    timings["embed"] += time.perf_counter() - t
    if thread is not None:
        t = time.perf_counter()
        thread.join()
        timings["parse_wait"] += time.perf_counter() - t


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

    With ``computed`` (the pure stages done by a worker for exactly the sessions this build
    finds pending) nothing is segmented, extracted or embedded here: the worker's events are
    replayed and its results committed by the same code as a local build's."""
    conv = store.load_conversation(conv_id, with_qa=False)
    built = store.built_sessions(conv_id)
    pending = [s for s in conv.sessions if rebuild or s.index not in built]
    pending_ids = {s.index for s in pending}
    name = backend.name
    known = tuple(e.name for e in store.entities(conv_id))
    if computed is not None and (computed.conv_id != conv_id or set(computed.pending) != pending_ids
                                 or computed.known != known):
        raise BuildError(f"conversation '{conv_id}': the worker's result is for other pending sessions "
                         f"({sorted(computed.pending)} vs {sorted(pending_ids)}); build it again")
    build_id = uuid.uuid4().hex[:12]
    started = time.perf_counter()
    timings: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    store.start_build(build_id, conv_id, name)
    yield BuildStarted(conv_id, len(conv.sessions), name, sessions_pending=len(pending),
                       turns_pending=sum(len(s.turns) for s in pending), rebuild=rebuild)
    try:
        if computed is None:
            _prepare(backend, pending, embedder, timings)
        else:
            seed_vectors(computed.texts, computed.vectors)
            for stage, seconds in computed.timings.items():
                timings[f"worker_{stage}"] += seconds
        info = ConversationInfo(conv_id, conv.speakers, known_entities=known)
        scope: AbstractContextManager[Any] = (
            backend.accounting(conv_id, f"build:{build_id}") if computed is None else nullcontext())
        committed: list[_Committed] = []
        background = _Background(embedder)
        try:
            with scope:
                for session in conv.sessions:
                    if session.index not in pending_ids:
                        t = time.perf_counter()
                        reason = "already built"
                        if not vectors_complete(index, store, conv_id, session):
                            eps = store.episodes(conv_id, session.index)
                            recs = [r for e in eps for r in store.records(conv_id, episode_id=e.id)]
                            _index_committed(index, embedder, conv_id, [_Committed(session, eps, recs, [])])
                            reason = "already built; missing vectors re-indexed"
                            counts["sessions_repaired"] += 1
                        timings["index"] += time.perf_counter() - t
                        yield SessionSkipped(conv_id, session.index, reason)
                        continue
                    result: SessionResult
                    if computed is None:
                        result = yield from compute_session(backend, name, info, session, timings)
                    else:
                        result = computed.sessions[session.index]
                        yield from result.stream
                    was_built = (built.get(session.index) is not None
                                 or bool(store.episodes(conv_id, session.index)))  # a grown session
                    yield _commit_session(store, name, conv_id, result, was_built, timings, counts, committed)
                    if computed is None:
                        background.embed([r.text() for r in result.records if r.status.value == "active"])
                    info = _with_names(info, result.records)
        finally:
            # vectors of the committed sessions in one batch (a kill before this is repaired on rerun)
            background.wait(timings)
            t = time.perf_counter()
            _index_committed(index, embedder, conv_id, committed)
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


def _commit_session(store: RelationalStore, name: str, conv_id: str, result: SessionResult, was_built: bool,
                    timings: dict[str, float], counts: dict[str, int], committed: list[_Committed]
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
    committed.append(_Committed(session, episodes, records, stale))
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
