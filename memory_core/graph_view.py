"""A graph view with typed nodes and edges: what the front ends read of a graph.

The stored graphs are built as networkx graphs (``construct.graphs``, which also writes GraphML);
the build service hands the front ends this view instead (``Services.builds.entity_graph`` /
``event_graph``), and they filter, lay out and draw it. ``view_of(g)`` converts one graph — the
entity graph (``kind="entity"``: nodes are entities, an edge is a relation keyed by its
property) or the event graph (``kind="event"``: nodes are event frames, an edge carries every
link kind and label between two events).

The conversion is the one place that knows the attribute names ``construct.graphs`` writes:

* ``GraphNode.label`` is the entity's name, or the event's action (``"finish: Alster 10k"``);
* ``GraphNode.type`` is the entity type (empty for events: a front end colours events by the
  family of their action);
* ``ViewEdge.label`` is the relation's property, or the event link's first kind;
* dates stay as the ISO text the graph holds (``first_mentioned``; an event's ``time``).

A view is a value: frozen, ordered as the graph iterates, and it never reaches back to the graph.
``subgraph``/``without``/``keeping`` give smaller views (the nodes and edges kept in their order);
``neighbourhood`` is the ego network's breadth-first walk (edges taken in either direction).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

GraphKind = Literal["entity", "event"]


@dataclass(frozen=True)
class GraphNode:
    """An entity (``kind="entity"``) or an event frame (``kind="event"``) of a graph view."""

    id: str
    kind: GraphKind
    label: str  # the entity's name, or the event's action
    type: str = ""  # the entity type ("" for events)
    importance: float = 0.0
    aliases: tuple[str, ...] = ()
    attributes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # entity aspects
    record_ids: tuple[str, ...] = ()
    action: str = ""  # events: "verb: object"
    participants: tuple[str, ...] = ()
    time: str = ""  # events: the normalised valid time (ISO), when known
    time_text: str = ""
    place: str = ""
    cause: str = ""
    manner: str = ""
    episode_id: str = ""
    source_turn_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class ViewEdge:
    """A relation of the entity graph (``key`` = its property) or the links between two events
    (``kinds``/``labels``, one per link; ``key`` is ``None``)."""

    source: str
    target: str
    key: str | None
    label: str  # the relation's property, or the first link kind
    importance: float = 0.0
    record_ids: tuple[str, ...] = ()
    first_mentioned: str = ""
    last_mentioned: str = ""
    last_accessed: str = ""
    kinds: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """The edge's id on the canvas: JSON ``[source, target, key]``."""
        return json.dumps([self.source, self.target, self.key])


@dataclass(frozen=True)
class GraphView:
    """The nodes and edges of one (possibly filtered) graph."""

    kind: GraphKind
    nodes: tuple[GraphNode, ...]
    edges: tuple[ViewEdge, ...]

    @cached_property
    def _by_id(self) -> dict[str, GraphNode]:
        return {n.id: n for n in self.nodes}

    def node(self, node_id: str) -> GraphNode | None:
        return self._by_id.get(node_id)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._by_id

    def ids(self) -> list[str]:
        """The node ids, in the view's order."""
        return [n.id for n in self.nodes]

    def edge(self, edge_id: str) -> ViewEdge | None:
        """The edge with that canvas id (``ViewEdge.id``; a ``null`` key matches any key)."""
        try:
            u, v, k = json.loads(edge_id)
        except (TypeError, ValueError):
            return None
        return next((e for e in self.edges if e.source == u and e.target == v and (k is None or e.key == k)),
                    None)

    def degree(self) -> Counter[str]:
        """Links per node (both directions, each parallel edge counted)."""
        out: Counter[str] = Counter({n.id: 0 for n in self.nodes})
        for e in self.edges:
            out[e.source] += 1
            out[e.target] += 1
        return out

    def subgraph(self, node_ids: Collection[str]) -> GraphView:
        """The nodes in ``node_ids`` and the edges between them (in this view's order)."""
        keep = set(node_ids)
        return GraphView(self.kind, tuple(n for n in self.nodes if n.id in keep),
                         tuple(e for e in self.edges if e.source in keep and e.target in keep))

    def without(self, drop: Collection[str]) -> GraphView:
        """This view without the nodes in ``drop`` and their edges."""
        gone = set(drop)
        return self.subgraph([n.id for n in self.nodes if n.id not in gone])

    def keeping(self, edge: Callable[[ViewEdge], bool]) -> GraphView:
        """Every node, and only the edges ``edge`` keeps."""
        return replace(self, edges=tuple(e for e in self.edges if edge(e)))

    def neighbourhood(self, center: str, depth: int) -> set[str]:
        """The nodes within ``depth`` hops of ``center`` (edges in either direction; the ego network)."""
        if center not in self:
            return set()
        near: dict[str, set[str]] = {}
        for e in self.edges:
            near.setdefault(e.source, set()).add(e.target)
            near.setdefault(e.target, set()).add(e.source)
        seen, frontier = {center}, {center}
        for _ in range(max(0, depth)):
            frontier = {m for n in frontier for m in near.get(n, ())} - seen
            if not frontier:
                break
            seen |= frontier
        return seen


