"""Graphs: the entity graph and the event graph, filtered, drawn offline (vis-network); click a
node or an edge to open its records, episode and source turns in the side panel. "Memory as
of" shows both graphs as they stood on a day (graph_as_of); that day is in the URL
(``?as_of=YYYY-MM-DD``)."""

import streamlit as st

from components import data, graph_panel, graph_view, url_date
from components.services import call, services
from components.state import require_conv

svc = services()
conv = require_conv()
st.title("Graphs")

top = st.columns([3, 1])
with top[0]:
    kind = st.segmented_control("Graph", ["entity", "event"], default="entity", key="graph_kind",
                                format_func=lambda k: f"{k.capitalize()} graph") or "entity"
with top[1]:
    url_date.read("as_of", graph_view.AS_OF_KEY)
    day = graph_view.as_of_control()
    url_date.write("as_of", graph_view.AS_OF_KEY, day)
token = data.version_token(svc, conv)
g = call(graph_view.load_graph, svc, conv, kind, token)
if not g.nodes:
    st.info("This graph is empty: build the conversation's memory first.")
    st.page_link("pages/load.py", label="Load & build", query_params={"conv": conv})
    st.stop()
as_of_ids = None  # no date: the memory as it is now
if day is not None:
    then = call(graph_view.load_graph_as_of, svc, conv, kind, token, day)
    g, token, as_of_ids = then.graph, f"{token}|as of {day.isoformat()}", then.record_ids
    st.caption(then.caption())
    if not g.nodes:
        st.info(f"Nothing in this graph had been said by {day.isoformat()}: pick a later day.")
        st.stop()

episodes = data.episodes(svc, conv)
chosen = graph_view.filters(g, conv, kind, token, tuple(data.conversation(svc, conv).speakers),
                            graph_view.session_days(episodes))
left, right = st.columns([3, 2])
with left:
    shown = graph_view.draw(g, conv, kind, token, chosen)
with right:
    graph_panel.panel(svc, conv, shown, kind, data.episode_labels(episodes), as_of_ids=as_of_ids)
