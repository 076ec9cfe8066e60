"""The build: a conversation's sessions -> episodes, records, events -> graphs, streamed.

``build_conversation(store, index, embedder, conv_id, backend)`` is a generator of the
progress events of ``memory_core.construct.events``. It works with any ``Backend``:

1. sessions already built (``store.built_sessions``) are skipped unless ``rebuild``; their
   vectors are checked (Chroma counts against DuckDB) and re-indexed when some are missing;
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
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from memory_core.construct.embedcache import TextEmbedder, embed_texts
from memory_core.construct.events import (
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
from memory_core.construct.graph_refresh import index_entities, refresh_graph
from memory_core.contracts import Backend, ConversationInfo, Extraction, RelationalStore, VectorStore
from memory_core.errors import BuildError, MnemoscopeError
from memory_core.ids import turn_vector_id
from memory_core.models import Episode, EventFrame, Record, Session, Turn

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


def index_session(index: VectorStore, embedder: TextEmbedder, conv_id: str, session: Session,
                  episodes: Sequence[Episode], records: Sequence[Record], stale_record_ids: Sequence[str] = ()
                  ) -> None:
    """Upsert the session's turn and record vectors (after its DuckDB commit)."""
    episode_of = {tid: e.id for e in episodes for tid in e.turn_ids}
    turns = list(session.turns)
    if stale_record_ids:
        index.delete("records", ids=list(stale_record_ids))
    index.delete("turns", where=_session_filter(conv_id, session.index))
    texts = [t.render() for t in turns]
    index.upsert("turns", [turn_vector_id(conv_id, t.id) for t in turns], embed_texts(embedder, texts),
                 [{"conv_id": conv_id, "session": session.index, "turn_id": t.id,
                   "episode_id": episode_of.get(t.id, "")} for t in turns], documents=texts)
    active = [r for r in records if r.status.value == "active"]
    docs = [r.text() for r in active]
    index.upsert("records", [r.id for r in active], embed_texts(embedder, docs),
                 [{"conv_id": conv_id, "episode_id": r.episode_id, "entity": r.entity,
                   "property": r.property, "session": session.index} for r in active], documents=docs)


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


# --------------------------------------------------------------------------- the build
def build_conversation(store: RelationalStore, index: VectorStore, embedder: TextEmbedder, conv_id: str,
                       backend: Backend, *, rebuild: bool = False) -> Iterator[BuildEvent]:
    """Build (or extend) a conversation's memory, yielding progress events."""
    conv = store.load_conversation(conv_id, with_qa=False)
    built = store.built_sessions(conv_id)
    pending = [s for s in conv.sessions if rebuild or s.index not in built]
    pending_ids = {s.index for s in pending}
    name = backend.name
    build_id = uuid.uuid4().hex[:12]
    started = time.perf_counter()
    timings: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    store.start_build(build_id, conv_id, name)
    yield BuildStarted(conv_id, len(conv.sessions), name, sessions_pending=len(pending),
                       turns_pending=sum(len(s.turns) for s in pending), rebuild=rebuild)
    try:
        if pending:
            t = time.perf_counter()
            backend.prepare()
            timings["load"] += time.perf_counter() - t
        if pending:  # one batch for every pending turn: segmentation and indexing reuse these vectors
            t = time.perf_counter()
            embed_texts(embedder, [tt.render() for s in pending for tt in s.turns])
            timings["embed"] += time.perf_counter() - t
        known = tuple(e.name for e in store.entities(conv_id))
        info = ConversationInfo(conv_id, conv.speakers, known_entities=known)
        scope: AbstractContextManager[Any] = backend.accounting(conv_id, f"build:{build_id}")
        committed: list[_Committed] = []
        try:
            with scope:
                for session in conv.sessions:
                    if session.index not in pending_ids:
                        t = time.perf_counter()
                        reason = "already built"
                        if not vectors_complete(index, store, conv_id, session):
                            eps = store.episodes(conv_id, session.index)
                            recs = [r for e in eps for r in store.records(conv_id, episode_id=e.id)]
                            index_session(index, embedder, conv_id, session, eps, recs)
                            reason = "already built; missing vectors re-indexed"
                            counts["sessions_repaired"] += 1
                        timings["index"] += time.perf_counter() - t
                        yield SessionSkipped(conv_id, session.index, reason)
                        continue
                    names: list[str] = []
                    yield from _build_session(store, backend, name, info, session,
                                              built.get(session.index) is not None, timings, counts, names,
                                              committed)
                    known = tuple(dict.fromkeys([*info.known_entities, *names]))
                    info = ConversationInfo(conv_id, conv.speakers, known_entities=known)
        finally:
            # vectors of the committed sessions in one batch (a kill before this is repaired on rerun)
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


