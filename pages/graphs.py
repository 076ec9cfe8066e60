"""Graphs: the entity graph and the event graph, filtered, drawn offline (vis-network); click a
node or an edge to open its records, episode and source turns in the side panel."""

import streamlit as st

from components import data, graph_panel, graph_view
from components.services import call, services
from components.state import require_conv

svc = services()
conv = require_conv()
st.title("Graphs")

kind = st.segmented_control("Graph", ["entity", "event"], default="entity", key="graph_kind",
                            format_func=lambda k: f"{k.capitalize()} graph") or "entity"
token = data.version_token(svc, conv)
g = call(graph_view.load_graph, svc, conv, kind, token)
if g.number_of_nodes() == 0:
    st.info("This graph is empty: build the conversation's memory first.")
    st.page_link("pages/load.py", label="Load & build", query_params={"conv": conv})
    st.stop()

chosen = graph_view.filters(g, conv, kind, token)
left, right = st.columns([3, 2])
with left:
    shown = graph_view.draw(g, conv, kind, token, chosen)
with right:
    graph_panel.panel(svc, conv, shown, kind, data.episode_labels(data.episodes(svc, conv)))