# ------------------------------------------------------------------ from networkx
def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _texts(value: Any) -> tuple[str, ...]:
    return tuple(str(x) for x in value) if isinstance(value, list | tuple) else ()


def _number(value: Any) -> float:
    try:
        return float(value or 0.0)
    except (TypeError, ValueError):
        return 0.0


def _kind_of(g: Any, a: Mapping[str, Any]) -> GraphKind:
    """The graph's ``kind``; for a graph without one, an event when the node has an action."""
    kind = g.graph.get("kind")
    if kind == "event" or (kind != "entity" and a.get("action")):
        return "event"
    return "entity"


def _node(n: Any, a: Mapping[str, Any], kind: GraphKind) -> GraphNode:
    if kind == "event":
        action = _text(a.get("action"))
        return GraphNode(
            id=str(n), kind=kind, label=action or str(n), importance=_number(a.get("importance")),
            action=action, participants=_texts(a.get("participants")), time=_text(a.get("time")),
            time_text=_text(a.get("time_text")), place=_text(a.get("place")), cause=_text(a.get("cause")),
            manner=_text(a.get("manner")), episode_id=_text(a.get("episode_id")),
            source_turn_ids=_texts(a.get("source_turn_ids")), record_ids=_texts(a.get("record_ids")))
    attributes = a.get("attributes") if isinstance(a.get("attributes"), Mapping) else {}
    return GraphNode(
        id=str(n), kind=kind, label=_text(a.get("name") or a.get("label")) or str(n),
        type=_text(a.get("type")) or "other", importance=_number(a.get("importance")),
        aliases=_texts(a.get("aliases")), record_ids=_texts(a.get("record_ids")),
        attributes={str(k): _texts(v) for k, v in (attributes or {}).items()},
        source_turn_ids=_texts(a.get("source_turn_ids")))


def _edges(g: Any) -> Iterable[tuple[Any, Any, Any, Mapping[str, Any]]]:
    if g.is_multigraph():
        yield from g.edges(keys=True, data=True)
    else:
        for u, v, a in g.edges(data=True):
            yield u, v, None, a


def _edge(u: Any, v: Any, k: Any, a: Mapping[str, Any]) -> ViewEdge:
    kinds = _texts(a.get("kinds")) or ((_text(a.get("kind")),) if a.get("kind") else ())
    label = _text(a.get("property") or a.get("label")) or (kinds[0] if kinds else "")
    return ViewEdge(
        source=str(u), target=str(v), key=None if k is None else str(k), label=label,
        importance=_number(a.get("importance")), record_ids=_texts(a.get("record_ids")),
        first_mentioned=_text(a.get("first_mentioned")), last_mentioned=_text(a.get("last_mentioned")),
        last_accessed=_text(a.get("last_accessed")), kinds=kinds, labels=_texts(a.get("labels")))


def node_of(g: Any, n: Any) -> GraphNode:
    """Node ``n`` of networkx graph ``g`` as a typed node."""
    a = g.nodes[n]
    return _node(n, a, _kind_of(g, a))


def view_of(g: Any) -> GraphView:
    """The typed view of a networkx graph from ``construct.graphs`` (or a subgraph of one)."""
    kind: GraphKind = "event" if g.graph.get("kind") == "event" else "entity"
    if g.graph.get("kind") not in ("entity", "event") and any(a.get("action") for _, a in g.nodes(data=True)):
        kind = "event"
    return GraphView(kind=kind, nodes=tuple(node_of(g, n) for n in g.nodes),
                     edges=tuple(_edge(u, v, k, a) for u, v, k, a in _edges(g)))
