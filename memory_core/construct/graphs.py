"""The entity graph and the event graph of a conversation, their importance scores, GraphML.

**Entity graph** (``networkx.MultiDiGraph``): nodes are canonical entities (name, type,
aliases, importance, aspect attributes); an edge is a relation — records whose value is
itself an entity (``Melanie --pet--> Oliver``) grouped by (source, target, property), with
the record ids, importance, first/last mentioned (session date-times) and last accessed.
Records whose value is not an entity are *aspects*: ``attributes[property]`` of their node.

**Event graph** (``networkx.DiGraph``): nodes are event frames; links are ``participant``
(consecutive events sharing a canonical participant, labelled with it), ``succession``
(consecutive events in time order: valid time, else session date, then dialogue order) and
``episode`` (consecutive events of one episode).

**Importance** is an offline proxy for G-Long's attention-based saliency, named
*centrality × specificity × repetition*:

    centrality(e)  = log(1 + degree(e) + records(e)) / max over entities      (entity graph)
    specificity(r) = sqrt(idf(property) · idf(value)) / max,  idf(x) = log(1 + N / count(x))
    repetition(r)  = 1 + log(number of records with the same entity, property and value)
    importance(r)  = centrality(entity) · specificity(r) · repetition(r), divided by the
                     conversation maximum (so it lies in (0, 1])
    edge importance = max importance of its records; entity importance = centrality
    event importance = mean centrality of its participants · idf(action verb) · (1 + links),
                     divided by the maximum
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx

from memory_core import as_of
from memory_core.as_of import AsOf
from memory_core.construct.entities import Canonical, normalise_name
from memory_core.graph_view import GraphView, view_of
from memory_core.models import Entity, EntityMerge, Episode, EventFrame, EventLink, GraphEdge, Record
from memory_core.record_filter import RecordFilter

if TYPE_CHECKING:
    from memory_core.contracts import RelationalStore

MAX_VALUES = 25  # aspect values kept per entity and property


@dataclass(frozen=True)
class GraphResult:
    entities: list[Entity]
    merges: list[EntityMerge]
    edges: list[GraphEdge]
    links: list[EventLink]
    record_importance: dict[str, float]
    event_importance: dict[str, float]
    # record id -> its entity's type, where the extractor's guess from one sentence differs
    record_types: dict[str, str] = field(default_factory=dict)


def compute_graph(conv_id: str, canonical: Canonical, records: Sequence[Record], events: Sequence[EventFrame],
                  episodes: Sequence[Episode], old_edges: Sequence[GraphEdge] = ()) -> GraphResult:
    """Edges, attributes, event links and importance for a whole conversation."""
    episode_time = {e.id: e.start_time for e in episodes}
    episode_pos = {e.id: i for i, e in enumerate(episodes)}
    entity_of = {e.id: e for e in canonical.entities}

    # relations vs aspects
    record_entity: dict[str, str] = {}
    sourced: list[tuple[str, Record]] = []
    for r in records:
        source = canonical.lookup(r.entity)
        if source is not None:
            record_entity[r.id] = source
            sourced.append((source, r))
    edge_records, attributes = split_relations(sourced, canonical.lookup)

    neighbours: dict[str, set[str]] = defaultdict(set)
    for src, dst, _ in edge_records:
        neighbours[src].add(dst)
        neighbours[dst].add(src)
    record_count = Counter(record_entity.values())
    raw_c = {e: math.log1p(len(neighbours[e]) + record_count[e]) for e in entity_of}
    top_c = max(raw_c.values(), default=1.0) or 1.0
    centrality = {e: v / top_c for e, v in raw_c.items()}

    # record importance: centrality x specificity x repetition
    n = max(len(records), 1)
    prop_count = Counter(r.property for r in records)
    value_count = Counter(normalise_name(r.value) for r in records)
    same = Counter((record_entity.get(r.id), r.property, normalise_name(r.value)) for r in records)
    raw_spec = {r.id: math.sqrt(math.log1p(n / prop_count[r.property])
                                * math.log1p(n / value_count[normalise_name(r.value)])) for r in records}
    top_spec = max(raw_spec.values(), default=1.0) or 1.0
    raw_imp = {}
    for r in records:
        rep = 1.0 + math.log(same[(record_entity.get(r.id), r.property, normalise_name(r.value))])
        raw_imp[r.id] = centrality.get(record_entity.get(r.id, ""), 0.0) * raw_spec[r.id] / top_spec * rep
    top_imp = max(raw_imp.values(), default=1.0) or 1.0
    record_importance = {k: round(v / top_imp, 4) for k, v in raw_imp.items()}

    accessed = {(g.source, g.target, g.property): g.last_accessed for g in old_edges}
    edges = make_edges(conv_id, edge_records, episode_time,
                       lambda _, recs: max(record_importance.get(r.id, 0.0) for r in recs), accessed)
    entities = [
        e.model_copy(update={"importance": round(centrality.get(e.id, 0.0), 4),
                             "attributes": {p: list(v) for p, v in attributes.get(e.id, {}).items()}})
        for e in canonical.entities
    ]
    entities.sort(key=lambda e: (-e.importance, e.name.lower()))

    links = event_links(conv_id, canonical, events, episode_time, episode_pos)
    degree = Counter([k.source for k in links] + [k.target for k in links])
    verb_count = Counter(_verb(v) for v in events)
    m = max(len(events), 1)
    raw_ev = {}
    for v in events:
        ids = [canonical.lookup(p) for p in v.participants]
        cs = [centrality.get(i, 0.0) for i in ids if i is not None] or [0.0]
        raw_ev[v.id] = (sum(cs) / len(cs) + 0.05) * math.log1p(m / verb_count[_verb(v)]) * (1 + degree[v.id])
    top_ev = max(raw_ev.values(), default=1.0) or 1.0
    event_importance = {k: round(v / top_ev, 4) for k, v in raw_ev.items()}
    return GraphResult(entities, list(canonical.merges), edges, links, record_importance, event_importance,
                       record_types(records, record_entity, entity_of))


def record_types(records: Sequence[Record], record_entity: dict[str, str],
                 entity_of: dict[str, Entity]) -> dict[str, str]:
    """The type each record's entity has across the conversation, for the records whose own
    type (the extractor's guess from the one sentence it read: a dog called Rex typed a
    person there, an organisation here) differs. A record an annotator wrote or corrected keeps
    its type."""
    out = {}
    for r in records:
        entity = entity_of.get(record_entity.get(r.id, ""))
        if entity is not None and entity.type != r.entity_type and not r.edited():
            out[r.id] = entity.type
    return out


# --------------------------------------------------------------------------- rules shared with the patch
EdgeKey = tuple[str, str, str]  # (source entity id, target entity id, property)


def split_relations(sourced: Iterable[tuple[str, Record]], target_of: Callable[[str], str | None]
                    ) -> tuple[dict[EdgeKey, list[Record]], dict[str, dict[str, list[str]]]]:
    """Relations vs aspects of (source entity id, record) pairs, in the given order.

    A record whose value is another entity (``target_of(value)``) is a relation edge
    ``source --property--> target``; any other value is an aspect: ``attributes[source]
    [property]`` keeps its first ``MAX_VALUES`` distinct values."""
    edge_records: dict[EdgeKey, list[Record]] = defaultdict(list)
    attributes: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for source, r in sourced:
        target = target_of(r.value)
        if target is not None and target != source:
            edge_records[(source, target, r.property)].append(r)
        else:
            values = attributes[source].setdefault(r.property, [])
            if r.value not in values and len(values) < MAX_VALUES:
                values.append(r.value)
    return edge_records, attributes


def make_edges(conv_id: str, edge_records: Mapping[EdgeKey, Sequence[Record]],
               episode_time: Mapping[str, datetime | None],
               importance_of: Callable[[EdgeKey, Sequence[Record]], float],
               accessed: Mapping[EdgeKey, datetime | None]) -> list[GraphEdge]:
    """One edge per (source, target, property), sorted: its record ids, importance, first/last
    mentioned (session date-times of its records) and last accessed (kept from before)."""
    edges = []
    for key, recs in sorted(edge_records.items()):
        src, dst, prop = key
        times = [t for t in (episode_time.get(r.episode_id) for r in recs) if t is not None]
        edges.append(GraphEdge(
            conv_id=conv_id, source=src, target=dst, property=prop,
            record_ids=tuple(sorted({r.id for r in recs})), importance=importance_of(key, recs),
            first_mentioned=min(times, default=None), last_mentioned=max(times, default=None),
            last_accessed=accessed.get(key),
        ))
    return edges


def _verb(event: EventFrame) -> str:
    return event.action.split(":", 1)[0].strip().lower()


def event_links(conv_id: str, canonical: Canonical, events: Sequence[EventFrame],
                episode_time: dict[str, datetime | None], episode_pos: dict[str, int]) -> list[EventLink]:
    def order(v: EventFrame) -> tuple[int, int]:
        return episode_pos.get(v.episode_id, 0), _number(v.id)

    def when(v: EventFrame) -> str:
        if v.time:
            return v.time
        t = episode_time.get(v.episode_id)
        return t.date().isoformat() if t is not None else ""

    in_order = sorted(events, key=order)
    links: list[EventLink] = []
    by_participant: dict[str, list[EventFrame]] = defaultdict(list)
    names: dict[str, str] = {}
    for v in in_order:
        for p in dict.fromkeys(v.participants):
            key = canonical.lookup(p) or normalise_name(p)
            names.setdefault(key, p)
            by_participant[key].append(v)
    for key, chain in by_participant.items():
        for a, b in itertools.pairwise(chain):
            if a.id != b.id:
                links.append(EventLink(conv_id=conv_id, source=a.id, target=b.id, kind="participant",
                                       label=names[key]))
    timeline = sorted(in_order, key=lambda v: (when(v) or "9999", order(v)))
    for a, b in itertools.pairwise(timeline):
        links.append(EventLink(conv_id=conv_id, source=a.id, target=b.id, kind="succession",
                               label=f"{when(a) or '?'} -> {when(b) or '?'}"))
    for a, b in itertools.pairwise(in_order):
        if a.episode_id == b.episode_id:
            links.append(EventLink(conv_id=conv_id, source=a.id, target=b.id, kind="episode",
                                   label=a.episode_id))
    return links


def _number(item_id: str) -> int:
    tail = item_id.rsplit(":", 1)[-1]
    digits = "".join(ch for ch in tail if ch.isdigit())
    return int(digits) if digits else 0


# --------------------------------------------------------------------------- networkx views
def entity_graph(store: RelationalStore, conv_id: str) -> nx.MultiDiGraph:
    """The stored entity graph: nodes = entities, edges keyed by property."""
    g = nx.MultiDiGraph(conv_id=conv_id, kind="entity")
    for e in store.entities(conv_id):
        g.add_node(e.id, label=e.name, name=e.name, type=e.type, aliases=list(e.aliases),
                   importance=e.importance, attributes={k: list(v) for k, v in e.attributes.items()})
    for edge in store.edges(conv_id):
        for node in (edge.source, edge.target):
            if node not in g:
                g.add_node(node, label=node, name=node, type="unknown", aliases=[], importance=0.0,
                           attributes={})
        g.add_edge(edge.source, edge.target, key=edge.property, label=edge.property, property=edge.property,
                   record_ids=list(edge.record_ids), importance=edge.importance,
                   first_mentioned=_iso(edge.first_mentioned), last_mentioned=_iso(edge.last_mentioned),
                   last_accessed=_iso(edge.last_accessed))
    return g


def event_graph(store: RelationalStore, conv_id: str) -> nx.DiGraph:
    """The stored event graph: nodes = event frames, edges = links (kinds and labels as lists)."""
    g = nx.DiGraph(conv_id=conv_id, kind="event")
    for v in store.events(conv_id):
        g.add_node(v.id, label=v.action, action=v.action, participants=list(v.participants), time=v.time,
                   time_text=v.time_text, place=v.place, cause=v.cause, manner=v.manner,
                   source_turn_ids=list(v.source_turn_ids), episode_id=v.episode_id, importance=v.importance)
    for link in store.event_links(conv_id):
        if link.source not in g or link.target not in g:
            continue
        if g.has_edge(link.source, link.target):
            data = g.edges[link.source, link.target]
            data["kinds"].append(link.kind)
            data["labels"].append(link.label)
        else:
            g.add_edge(link.source, link.target, kinds=[link.kind], labels=[link.label], kind=link.kind)
    return g


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _graphml_ready(g: nx.Graph) -> nx.Graph:
    """A copy whose attributes are all GraphML scalars (lists/dicts become JSON text, None dropped)."""
    import json

    def clean(data: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in data.items():
            if v is None:
                continue
            out[k] = json.dumps(v, ensure_ascii=False) if isinstance(v, list | dict | tuple) else v
        return out

    h = g.__class__()
    h.graph.update(clean(dict(g.graph)))
    for node, data in g.nodes(data=True):
        h.add_node(node, **clean(data))
    if g.is_multigraph():
        for u, v, k, data in g.edges(keys=True, data=True):
            h.add_edge(u, v, key=k, **clean(data))
    else:
        for u, v, data in g.edges(data=True):
            h.add_edge(u, v, **clean(data))
    return h


def _as_cut(g: nx.Graph, cut: GraphView) -> nx.Graph:
    """What of ``g`` the cut of its view kept: its nodes, and its edges with the record ids and
    the first/last mentioned the cut gave them (``memory_core.as_of``)."""
    h = g.__class__()
    h.graph.update(g.graph)
    kept = {n.id for n in cut.nodes}
    h.add_nodes_from((n, a) for n, a in g.nodes(data=True) if str(n) in kept)
    for e in cut.edges:
        attrs = dict(g.edges[e.source, e.target, e.key] if g.is_multigraph() else g.edges[e.source, e.target])
        if e.record_ids:
            attrs["record_ids"] = list(e.record_ids)
        attrs.update({k: v for k, v in (("first_mentioned", e.first_mentioned),
                                        ("last_mentioned", e.last_mentioned)) if v})
        if g.is_multigraph():
            h.add_edge(e.source, e.target, key=e.key, **attrs)
        else:
            h.add_edge(e.source, e.target, **attrs)
    return h


AS_OF_PAGE = 1000  # records read per page (the store's largest page)


def graph_as_of(store: RelationalStore, conv_id: str, g: GraphView, kind: str, day: date) -> AsOf:
    """``g`` (the view of the conversation's entity or event graph) as it stood on ``day``: the
    records as of then (any status) by the store's ``as_of`` filter, cut by ``memory_core.as_of``."""
    then: list[Record] = []
    page = 1
    while True:
        rows, total = store.search_records(conv_id, filters=RecordFilter(as_of=day, status="all"),
                                           page=page, page_size=AS_OF_PAGE)
        then += rows
        if len(then) >= total or not rows:
            break
        page += 1
    every = store.records(conv_id, include_inactive=True) if kind == "entity" else []
    starts = {e.id: e.start_time for e in store.episodes(conv_id)}
    return as_of.graph_as_of(g, kind, day, records_then=then, records_all=every, episode_start=starts)


def write_graphml(store: RelationalStore, conv_id: str, out: Path, *, day: date | None = None) -> list[Path]:
    """Write both graphs (as they stood on ``day``, when given). ``out`` ending in ``.graphml``
    gives ``<stem>-entities.graphml`` and ``<stem>-events.graphml`` beside it; any other path is
    a directory that receives ``<conv>-entities.graphml`` and ``<conv>-events.graphml``."""
    if out.suffix.lower() == ".graphml":
        out.parent.mkdir(parents=True, exist_ok=True)
        stem = out.with_suffix("")
        paths = [Path(f"{stem}-entities.graphml"), Path(f"{stem}-events.graphml")]
    else:
        out.mkdir(parents=True, exist_ok=True)
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in conv_id)
        paths = [out / f"{safe}-entities.graphml", out / f"{safe}-events.graphml"]
    graphs: list[nx.Graph] = [entity_graph(store, conv_id), event_graph(store, conv_id)]
    if day is not None:
        kinds = ("entity", "event")
        graphs = [_as_cut(g, graph_as_of(store, conv_id, view_of(g), kind, day).graph)
                  for g, kind in zip(graphs, kinds, strict=True)]
    for g, path in zip(graphs, paths, strict=True):
        nx.write_graphml(_graphml_ready(g), path)
    return paths
