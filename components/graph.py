"""Graph views: read and filter a networkx graph from the build service.

The pages hand over the graph object and the filter values; everything that touches networkx
lives here (attribute access, facets, filters). Drawing is ``graph_canvas`` (a custom
component that receives the graph as JSON data).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import networkx as nx

from components.graph_style import action_family
from memory_core.graph_view import GraphNode, edge_of, node_of

DEFAULT_LIMIT = 300
DEFAULT_ENTITIES = 30  # the entity graph's default view: this many most connected entities (+ speakers)
DEFAULT_EVENTS = 40  # the event graph's default view: each episode's main event, then the most important
DEFAULT_EVENT_LINKS = frozenset({"succession", "episode"})  # its links (participant links: "show all")
_EPISODE_RE = re.compile(r":S(\d+):E(\d+)$")


# ------------------------------------------------------------------ attribute access
def node_label(g: Any, n: Any) -> str:
    """The entity's name or the event's action (``memory_core.graph_view``)."""
    return node_of(g, n).label


def node_type(g: Any, n: Any) -> str:
    """The entity type, or for an event its action family (``graph_style.action_family``)."""
    return type_of(node_of(g, n))


def type_of(node: GraphNode) -> str:
    """The entity type, or for an event its action family (``graph_style.action_family``)."""
    return action_family(node.action) if node.kind == "event" else node.type


def node_importance(g: Any, n: Any) -> float:
    return node_of(g, n).importance


def edge_label(attrs: dict[str, Any]) -> str:
    """The relation's property, or the event link's kind (``memory_core.graph_view``)."""
    return edge_of(None, None, None, attrs).label


def _when(value: Any) -> date | None:
    """A date from a datetime, a date, or an ISO string ("2023", "2023-05", "2023-05-06...")."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        return None
    m = re.match(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?", value)
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1))
    except ValueError:
        return None


def times_of(attrs: dict[str, Any]) -> list[date]:
    keys = ("first_mentioned", "last_mentioned", "time", "valid_time", "start_time", "session_time")
    return [d for d in (_when(attrs.get(k)) for k in keys) if d is not None]


def edges(g: Any) -> Iterable[tuple[Any, Any, Any, dict[str, Any]]]:
    """(source, target, key, attrs) for both multigraphs and simple graphs."""
    if g.is_multigraph():
        yield from g.edges(keys=True, data=True)
    else:
        for u, v, a in g.edges(data=True):
            yield u, v, None, a


# ------------------------------------------------------------------ facets and filters
@dataclass(frozen=True)
class Facets:
    types: list[str]
    properties: list[str]
    first: date | None
    last: date | None
    max_importance: float


def facets(g: Any) -> Facets:
    types = sorted({node_type(g, n) for n in g.nodes})
    props = sorted({edge_label(a) for *_, a in edges(g)} - {""})
    times = [d for n in g.nodes for d in times_of(g.nodes[n])]
    times += [d for *_, a in edges(g) for d in times_of(a)]
    top = max((node_importance(g, n) for n in g.nodes), default=0.0)
    return Facets(types, props, min(times) if times else None, max(times) if times else None, top)


@dataclass(frozen=True)
class View:
    graph: Any  # the filtered subgraph (a copy)
    matching: int  # nodes passing the filters before the display limit
    shown: int


