"""Small read helpers for pages over the services' reads.

These only read and reshape; no SQL and no pipeline logic lives here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memory_core.models import Conversation, Episode, Record, Turn
from memory_core.services import MemoryServices

if TYPE_CHECKING:
    from components.html_table import Cell


def conversation(svc: MemoryServices, conv: str) -> Conversation:
    return svc.imports.conversation(conv)


def turns(svc: MemoryServices, conv: str, ids: Sequence[str] | None = None) -> list[Turn]:
    return svc.imports.turns(conv, ids, strict=False)


def episodes(svc: MemoryServices, conv: str) -> list[Episode]:
    return svc.builds.episodes(conv)


def records(svc: MemoryServices, conv: str, *, episode_id: str | None = None,
            include_inactive: bool = False) -> list[Record]:
    return svc.curation.records(conv, episode_id=episode_id, include_inactive=include_inactive)


def record(svc: MemoryServices, record_id: str) -> Record:
    return svc.imports.record(record_id)


def episode_labels(episodes: Sequence[Episode]) -> dict[str, str]:
    """Short labels ``S3·E2`` (session, position inside the session) for episode ids."""
    labels: dict[str, str] = {}
    counter: dict[int, int] = {}
    for ep in episodes:
        counter[ep.session] = counter.get(ep.session, 0) + 1
        labels[ep.id] = f"S{ep.session}·E{counter[ep.session]}"
    return labels


def evidence_turns(records: Sequence[Record]) -> set[str]:
    return {tid for r in records for tid in r.evidence_turn_ids}


def records_frame_rows(records: Sequence[Record],
                       labels: dict[str, str] | None = None) -> list[dict[str, Cell]]:
    """Rows for a records table (plain values; the table renders them as text)."""
    labels = labels or {}
    rows: list[dict[str, Cell]] = []
    for r in records:
        rows.append({
            "id": r.id,
            "entity": r.entity,
            "type": r.entity_type,
            "property": r.property,
            "value": r.value,
            "condition": r.condition or "",
            "modality": r.modality.value,
            "valid time": r.valid_time or "",
            "confidence": round(float(r.confidence), 2),
            "status": r.status.value,
            "episode": labels.get(r.episode_id, r.episode_id),
            "evidence": ", ".join(r.evidence_turn_ids),
            "version": r.version,
        })
    return rows


def version_token(svc: MemoryServices, conv: str) -> str:
    """Changes whenever the conversation's memory changes (a build, an edit): a cache key part."""
    import json

    stats = svc.imports.stats(conv)
    builds = svc.builds.build_history(conv)
    last = builds[0] if builds else None
    return json.dumps([stats, str(last.id if last else None), str(last.finished_at if last else None)],
                      sort_keys=True, default=str)


def records_by_ids(svc: MemoryServices, ids: Sequence[str]) -> list[Record]:
    """These records; one deleted since the graph or the trace was drawn is skipped."""
    return svc.curation.records_by_ids(list(ids))

