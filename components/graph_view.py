"""The Graphs page's widgets: filters and the clickable canvas (the side panel is graph_panel)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import date
from typing import Any

import streamlit as st

from components import graph, graph_as_of, graph_canvas, graph_panel
from components.text import shorten
from memory_core.graph_view import GraphView
from memory_core.models import Episode, Record
from memory_core.record_filter import RecordFilter
from memory_core.services import MemoryServices

HEIGHT = 600  # canvas height in pixels


@st.cache_resource(show_spinner="Reading the graph…", max_entries=8)
def load_graph(_svc: MemoryServices, conv: str, kind: str, token: str) -> GraphView:
    """The entity or event graph of ``conv`` as a typed view (cached per memory version ``token``).

    One shared value per version, not a copy per rerun (a view is frozen; the filters make new ones).
    """
    return _svc.builds.entity_graph(conv) if kind == "entity" else _svc.builds.event_graph(conv)


AS_OF_KEY = "g:as_of"  # one date for both graphs
_PAGE = 1000  # records read per page (the store's largest page)


def as_of_control() -> date | None:
    """The "Memory as of" date (``None``: the memory as it is now, the default)."""
    day = st.date_input("Memory as of", value=None, key=AS_OF_KEY, format="YYYY-MM-DD",
                        min_value=date(1900, 1, 1), max_value=date(2200, 1, 1),
                        help="Show the graph as it stood on that day: nodes, links and events said in a "
                             "later session or about a later time are hidden, and the side panel "
                             "lists only records as of then (as on the Records page). Clear it for "
                             "the memory as it is now.")
    return day if isinstance(day, date) else None


def _records_as_of(svc: MemoryServices, conv: str, day: date) -> list[Record]:
    """Every record (any status) as of ``day``, by the store's ``as_of`` records filter."""
    out: list[Record] = []
    page = 1
    while True:
        got = svc.curation.search_records(conv, filters=RecordFilter(as_of=day, status="all"),
                                          page=page, page_size=_PAGE)
        out += got.rows
        if len(out) >= got.total or not got.rows:
            return out
        page += 1


@st.cache_resource(show_spinner="Going back in time…", max_entries=8)
def load_graph_as_of(_svc: MemoryServices, conv: str, kind: str, token: str, day: date) -> graph_as_of.AsOf:
    """The graph as it stood on ``day`` (cached per memory version and day; read only)."""
    g = load_graph(_svc, conv, kind, token)
    episodes = _svc.builds.episodes(conv)
    return graph_as_of.graph_as_of(
        g, kind, day, records_then=_records_as_of(_svc, conv, day),
        records_all=list(_svc.curation.records(conv, include_inactive=True)) if kind == "entity" else [],
        episode_start={e.id: e.start_time for e in episodes})


@st.cache_resource(show_spinner=False, max_entries=8)
def _facets(_g: GraphView, conv: str, kind: str, token: str) -> graph.Facets:
    return graph.facets(_g)


@dataclass(frozen=True)
class _Drawn:
    view: graph.View  # the drawn graph (``view.graph``: its typed nodes and edges, for the side panel)
    hidden: int  # nodes left out of the default view
    data: dict[str, Any]  # the canvas payload (read only: shared between reruns)


@dataclass(frozen=True)
class Choices:
    """What the user chose above the canvas: ``filter_graph``'s filters, then the drawing choices."""

    types: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    min_importance: float = 0.0
    ego: str | None = None
    depth: int = 1
    limit: int = graph.DEFAULT_LIMIT
    window: tuple[date, date] | None = None
    layout: str = "force"
    show_all: bool = False
    speakers: tuple[str, ...] = ()  # always in the entity graph's default view
    session_days: Mapping[int, date] = field(default_factory=dict)  # titles of the event graph's sessions

    def narrowed(self) -> bool:
        """Does any filter narrow the graph (then the whole graph is filtered, not the default view)?"""
        return bool(self.types or self.properties or self.min_importance or self.ego or self.window)

    def filtered(self, g: GraphView) -> graph.View:
        return graph.filter_graph(g, types=self.types, properties=self.properties, window=self.window,
                                  min_importance=self.min_importance, ego=self.ego, depth=self.depth,
                                  limit=self.limit)

    def key(self) -> list[tuple[str, str]]:
        return sorted((f.name, str(getattr(self, f.name))) for f in fields(self))


@st.cache_resource(show_spinner="Laying out…", max_entries=32)
def _drawn(_g: GraphView, key: str, _chosen: Choices, name: str, note: str) -> _Drawn:
    """The filtered view of ``_g`` and its canvas payload, once per (graph version, filters) ``key``.

    Unfiltered and without "show all", the default view: for entities the most connected ones
    and every speaker; for events each episode's main event and the most important others,
    linked in time order (``graph.default_entities`` / ``default_events``)."""
    base, hidden = _g, 0
    if not _chosen.show_all and not _chosen.narrowed():
        keep = graph.default_entities(_g, _chosen.speakers) if name == "entity" else graph.default_events(_g)
        base = _g.subgraph(keep)
        hidden = len(_g.nodes) - len(base.nodes)
        if name == "event":
            base = graph.only_links(base, graph.DEFAULT_EVENT_LINKS)
    view = _chosen.filtered(base)
    data = graph_canvas.payload(view.graph, name=name, layout=_chosen.layout or "force", height=HEIGHT,
                                note=note, session_days=_chosen.session_days) if view.shown else {}
    return _Drawn(view, hidden, data)


