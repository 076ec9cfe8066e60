"""Entity merges, reverts, and the refreshed entity graph."""

from __future__ import annotations

import pytest

from memory_core.errors import ConflictError, StoreError
from memory_core.models import RecordStatus
from memory_core.record_filter import RecordFilter
from tests.curation.handmade import CONV

R2 = "c1:S1:E1:R2"


def names(services) -> set[str]:
    return {e.name for e in services.raw_store().entities(CONV)}


def test_merge_repoints_entity_and_relation_values(built) -> None:
    edit = built.curation.merge_entities(CONV, "Melanie", "mel", who="ana", why="same friend")
    assert (edit.action, edit.target_kind, edit.target_id) == ("merge", "entity", "Mel")
    taught = built.raw_store().record("c1:S1:E1:R3")
    friend = built.raw_store().record("c1:S1:E1:R4")
    assert (taught.entity, taught.version) == ("Melanie", 2)
    assert (friend.entity, friend.value, friend.version) == ("Ana", "Melanie", 2)
    assert built.raw_store().record("c1:S2:E1:R2").version == 1  # already Melanie: untouched
    assert built.curation.search_records(CONV, filters=RecordFilter.of({"entity": "Mel"})).total == 0
    merges = built.raw_store().entity_merges(CONV)
    melanie = next(e for e in built.raw_store().entities(CONV) if e.name == "Melanie")
    assert [(m.canonical_id, m.alias, m.reason) for m in merges] == [(melanie.id, "Mel", "annotator")]
    assert "Mel" in melanie.aliases and "Mel" not in names(built)
    diff = dict((f, (b, a)) for f, b, a in built.curation.record_diff(edit))
    assert diff["merged_into"] == (None, "Melanie")
    assert diff["c1:S1:E1:R4.value"] == ("Mel", "Melanie")
    # entity vectors follow the graph
    assert built.raw_index().get_vectors("entities", [melanie.id])


def test_merge_a_value_only_entity_and_by_any_spelling(built) -> None:
    built.curation.edit_record("c1:S1:E2:R2", {"entity": "Porto"}, who="ana", expected_version=1)
    # Lisbon is now only a destination value (a graph node without records of its own)
    assert "Lisbon" in names(built)
    edit = built.curation.merge_entities(CONV, "porto", "lisbon", who="ana")  # spelled in lower case
    assert (edit.target_id, edit.after["merged_into"]) == ("Lisbon", "Porto")
    assert {built.raw_store().record(r).value for r in ("c1:S1:E2:R1", "c1:S2:E1:R1")} == {"Porto"}
    assert "Lisbon" not in names(built)
    porto = next(e for e in built.raw_store().entities(CONV) if e.name == "Porto")
    assert "Lisbon" in porto.aliases


def test_merge_refusals(built) -> None:
    with pytest.raises(StoreError, match="no record names entity 'Zed'"):
        built.curation.merge_entities(CONV, "Ana", "Zed", who="ana")
    with pytest.raises(StoreError, match="are the same entity"):
        built.curation.merge_entities(CONV, "Ana", "ana", who="ana")
    assert built.curation.edit_log(CONV) == []


def test_revert_merge_restores_records_and_graph(built) -> None:
    merge = built.curation.merge_entities(CONV, "Melanie", "Mel", who="ana")
    revert = built.curation.revert_edit(merge.id, who="bea")
    assert (revert.action, revert.reverts) == ("revert", merge.id)
    assert built.raw_store().record("c1:S1:E1:R3").entity == "Mel"
    assert built.raw_store().record("c1:S1:E1:R4").value == "Mel"
    assert built.raw_store().record("c1:S1:E1:R4").version == 3
    assert built.raw_store().entity_merges(CONV) == [] and "Mel" in names(built)
    again = built.curation.revert_edit(revert.id, who="ana")  # reverting the revert merges again
    assert built.raw_store().record("c1:S1:E1:R3").entity == "Melanie"
    assert [m.alias for m in built.raw_store().entity_merges(CONV)] == ["Mel"]
    assert again.reverts == revert.id


def test_revert_update_restores_before_and_logs_a_new_edit(built) -> None:
    first = built.curation.edit_record(R2, {"value": "ink", "modality": "planned"}, who="ana",
            expected_version=1)
    (edit,) = built.curation.edit_log(CONV)
    revert = built.curation.revert_edit(edit.id, who="bea", why="was right")
    restored = built.raw_store().record(R2)
    assert (restored.value, restored.modality.value, restored.version) == ("watercolour", "observed", 3)
    assert first.version == 2
    assert [e.action for e in built.curation.edit_log(CONV)] == ["update", "revert"]
    assert built.curation.record_diff(revert) == [("value", "ink", "watercolour"), ("modality",
            "planned", "observed")]
    hits = built.raw_index().query("records", built.embedder.embed_one(restored.text()), k=1)
    assert hits[0].id == R2 and hits[0].score > 0.99


