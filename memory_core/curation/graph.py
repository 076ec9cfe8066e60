"""Patching the entity graph after a curation change.

The build (``memory_core.construct.entities`` / ``graphs``) computes the conversation's canonical
entities, alias merges, relation edges and importance from all records at once. After an
annotator's change only the part of the graph the change touches is recomputed, with the
build's own rules, so an edit stays fast with 20,000 records and the build's importance
scores survive for everything else:

- names are compared by the build's ``normalise_name``; mentions are record entities and the
  values of relation properties (``lexicon.prop_for(p).relation``), as in the build;
- the *affected* names are the entities and values of the changed records before and after
  the change and the names of annotator merges; the entities whose records name one of them
  are affected too (their outgoing edges may appear or vanish);
- each affected entity's row (name, type, aliases, aspect attributes, at most 25 values per
  property) and its outgoing edges are rebuilt from the active records; a record whose value
  names another entity is an edge ``entity --property--> value`` (as the build does);
- a name already known keeps its entity id, type and importance; a new entity gets the
  build's id scheme (``<conv>:ent:<slug>``) and the mean importance of the existing entities
  (a neutral prior); a new edge the maximum importance of its records;
- every annotator merge (``merge_entities``, not reverted) is recorded as an ``EntityMerge``
  with reason ``"annotator"``, its name listed among the kept entity's aliases; a reverted
  merge's alias is dropped. Build-time merges are kept while their entity exists.

No embedding, prefix, acronym or alias detection happens here: a refresh never invents a
merge. A full rebuild of the graph (``Services.refresh_entity_graph``) runs the build's rules.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from statistics import fmean

from memory_core.construct.entities import ANNOTATOR, normalise_name, slug
from memory_core.construct.lexicon import prop_for
from memory_core.models import Entity, EntityMerge, GraphEdge, Record

MAX_VALUES = 25  # aspect values kept per property, as the build does
MAX_MENTION_WORDS = 6  # a relation value longer than this is not an entity mention

__all__ = ["ANNOTATOR", "GraphPatch", "Names", "affected_names", "mentions", "patch_entity_graph"]


@dataclass
class Names:
    """Resolves any spelling (name, alias, merged name) to a canonical key."""

    known: dict[str, Entity]  # normalised spelling -> entity
    merged_into: dict[str, str]  # normalised merged name -> kept name
    stale: set[str]  # normalised aliases added by merges that were reverted since
    speakers: dict[str, str]  # normalised -> speaker name

    @classmethod
    def of(cls, entities: Sequence[Entity], merges: Sequence[EntityMerge],
           annotator_merges: Iterable[tuple[str, str]], speakers: Sequence[str] = ()) -> Names:
        merged_into = {normalise_name(m): k for k, m in annotator_merges}
        stale = {normalise_name(m.alias) for m in merges if m.reason == ANNOTATOR} - set(merged_into)
        known: dict[str, Entity] = {}
        for e in entities:
            known.setdefault(normalise_name(e.name), e)
        for e in entities:
            for alias in e.aliases:
                if normalise_name(alias) not in stale:
                    known.setdefault(normalise_name(alias), e)
        return cls(known, merged_into, stale, {normalise_name(s): s for s in speakers})

    def key(self, name: str) -> str:
        key = normalise_name(name)
        seen = set()
        while key in self.merged_into and key not in seen:  # follow merges (a -> b -> c)
            seen.add(key)
            key = normalise_name(self.merged_into[key])
        entity = self.known.get(key)
        return normalise_name(entity.name) if entity is not None else key

    def spellings(self, keys: set[str], extra: Iterable[str] = ()) -> set[str]:
        """Lowercase raw spellings (for SQL matching) of every name resolving to ``keys``."""
        raw: set[str] = set()
        for e in {id(e): e for e in self.known.values()}.values():
            if self.key(e.name) in keys:
                raw |= {s.strip().lower() for s in (e.name, *e.aliases)}
        for merged, keep in self.merged_into.items():
            if self.key(keep) in keys:
                raw |= {merged, keep.strip().lower()}
        raw |= {s.strip().lower() for s in extra if self.key(s) in keys}
        return {s for s in raw if s}


@dataclass
class GraphPatch:
    delete_entity_ids: set[str] = field(default_factory=set)  # rows to remove (old ids)
    entities: list[Entity] = field(default_factory=list)  # rows to (re)insert
    delete_edge_sources: set[str] = field(default_factory=set)  # outgoing edges to remove
    edges: list[GraphEdge] = field(default_factory=list)  # edges to insert
    annotator_merges: list[EntityMerge] = field(default_factory=list)  # replaces all annotator rows


def mentions(r: Record) -> list[tuple[str, str, bool]]:
    """(name, type, as_entity) of a record's entity mentions (the build's rule)."""
    out = [(r.entity, r.entity_type, True)]
    prop = prop_for(r.property)
    if prop.relation and r.value and len(r.value.split()) <= MAX_MENTION_WORDS:
        out.append((r.value, prop.value_type, False))
    return out


def patch_entity_graph(
    conv_id: str,
    names: Names,
    affected: set[str],
    records: Sequence[Record],
    old_entities: Sequence[Entity],
    old_edges: Sequence[GraphEdge],
    pairs: Sequence[tuple[str, str]],
    episode_times: dict[str, datetime | None],
) -> GraphPatch:
    """Rebuild the ``affected`` keys. ``records`` must hold every active record that mentions
    an affected key (as entity or relation value); ``pairs`` are annotator merges (keep, merged)."""
    spelled: dict[str, Counter[str]] = defaultdict(Counter)
    types: dict[str, Counter[str]] = defaultdict(Counter)
    sources: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        for name, kind, as_entity in mentions(r):
            key = names.key(name)
            if key in affected:
                spelled[key][name.strip()] += 1
                types[key][kind] += 1
                if as_entity:
                    sources[key].append(r)
    patch = GraphPatch()
    old_by_key: dict[str, Entity] = {}
    for e in old_entities:
        k = names.key(e.name)
        if k in affected or normalise_name(e.name) in affected:
            patch.delete_entity_ids.add(e.id)
            patch.delete_edge_sources.add(e.id)
            old_by_key.setdefault(k, e)
    prior = round(fmean(e.importance for e in old_entities), 4) if old_entities else 0.0
    used = {e.id for e in old_entities} - patch.delete_entity_ids

    entity_of: dict[str, Entity] = {}
    for key in sorted(affected):
        if not spelled.get(key):
            continue
        previous = names.known.get(key) or old_by_key.get(key)
        speaker = names.speakers.get(key)
        if previous is not None and normalise_name(previous.name) == key:
            name = previous.name
        elif speaker:
            name = speaker
        else:
            name = max(spelled[key].items(), key=lambda kv: (kv[1], len(kv[0]), kv[0]))[0]
        aliases = {a for a in (previous.aliases if previous is not None else ())
                   if normalise_name(a) not in names.stale}
        aliases |= set(spelled[key])
        aliases |= {m for k, m in pairs if names.key(k) == key}
        aliases = {a for a in aliases if a and a != name}
        if previous is not None:
            entity_id, kind, importance = previous.id, previous.type, previous.importance
        else:
            entity_id = _new_id(conv_id, name, used)
            specific = [t for t, _ in types[key].most_common() if t not in ("concept", "other", "")]
            kind = "person" if speaker else (specific[0] if specific else types[key].most_common(1)[0][0])
            importance = prior
        used.add(entity_id)
        entity_of[key] = Entity(id=entity_id, conv_id=conv_id, name=name, type=kind,
                                aliases=tuple(sorted(aliases, key=str.lower)), importance=importance)

    def target_id(value: str) -> str | None:
        k = names.key(value)
        if k in entity_of:
            return entity_of[k].id
        entity = names.known.get(k)
        return None if entity is None or k in affected else entity.id

    edge_records: dict[tuple[str, str, str], list[Record]] = defaultdict(list)
    attributes: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for key, entity in entity_of.items():
        for r in sources.get(key, ()):
            target = target_id(r.value)
            if target is not None and target != entity.id:
                edge_records[(entity.id, target, r.property)].append(r)
            else:
                values = attributes[entity.id].setdefault(r.property, [])
                if r.value not in values and len(values) < MAX_VALUES:
                    values.append(r.value)
    patch.entities = [e.model_copy(update={"attributes": attributes.get(e.id, {})})
                      for e in entity_of.values()]
    patch.delete_edge_sources |= {e.id for e in patch.entities}

    old = {(g.source, g.target, g.property): g for g in old_edges}
    for (src, dst, prop), recs in sorted(edge_records.items()):
        times = [t for t in (episode_times.get(r.episode_id) for r in recs) if t is not None]
        before = old.get((src, dst, prop))
        patch.edges.append(GraphEdge(
            conv_id=conv_id, source=src, target=dst, property=prop,
            record_ids=tuple(sorted({r.id for r in recs})),
            importance=max(r.importance for r in recs) if before is None else before.importance,
            first_mentioned=min(times, default=None), last_mentioned=max(times, default=None),
            last_accessed=None if before is None else before.last_accessed,
        ))

    for keep, merged in pairs:
        k = names.key(keep)
        kept = entity_of.get(k) or names.known.get(k)
        if kept is not None:
            patch.annotator_merges.append(EntityMerge(conv_id=conv_id, canonical_id=kept.id, alias=merged,
                                                      reason=ANNOTATOR, score=1.0))
    return patch


def _new_id(conv_id: str, name: str, used: set[str]) -> str:
    entity_id = f"{conv_id}:ent:{slug(name)}"
    n = 2
    while entity_id in used:
        entity_id = f"{conv_id}:ent:{slug(name)}_{n}"
        n += 1
    return entity_id


def affected_names(changes: Iterable[tuple[Record | None, Record | None]], pairs: Iterable[tuple[str, str]]
                   ) -> set[str]:
    """Raw names a change touches: entities and values before and after, merge names."""
    out: set[str] = set()
    for before, after in changes:
        for r in (before, after):
            if r is not None:
                out |= {r.entity, r.value}
    for keep, merged in pairs:
        out |= {keep, merged}
    return {n.strip() for n in out if n and n.strip()}
