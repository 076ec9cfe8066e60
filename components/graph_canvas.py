"""The clickable graph canvas: a Streamlit custom component (v2) drawing vis-network.

``payload(view, ...)`` turns a graph view (``memory_core.graph_view``) into plain JSON data
(nodes, edges, legend, vis options); ``canvas(payload, ...)`` mounts the component and returns
what the user clicked (``Selection``) — a node or an edge — so the page can open its side panel.

vis-network is pyvis' own copy (``pyvis/lib/vis-9.1.2``), prepended to the component's module:
nothing is fetched from another host. The data travels as JSON (never pasted into HTML or
script text) and the browser side writes it as canvas labels and ``textContent`` only, so
conversation text cannot become markup. Labels are still shortened and bidi-defused here.

Node colours are by type (categorical, the same in every theme); the canvas background,
labels, borders and tooltips follow Streamlit's theme: the CSS uses the custom properties a v2
component receives (``--st-text-color``, ...) and the script reads them for what vis-network
paints on its canvas (the light colours in the payload are the fallback).

Layouts: ``force`` (physics until stable, then frozen), ``time`` (left to right by date,
one column per distinct date; undated nodes in the last column) and, for events, ``session``
(one band per session, earliest on top, a title at its left; inside a band the events run left
to right by episode). Event nodes are labelled by predicate and object on two lines
("finish" / "Alster 10k").
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import cache, partial
from pathlib import Path
from typing import Any

import pyvis
import streamlit as st

from components import graph
from components.graph_style import type_color
from components.text import defuse_bidi, shorten
from memory_core.graph_view import GraphNode, GraphView
from memory_core.json_value import JSONObject

_PYVIS = Path(str(pyvis.__file__)).resolve().parent / "lib" / "vis-9.1.2"
_ASSETS = Path(__file__).resolve().parent / "assets"
_SOURCE_MAP = re.compile(r"^//# sourceMappingURL=.*$", re.M)
_TOOLTIP_CSS = re.compile(r"div\.vis-tooltip\{[^}]*\}")

LAYOUTS = {"session": "By session (top → bottom)", "force": "Force-directed",
           "time": "Time-ordered (left → right)"}
KIND_LAYOUTS = {"entity": ("force", "time"), "event": ("session", "force", "time")}  # first: default
PHYSICS_ITERATIONS = 150
LARGE, LARGE_ITERATIONS = 400, 40  # above LARGE nodes: a cheaper force layout
SETTLE_MS = 4000  # ...drawn after LARGE_ITERATIONS, then settling on screen for at most this long


def _js() -> str:
    vis = _SOURCE_MAP.sub("", (_PYVIS / "vis-network.min.js").read_text(encoding="utf-8"))
    return vis + "\n" + (_ASSETS / "graph_canvas.js").read_text(encoding="utf-8")


def _css() -> str:
    found = _TOOLTIP_CSS.search((_PYVIS / "vis-network.css").read_text(encoding="utf-8"))
    tooltip = found.group(0) if found else ""
    return tooltip + """
