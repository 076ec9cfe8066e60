"""One graph refresh for the build and for curation: ``refresh_graph``.

* ``rebuild=True`` (the build, after new sessions): the conversation's canonical entities,
  alias merges, relation edges, event links and importance from all records at once
  (``entities.canonicalise`` + ``graphs.compute_graph``), saved, entity vectors replaced.
* otherwise (curation, after an annotator's change): only the part of the graph the change
  touches is recomputed with the same rules (``graphs.split_relations`` for relations vs
  aspects, ``graphs.make_edges``, ``entities.record_mentions``, ``entities.normalise_name``),
  so an edit stays fast with 20,000 records and the build's importance scores survive for
  everything else; ``changes=None`` recomputes every entity with these patch rules.

The patch:

- the *affected* names are the entities and values of the changed records before and after
  the change and the names of annotator merges; the entities whose records name one of them
  are affected too (their outgoing edges may appear or vanish);
- each affected entity's row (name, type, aliases, aspect attributes) and its outgoing edges
  are rebuilt from the active records;
- a name already known keeps its entity id, type and importance; a new entity gets the
  build's id scheme (``<conv>:ent:<slug>``) and the mean importance of the existing entities
  (a neutral prior); a new edge the maximum importance of its records;
- every annotator merge (an ``entity`` edit ``merge`` not reverted) is recorded as an
  ``EntityMerge`` with reason ``"annotator"``, its name listed among the kept entity's
  aliases; a reverted merge's alias is dropped. Build-time merges are kept while their entity
  exists. No embedding, prefix, acronym or alias detection happens in a patch: it never
  invents a merge.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from statistics import fmean

import numpy as np

from memory_core.construct.embedcache import TextEmbedder, embed_texts
from memory_core.construct.entities import ANNOTATOR, canonicalise, normalise_name, record_mentions, slug
from memory_core.construct.graphs import GraphResult, compute_graph, make_edges, split_relations
from memory_core.contracts import RelationalStore, VectorStore
from memory_core.models import Edit, Entity, EntityMerge, GraphEdge, Record

ENTITY_EDIT = "entity"  # target kind of an annotator's merge edit

Change = tuple[Record | None, Record | None]  # (before, after) of one record; None: created / gone


def refresh_graph(store: RelationalStore, index: VectorStore, embedder: TextEmbedder, conv_id: str, *,
                  rebuild: bool = False, changes: Sequence[Change] | None = None,
                  speakers: Sequence[str] = (), timings: dict[str, float] | None = None
                  ) -> GraphResult | None:
    """Refresh the conversation's entity graph (and, on ``rebuild``, its event graph).

    ``rebuild``: the build's full computation (returns its result; ``speakers`` are the
    conversation's, ``timings`` receives ``entities`` and ``graph`` seconds). Otherwise a patch
    around ``changes`` (every entity when None), inside one store transaction."""
    if rebuild:
        return _rebuild(store, index, embedder, conv_id, speakers, timings if timings is not None else {})
    _patch(store, index, embedder, conv_id, changes)
    return None


def _rebuild(store: RelationalStore, index: VectorStore, embedder: TextEmbedder, conv_id: str,
             speakers: Sequence[str], timings: dict[str, float]) -> GraphResult:
    t = time.perf_counter()
    records = store.records(conv_id)
    annotator = [(m.canonical_id, m.alias) for m in store.entity_merges(conv_id) if m.reason == ANNOTATOR]
    old_entities = {e.id: e.name for e in store.entities(conv_id)}
    pairs = [(old_entities.get(keep, ""), alias) for keep, alias in annotator if keep in old_entities]
    texts = [t.text or "" for t in store.turns(conv_id)]
    canonical = canonicalise(conv_id, records, speakers, lambda names: embed_texts(embedder, names), pairs,
                             texts)
    result = compute_graph(conv_id, canonical, records, store.events(conv_id), store.episodes(conv_id),
                           store.edges(conv_id))
    timings["entities"] = timings.get("entities", 0.0) + time.perf_counter() - t
    t = time.perf_counter()
    store.save_graph(conv_id, result.entities, result.merges, result.edges, result.links,
                     result.record_importance, result.event_importance, result.record_types)
    index_entities(index, embedder, conv_id, result.entities)
    timings["graph"] = timings.get("graph", 0.0) + time.perf_counter() - t
    return result


def index_entities(index: VectorStore, embedder: TextEmbedder, conv_id: str,
                   entities: Sequence[Entity]) -> None:
    """Replace the conversation's entity vectors; names already indexed reuse their vectors."""
    ids = [e.id for e in entities]
    known = index.get_vectors("entities", ids) if ids else {}
    missing = [e for e in entities if e.id not in known]
    fresh = embed_texts(embedder, [e.name for e in missing])  # (0, 384) when none is missing
    vectors = dict(known)
    vectors.update({e.id: v for e, v in zip(missing, fresh, strict=True)})
    index.delete("entities", where={"conv_id": conv_id})
    if entities:
        _upsert_entities(index, conv_id, entities, np.vstack([vectors[i] for i in ids]))


