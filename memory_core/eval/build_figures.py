"""Figures about a built conversation, for the build benchmark (``bench build``).

Nothing here feeds the build: LoCoMo ``observation`` facts (kept by the importer in the
conversation's ``meta``) are read only to *measure* how many of their evidence turns some
record cites.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memory_core.contracts import RelationalStore
from memory_core.eval.fidelity import observations
from memory_core.timeexpr import normalise

if TYPE_CHECKING:
    from spacy.tokens import Doc


def observation_turns(meta: dict[str, Any]) -> set[str]:
    """Turn ids cited by LoCoMo ``observation`` facts (as ``fidelity.observations`` reads them)."""
    return {tid for _, ids in observations(meta) for tid in ids}


def measure(store: RelationalStore, conv_id: str,
            parse: Callable[[list[str]], list[Doc]] | None = None) -> dict[str, Any]:
    conv = store.load_conversation(conv_id, with_qa=False)
    turns = conv.turns
    turn_ids = [t.id for t in turns]
    session_of = {t.id: t.session for t in turns}
    episodes = store.episodes(conv_id)
    records = store.records(conv_id)
    lengths = [len(e.turn_ids) for e in episodes]
    covered = [tid for e in episodes for tid in e.turn_ids]
    episode_turns = {e.id: set(e.turn_ids) for e in episodes}
    cited: set[str] = {tid for r in records for tid in r.evidence_turn_ids}
    inside = sum(1 for r in records if r.evidence_turn_ids
                 and set(r.evidence_turn_ids) <= episode_turns.get(r.episode_id, set()))
    observed = observation_turns(conv.meta) & set(turn_ids)
    out: dict[str, Any] = {
        "conv_id": conv_id,
        "sessions": len(conv.sessions),
        "turns": len(turns),
        "episodes": len(episodes),
        "episode_len_mean": round(statistics.fmean(lengths), 2) if lengths else 0.0,
        "episode_len_stdev": round(statistics.pstdev(lengths), 2) if lengths else 0.0,
        "episode_len_min": min(lengths, default=0),
        "episode_len_max": max(lengths, default=0),
        "every_turn_once": sorted(covered) == sorted(turn_ids) and len(covered) == len(set(covered)),
        "no_cross_session": all(len({session_of.get(t) for t in e.turn_ids}) == 1 for e in episodes),
        "records": len(records),
        "records_per_turn": round(len(records) / len(turns), 3) if turns else 0.0,
        "records_citing_inside_episode": round(inside / len(records), 4) if records else 1.0,
        "records_with_entity_and_property": round(
            sum(1 for r in records if r.entity.strip() and r.property.strip()) / len(records), 4
        ) if records else 1.0,
        "turns_cited": round(len(cited & set(turn_ids)) / len(turns), 4) if turns else 0.0,
        "observation_turns": len(observed),
        "observation_turns_cited": round(len(observed & cited) / len(observed), 4) if observed else None,
        "events": len(store.events(conv_id)),
        "entities": len(store.entities(conv_id)),
        "edges": len(store.edges(conv_id)),
        "merges": len(store.entity_merges(conv_id)),
        "properties": len({r.property for r in records}),
    }
    if parse is not None:
        docs = parse([t.text for t in turns])
        spans = {t.id: [e.text for e in d.ents if e.label_ in ("DATE", "TIME")]
                 for t, d in zip(turns, docs, strict=True)}
        timed = [tid for tid, found in spans.items() if found]
        when = {t.id: t.session_time for t in turns}
        anchorable = [tid for tid in timed if any(normalise(x, when[tid]) is not None for x in spans[tid])]
        with_time = {tid for r in records if r.valid_time for tid in r.evidence_turn_ids}
        out["turns_with_time_expression"] = len(timed)
        out["time_turns_with_valid_time"] = _share(set(timed) & with_time, timed)
        # the same over turns whose expression is a point in time (not "for 4 years", "that day")
        out["turns_with_anchorable_time"] = len(anchorable)
        out["anchorable_time_turns_with_valid_time"] = _share(set(anchorable) & with_time, anchorable)
    return out


def _share(hit: set[str], among: list[str]) -> float | None:
    return round(len(hit) / len(among), 4) if among else None