def session_days(episodes: Sequence[Episode]) -> dict[int, date]:
    """Each session's day (its first dated episode's), for the event graph's session titles."""
    out: dict[int, date] = {}
    for e in episodes:
        if e.start_time is not None and e.session not in out:
            out[e.session] = e.start_time.date()
    return out


def filters(g: GraphView, conv: str, kind: str, token: str, speakers: tuple[str, ...] = (),
            days: dict[int, date] | None = None) -> Choices:
    """The filters, in a collapsed panel so the canvas stays above the fold, and beside it the
    one switch from the default view to every node. ``speakers`` are always in the entity graph's
    default view; ``days`` title the event graph's sessions."""
    f = _facets(g, conv, kind, token)
    top = st.columns([2, 1], vertical_alignment="center")
    noun = "entities" if kind == "entity" else "events"
    show_all = top[1].toggle(f"All {len(g.nodes)} {noun}", key=f"g:all:{kind}",
                             help="Off: the default view — " + (
                                 "the most connected entities and every speaker." if kind == "entity" else
                                 "each episode's main event and the most important others, linked in "
                                 "time order.") + " Any filter also searches the whole graph.")
    with top[0].expander("Filters and layout", expanded=False):
        c = st.columns(3)
        types = c[0].multiselect("Node type", f.types, key=f"g:types:{kind}")
        props = c[1].multiselect("Relation" if kind == "entity" else "Link kind", f.properties,
                                 key=f"g:props:{kind}")
        min_imp = c[2].slider("Minimum importance", 0.0, max(f.max_importance, 0.01), 0.0,
                              key=f"g:imp:{kind}") if f.max_importance > 0 else 0.0
        d = st.columns([2, 1, 1])
        nodes = graph.node_choices(g)
        labels = {n.id: n.label for n in g.nodes}
        ego = d[0].selectbox("Ego network of", [None, *nodes], key=f"g:ego:{kind}", format_func=lambda n: (
            "(whole graph)" if n is None else shorten(labels.get(n, n), 60)))
        depth = d[1].number_input("Depth", 1, 4, 1, key=f"g:depth:{kind}", disabled=ego is None)
        limit = d[2].number_input("Show at most (nodes)", 10, 5000, graph.DEFAULT_LIMIT, 50,
                                  key=f"g:limit:{kind}")
        layout = st.radio("Layout", list(graph_canvas.KIND_LAYOUTS[kind]), key=f"g:layout:{kind}",
                          horizontal=True, format_func=graph_canvas.LAYOUTS.__getitem__)
        window = None
        if f.first and f.last and f.first < f.last:
            window = st.slider("Time window", f.first, f.last, (f.first, f.last), key=f"g:win:{kind}")
            if window == (f.first, f.last):
                window = None
    return Choices(types=tuple(types), properties=tuple(props), min_importance=float(min_imp),
                   ego=None if ego is None else str(ego), depth=int(depth), limit=int(limit), window=window,
                   layout=str(layout or "force"), show_all=bool(show_all), speakers=tuple(speakers),
                   session_days=days or {})


def draw(g: GraphView, conv: str, kind: str, token: str, chosen: Choices) -> GraphView:
    """Draw the filtered graph on the clickable canvas; returns the drawn graph's typed view.

    A click on the canvas becomes the side panel's selection (``graph_panel``).
    """
    key = repr((conv, kind, token, chosen.key()))
    note = "hover an edge for its label · click a node or an edge for details"
    if chosen.layout == "time":
        note = "earlier → later, left to right (undated last) · " + note
    elif chosen.layout == "session":
        note = "one band per session, earliest on top · drag to move, scroll to zoom · " + note
    drawn = _drawn(g, key, chosen, kind, note)
    view = drawn.view
    parts = [f"{view.shown} of {len(g.nodes)} {'entities' if kind == 'entity' else 'events'}, "
             f"{len(view.graph.edges)} links"]
    if drawn.hidden:
        parts.append("the most connected entities and every speaker" if kind == "entity" else
                     "each episode's main event and the most important others, linked in time order")
    if view.matching > view.shown:
        parts.append(f"the {view.shown} most important of {view.matching} matching (raise *Show at most*)")
    st.caption(" · ".join(parts) + ".")
    if view.shown == 0:
        st.info("No node matches these filters.")
        return view.graph
    sel = graph_panel.current(kind)
    data = {**drawn.data, "selected": None if sel is None else {"kind": sel.kind, "id": sel.id}}
    canvas_key = f"g:canvas:{kind}"
    graph_canvas.canvas(data, key=canvas_key, on_select=_clicked, args=(kind, canvas_key))
    return view.graph


def _clicked(kind: str, canvas_key: str) -> None:
    result = st.session_state.get(canvas_key)
    raw = result.get("selected") if result is not None else None
    if isinstance(raw, dict) and raw.get("kind") == "none":
        graph_panel.select(kind, None)  # a click on the background closes the panel
    elif (picked := graph_canvas.selection(raw)) is not None:
        graph_panel.select(kind, picked)
