"""The Graphs page: the clickable canvas (custom component v2), its data, and the side panel.

AppTest cannot click a canvas; the browser tests do (tests/browser/test_clicks.py). Here the
"Find a node" box opens the same panel, and the component's data is checked as sent.
"""

from __future__ import annotations

import json
from datetime import date

import networkx as nx

from components.graph_canvas import node_times, payload, time_positions
from components.graph_style import action_family, type_color
from tests.app.conftest import SAMPLE_ID, all_text, html_bodies, no_errors, widget


def canvas_data(at) -> dict:  # type: ignore[no-untyped-def]
    found = at.get("bidi_component")
    assert len(found) == 1, "one graph canvas"
    proto = found[0].proto
    assert proto.component_name == "mnemoscope.graph_canvas"
    assert "cdn.jsdelivr" not in proto.js_content and "vis-network" in proto.js_content
    return json.loads(proto.json)


def test_canvas_gets_a_legend_stable_colours_and_hides_isolated_nodes(open_app, app_services) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    no_errors(at)
    data = canvas_data(at)
    linked = {e["from"] for e in data["edges"]} | {e["to"] for e in data["edges"]}
    assert data["nodes"] and all(n["id"] in linked for n in data["nodes"])  # no isolated node
    for item in data["legend"]:
        assert item["color"] == type_color(item["label"])
    full = app_services.builds.entity_graph(SAMPLE_ID)
    hidden = full.number_of_nodes() - len(data["nodes"])
    assert hidden > 0 and f"{hidden} isolated or minor nodes hidden" in all_text(at)
    widget(at.toggle, "Show isolated and minor nodes").set_value(True).run()
    no_errors(at)
    assert len(canvas_data(at)["nodes"]) == full.number_of_nodes()
    # edge labels are shown on hover only: sent as "hover", not as a permanent "label"
    assert all("label" not in e and "hover" in e for e in canvas_data(at)["edges"])


def test_find_a_node_opens_the_side_panel_with_records_and_turns(open_app, app_services) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    speaker = app_services.store.load_conversation(SAMPLE_ID).speakers[0]
    box = widget(at.selectbox, "Find a node")
    assert speaker in box.options  # offered by name
    g = app_services.builds.entity_graph(SAMPLE_ID)
    node = next(n for n in g.nodes if g.nodes[n].get("name") == speaker)
    box.set_value(node).run()
    no_errors(at)
    body = html_bodies(at)
    assert f"records?conv={SAMPLE_ID}&amp;record=" in body  # each record opens on the Records page
    assert f"episodes?conv={SAMPLE_ID}&amp;episode=" in body  # its episodes are links
    assert 'class="mn-turn mn-evidence"' in body  # source turns, highlighted
    assert any(p.proto.label.startswith("All records about") for p in at.get("page_link"))
    assert canvas_data(at)["selected"] == {"kind": "node", "id": node}  # the canvas highlights it


def test_event_graph_types_events_by_family_and_shows_who_when_where(open_app, app_services) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    at.segmented_control[0].set_value("event").run()
    no_errors(at)
    data = canvas_data(at)
    families = {item["label"] for item in data["legend"]}
    assert len(families - {"other"}) >= 3, families
    g = app_services.builds.event_graph(SAMPLE_ID)
    event = next(n for n in g.nodes if g.nodes[n].get("participants") and g.nodes[n].get("time"))
    widget(at.selectbox, "Find a node").set_value(event).run()
    no_errors(at)
    body = html_bodies(at)
    who = g.nodes[event]["participants"][0]
    assert "<b>who</b>" in body and f"entity={who}" in body.replace("%20", "+")
    assert "<b>when</b>" in body and str(g.nodes[event]["time"]) in body
    assert action_family(g.nodes[event]["action"]) in body


def test_time_layout_orders_nodes_left_to_right_by_date(open_app) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    at.segmented_control[0].set_value("event").run()
    widget(at.radio, "Layout").set_value("time").run()
    no_errors(at)
    data = canvas_data(at)
    assert data["options"]["physics"]["enabled"] is False
    assert all("x" in n and "y" in n for n in data["nodes"])


def test_time_positions_and_colours_on_a_small_graph() -> None:
    g = nx.DiGraph()
    g.add_node("a", action="run: race", participants=["Ana"], time="2023-05-01", importance=0.5)
    g.add_node("b", action="paint: sunset", participants=["Ana"], time="2023-03-01", importance=0.5)
    g.add_node("c", action="fly: Lisbon", participants=["Ben"], importance=0.5)  # undated
    g.add_edge("b", "a", kind="succession")
    g.add_edge("a", "c", kind="participant")
    assert node_times(g)["b"] == date(2023, 3, 1)
    pos = time_positions(g)
    assert pos["b"][0] < pos["a"][0] < pos["c"][0]  # earlier left, undated last
    assert pos["a"][1] == pos["b"][1] != pos["c"][1]  # one lane per participant
    data = payload(g, name="t", layout="time")
    assert {item["label"] for item in data["legend"]} == {"sport", "creative", "travel"}
    # a type keeps its colour whatever else is on screen
    assert payload(g.subgraph(["a"]), name="t")["nodes"][0]["color"] == data["nodes"][0]["color"]
    assert type_color("person") == type_color("Person") != type_color("place")
