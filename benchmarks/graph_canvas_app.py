"""A Streamlit page that draws a synthetic graph on the app's graph canvas (for ui_render.py).

    streamlit run benchmarks/graph_canvas_app.py   then open  /?nodes=1000&layout=force

The graph is random but fixed (seed 7): ``nodes`` nodes of four types, two edges per node (a
typed view, as the build service hands the Graphs page; the edges carry the dates).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from components import graph_canvas
from memory_core.graph_view import GraphNode, GraphView, ViewEdge

nodes = int(st.query_params.get("nodes", "1000"))
layout = st.query_params.get("layout", "force")
rng = random.Random(7)
types = ["person", "place", "organization", "concept"]
made = [GraphNode(f"n{i}", "entity", f"entity {i}", type=rng.choice(types), importance=rng.random())
        for i in range(nodes)]
links = []
for j in range(nodes * 2):
    a, b = rng.sample(range(nodes), 2)
    prop = rng.choice(["likes", "visited", "owns", "works_at"])
    links.append(ViewEdge(f"n{a}", f"n{b}", str(j), prop, importance=rng.random(), record_ids=("r",),
                          first_mentioned=f"2023-{rng.randint(1, 12):02d}-01"))
g = GraphView("entity", tuple(made), tuple(links))
data = graph_canvas.payload(g, name="bench", layout=layout, height=700)
graph_canvas.canvas(data, key="bench")
