"""Graph views: read and filter a graph view (``memory_core.graph_view``) from the build service.

The pages hand over the view and the filter values; the facets and filters live here. Drawing
is ``graph_canvas`` (a custom component that receives the graph as JSON data). Every result is a
new view: nodes and edges kept in the input's order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from components.graph_style import action_family
from memory_core.graph_view import GraphNode, GraphView, ViewEdge

DEFAULT_LIMIT = 300
DEFAULT_ENTITIES = 30  # the entity graph's default view: this many most connected entities (+ speakers)
DEFAULT_EVENTS = 40  # the event graph's default view: each episode's main event, then the most important
DEFAULT_EVENT_LINKS = frozenset({"succession", "episode"})  # its links (participant links: "show all")
_EPISODE_RE = re.compile(r":S(\d+):E(\d+)$")


# ------------------------------------------------------------------ attributes
def type_of(node: GraphNode) -> str:
    """The entity type, or for an event its action family (``graph_style.action_family``)."""
    return action_family(node.action) if node.kind == "event" else node.type


def _when(value: str) -> date | None:
    """A date from an ISO string ("2023", "2023-05", "2023-05-06...")."""
    m = re.match(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", value)
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
    except ValueError:
        return None


def _dates(values: Iterable[str]) -> list[date]:
    return [d for d in (_when(v) for v in values) if d is not None]


def node_dates(node: GraphNode) -> list[date]:
    """The dates a node carries: an event's time."""
    return _dates([node.time])


def edge_dates(edge: ViewEdge) -> list[date]:
    """The dates an edge carries: a relation's first and last mention."""
    return _dates([edge.first_mentioned, edge.last_mentioned])


# ------------------------------------------------------------------ facets and filters
@dataclass(frozen=True)
class Facets:
    types: list[str]
    properties: list[str]
    first: date | None
    last: date | None
    max_importance: float


def facets(g: GraphView) -> Facets:
    types = sorted({type_of(n) for n in g.nodes})
    props = sorted({e.label for e in g.edges} - {""})
    times = [d for n in g.nodes for d in node_dates(n)] + [d for e in g.edges for d in edge_dates(e)]
    top = max((n.importance for n in g.nodes), default=0.0)
    return Facets(types, props, min(times) if times else None, max(times) if times else None, top)


@dataclass(frozen=True)
class View:
    graph: GraphView  # the filtered view
    matching: int  # nodes passing the filters before the display limit
    shown: int


def filter_graph(g: GraphView, *, types: Sequence[str] = (), properties: Sequence[str] = (),
                 window: tuple[date, date] | None = None, min_importance: float = 0.0,
                 ego: str | None = None, depth: int = 1, limit: int | None = DEFAULT_LIMIT) -> View:
    """The subgraph the filters keep, cut to the ``limit`` most important nodes.

    * ego / depth: only nodes within ``depth`` hops of ``ego`` (edges in either direction);
    * types, min_importance: node filters;
    * properties: only edges with these labels, and the nodes they connect;
    * window: only timed edges/nodes with a date inside it, and the nodes they connect.
    """
    nodes = {n.id: n for n in g.nodes}
    keep = set(nodes)
    if ego is not None and ego in nodes:
        keep &= g.neighbourhood(ego, max(0, int(depth)))
    if types:
        keep = {n for n in keep if type_of(nodes[n]) in set(types)}
    if min_importance > 0:
        keep = {n for n in keep if nodes[n].importance >= min_importance or n == ego}

    def in_window(times: list[date]) -> bool | None:
        if window is None or not times:
            return None
        return any(window[0] <= t <= window[1] for t in times)

    candidates = [e for e in g.edges if e.source in keep and e.target in keep
                  and (not properties or e.label in set(properties))
                  and in_window(edge_dates(e)) is not False]
    if properties:
        keep = {e.source for e in candidates} | {e.target for e in candidates}
    if window is not None:
        timed = {x for e in candidates if in_window(edge_dates(e)) for x in (e.source, e.target)}
        keep = {n for n in keep if n in timed or in_window(node_dates(nodes[n])) is True}
    matching = len(keep)
    if limit is not None and len(keep) > limit:
        degree = g.degree()
        ranked = sorted(keep, key=lambda n: (n != ego, -nodes[n].importance, -degree[n], n))
        keep = set(ranked[:limit])
    sub = GraphView(g.kind, tuple(n for n in g.nodes if n.id in keep),
                    tuple(e for e in candidates if e.source in keep and e.target in keep))
    return View(sub, matching, len(sub.nodes))


def speaker_nodes(g: GraphView, speakers: Iterable[str]) -> set[str]:
    """The nodes named like one of the conversation's speakers (case ignored)."""
    names = {str(s).strip().lower() for s in speakers}
    return {n.id for n in g.nodes if n.label.strip().lower() in names}


def default_entities(g: GraphView, speakers: Iterable[str] = (), *,
                     shown: int = DEFAULT_ENTITIES) -> set[str]:
    """The entity graph's default view: the ``shown`` most connected entities (degree, then
    importance) and every speaker — the people and what connects them."""
    degree = g.degree()
    linked = sorted((n for n in g.nodes if degree[n.id] > 0),
                    key=lambda n: (-degree[n.id], -n.importance, n.id))
    return {n.id for n in linked[:shown]} | speaker_nodes(g, speakers)


def episode_order(episode_id: str) -> tuple[int, int, str]:
    """Sort key of an episode id (``…:S10:E2``) in session order: S1·E1 < S1·E2 < S2·E1 < S10·E1."""
    m = _EPISODE_RE.search(episode_id)
    return (int(m.group(1)), int(m.group(2)), "") if m else (1 << 30, 0, episode_id)


def default_events(g: GraphView, *, shown: int = DEFAULT_EVENTS) -> set[str]:
    """The event graph's default view: the most important event of every episode, then the
    most important others, ``shown`` in all (more when there are more episodes)."""
    ranked = sorted(g.nodes, key=lambda n: (-n.importance, n.id))
    keep: dict[str, str] = {}
    for n in ranked:
        keep.setdefault(n.episode_id, n.id)
    out = set(keep.values())
    for n in ranked:
        if len(out) >= shown:
            break
        out.add(n.id)
    return out


def only_links(g: GraphView, kinds: frozenset[str]) -> GraphView:
    """``g`` keeping only the edges one of whose kinds is in ``kinds``."""
    return g.keeping(lambda e: bool(kinds & set(e.kinds)))


# ------------------------------------------------------------------ selection helpers
def node_choices(g: GraphView) -> list[str]:
    """The node ids, most important first (then most linked, then by id)."""
    degree = g.degree()
    return [n.id for n in sorted(g.nodes, key=lambda n: (-n.importance, -degree[n.id], n.id))]
