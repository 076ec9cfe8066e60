"""Graph views: filter a networkx graph from the build service and draw it with pyvis.

The pages hand over the graph object and the filter values; everything that touches networkx
or pyvis lives here. Drawing uses ``cdn_resources="in_line"`` (vis-network is embedded in the
HTML, so it draws offline); every label and tooltip is HTML-escaped before it reaches the
HTML, and pyvis serialises the node data with Jinja's ``tojson`` (which also escapes ``<``,
``>``, ``&`` and quotes), so no conversation text can close the script or inject markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import networkx as nx
from pyvis.network import Network

from components.graph_style import action_family
from components.text import defuse_bidi, shorten

DEFAULT_LIMIT = 300
TYPE_COLORS = ("#3b5bdb", "#2b8a3e", "#e8590c", "#862e9c", "#0b7285", "#c2255c", "#5c940d", "#495057")
_CDN = re.compile(r"<link[^>]*cdn\.jsdelivr\.net[^>]*>|<script[^>]*cdn\.jsdelivr\.net[^>]*>\s*</script>",
                  re.S)
_HEADING = re.compile(r"<center>\s*<h1>\s*</h1>\s*</center>")


# ------------------------------------------------------------------ attribute access
def node_label(g: Any, n: Any) -> str:
    a = g.nodes[n]
    return str(a.get("name") or a.get("label") or a.get("action") or n)


def node_type(g: Any, n: Any) -> str:
    """The entity type, or for an event its action family (``graph_style.action_family``)."""
    a = g.nodes[n]
    kind = a.get("type") or a.get("entity_type") or a.get("kind")
    if not kind and a.get("action"):
        return action_family(str(a["action"]))
    return str(kind or "other")


def node_importance(g: Any, n: Any) -> float:
    try:
        return float(g.nodes[n].get("importance") or 0.0)
    except (TypeError, ValueError):
        return 0.0


def edge_label(attrs: dict[str, Any]) -> str:
    for key in ("property", "label", "relation", "kind"):
        if attrs.get(key):
            return str(attrs[key])
    return ""


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


def _times(attrs: dict[str, Any]) -> list[date]:
    keys = ("first_mentioned", "last_mentioned", "time", "valid_time", "start_time", "session_time")
    return [d for d in (_when(attrs.get(k)) for k in keys) if d is not None]


times_of = _times  # public name for the other graph components


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
    times = [d for n in g.nodes for d in _times(g.nodes[n])] + [d for *_, a in edges(g) for d in _times(a)]
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
        times = _times(attrs)
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


def minor_nodes(g: Any, *, share: float = 0.25) -> set[Any]:
    """Nodes hidden by default: isolated ones, and leaves (one link) whose importance is below
    ``share`` of the graph's most important node."""
    top = max((node_importance(g, n) for n in g.nodes), default=0.0)
    degree = g.degree
    hidden = {n for n in g.nodes if degree[n] == 0
              or (degree[n] <= 1 and node_importance(g, n) < share * top)}
    undirected = g.to_undirected(as_view=True)
    # a node whose every neighbour is hidden would be left isolated: hide it too
    return hidden | {n for n in g.nodes if n not in hidden and set(undirected[n]) <= hidden}


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


# ------------------------------------------------------------------ drawing
def text(value: Any) -> str:
    """A label or tooltip for vis-network: ``&``, ``<`` and ``>`` escaped.

    Quotes stay readable: the node data sits in a script as JSON written by Jinja's ``tojson``,
    which escapes quotes (and ``<``, ``>``, ``&`` once more) for that context.
    """
    return html.escape(defuse_bidi(str(value)), quote=False)


def _tooltip(parts: Iterable[tuple[str, Any]]) -> str:
    lines = [f"{k}: {shorten(v, 120)}" for k, v in parts if v not in (None, "", [], ())]
    return text("\n".join(lines))


