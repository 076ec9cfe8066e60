"""Refreshing the entity graph after a curation change.

The build computes the conversation's canonical entities, alias merges and relation edges.
After an annotator's change the graph is refreshed from the corrected records:

- entities are the distinct entity names of active records; a name already known (as a
  canonical name or an alias) keeps its entity id, aliases and type;
- a record whose value names another entity is a relation edge (entity --property--> value
  entity); other records are aspect attributes of their entity;
- build-time alias merges are kept while their canonical entity exists, and every merge an
  annotator made (``merge_entities``, not reverted) is recorded with reason ``"annotator"``;
- event links are left as the build made them.

This is a light recompute (no embeddings, no alias detection): it never creates new merges
on its own, so an annotator's correction is not undone by the refresh.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime

from memory_core.models import Entity, EntityMerge, GraphEdge, Record

ANNOTATOR = "annotator"


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "entity"


def refresh_entity_graph(
    conv_id: str,
    records: Sequence[Record],
    old_entities: Sequence[Entity],
    old_merges: Sequence[EntityMerge],
    old_edges: Sequence[GraphEdge],
    annotator_merges: Iterable[tuple[str, str]],
    episode_times: dict[str, datetime | None],
) -> tuple[list[Entity], list[EntityMerge], list[GraphEdge]]:
    """New (entities, merges, edges) for the active ``records``.

    ``annotator_merges`` are (keep, merged) name pairs; ``episode_times`` gives each episode's
    start time for first/last mentioned.
    """
    pairs = list(annotator_merges)
    merged_into = {m.lower(): k for k, m in pairs}
    # aliases an annotator merge added and a revert took back are no longer aliases
    stale = {m.alias.lower() for m in old_merges if m.reason == ANNOTATOR} - set(merged_into)
    known: dict[str, Entity] = {}
    for e in old_entities:
        known.setdefault(e.name.lower(), e)
    for e in old_entities:
        for alias in e.aliases:
            if alias.lower() not in stale:
                known.setdefault(alias.lower(), e)

    # group the records by canonical name
    spelled: dict[str, Counter[str]] = defaultdict(Counter)
    types: dict[str, Counter[str]] = defaultdict(Counter)
    by_key: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        key = _canonical_key(r.entity, known, merged_into)
        spelled[key][r.entity] += 1
        types[key][r.entity_type] += 1
        by_key[key].append(r)

    entity_of: dict[str, Entity] = {}
    for key in by_key:
        previous = known.get(key)
        name = previous.name if previous is not None and previous.name.lower() == key else (
            spelled[key].most_common(1)[0][0])
        entity_id = previous.id if previous is not None else f"{conv_id}:ent:{slug(name)}"
        aliases = {a for a in (previous.aliases if previous is not None else ())
                   if a.lower() != key and a.lower() not in stale}
        aliases |= {s for s in spelled[key] if s.lower() != name.lower()}
        aliases |= {m for k, m in pairs if _canonical_key(k, known, merged_into) == key}
        entity_of[key] = Entity(
            id=entity_id, conv_id=conv_id, name=name,
            type=previous.type if previous is not None else types[key].most_common(1)[0][0],
            aliases=tuple(sorted(aliases, key=str.lower)), importance=0.0, attributes={},
        )

    # relation edges vs aspect attributes
    edge_records: dict[tuple[str, str, str], list[Record]] = defaultdict(list)
    attributes: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for key, recs in by_key.items():
        source = entity_of[key]
        for r in recs:
            target = entity_of.get(_canonical_key(r.value, known, merged_into))
            if target is not None and target.id != source.id:
                edge_records[(source.id, target.id, r.property)].append(r)
            elif r.value not in attributes[source.id][r.property]:
                attributes[source.id][r.property].append(r.value)

    counts = {e.id: len(by_key[k]) for k, e in entity_of.items()}
    top = max(counts.values(), default=1)
    entities = [
        e.model_copy(update={"importance": round(counts[e.id] / top, 4),
                             "attributes": {p: v for p, v in attributes[e.id].items()}})
        for e in entity_of.values()
    ]

    accessed = {(g.source, g.target, g.property): g.last_accessed for g in old_edges}
    top_edge = max((len(v) for v in edge_records.values()), default=1)
    edges = []
    for (src_id, dst_id, prop), recs in sorted(edge_records.items()):
        times = [t for t in (episode_times.get(r.episode_id) for r in recs) if t is not None]
        edges.append(GraphEdge(
            conv_id=conv_id, source=src_id, target=dst_id, property=prop,
            record_ids=tuple(sorted(r.id for r in recs)),
            importance=round(sum(r.confidence for r in recs) / top_edge, 4),
            first_mentioned=min(times, default=None), last_mentioned=max(times, default=None),
            last_accessed=accessed.get((src_id, dst_id, prop)),
        ))

    ids = {e.id for e in entities}
    merges = [m for m in old_merges if m.reason != ANNOTATOR and m.canonical_id in ids]
    for keep, merged in pairs:
        target_entity = entity_of.get(_canonical_key(keep, known, merged_into))
        if target_entity is not None:
            merges.append(EntityMerge(conv_id=conv_id, canonical_id=target_entity.id, alias=merged,
                                      reason=ANNOTATOR, score=1.0))
    return sorted(entities, key=lambda e: (-e.importance, e.name)), merges, edges


def _canonical_key(name: str, known: dict[str, Entity], merged_into: dict[str, str]) -> str:
    key = name.strip().lower()
    seen = set()
    while key in merged_into and key not in seen:  # follow annotator merges (a -> b -> c)
        seen.add(key)
        key = merged_into[key].lower()
    entity = known.get(key)
    return entity.name.lower() if entity is not None else key
