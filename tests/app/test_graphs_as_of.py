"""Graphs as of a date: the pure cut (components.graph_as_of) on hand-made graphs, and the
Graphs page's "Memory as of" control on the built sample (the counts shown change, the side
panel lists only records as of then, no date keeps the page as it was)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

import networkx as nx

from components.graph_as_of import entity_graph_as_of, event_graph_as_of, graph_as_of, said_by
from memory_core.graph_view import GraphView, ViewEdge, view_of
from memory_core.record_filter import RecordFilter
from tests.app.conftest import SAMPLE_ID, all_text, html_bodies, no_errors, widget
from tests.app.test_graphs import canvas_data

as_filter = RecordFilter.of  # loose test input -> the typed filter


@dataclass(frozen=True)
class Rec:
    id: str
    entity: str
    value: str
    episode_id: str


START = {"e1": datetime(2023, 3, 3, 19, 15), "e2": datetime(2023, 4, 6, 20, 5),
         "e3": datetime(2023, 6, 12, 9, 0)}
RECORDS = [
    Rec("r1", "Maya", "Jonas", "e1"),  # Maya --friend--> Jonas, said 3 March
    Rec("r2", "Maya", "Oliver", "e3"),  # Maya --pet--> Oliver, said 12 June
    Rec("r3", "Jonas", "Lisbon", "e2"),  # Jonas --lives in--> Lisbon, said 6 April
    Rec("r4", "Jonas", "Berlin", "e3"),  # Jonas --moved to--> Berlin, said 12 June
    Rec("r5", "Jonas", "climbing", "e1"),  # an aspect: no edge
]


def _entity_nx() -> nx.MultiDiGraph:
    g = nx.MultiDiGraph(kind="entity")
    for name, kind in (("Maya", "person"), ("Jonas", "person"), ("Oliver", "animal"),
                       ("Lisbon", "place"), ("Berlin", "place"), ("Atlantis", "place")):
        g.add_node(name.lower(), name=name, label=name, type=kind, aliases=[], importance=0.5)
    g.nodes["berlin"]["aliases"] = ["the capital"]
    for u, v, prop, ids in (("maya", "jonas", "friend", ["r1"]), ("maya", "oliver", "pet", ["r2"]),
                            ("jonas", "lisbon", "lives in", ["r3"]), ("jonas", "berlin", "moved to", ["r4"]),
                            ("maya", "jonas", "met", ["r1", "r2"])):
        g.add_edge(u, v, key=prop, property=prop, record_ids=ids, first_mentioned="2023-03-03T19:15:00",
                   last_mentioned="2023-06-12T09:00:00")
    return g


def _entities() -> GraphView:
    return view_of(_entity_nx())


def _edge(g: GraphView, key: str) -> ViewEdge:
    return next(e for e in g.edges if e.key == key)


def _then(day: date) -> list[Rec]:
    """The store's as_of filter on these records (session start by then; no valid times here)."""
    return [r for r in RECORDS if START[r.episode_id].date() <= day]


def test_entity_graph_keeps_what_was_said_by_then_and_counts_the_rest() -> None:
    g = _entities()
    day = date(2023, 4, 30)
    cut = entity_graph_as_of(g, day, records_then=_then(day), records_all=RECORDS, episode_start=START)
    assert set(cut.graph.ids()) == {"maya", "jonas", "lisbon", "atlantis"}  # atlantis: named by no record
    assert {e.key for e in cut.graph.edges} == {"friend", "lives in", "met"}
    assert (cut.hidden_nodes, cut.total_nodes) == (2, 6)  # oliver, berlin
    assert (cut.hidden_edges, cut.total_edges) == (2, 5)  # pet, moved to
    assert cut.record_ids == {"r1", "r3", "r5"}
    # an edge keeps only its records as of then, and is re-dated by them
    met = _edge(cut.graph, "met")
    assert met.record_ids == ("r1",) and met.last_mentioned == "2023-03-03"
    assert "2 of 6 nodes and 2 of 5 edges hidden" in cut.caption()
    # the input view is untouched
    assert len(g.nodes) == 6 and _edge(g, "met").record_ids == ("r1", "r2")


def test_entity_graph_before_and_after_everything() -> None:
    g = _entities()
    early = entity_graph_as_of(g, date(2023, 1, 1), records_then=[], records_all=RECORDS)
    assert early.graph.ids() == ["atlantis"] and not early.graph.edges
    late = entity_graph_as_of(g, date(2024, 1, 1), records_then=RECORDS, records_all=RECORDS)
    assert late.hidden_nodes == late.hidden_edges == 0
    assert late.graph.ids() == g.ids() and [e.id for e in late.graph.edges] == [e.id for e in g.edges]
    assert "nothing is hidden" in late.caption()


