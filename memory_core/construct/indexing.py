"""The build's vectors: turns and records of committed sessions, and whether a session has them.

    index_committed(index, embedder, conv_id, committed)   one delete + one upsert per collection
    vectors_complete(index, store, conv_id, session)       Chroma's counts match DuckDB's?
    record_metadata(record, session)                       a record vector's metadata (curation
                                                           writes the same keys)

Turn vectors are ``<conv>|<turn id>`` in ``turns``; record vectors are the record id in
``records`` (active records only).

Chroma is given vectors, ids and where-to metadata (conversation, session, episode, turn id) —
never the conversation's words: no document, no entity name, no property. What is asked of it
needs nothing more (vectors by id, counts and deletes by conversation and session), and text it
never received cannot outlive a forget in its files (a Chroma server writes index files from
memory it does not clear).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memory_core.construct.embedcache import TextEmbedder, embed_texts
from memory_core.contracts import RelationalStore, VectorStore
from memory_core.ids import turn_vector_id
from memory_core.models import Episode, Record, Session


def _session_filter(conv_id: str, session: int) -> dict[str, Any]:
    return {"$and": [{"conv_id": conv_id}, {"session": session}]}


@dataclass(frozen=True)
class Committed:
    """A session whose memory was just committed, with the record ids it replaced."""

    session: Session
    episodes: list[Episode]
    records: list[Record]
    stale: list[str]


def record_metadata(record: Record, session: int) -> dict[str, Any]:
    """A record vector's metadata in the ``records`` collection (the build and curation write
    the same keys)."""
    return {"conv_id": record.conv_id, "episode_id": record.episode_id, "session": session}


def index_committed(index: VectorStore, embedder: TextEmbedder, conv_id: str,
                     committed: Sequence[Committed]) -> None:
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
    index.upsert("turns", turn_ids, embed_texts(embedder, texts), turn_meta)
    index.upsert("records", record_ids, embed_texts(embedder, docs), record_meta)


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

