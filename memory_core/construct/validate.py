"""What a backend's stage output must be before the build stores it.

    validate_episodes(conv_id, session, episodes, backend)   -> list[Episode]
        every turn of the session exactly once, in order; episodes labelled with their
        conversation and session, non-empty, ids unique and prefixed ``<conv>:S<session>:``
    validate_extraction(conv_id, session, episode, extraction, backend, seen) -> Extraction
        records and event frames name their episode, cite turns inside it, records have an
        entity and a property; ids unique (``seen``) and prefixed by the episode id

Anything else raises ``BuildError`` naming the conversation, session, backend and item.
"""

from __future__ import annotations

from typing import Any

from memory_core.contracts import Extraction
from memory_core.errors import BuildError
from memory_core.models import Episode, EventFrame, Record, Session


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