def to_html(g: Any, *, height: int = 620, edge_labels: bool | None = None) -> str:
    """Self-contained HTML (vis-network inline) drawing ``g``; all text escaped."""
    net = Network(height=f"{height}px", width="100%", directed=g.is_directed(), cdn_resources="in_line",
                  bgcolor="#ffffff")
    types = sorted({node_type(g, n) for n in g.nodes})
    color = {t: TYPE_COLORS[i % len(TYPE_COLORS)] for i, t in enumerate(types)}
    top = max((node_importance(g, n) for n in g.nodes), default=0.0) or 1.0
    ids = {n: i for i, n in enumerate(g.nodes)}
    for n in g.nodes:
        a = g.nodes[n]
        net.add_node(
            ids[n], label=text(shorten(node_label(g, n), 32)), color=color[node_type(g, n)],
            size=10 + 20 * node_importance(g, n) / top,
            title=_tooltip([("name", node_label(g, n)), ("type", node_type(g, n)),
                            ("importance", f"{node_importance(g, n):.2f}"),
                            ("aliases", ", ".join(map(str, a.get("aliases") or ()))),
                            ("participants", ", ".join(map(str, a.get("participants") or ()))),
                            ("time", a.get("time")), ("place", a.get("place"))]),
        )
    show_labels = edge_labels if edge_labels is not None else g.number_of_edges() <= 120
    for u, v, _, a in edges(g):
        label = edge_label(a)
        net.add_edge(ids[u], ids[v], label=text(shorten(label, 24)) if show_labels else None,
                     title=_tooltip([("relation", label), ("records", len(a.get("record_ids") or ())),
                                     ("importance", a.get("importance"))]),
                     arrows="to" if g.is_directed() else None)
    net.set_options(_OPTIONS)
    html = net.generate_html(notebook=False)
    html = _CDN.sub("", html)
    head, sep, tail = html.rpartition("return network;")  # the end of pyvis' drawGraph()
    html = head + _FREEZE + sep + tail if sep else html
    return _HEADING.sub("", html)


# Once the initial layout is computed, stop the physics so the drawing holds still (and the
# CPU rests); dragging a node still works. ``window.mnLayoutDone`` lets tests and the render
# benchmark see the moment the layout is final.
_FREEZE = """
                  network.once("stabilizationIterationsDone", function () {
                      network.setOptions({physics: {enabled: false}});
                      window.mnLayoutDone = true;
                  });
"""


_OPTIONS = """
{
  "physics": {"solver": "barnesHut",
              "barnesHut": {"gravitationalConstant": -6000, "springLength": 140, "avoidOverlap": 0.1},
              "stabilization": {"enabled": true, "iterations": 120, "updateInterval": 30},
              "maxVelocity": 40, "minVelocity": 1},
  "interaction": {"hover": true, "tooltipDelay": 120, "navigationButtons": false},
  "edges": {"smooth": {"type": "continuous"}, "font": {"size": 10, "align": "middle"},
            "color": {"color": "#adb5bd", "highlight": "#3b5bdb"}},
  "nodes": {"shape": "dot", "font": {"size": 18, "strokeWidth": 3, "strokeColor": "#ffffff"}}
}
"""


# ------------------------------------------------------------------ selection helpers
def node_choices(g: Any) -> list[Any]:
    degree = g.degree
    return sorted(g.nodes, key=lambda n: (-node_importance(g, n), -degree[n], str(n)))


def edge_choices(g: Any) -> list[tuple[Any, Any, Any]]:
    return [(u, v, k) for u, v, k, _ in edges(g)]


def edge_attrs(g: Any, edge: tuple[Any, Any, Any]) -> dict[str, Any]:
    u, v, k = edge
    return dict(g.edges[u, v, k] if g.is_multigraph() else g.edges[u, v])


def node_attrs(g: Any, n: Any) -> dict[str, Any]:
    return dict(g.nodes[n])
