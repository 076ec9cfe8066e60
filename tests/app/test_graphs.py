"""The Graphs page: the clickable canvas (custom component v2), its data, and the side panel.

AppTest cannot click a canvas; the browser tests do (tests/browser/test_clicks.py). Here the
"Find a node" box opens the same panel, and the component's data is checked as sent.
"""

from __future__ import annotations

import json
from datetime import date

from components.graph import DEFAULT_ENTITIES, DEFAULT_EVENTS
from components.graph_canvas import HEAD_PREFIX, node_times, payload, time_positions
from components.graph_style import action_family, type_color
from components.text import shorten
from memory_core.graph_view import GraphNode, GraphView, ViewEdge
from tests.app.conftest import SAMPLE_ID, all_text, html_bodies, no_errors, widget


def canvas_data(at) -> dict:
    found = at.get("bidi_component")
    assert len(found) == 1, "one graph canvas"
    proto = found[0].proto
    assert proto.component_name == "mnemoscope.graph_canvas"
    assert "cdn.jsdelivr" not in proto.js_content and "vis-network" in proto.js_content
    return json.loads(proto.json)


def drawn_nodes(data: dict) -> list[dict]:
    """The canvas's nodes without the session titles of the event graph's session layout."""
    return [n for n in data["nodes"] if not n["id"].startswith(HEAD_PREFIX)]


def test_entity_graph_opens_on_the_most_connected_entities_and_every_speaker(open_app, app_services) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    no_errors(at)
    data = canvas_data(at)
    for item in data["legend"]:
        assert item["color"] == type_color(item["label"])
    full = app_services.builds.entity_graph(SAMPLE_ID)
    assert isinstance(full, GraphView) and full.kind == "entity"
    speakers = app_services.raw_store().load_conversation(SAMPLE_ID).speakers
    shown = {n["id"] for n in data["nodes"]}
    names = {n.label for n in full.nodes if n.id in shown}
    assert set(speakers) <= names  # every speaker
    degree = full.degree()
    linked = [n.id for n in full.nodes if degree[n.id] > 0]
    assert len(shown) >= min(DEFAULT_ENTITIES, len(linked)) > 9  # not a handful of hubs
    left_out = [n for n in linked if n not in shown]
    assert not left_out or min(degree[n] for n in shown if n in linked) >= max(degree[n] for n in left_out)
    assert f"{len(shown)} of {len(full.nodes)} entities" in all_text(at)
    widget(at.toggle, f"All {len(full.nodes)} entities").set_value(True).run()
    no_errors(at)
    assert len(canvas_data(at)["nodes"]) == len(full.nodes)
    # edge labels are shown on hover only: sent as "hover", not as a permanent "label"
    assert all("label" not in e and "hover" in e for e in canvas_data(at)["edges"])


def test_the_filters_sit_in_a_collapsed_panel_above_the_canvas(open_app) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    panel = next(e for e in at.expander if e.label == "Filters and layout")
    assert not panel.proto.expanded
    inside = {w.label for kind in ("multiselect", "selectbox", "number_input", "radio", "slider")
              for w in getattr(panel, kind)}
    assert {"Node type", "Relation", "Ego network of", "Show at most (nodes)", "Layout"} <= inside


def test_event_graph_opens_by_session_with_each_episode_and_predicate_object_labels(open_app,
                                                                                    app_services) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    at.segmented_control[0].set_value("event").run()
    no_errors(at)
    data = canvas_data(at)
    g = app_services.builds.event_graph(SAMPLE_ID)
    assert isinstance(g, GraphView) and g.kind == "event"
    event = {n.id: n for n in g.nodes}
    nodes = drawn_nodes(data)
    episodes = {n.episode_id for n in g.nodes}
    assert len(nodes) <= max(DEFAULT_EVENTS, len(episodes)) < len(g.nodes)
    assert {event[n["id"]].episode_id for n in nodes} == episodes  # every episode is there
    assert data["options"]["physics"]["enabled"] is False  # laid out, not a tangle
    titles = [n for n in data["nodes"] if n["id"].startswith(HEAD_PREFIX)]
    sessions = [int(t["label"].split()[1]) for t in titles]
    assert sessions == sorted(sessions) and [t["y"] for t in titles] == sorted(t["y"] for t in titles)
    for n in nodes:  # a band per session, earliest on top
        session = int(event[n["id"]].episode_id.rsplit(":S", 1)[1].split(":")[0])
        band = titles[sessions.index(session)]["y"]
        assert band <= n["y"] < band + 400
        verb, _, obj = event[n["id"]].action.partition(":")
        if obj.strip():
            assert n["label"].split("\n")[0] == shorten(verb.strip(), 16)  # predicate over object
    links = {(e.source, e.target): e.kinds for e in g.edges}
    kinds = {tuple(sorted(links[e["from"], e["to"]])) for e in data["edges"]}
    assert all({"succession", "episode"} & set(k) for k in kinds)  # no participant tangle
    widget(at.toggle, f"All {len(g.nodes)} events").set_value(True).run()
    no_errors(at)
    assert len(drawn_nodes(canvas_data(at))) == len(g.nodes)