def filter_graph(g: Any, *, types: Sequence[str] = (), properties: Sequence[str] = (),
                 window: tuple[date, date] | None = None, min_importance: float = 0.0,
                 ego: Any = None, depth: int = 1, limit: int | None = DEFAULT_LIMIT) -> View:
    """The subgraph the filters keep, cut to the ``limit`` most important nodes.

    * ego / depth: only nodes within ``depth`` hops of ``ego`` (edges in either direction);
    * types, min_importance: node filters;
    * properties: only edges with these labels, and the nodes they connect;
    * window: only timed edges/nodes with a date inside it, and the nodes they connect.
    """
    keep = set(g.nodes)
    if ego is not None and ego in g:
        keep &= set(nx.ego_graph(g.to_undirected(as_view=True), ego, radius=max(0, int(depth))).nodes)
    if types:
        keep = {n for n in keep if node_type(g, n) in set(types)}
    if min_importance > 0:
        keep = {n for n in keep if node_importance(g, n) >= min_importance or n == ego}

    def in_window(attrs: dict[str, Any]) -> bool | None:
        times = times_of(attrs)
        if window is None or not times:
            return None
        return any(window[0] <= t <= window[1] for t in times)

    candidates = [(u, v, k, a) for u, v, k, a in edges(g) if u in keep and v in keep
                  and (not properties or edge_label(a) in set(properties)) and in_window(a) is not False]
    if properties:
        keep = {u for u, *_ in candidates} | {v for _, v, *_ in candidates}
    if window is not None:
        timed = {x for u, v, _, a in candidates if in_window(a) for x in (u, v)}
        keep = {n for n in keep if n in timed or in_window(g.nodes[n]) is True}
    kept_edges = [(u, v, k) for u, v, k, _ in candidates if u in keep and v in keep]
    matching = len(keep)
    if limit is not None and len(keep) > limit:
        degree = g.degree
        ranked = sorted(keep, key=lambda n: (n != ego, -node_importance(g, n), -degree[n], str(n)))
        keep = set(ranked[:limit])
    sub = g.__class__()
    sub.graph.update(g.graph)
    sub.add_nodes_from((n, g.nodes[n]) for n in keep)
    for u, v, k in kept_edges:
        if u in keep and v in keep:
            if g.is_multigraph():
                sub.add_edge(u, v, key=k, **g.edges[u, v, k])
            else:
                sub.add_edge(u, v, **g.edges[u, v])
    return View(sub, matching, sub.number_of_nodes())


def speaker_nodes(g: Any, speakers: Iterable[str]) -> set[Any]:
    """The nodes named like one of the conversation's speakers (case ignored)."""
    names = {str(s).strip().lower() for s in speakers}
    return {n for n in g.nodes if node_label(g, n).strip().lower() in names}


def default_entities(g: Any, speakers: Iterable[str] = (), *, shown: int = DEFAULT_ENTITIES) -> set[Any]:
    """The entity graph's default view: the ``shown`` most connected entities (degree, then
    importance) and every speaker — the people and what connects them."""
    degree = g.degree
    linked = sorted((n for n in g.nodes if degree[n] > 0),
                    key=lambda n: (-degree[n], -node_importance(g, n), str(n)))
    return set(linked[:shown]) | speaker_nodes(g, speakers)


def episode_order(episode_id: Any) -> tuple[int, int, str]:
    """Sort key of an episode id (``…:S10:E2``) in session order: S1·E1 < S1·E2 < S2·E1 < S10·E1."""
    m = _EPISODE_RE.search(str(episode_id or ""))
    return (int(m.group(1)), int(m.group(2)), "") if m else (1 << 30, 0, str(episode_id))


def default_events(g: Any, *, shown: int = DEFAULT_EVENTS) -> set[Any]:
    """The event graph's default view: the most important event of every episode, then the
    most important others, ``shown`` in all (more when there are more episodes)."""
    ranked = sorted(g.nodes, key=lambda n: (-node_importance(g, n), str(n)))
    keep: dict[Any, Any] = {}
    for n in ranked:
        keep.setdefault(g.nodes[n].get("episode_id"), n)
    out = set(keep.values())
    for n in ranked:
        if len(out) >= shown:
            break
        out.add(n)
    return out


def only_links(g: Any, kinds: frozenset[str]) -> Any:
    """A copy of ``g`` keeping only the edges one of whose kinds (``kinds`` or ``kind``) is in ``kinds``."""
    sub = g.__class__()
    sub.graph.update(g.graph)
    sub.add_nodes_from(g.nodes(data=True))
    for u, v, k, a in edges(g):
        if kinds & set(a.get("kinds") or [a.get("kind")]):
            if g.is_multigraph():
                sub.add_edge(u, v, key=k, **a)
            else:
                sub.add_edge(u, v, **a)
    return sub


def without(g: Any, drop: set[Any]) -> Any:
    """A copy of ``g`` without the nodes in ``drop`` (and their edges)."""
    sub = g.__class__()
    sub.graph.update(g.graph)
    sub.add_nodes_from((n, g.nodes[n]) for n in g.nodes if n not in drop)
    for u, v, k, a in edges(g):
        if u not in drop and v not in drop:
            if g.is_multigraph():
                sub.add_edge(u, v, key=k, **a)
            else:
                sub.add_edge(u, v, **a)
    return sub


# ------------------------------------------------------------------ selection helpers
def node_choices(g: Any) -> list[Any]:
    degree = g.degree
    return sorted(g.nodes, key=lambda n: (-node_importance(g, n), -degree[n], str(n)))
