"""A Streamlit page that draws a synthetic graph on the app's graph canvas (for ui_render.py).

    streamlit run benchmarks/graph_canvas_app.py   then open  /?nodes=1000&layout=force

The graph is random but fixed (seed 7): ``nodes`` nodes of four types, two edges per node.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import networkx as nx
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from components import graph_canvas

nodes = int(st.query_params.get("nodes", "1000"))
layout = st.query_params.get("layout", "force")
rng = random.Random(7)
g = nx.MultiDiGraph()
for i in range(nodes):
    g.add_node(f"n{i}", name=f"entity {i}", type=rng.choice(["person", "place", "organization", "concept"]),
               importance=rng.random(), first_mentioned=f"2023-{rng.randint(1, 12):02d}-01")
for _ in range(nodes * 2):
    a, b = rng.sample(range(nodes), 2)
    g.add_edge(f"n{a}", f"n{b}", property=rng.choice(["likes", "visited", "owns", "works_at"]),
               record_ids=["r"], importance=rng.random())
data = graph_canvas.payload(g, name="bench", layout=layout, height=700)
graph_canvas.canvas(data, key="bench")