def test_revert_conflicts_when_the_record_changed_since(built) -> None:
    built.curation.edit_record(R2, {"value": "ink"}, who="ana", expected_version=1)
    built.curation.edit_record(R2, {"value": "pencil"}, who="carl", expected_version=2)
    first = built.curation.edit_log(CONV)[0]
    with pytest.raises(ConflictError, match=r"changed since \(now version 3; later: update by carl\)"):
        built.curation.revert_edit(first.id, who="bea")
    assert built.raw_store().record(R2).value == "pencil"


def test_revert_of_delete_and_create(built) -> None:
    built.curation.delete_record(R2, who="ana")
    built.curation.revert_edit(built.curation.edit_log(CONV)[-1].id, who="ana")
    assert built.raw_store().record(R2).status == RecordStatus.ACTIVE
    assert built.raw_index().get_vectors("records", [R2])  # back in the index
    rec = built.curation.create_record(CONV, "c1:S2:E1", {"entity": "Ben", "entity_type": "person",
                                                 "property": "asks_about", "value": "Mel"},
                              ["D2:3"], who="ana")
    built.curation.revert_edit(built.curation.edit_log(CONV)[-1].id, who="ana")
    assert built.raw_store().record(rec.id).status == RecordStatus.DELETED
    assert not built.raw_index().get_vectors("records", [rec.id])


def test_unknown_edit(built) -> None:
    with pytest.raises(StoreError, match="unknown edit 'nope'"):
        built.curation.revert_edit("nope", who="ana")


def test_graph_edges_follow_corrections(built) -> None:
    entities = {e.id: e.name for e in built.raw_store().entities(CONV)}
    assert set(entities.values()) == {"Ana", "Ben", "Mel", "Melanie", "Lisbon"}
    built.curation.edit_record(R2, {"value": "ink"}, who="ana", expected_version=1)
    entities = {e.id: e.name for e in built.raw_store().entities(CONV)}
    edges = {(entities[g.source], entities[g.target], g.property) for g in built.raw_store().edges(CONV)}
    assert ("Ben", "Lisbon", "destination") in edges and ("Ana", "Mel", "friend_of") in edges
    built.curation.mark_wrong("c1:S1:E1:R4", who="ana")
    entities = {e.id: e.name for e in built.raw_store().entities(CONV)}
    edges = {(entities[g.source], entities[g.target], g.property) for g in built.raw_store().edges(CONV)}
    assert ("Ana", "Mel", "friend_of") not in edges
    ana = next(e for e in built.raw_store().entities(CONV) if e.name == "Ana")
    assert ana.attributes["uses_medium"] == ["ink"]


def graph_state(services):
    entities = services.raw_store().entities(CONV)
    name = {e.id: e.name for e in entities}
    return (
        sorted((e.name, e.type, e.aliases, sorted(e.attributes.items())) for e in entities),
        sorted((name[g.source], name[g.target], g.property, g.record_ids)
               for g in services.raw_store().edges(CONV)),
        sorted((name[m.canonical_id], m.alias, m.reason) for m in services.raw_store().entity_merges(CONV)),
    )


def test_incremental_patches_equal_a_full_refresh(built) -> None:
    built.curation.merge_entities(CONV, "Melanie", "Mel", who="ana")
    built.curation.edit_record("c1:S1:E2:R2", {"entity": "Porto"}, who="ana", expected_version=1)
    built.curation.create_record(CONV, "c1:S1:E2", {"entity": "Ben", "entity_type": "person",
                                                    "property": "likes", "value": "porto"},
                                 ["D1:5"], who="ana")
    built.curation.mark_wrong("c1:S1:E2:R1", who="ana")
    merge = built.curation.merge_entities(CONV, "Ana", "Ben", who="ana")
    built.curation.revert_edit(merge.id, who="ana")
    built.curation.edit_record("c1:S1:E1:R1", {"entity": "Sunsets", "value": "Ben"}, who="ana",
            expected_version=1)
    patched = graph_state(built)
    built.curation.refresh_entity_graph(CONV)
    assert graph_state(built) == patched
    edges = {(s, t, p) for s, t, p, _ in patched[1]}
    assert ("Ben", "Porto", "likes") in edges and ("Sunsets", "Ben", "paints") in edges
    # no record has Lisbon as its entity any more, but a destination value is an entity mention
    assert ("Ben", "Lisbon", "destination") in edges
    assert "Porto" in {e.name for e in built.raw_store().entities(CONV)}
