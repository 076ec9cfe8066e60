"""The Graphs page's widgets: filters, the drawn graph (cached HTML), and node/edge details."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx
import pandas as pd
import streamlit as st

from components import data, graph, transcript
from components.text import md, shorten
from memory_core.models import Record
from memory_core.services import Services

MAX_RECORDS = 200  # records listed for a node
MAX_EVIDENCE_RECORDS = 40  # records whose source turns are shown


@st.cache_data(show_spinner="Reading the graph…", max_entries=8)
def load_graph(_svc: Services, conv: str, kind: str, token: str) -> nx.DiGraph:
    """The entity or event graph of ``conv`` (cached per memory version ``token``)."""
    return _svc.builds.entity_graph(conv) if kind == "entity" else _svc.builds.event_graph(conv)


@st.cache_data(show_spinner="Drawing…", max_entries=32)
def _html(_g: Any, key: str) -> str:
    return graph.to_html(_g)


def filters(g: Any, kind: str) -> dict[str, Any]:
    f = graph.facets(g)
    c = st.columns(3)
    types = c[0].multiselect("Node type", f.types, key=f"g:types:{kind}")
    props = c[1].multiselect("Relation" if kind == "entity" else "Link kind", f.properties,
                             key=f"g:props:{kind}")
    min_imp = c[2].slider("Minimum importance", 0.0, max(f.max_importance, 0.01), 0.0,
                          key=f"g:imp:{kind}") if f.max_importance > 0 else 0.0
    d = st.columns([2, 1, 1])
    nodes = graph.node_choices(g)
    ego = d[0].selectbox("Ego network of", [None, *nodes], key=f"g:ego:{kind}", format_func=lambda n: (
        "(whole graph)" if n is None else shorten(graph.node_label(g, n), 60)))
    depth = d[1].number_input("Depth", 1, 4, 1, key=f"g:depth:{kind}", disabled=ego is None)
    limit = d[2].number_input("Show at most (nodes)", 10, 5000, graph.DEFAULT_LIMIT, 50,
                              key=f"g:limit:{kind}")
    window = None
    if f.first and f.last and f.first < f.last:
        window = st.slider("Time window", f.first, f.last, (f.first, f.last), key=f"g:win:{kind}")
        if window == (f.first, f.last):
            window = None
    return {"types": types, "properties": props, "min_importance": float(min_imp), "ego": ego,
            "depth": int(depth), "limit": int(limit), "window": window}


def draw(g: Any, conv: str, kind: str, token: str, chosen: dict[str, Any]) -> Any:
    view = graph.filter_graph(g, **chosen)
    if view.matching > view.shown:
        st.caption(f"Showing the {view.shown} most important of {view.matching} matching nodes — "
                   "raise *Show at most* to see more.")
    else:
        st.caption(f"{view.shown} nodes, {view.graph.number_of_edges()} edges.")
    if view.shown == 0:
        st.info("No node matches these filters.")
        return view.graph
    key = repr((conv, kind, token, sorted((k, str(v)) for k, v in chosen.items())))
    st.iframe(_html(view.graph, key), height=660)
    return view.graph


def details(svc: Services, conv: str, g: nx.DiGraph, kind: str) -> None:
    """Pick a node or an edge of the drawn graph; show its records and source turns."""
    if g.number_of_nodes() == 0:
        return
    c = st.columns(2)
    node = c[0].selectbox("Node", graph.node_choices(g), key=f"g:node:{kind}",
                          format_func=lambda n: shorten(graph.node_label(g, n), 70))
    edge_list = graph.edge_choices(g)
    edge = c[1].selectbox("Edge", [None, *edge_list], key=f"g:edge:{kind}",
                          format_func=lambda e: "(none)" if e is None else shorten(_edge_text(g, e), 90))
    if edge is not None:
        attrs = graph.edge_attrs(g, edge)
        records = data.records_by_ids(svc, attrs.get("record_ids") or ())
        _show(svc, conv, _edge_text(g, edge), records, attrs.get("source_turn_ids") or ())
    else:
        attrs = graph.node_attrs(g, node)
        name = graph.node_label(g, node)
        if attrs.get("record_ids"):
            records = data.records_by_ids(svc, attrs["record_ids"])
        elif kind == "entity":
            names = [name, *(attrs.get("aliases") or [])]
            records = svc.curation.search_records(conv, filters={"entity": names}, page_size=MAX_RECORDS).rows
        else:
            records = []
        _show(svc, conv, name, records, attrs.get("source_turn_ids") or ())


def _edge_text(g: Any, e: Any) -> str:
    relation = graph.edge_label(graph.edge_attrs(g, e))
    return f"{graph.node_label(g, e[0])} —{relation}→ {graph.node_label(g, e[1])}"


def _show(svc: Services, conv: str, title: str, records: list[Record], turn_ids: Sequence[str]) -> None:
    st.subheader(md(shorten(title, 120)))
    if records:
        st.caption(f"{len(records)} records" + (" (the first ones)" if len(records) >= MAX_RECORDS else ""))
        st.dataframe(pd.DataFrame(data.records_frame_rows(records)), hide_index=True,
                     column_order=("entity", "property", "value", "modality", "valid time", "evidence"))
    cited = [t for r in records[:MAX_EVIDENCE_RECORDS] for t in r.evidence_turn_ids]
    evidence = list(dict.fromkeys([*turn_ids, *cited]))
    if not evidence:
        st.caption("No source turns recorded.")
        return
    st.caption(f"Source turns ({len(evidence)})")
    transcript.render(data.turns(svc, conv, evidence), records=records, evidence=evidence)