.mn-graph {
  --mn-fg: var(--st-text-color, #31333f);
  --mn-bg: var(--st-background-color, #ffffff);
  --mn-line: var(--st-border-color, rgba(49, 51, 63, 0.2));
  font-family: var(--st-font, sans-serif); color: var(--mn-fg); }
.mn-canvas { width: 100%; border: 1px solid var(--mn-line); border-radius: 6px; background: var(--mn-bg); }
.mn-legend { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 0.8rem;
  color: color-mix(in srgb, var(--mn-fg) 85%, transparent); margin: 0 0 4px 0; align-items: center; }
.mn-key { display: inline-flex; align-items: center; gap: 4px; }
.mn-dot { width: 11px; height: 11px; border-radius: 50%; display: inline-block; }
.mn-note { color: color-mix(in srgb, var(--mn-fg) 60%, transparent); }
div.vis-tooltip { font-family: var(--st-font, sans-serif); font-size: 0.8rem; white-space: pre-line;
  max-width: 420px; color: var(--mn-fg); background: var(--st-secondary-background-color, #f0f2f6);
  border-color: var(--mn-line); }
"""


@cache
def _component() -> Any:
    """Registered on first use (inside a script run), once per process."""
    return st.components.v2.component(
        "mnemoscope.graph_canvas",
        html='<div class="mn-graph"><div class="mn-legend"></div><div class="mn-canvas"></div></div>',
        css=_css(),
        js=_js(),
    )


@dataclass(frozen=True)
class Selection:
    kind: str  # "node" or "edge"
    id: str


def _plain(value: str, limit: int) -> str:
    return defuse_bidi(shorten(value, limit))


def _tip(parts: Iterable[tuple[str, str | int | None]]) -> str:
    return "\n".join(f"{k}: {_plain(str(v), 160)}" for k, v in parts if v not in (None, ""))


def node_times(g: GraphView) -> dict[str, date | None]:
    """Each node's own date, else the earliest date of its edges (``None`` when undated)."""
    from_edges: dict[str, date] = {}
    for e in g.edges:
        stamps = graph.edge_dates(e)
        if stamps:
            first = min(stamps)
            for n in (e.source, e.target):
                if n not in from_edges or first < from_edges[n]:
                    from_edges[n] = first
    out: dict[str, date | None] = {}
    for node in g.nodes:
        own = graph.node_dates(node)
        out[node.id] = min(own) if own else from_edges.get(node.id)
    return out


COLUMN_GAP, LANE_GAP, STACK_GAP, STACK, MAX_LANES = 80, 110, 24, 4, 8


def _lane(node: GraphNode) -> str:
    """Events run in one lane per (first) participant, entities in one lane per type."""
    return node.participants[0] if node.participants else graph.type_of(node)


def time_positions(g: GraphView) -> dict[str, tuple[float, float]]:
    """Swim lanes: x from the date (one column per distinct date, earlier left), y from the
    lane (participant or type; the most common lanes first, the rest share one); undated
    nodes go in their own column at the right."""
    times = node_times(g)
    lanes = Counter(_lane(n) for n in g.nodes)
    top = [name for name, _ in lanes.most_common(MAX_LANES)]
    lane_of = {n.id: top.index(_lane(n)) if _lane(n) in top else len(top) for n in g.nodes}
    dated = sorted({t for t in times.values() if t is not None})
    column = {t: i for i, t in enumerate(dated)}
    stacked: Counter[tuple[int, int]] = Counter()
    out: dict[str, tuple[float, float]] = {}
    for n in [x.id for x in sorted(g.nodes, key=lambda x: (-x.importance, x.id))]:
        t = times[n]
        col = column[t] if t is not None else len(dated) + 1
        cell = (col, lane_of[n])
        sub, row = divmod(stacked[cell], STACK)  # a full cell continues in a sub-column
        out[n] = (col * COLUMN_GAP + sub * COLUMN_GAP / 2, lane_of[n] * LANE_GAP + row * STACK_GAP)
        stacked[cell] += 1
    return out


SESSION_COLUMN, SESSION_ROW, SESSION_GAP, PER_ROW = 180, 78, 30, 5
MIN_SCALE = 0.7  # the session layout is never drawn smaller (a narrow canvas starts at its top left)
HEAD_PREFIX = "mn-head:"  # title nodes of the session layout: drawn, never selected


def session_positions(g: GraphView, session_days: Mapping[int, date] | None = None,
                      ) -> tuple[dict[str, tuple[float, float]], list[tuple[str, float]]]:
    """The ``session`` layout: (node -> (x, y), [(band title, y)]). One band per session (from the
    node's ``episode_id``), earliest on top, titled with the session's day when known; in a band,
    events by episode then id, ``PER_ROW`` a row; events without an episode go in a last band."""
    by_session: dict[int, list[GraphNode]] = {}
    for n in g.nodes:
        session, *_ = graph.episode_order(n.episode_id)
        by_session.setdefault(session, []).append(n)
    days = dict(session_days or {})
    where: dict[str, tuple[float, float]] = {}
    titles: list[tuple[str, float]] = []
    y = 0.0
    for session in sorted(by_session):
        members = sorted(by_session[session], key=lambda n: (graph.episode_order(n.episode_id), n.id))
        title = "other" if session >= 1 << 30 else f"Session {session}"
        titles.append((title + (f"\n{days[session]:%d %b %Y}" if session in days else ""), y))
        for i, n in enumerate(members):
            row, col = divmod(i, PER_ROW)
            where[n.id] = (col * SESSION_COLUMN, y + row * SESSION_ROW)
        y += ((len(members) - 1) // PER_ROW + 1) * SESSION_ROW + SESSION_GAP
    return where, titles


def event_label(action: str) -> str:
    """``"finish: Alster 10k"`` -> ``"finish\nAlster 10k"`` (predicate over object)."""
    verb, _, obj = action.partition(":")
    return f"{_plain(verb.strip(), 16)}\n{_plain(obj.strip(), 20)}" if obj.strip() else _plain(verb, 20)


def _options(layout: str, n: int) -> dict[str, Any]:
    common: dict[str, Any] = {
        "interaction": {"hover": True, "tooltipDelay": 120, "hideEdgesOnDrag": n > 300},
        "edges": {"smooth": False if n > 300 else {"type": "continuous"},
                  "font": {"size": 12, "align": "middle", "strokeWidth": 3},
                  "color": {"color": "#ced4da", "highlight": "#3b5bdb", "hover": "#3b5bdb"},
                  "arrows": {"to": {"enabled": True, "scaleFactor": 0.5}}},
        "nodes": {"shape": "dot", "borderWidth": 1},
    }
    if layout in ("time", "session"):  # positions come with the nodes
        return {**common, "physics": {"enabled": False}, "layout": {"improvedLayout": False}}
    if n > LARGE:  # Barnes–Hut with a short stabilisation; the rest settles on screen
        return {**common, "layout": {"improvedLayout": False, "randomSeed": 7},
                "physics": {"solver": "barnesHut",
                            "barnesHut": {"gravitationalConstant": -4000, "springLength": 90,
                                          "centralGravity": 0.3, "damping": 0.4, "theta": 0.9},
                            "stabilization": {"enabled": True, "iterations": LARGE_ITERATIONS,
                                              "updateInterval": 25, "fit": True},
                            "minVelocity": 3, "maxVelocity": 80, "timestep": 0.6}}
    return {**common, "layout": {"improvedLayout": n <= 150, "randomSeed": 7},
            "physics": {"solver": "forceAtlas2Based",
                        "forceAtlas2Based": {"gravitationalConstant": -60, "springLength": 110,
                                             "avoidOverlap": 0.3, "centralGravity": 0.01},
                        "stabilization": {"enabled": True, "iterations": PHYSICS_ITERATIONS,
                                          "updateInterval": 50, "fit": True},
                        "minVelocity": 1.5, "maxVelocity": 60}}


def payload(g: GraphView, *, name: str, layout: str = "force", height: int = 600,
            selected: Selection | None = None, note: str = "",
            session_days: Mapping[int, date] | None = None) -> dict[str, Any]:
    """Plain JSON data for the canvas: nodes, edges, legend, vis options (``session_days``: the
    day of each session, for the titles of the ``session`` layout)."""
    top = max((node.importance for node in g.nodes), default=0.0) or 1.0
    types = {node.id: graph.type_of(node) for node in g.nodes}
    titles: list[tuple[str, float]] = []
    if layout == "session":
        where, titles = session_positions(g, session_days)
    else:
        where = time_positions(g) if layout == "time" else {}
    grow = 9 if layout == "session" else 18  # how much importance adds to a node's radius
    nodes: list[dict[str, Any]] = [
        {"id": f"{HEAD_PREFIX}{i}", "label": title, "shape": "text", "x": -SESSION_COLUMN * 0.8, "y": y,
         "font": {"size": 15, "bold": True, "strokeWidth": 0, "align": "left"}, "tip": ""}
        for i, (title, y) in enumerate(titles)]
    for a in g.nodes:
        weight = a.importance / top
        color = type_color(types[a.id])
        node: dict[str, Any] = {
            "id": a.id, "label": event_label(a.action) if a.action else _plain(a.label, 32),
            "color": {"background": color, "border": "#ffffff",
                      "highlight": {"background": color, "border": "#212529"},
                      "hover": {"background": color, "border": "#212529"}},
            "size": 8 + grow * weight, "font": {"size": 13 + round(grow / 6 * weight), "strokeWidth": 3,
                                               "strokeColor": "#ffffff"},
            "tip": _tip([("name", a.label), ("type", types[a.id]), ("importance", f"{a.importance:.2f}"),
                         ("aliases", ", ".join(a.aliases)), ("who", ", ".join(a.participants)),
                         ("when", a.time_text or a.time), ("where", a.place)]),
        }
        if a.id in where:
            node["x"], node["y"] = where[a.id]
        nodes.append(node)
    edges = []
    for e in g.edges:
        edges.append({"id": e.id, "from": e.source, "to": e.target,
                      "hover": _plain(e.label, 40), "width": 1 + 3 * e.importance,
                      "tip": _tip([("relation", e.label), ("records", len(e.record_ids)),
                                   ("importance", f"{e.importance:.2f}" if e.importance else None)])})
    counts = Counter(types.values())
    legend = [{"label": t, "color": type_color(t), "count": c} for t, c in sorted(counts.items())]
    body = json.dumps([nodes, edges, layout], sort_keys=True, default=str)
    return {"name": name, "nodes": nodes, "edges": edges, "legend": legend, "height": height,
            "settleAbove": LARGE, "settleMs": SETTLE_MS,
            "minScale": MIN_SCALE if layout == "session" else None,
            "options": _options(layout, len(nodes)), "note": note,
            "signature": hashlib.sha256(body.encode()).hexdigest()[:16],
            "selected": None if selected is None else {"kind": selected.kind, "id": selected.id}}


def canvas(data: JSONObject, *, key: str, on_select: Callable[..., None] | None = None,
           args: tuple[object, ...] = ()) -> Selection | None:
    """Mount the canvas; returns the node or edge the user last clicked (or ``None``).

    ``on_select(*args)`` runs (as a widget callback, before the rerun) when the user clicks.
    """
    callback = partial(on_select, *args) if on_select is not None else (lambda: None)
    result = _component()(key=key, data=data, default={"selected": None},
                        on_selected_change=callback)
    return selection(result.get("selected") if result is not None else None)


def selection(raw: object) -> Selection | None:
    if isinstance(raw, dict) and raw.get("kind") in ("node", "edge") and isinstance(raw.get("id"), str):
        return Selection(str(raw["kind"]), str(raw["id"]))
    return None