@dataclass(frozen=True)
class _Committed:
    session: Session
    episodes: list[Episode]
    records: list[Record]
    stale: list[str]


def _index_committed(index: VectorStore, embedder: TextEmbedder, conv_id: str,
                     committed: Sequence[_Committed]) -> None:
    if not committed:
        return
    embed_texts(embedder, [r.text() for c in committed for r in c.records])  # one batch, then memo hits
    for c in committed:
        index_session(index, embedder, conv_id, c.session, c.episodes, c.records, c.stale)


def _build_session(store: RelationalStore, backend: Backend, name: str, info: ConversationInfo,
                   session: Session, was_built: bool, timings: dict[str, float], counts: dict[str, int],
                   names: list[str],
                   committed: list[_Committed]) -> Iterator[BuildEvent]:
    """One session: segment, extract, validate, commit. ``names`` collects its entities; the
    committed session is appended to ``committed`` for indexing."""
    conv_id = info.conv_id
    t_session = time.perf_counter()
    turns = list(session.turns)
    yield SessionStarted(conv_id, session.index, turns, session.time)
    t = time.perf_counter()
    episodes = validate_episodes(conv_id, session, backend.segment(session, info), name)
    timings["segment"] += time.perf_counter() - t
    for e in episodes:
        yield EpisodeFormed(conv_id, e)
    by_id = {tt.id: tt for tt in turns}
    items: list[tuple[Episode, list[Turn]]] = [(e, [by_id[i] for i in e.turn_ids]) for e in episodes]
    records: list[Record] = []
    events: list[EventFrame] = []
    seen: set[str] = set()
    t = time.perf_counter()
    if len(items) > 1:
        results = list(backend.extract_many(items, info))
        if len(results) != len(items):
            raise BuildError(f"conversation '{conv_id}', session {session.index}: backend '{name}' "
                             f"returned {len(results)} extractions for {len(items)} episodes")
        for (e, _), result in zip(items, results, strict=True):
            extraction = validate_extraction(conv_id, session.index, e, result, name, seen)
            records.extend(extraction.records)
            events.extend(extraction.events)
            yield RecordsExtracted(conv_id, e.id, list(extraction.records), list(extraction.events))
    else:
        for e, ep_turns in items:
            extraction = validate_extraction(conv_id, session.index, e, backend.extract(e, ep_turns, info),
                                             name, seen)
            records.extend(extraction.records)
            events.extend(extraction.events)
            yield RecordsExtracted(conv_id, e.id, list(extraction.records), list(extraction.events))
    timings["extract"] += time.perf_counter() - t
    stale: list[str] = []
    if was_built:
        old = {e.id for e in store.episodes(conv_id, session.index)}
        stale = [r.id for r in store.records(conv_id, include_inactive=True) if r.episode_id in old]
    names.extend(dict.fromkeys(r.entity for r in records))
    t = time.perf_counter()
    seconds = time.perf_counter() - t_session
    store.save_session_memory(conv_id, session.index, episodes, records, events, backend=name, stats={
        "turns": len(turns), "episodes": len(episodes), "records": len(records), "events": len(events),
        "seconds": round(seconds, 3)})
    timings["persist"] += time.perf_counter() - t
    committed.append(_Committed(session, episodes, records, stale))
    counts["sessions_built"] += 1
    counts["turns_built"] += len(turns)
    yield SessionDone(conv_id, session.index, len(episodes), len(records), time.perf_counter() - t_session,
                      events=len(events), turns=len(turns))


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
