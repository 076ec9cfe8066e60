"""Entity and event graphs: networkx views for the UI, importance, GraphML export."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from memory_core.backends.offline.backend import OfflineBackend
from memory_core.construct.graphs import entity_graph, event_graph, record_types, write_graphml
from memory_core.construct.pipeline import build_conversation
from memory_core.graph_view import view_of
from memory_core.store import Store
from memory_core.store.vectors import VectorIndex
from tests.construct.dialogues import conversation, session

LINES = [
    ("Anna", "Hi Ben! I adopted a dog named Rex last Saturday."),
    ("Ben", "Congrats! My wife Julia and I visited Lisbon last month."),
    ("Anna", "Lisbon! Julia must have loved it. Rex loves long walks on the beach."),
    ("Ben", "Julia took a tram to the old castle and painted the view."),
    ("Anna", "I went to Lisbon in 2019 and I ran a marathon there."),
]


@pytest.fixture
def built(store: Store, tmp_path: Path, embedder) -> Store:
    store.save_conversation(conversation("g", [session(1, LINES)]))
    index = VectorIndex(tmp_path / "chroma")
    list(build_conversation(store, index, embedder, "g", OfflineBackend(embedder=embedder)))
    return store


def test_entity_graph(built: Store) -> None:
    g = entity_graph(built, "g")
    assert isinstance(g, nx.MultiDiGraph)
    names = {data["name"]: node for node, data in g.nodes(data=True)}
    anna, ben = names["Anna"], names["Ben"]
    assert g.has_edge(anna, names["Rex"], key="pet")
    assert g.has_edge(ben, names["Julia"], key="spouse") and g.has_edge(names["Julia"], ben, key="spouse")
    assert g.has_edge(ben, names["Lisbon"], key="visits")
    edge = g.edges[anna, names["Rex"], "pet"]
    assert edge["record_ids"] and 0 < edge["importance"] <= 1.0
    assert edge["first_mentioned"].startswith("2023-05-08")
    assert g.nodes[names["Rex"]]["type"] == "animal"
    assert g.nodes[names["Rex"]]["attributes"]["species"] == ["dog"]  # an aspect, not an edge
    assert all(0 <= d["importance"] <= 1.0 for _, d in g.nodes(data=True))


def test_event_graph(built: Store) -> None:
    g = event_graph(built, "g")
    assert isinstance(g, nx.DiGraph) and g.number_of_nodes() >= 3
    kinds = {k for _, _, d in g.edges(data=True) for k in d["kinds"]}
    assert {"succession", "episode", "participant"} <= kinds
    adopt = next(d for _, d in g.nodes(data=True) if d["action"].startswith("adopt"))
    assert adopt["time"] == "2023-05-06" and adopt["participants"][0] == "Anna"
    assert adopt["source_turn_ids"] == ["D1:1"]
    assert max(d["importance"] for _, d in g.nodes(data=True)) == 1.0
    # succession follows time: the 2019 marathon comes before the adoption of May 2023
    marathon = next(n for n, d in g.nodes(data=True) if d["action"].startswith("run"))
    assert any("succession" in d["kinds"] for _, _, d in g.out_edges(marathon, data=True))


def test_graphml_export(built: Store, tmp_path: Path) -> None:
    files = write_graphml(built, "g", tmp_path / "out.graphml")
    assert [p.name for p in files] == ["out-entities.graphml", "out-events.graphml"]
    entities = nx.read_graphml(files[0])
    events = nx.read_graphml(files[1])
    assert entities.number_of_nodes() == entity_graph(built, "g").number_of_nodes()
    assert events.number_of_edges() == event_graph(built, "g").number_of_edges()
    folder = write_graphml(built, "g", tmp_path / "graphs")
    assert [p.name for p in folder] == ["g-entities.graphml", "g-events.graphml"]


def test_graph_view_of_the_stored_graphs(built: Store) -> None:
    """The typed view names every node and edge as the networkx graph holds them."""
    g = entity_graph(built, "g")
    view = view_of(g)
    assert view.kind == "entity" and len(view.nodes) == g.number_of_nodes()
    assert len(view.edges) == g.number_of_edges()
    by_label = {n.label: n for n in view.nodes}
    assert {n.label for n in view.nodes} == {d["name"] for _, d in g.nodes(data=True)}
    assert by_label["Rex"].type == "animal" and by_label["Rex"].attributes["species"] == ("dog",)
    anna, rex = by_label["Anna"], by_label["Rex"]
    pet = next(e for e in view.edges if (e.source, e.target, e.key) == (anna.id, rex.id, "pet"))
    assert pet.label == "pet" and pet.record_ids == tuple(g.edges[anna.id, rex.id, "pet"]["record_ids"])
    assert pet.first_mentioned.startswith("2023-05-08") and view.edge(pet.id) == pet
    assert view.degree()[anna.id] == g.degree[anna.id]

    h = event_graph(built, "g")
    events = view_of(h)
    assert events.kind == "event" and len(events.nodes) == h.number_of_nodes()
    adopt = next(n for n in events.nodes if n.action.startswith("adopt"))
    assert adopt.label == adopt.action and adopt.type == "" and adopt.participants[0] == "Anna"
    assert adopt.time == "2023-05-06" and adopt.source_turn_ids == ("D1:1",)
    for e in events.edges:
        data = h.edges[e.source, e.target]
        assert e.key is None and e.kinds == tuple(data["kinds"]) and e.label == data["kinds"][0]
        assert e.labels == tuple(data["labels"]) and events.edge(e.id) == e
    assert events.node("no such node") is None and events.edge("not json") is None


def test_records_carry_their_entitys_type_unless_an_annotator_set_it(built: Store) -> None:
    # the extractor types a record's entity from the one sentence it read ("Rex loves long
    # walks" reads like a person); after the build the record has the type its entity has
    types = {e.name: e.type for e in built.entities("g")}
    assert types["Julia"] == "person"  # "my wife Julia", though she "painted the view" and took a tram
    rex = [r for r in built.records("g") if r.entity == "Rex"]
    assert types["Rex"] == "animal" and rex and all(r.entity_type == "animal" for r in rex)
    assert all(r.entity_type == types[r.entity] for r in built.records("g") if r.entity in types)
    # a record an annotator wrote or corrected keeps the type given
    by_name = {e.name: e for e in built.entities("g")}
    edited = rex[0].model_copy(update={"entity_type": "person", "version": 2})
    written = rex[0].model_copy(update={"id": "g:x", "entity_type": "person", "origin": "annotator"})
    entity_of = {by_name["Rex"].id: by_name["Rex"]}
    owner = {edited.id: by_name["Rex"].id, written.id: by_name["Rex"].id}
    assert record_types([edited, written], owner, entity_of) == {}
    fresh = edited.model_copy(update={"version": 1})
    assert record_types([fresh], owner, entity_of) == {fresh.id: "animal"}