def test_the_side_panel_lists_episodes_in_session_order() -> None:
    from components.graph_panel import _episodes_of
    from memory_core.models import Record

    order = ("c:S10:E1", "c:S1:E2", "c:S2:E1", "c:S1:E1")
    records = [Record(id=f"r{i}", conv_id="c", episode_id=e, entity="Ana", entity_type="person",
                      property="likes", value="tea") for i, e in enumerate(order)]
    labels = {e: e.split(":", 1)[1] for e in ("c:S1:E1", "c:S1:E2", "c:S2:E1", "c:S10:E1")}
    assert [e for e, _ in _episodes_of(records, labels)] == ["c:S1:E1", "c:S1:E2", "c:S2:E1", "c:S10:E1"]


def test_find_a_node_opens_the_side_panel_with_records_and_turns(open_app, app_services) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    speaker = app_services.raw_store().load_conversation(SAMPLE_ID).speakers[0]
    box = widget(at.selectbox, "Find a node")
    assert speaker in box.options  # offered by name
    g = app_services.builds.entity_graph(SAMPLE_ID)
    node = next(n.id for n in g.nodes if n.label == speaker)
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
    on_screen = {n["id"] for n in drawn_nodes(data)}
    event = next(n for n in g.nodes if n.participants and n.time and n.id in on_screen)
    widget(at.selectbox, "Find a node").set_value(event.id).run()
    no_errors(at)
    body = html_bodies(at)
    who = event.participants[0]
    assert "<b>who</b>" in body and f"entity={who}" in body.replace("%20", "+")
    assert "<b>when</b>" in body and event.time in body
    assert action_family(event.action) in body


def test_time_layout_orders_nodes_left_to_right_by_date(open_app) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    at.segmented_control[0].set_value("event").run()
    widget(at.radio, "Layout").set_value("time").run()
    no_errors(at)
    data = canvas_data(at)
    assert data["options"]["physics"]["enabled"] is False
    assert all("x" in n and "y" in n for n in data["nodes"])


def test_time_positions_and_colours_on_a_small_graph() -> None:
    g = GraphView("event", (
        GraphNode("a", "event", "run: race", action="run: race", participants=("Ana",), time="2023-05-01",
                  importance=0.5),
        GraphNode("b", "event", "paint: sunset", action="paint: sunset", participants=("Ana",),
                  time="2023-03-01", importance=0.5),
        GraphNode("c", "event", "fly: Lisbon", action="fly: Lisbon", participants=("Ben",), importance=0.5),
    ), (ViewEdge("b", "a", None, "succession", kinds=("succession",)),
        ViewEdge("a", "c", None, "participant", kinds=("participant",))))
    assert node_times(g)["b"] == date(2023, 3, 1)
    pos = time_positions(g)
    assert pos["b"][0] < pos["a"][0] < pos["c"][0]  # earlier left, undated last
    assert pos["a"][1] == pos["b"][1] != pos["c"][1]  # one lane per participant
    data = payload(g, name="t", layout="time")
    assert {item["label"] for item in data["legend"]} == {"sport", "creative", "travel"}
    # a type keeps its colour whatever else is on screen
    assert payload(g.subgraph(["a"]), name="t")["nodes"][0]["color"] == data["nodes"][0]["color"]
    assert type_color("person") == type_color("Person") != type_color("place")