def test_a_node_named_by_alias_or_as_a_value_counts() -> None:
    h = _entity_nx()
    h.remove_edge("jonas", "berlin", "moved to")
    g = view_of(h)
    said = [Rec("r9", "Jonas", "  The Capital ", "e1")]  # an alias, as the value, other spacing/case
    cut = entity_graph_as_of(g, date(2023, 3, 5), records_then=said, records_all=[*RECORDS, *said])
    assert "berlin" in cut.graph and "oliver" not in cut.graph


def _events() -> GraphView:
    g = nx.DiGraph(kind="event")
    for eid, episode, time in (("v1", "e1", "2023-03-01"), ("v2", "e2", None), ("v3", "e2", "2023-05"),
                               ("v4", "e3", "2023-06-10"), ("v5", "gone", None)):
        g.add_node(eid, action="run: 5k", episode_id=episode, time=time, participants=["Maya"])
    for u, v in (("v1", "v2"), ("v2", "v3"), ("v3", "v4"), ("v1", "v5")):
        g.add_edge(u, v, kinds=["succession"], labels=[""], kind="succession")
    return view_of(g)


def test_event_graph_by_session_and_time() -> None:
    g = _events()
    cut = event_graph_as_of(g, date(2023, 4, 30), episode_start=START)
    # v3's session was by then but it is about May; v4's session is later; v5's episode is unknown
    assert set(cut.graph.ids()) == {"v1", "v2", "v5"}
    assert {(e.source, e.target) for e in cut.graph.edges} == {("v1", "v2"), ("v1", "v5")}
    assert (cut.hidden_nodes, cut.hidden_edges) == (2, 2)
    assert set(graph_as_of(g, "event", date(2023, 5, 31), records_then=[], records_all=[],
                           episode_start=START).graph.ids()) == {"v1", "v2", "v3", "v5"}


def test_said_by_follows_the_records_filter() -> None:
    day = date(2023, 5, 6)
    assert said_by(day, datetime(2023, 5, 6, 23, 59), "2023-05")  # same day, month-level time
    assert not said_by(day, datetime(2023, 5, 7), None)
    assert not said_by(day, None, "2023-06")
    assert said_by(day, None, "") and said_by(day, date(2023, 1, 1), "2022")


# ------------------------------------------------------------------ the page
def _counts(at) -> tuple[int, int]:
    data = canvas_data(at)
    return len(data["nodes"]), len(data["edges"])


def test_memory_as_of_hides_later_nodes_and_says_how_many(open_app, app_services) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    no_errors(at)
    at.toggle(key="g:all:entity").set_value(True).run()
    before, text_before = _counts(at), all_text(at)
    assert "Memory as of" not in text_before  # no date: the page as it was
    episodes = app_services.builds.episodes(SAMPLE_ID)
    second = sorted(e.start_time for e in episodes if e.start_time is not None)[1].date()
    widget(at.date_input, "Memory as of").set_value(second).run()
    no_errors(at)
    after = _counts(at)
    assert after[0] < before[0] and after[1] < before[1]
    hidden = before[0] - after[0]
    caption = next(c.value for c in at.caption if str(c.value).startswith("Memory as of"))
    assert f"Memory as of {second.isoformat()}: {hidden} of {before[0]} nodes" in caption
    # the side panel lists only records as of then
    then = {r.id for r in app_services.curation.search_records(
        SAMPLE_ID, filters=as_filter({"as_of": second.isoformat(), "status": "all"}), page_size=1000).rows}
    speaker = app_services.raw_store().load_conversation(SAMPLE_ID).speakers[0]
    g = app_services.builds.entity_graph(SAMPLE_ID)
    node = next(n.id for n in g.nodes if n.label == speaker)
    widget(at.selectbox, "Find a node").set_value(node).run()
    no_errors(at)
    listed = set(_record_links(html_bodies(at)))
    assert listed and listed <= then
    everything = {r.id for r in app_services.raw_store().records_naming(SAMPLE_ID, [speaker])}
    assert everything - then, "the speaker has records after the second session"
    # the event graph too, with the same date
    at.segmented_control[0].set_value("event").run()
    no_errors(at)
    assert any(str(c.value).startswith(f"Memory as of {second.isoformat()}: ") for c in at.caption)
    events = app_services.builds.event_graph(SAMPLE_ID)
    assert 0 < len(canvas_data(at)["nodes"]) < len(events.nodes)
    # clearing the date gives the graph back as it was
    at.segmented_control[0].set_value("entity").run()
    widget(at.date_input, "Memory as of").set_value(None).run()
    no_errors(at)
    assert _counts(at) == before
    assert not any(str(c.value).startswith("Memory as of") for c in at.caption)


def _record_links(body: str) -> list[str]:
    import re
    from urllib.parse import unquote_plus

    return [unquote_plus(m) for m in re.findall(r"record=([^\"&]+)", body.replace("&amp;", "&"))]


def test_a_day_before_the_conversation_says_so(open_app) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    widget(at.date_input, "Memory as of").set_value(date(1999, 1, 1)).run()
    no_errors(at)
    assert any("Nothing in this graph had been said by 1999-01-01" in i.value for i in at.info)
    assert not at.get("bidi_component")  # no canvas drawn