def _upsert_entities(index: VectorStore, conv_id: str, entities: Sequence[Entity],
                     vectors: np.ndarray) -> None:
    index.upsert("entities", [e.id for e in entities], vectors, [{"conv_id": conv_id} for e in entities])


def annotator_pairs(edits: Iterable[Edit]) -> list[tuple[str, str]]:
    """(keep, merged) for every annotator merge whose latest edit leaves it merged."""
    state: dict[str, str | None] = {}
    for e in edits:
        if e.target_kind == ENTITY_EDIT:
            state[e.target_id] = (e.after or {}).get("merged_into")
    return [(keep, merged) for merged, keep in state.items() if keep]


def _patch(store: RelationalStore, index: VectorStore, embedder: TextEmbedder, conv_id: str,
           changes: Sequence[Change] | None) -> None:
    with store.atomic():
        pairs = annotator_pairs(store.edits(conv_id))
        old_entities = store.entities(conv_id)
        old_merges = store.entity_merges(conv_id)
        names = Names.of(old_entities, old_merges, pairs, store.conversation_speakers(conv_id))
        if changes is None:
            raw = set(store.entity_names(conv_id)) | {e.name for e in old_entities}
            raw |= {n for r in store.records(conv_id) for n in (r.entity, r.value)}
            keys = {names.key(n) for n in raw} | names.stale
        else:
            raw = affected_names(changes, pairs)
            # only names that are (or become) graph nodes need recomputing: a plain value
            # such as "blue" has no entity row and no edges
            nodes = {names.key(e.name) for e in old_entities} | names.stale
            nodes |= {names.key(n) for b, a in changes for r in (b, a) if r is not None
                      for n, _, _ in record_mentions(r)}
            nodes |= {names.key(n) for pair in pairs for n in pair}
            keys = {names.key(n) for n in raw} & nodes | names.stale
        # entities whose records point at an affected name: their outgoing edges may change
        naming = store.records_naming(conv_id, sorted(names.spellings(keys, raw)), active_only=True)
        keys |= {names.key(r.entity) for r in naming}
        raw |= {r.entity for r in naming}
        records = store.records_naming(conv_id, sorted(names.spellings(keys, raw)), active_only=True)
        sources = {e.id for e in old_entities if names.key(e.name) in keys}
        old_edges = [g for g in store.edges(conv_id) if g.source in sources]
        patch = patch_entity_graph(conv_id, names, keys, records, old_entities, old_edges, pairs,
                                   store.episode_times(conv_id))
        store.patch_graph(conv_id, delete_entity_ids=sorted(patch.delete_entity_ids),
                          entities=patch.entities, delete_edge_sources=sorted(patch.delete_edge_sources),
                          edges=patch.edges, merges_reason=ANNOTATOR, merges=patch.annotator_merges)
    old = {e.id: e.name for e in old_entities if e.id in patch.delete_entity_ids}
    new = {e.id: e for e in patch.entities}
    gone = [i for i in old if i not in new]
    fresh = [e for i, e in new.items() if old.get(i) != e.name]
    if gone:
        index.delete("entities", ids=gone)
    if fresh:
        _upsert_entities(index, conv_id, fresh, embed_texts(embedder, [e.name for e in fresh]))


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
        for name, kind, as_entity in record_mentions(r):
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

    edge_records, attributes = split_relations(
        ((entity.id, r) for key, entity in entity_of.items() for r in sources.get(key, ())), target_id)
    patch.entities = [e.model_copy(update={"attributes": attributes.get(e.id, {})})
                      for e in entity_of.values()]
    patch.delete_edge_sources |= {e.id for e in patch.entities}

    old = {(g.source, g.target, g.property): g for g in old_edges}
    patch.edges = make_edges(
        conv_id, edge_records, episode_times,
        lambda key, recs: max(r.importance for r in recs) if key not in old else old[key].importance,
        {key: g.last_accessed for key, g in old.items()})

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
