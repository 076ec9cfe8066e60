"""The per-conversation retrieval index, built once and kept in memory.

A ``ConversationIndex`` holds what every question of one conversation needs: turns in dialogue
order with their token counts, episodes (the build's, or fixed windows when the memory is not
built yet), active records with their evidence turn positions, entities, event frames, graph
edges, BM25 indexes over turns and records, and the dense vectors of turns, records and
entities read from Chroma (embedded locally and kept in memory when Chroma lacks them).

``IndexCache.get(store, index, embedder, conv_id)`` rebuilds an entry only when the
conversation's fingerprint (counts and versions of its turns, episodes and records) changes,
so edits and rebuilds are picked up on the next question.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from memory_core.contracts import Vocabulary
from memory_core.embeddings import DIMENSION
from memory_core.errors import QueryError
from memory_core.ids import turn_vector_id
from memory_core.models import Entity, Episode, EventFrame, EventLink, GraphEdge, Record, ThemeType, Turn
from memory_core.query.families import property_families, value_families
from memory_core.query.lexical import LexicalIndex
from memory_core.query.text import fold, terms
from memory_core.tokens import count_tokens

if TYPE_CHECKING:
    from memory_core.contracts import RelationalStore, VectorStore
    from memory_core.embeddings import Embedder

log = logging.getLogger(__name__)

FALLBACK_WINDOW = 8  # turns per window when the conversation has no built episodes
IMAGE_REACH = 2  # an uncited photo this many turns before a record's evidence joins its address


@dataclass
class ConversationIndex:
    conv_id: str
    fingerprint: tuple[Any, ...]
    speakers: tuple[str, ...]
    turns: list[Turn]
    session_times: dict[int, datetime | None]
    episodes: list[Episode]
    episodes_built: bool
    records: list[Record]
    entities: list[Entity]
    events: list[EventFrame]
    event_links: list[EventLink]
    edges: list[GraphEdge]
    turn_lex: LexicalIndex
    record_lex: LexicalIndex
    turn_vecs: np.ndarray
    record_vecs: np.ndarray
    entity_vecs: np.ndarray
    pos: dict[str, int] = field(default_factory=dict)
    turn_tokens: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    turn_session: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    turn_episode: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    record_turns: list[list[int]] = field(default_factory=list)
    record_episode: list[int] = field(default_factory=list)
    episode_pos: dict[str, int] = field(default_factory=dict)
    speaker_of: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    record_stems: list[frozenset[str]] = field(default_factory=list)  # property + value stems
    record_props: list[str] = field(default_factory=list)  # folded, lower-cased property
    record_pfam: list[frozenset[str]] = field(default_factory=list)  # families of the property
    record_vfam: list[frozenset[str]] = field(default_factory=list)  # families of the value's words

    def __post_init__(self) -> None:
        self.pos = {t.id: i for i, t in enumerate(self.turns)}
        self.turn_tokens = np.array([count_tokens(t.render()) for t in self.turns], dtype=np.int64)
        self.turn_session = np.array([t.session for t in self.turns], dtype=np.int64)
        self.episode_pos = {e.id: i for i, e in enumerate(self.episodes)}
        self.turn_episode = np.full(len(self.turns), -1, dtype=np.int64)
        for i, episode in enumerate(self.episodes):
            for tid in episode.turn_ids:
                if tid in self.pos:
                    self.turn_episode[self.pos[tid]] = i
        for i in np.where(self.turn_episode < 0)[0]:  # turns outside every episode: own unit
            self.turn_episode[i] = self.turn_episode[i - 1] if i > 0 else 0
        self.record_turns = [
            [self.pos[t] for t in r.evidence_turn_ids if t in self.pos] for r in self.records
        ]
        self._attach_shown_images()
        self.record_episode = [self.episode_pos.get(r.episode_id, -1) for r in self.records]
        self.record_stems = [frozenset(terms(f"{r.property} {r.value}")) for r in self.records]
        self.record_props = [fold(r.property).lower() for r in self.records]
        self.record_pfam = [property_families(r.property) for r in self.records]
        self.record_vfam = [value_families(r.value) for r in self.records]
        names = {s.lower(): k for k, s in enumerate(self.speakers)}
        self.speaker_of = np.array([names.get(t.speaker.lower(), -1) for t in self.turns], dtype=np.int64)

    def _attach_shown_images(self) -> None:
        """Add to a record's address the photo its speaker shared just before, uncited.

        A fact is often stated right after the speaker shows it ("take a look at this"
        [image: a painting of a sunset] ... "I painted that lake sunrise last year"): the
        record cites the sentence, the photo turn carries no record of its own. Such a turn
        (same session, same speaker, at most ``IMAGE_REACH`` turns earlier, cited by no
        record) belongs to the record's evidence address.
        """
        cited = {p for turns in self.record_turns for p in turns}
        for turns in self.record_turns:
            extra: list[int] = []
            for p in turns:
                for q in range(p - 1, max(p - 1 - IMAGE_REACH, -1), -1):
                    t = self.turns[q]
                    if self.turn_session[q] != self.turn_session[p]:
                        break
                    if t.image_caption and q not in cited and t.speaker == self.turns[p].speaker:
                        extra.append(q)
                        break
            turns.extend(q for q in extra if q not in turns)

    @property
    def last_time(self) -> datetime | None:
        times = [t for t in self.session_times.values() if t is not None]
        return max(times) if times else None

    def vocabulary(self) -> Vocabulary:
        cached = self.__dict__.get("_vocabulary")
        if cached is None:
            cached = self._vocabulary()
            self.__dict__["_vocabulary"] = cached
        return cached

    def _vocabulary(self) -> Vocabulary:
        entities: dict[str, str] = {}
        for e in self.entities:
            entities.setdefault(e.name, e.type)
            for alias in e.aliases:
                entities.setdefault(alias, e.type)
        if not self.entities:
            for r in self.records:
                entities.setdefault(r.entity, r.entity_type)
        properties = sorted({r.property for r in self.records if r.property})
        return Vocabulary(
            speakers=self.speakers,
            entities=tuple(sorted(entities.items())),
            properties=tuple(properties),
            question_time=self.last_time,
        )

    def episode_turns(self, e: int) -> list[int]:
        return [self.pos[t] for t in self.episodes[e].turn_ids if t in self.pos]


def fingerprint(store: RelationalStore, conv_id: str) -> tuple[Any, ...]:
    return store.memory_fingerprint(conv_id)


def fallback_episodes(conv_id: str, turns: list[Turn], window: int = FALLBACK_WINDOW) -> list[Episode]:
    """Fixed windows inside each session, used until the conversation is built."""
    out: list[Episode] = []
    by_session: dict[int, list[Turn]] = {}
    for t in turns:
        by_session.setdefault(t.session, []).append(t)
    for session, session_turns in by_session.items():
        for n, start in enumerate(range(0, len(session_turns), window)):
            chunk = session_turns[start : start + window]
            out.append(
                Episode(
                    id=f"{conv_id}:S{session}:W{n + 1}",
                    conv_id=conv_id,
                    session=session,
                    turn_ids=tuple(t.id for t in chunk),
                    theme_type=ThemeType.TOPIC,
                    boundary_reason="fixed window (memory not built yet)",
                    start_time=chunk[0].session_time,
                )
            )
    return out


def _vectors(
    index: VectorStore | None, embedder: Embedder, collection: str, ids: list[str], texts: list[str]
) -> np.ndarray:
    """Vectors for ``ids`` from Chroma; the missing ones are embedded here (kept in memory only)."""
    if not ids:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    found: dict[str, np.ndarray] = {}
    if index is not None:
        try:
            found = index.get_vectors(collection, ids)
        except Exception as exc:  # a missing/corrupt collection must not stop a question
            log.warning("cannot read %s vectors from the index: %s", collection, exc)
    missing = [i for i, key in enumerate(ids) if key not in found]
    out = np.zeros((len(ids), DIMENSION), dtype=np.float32)
    for i, key in enumerate(ids):
        if key in found:
            out[i] = found[key]
    if missing:
        log.info("embedding %d %s not in the vector index", len(missing), collection)
        out[missing] = embedder.embed([texts[i] for i in missing])
    return out


def build_index(
    store: RelationalStore,
    index: VectorStore | None,
    embedder: Embedder,
    conv_id: str,
    fp: tuple[Any, ...] | None = None,
) -> ConversationIndex:
    started = time.perf_counter()
    if not store.has_conversation(conv_id):
        raise QueryError(f"unknown conversation '{conv_id}' (see: python -m memory_core list)")
    conv = store.load_conversation(conv_id, with_qa=False)
    turns = conv.turns
    if not turns:
        raise QueryError(f"conversation '{conv_id}' has no turns")
    episodes = store.episodes(conv_id)
    built = bool(episodes)
    if not built:
        episodes = fallback_episodes(conv_id, turns)
    records = store.records(conv_id)
    entities = store.entities(conv_id)
    speakers = conv.speakers or tuple(dict.fromkeys(t.speaker for t in turns))
    ci = ConversationIndex(
        conv_id=conv_id,
        fingerprint=fp if fp is not None else fingerprint(store, conv_id),
        speakers=tuple(speakers),
        turns=turns,
        session_times={s.index: s.time for s in conv.sessions},
        episodes=episodes,
        episodes_built=built,
        records=records,
        entities=entities,
        events=store.events(conv_id),
        event_links=store.event_links(conv_id),
        edges=store.edges(conv_id),
        turn_lex=LexicalIndex([t.render() for t in turns]),
        record_lex=LexicalIndex([r.text() for r in records]),
        turn_vecs=_vectors(
            index,
            embedder,
            "turns",
            [turn_vector_id(conv_id, t.id) for t in turns],
            [t.render() for t in turns],
        ),
        record_vecs=_vectors(
            index, embedder, "records", [r.id for r in records], [r.text() for r in records]
        ),
        entity_vecs=_vectors(
            index, embedder, "entities", [e.id for e in entities], [e.name for e in entities]
        ),
    )
    log.info(
        "retrieval index for %s: %d turns, %d episodes%s, %d records in %.2fs",
        conv_id,
        len(turns),
        len(episodes),
        "" if built else " (fallback windows)",
        len(records),
        time.perf_counter() - started,
    )
    return ci


class IndexCache:
    """Per-conversation indexes kept in memory, refreshed when the fingerprint changes; the
    ``max_entries`` most recently used are kept (an evaluation over 500 haystacks, a home of
    thousands of conversations must not hold every index at once)."""

    def __init__(self, recheck_s: float = 1.0, max_entries: int = 32) -> None:
        self._entries: OrderedDict[str, ConversationIndex] = OrderedDict()
        self._checked: dict[str, float] = {}
        self._lock = threading.Lock()
        self.recheck_s = recheck_s  # the fingerprint is re-read at most this often
        self.max_entries = max_entries

    def __len__(self) -> int:
        return len(self._entries)

    def get(
        self, store: RelationalStore, index: VectorStore | None, embedder: Embedder, conv_id: str
    ) -> ConversationIndex:
        with self._lock:
            entry = self._entries.get(conv_id)
            if entry is not None:
                self._entries.move_to_end(conv_id)
            now = time.monotonic()
            if entry is not None and now - self._checked.get(conv_id, 0.0) < self.recheck_s:
                return entry
            fp = fingerprint(store, conv_id)
            self._checked[conv_id] = now
            if entry is not None and entry.fingerprint == fp:
                return entry
            entry = build_index(store, index, embedder, conv_id, fp)
            self._entries[conv_id] = entry
            while len(self._entries) > self.max_entries:
                oldest, _ = self._entries.popitem(last=False)
                self._checked.pop(oldest, None)
            return entry

    def invalidate(self, conv_id: str | None = None) -> None:
        with self._lock:
            if conv_id is None:
                self._entries.clear()
                self._checked.clear()
            else:
                self._entries.pop(conv_id, None)
                self._checked.pop(conv_id, None)

    def clear(self) -> None:
        self.invalidate()
