"""Re-indexing what a curation change touches: record vectors and the entity graph.

Record vectors live in Chroma's ``records`` collection keyed by record id (text =
``Record.text()``, metadata conv_id / episode_id / entity / property / session, as the build
writes it). Only active records are
indexed: a record marked wrong or deleted is removed, one restored by a revert comes back.

Vectors are computed *before* the database transaction (embedding is the slow part and must
not hold the store's lock longer than needed); ``apply_record_vectors`` then runs inside the
transaction, so a failing vector write rolls the edit back.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from memory_core.construct.indexing import record_metadata
from memory_core.contracts import VectorStore
from memory_core.embeddings import Embedder
from memory_core.models import Record, RecordStatus

log = logging.getLogger(__name__)

RECORDS = "records"


@dataclass(frozen=True)
class PreparedVectors:
    """Vectors for the records to (re)index and the ids to drop from the index."""

    upsert: list[Record]
    vectors: np.ndarray
    remove: list[str]
    sessions: list[int]  # of each upserted record (its episode's session)


def prepare_record_vectors(embedder: Embedder, records: Sequence[Record],
                           session_of: Mapping[str, int]) -> PreparedVectors:
    """``session_of``: episode id -> session, for the records' vector metadata."""
    active = [r for r in records if r.status == RecordStatus.ACTIVE]
    removed = [r.id for r in records if r.status != RecordStatus.ACTIVE]
    vectors = embedder.embed([r.text() for r in active])
    return PreparedVectors(upsert=active, vectors=vectors, remove=removed,
                           sessions=[session_of[r.episode_id] for r in active])


def apply_record_vectors(index: VectorStore, prepared: PreparedVectors) -> None:
    if prepared.upsert:
        index.upsert(RECORDS, [r.id for r in prepared.upsert], prepared.vectors,
                     [record_metadata(r, s) for r, s in zip(prepared.upsert, prepared.sessions, strict=True)])
    if prepared.remove:
        index.delete(RECORDS, ids=prepared.remove)
