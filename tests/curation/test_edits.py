"""Versioned record edits: validation, audit rows, conflicts, re-indexing, export."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memory_core.errors import ConflictError, StoreError
from memory_core.models import RecordStatus
from tests.curation.handmade import CONV

R2 = "c1:S1:E1:R2"  # Ana / uses_medium = watercolour (D1:3)


def vector(services, record_id: str):
    return services.raw_index().get_vectors("records", [record_id]).get(record_id)


def test_edit_saves_new_version_edit_row_and_vector(built) -> None:
    old_vector = vector(built, R2)
    saved = built.curation.edit_record(R2, {"value": "watercolor", "confidence": "0.95"}, who="ana",
                              why="spelling", expected_version=1)
    assert (saved.value, saved.confidence, saved.version) == ("watercolor", 0.95, 2)
    assert built.raw_store().record(R2) == saved
    (edit,) = built.curation.edit_log(CONV)
    assert (edit.action, edit.who, edit.why, edit.target_id) == ("update", "ana", "spelling", R2)
    assert built.curation.record_diff(edit) == [("value", "watercolour", "watercolor"), ("confidence",
            0.6, 0.95)]
    assert edit.before["version"] == 1 and edit.after["version"] == 2
    new_vector = vector(built, R2)
    expected = built.embedder.embed_one(saved.text())
    assert np.allclose(new_vector, expected, atol=1e-5)
    assert not np.allclose(new_vector, old_vector, atol=1e-3)
    hits = built.raw_index().query("records", expected, k=1, where={"conv_id": CONV})
    assert hits[0].id == R2


def test_stale_version_is_a_conflict_naming_the_other_change(built) -> None:
    built.curation.edit_record(R2, {"value": "gouache"}, who="bea", why="she said gouache",
            expected_version=1)
    with pytest.raises(ConflictError) as caught:
        built.curation.edit_record(R2, {"value": "acrylic"}, who="carl", expected_version=1)
    message = str(caught.value)
    assert "bea" in message and "'watercolour' -> 'gouache'" in message and "version 2" in message
    assert "\n" not in message
    assert built.raw_store().record(R2).value == "gouache"
    assert len(built.curation.edit_log(CONV)) == 1  # the refused change wrote nothing


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"confidence": 1.7}, "field 'confidence': expected a number between 0 and 1"),
        ({"confidence": "lots"}, "field 'confidence': expected a number"),
        ({"modality": "perhaps"}, "field 'modality': unknown modality 'perhaps'"),
        ({"entity": "  "}, "field 'entity': must not be empty"),
        ({"entity": "Ana\nBen"}, "field 'entity': must be a single line"),
        ({"value": "x" * 2001}, "field 'value': too long"),
        ({"valid_time": "last summer"}, "field 'valid_time': expected an ISO date"),
        ({"evidence_turn_ids": []}, "field 'evidence_turn_ids': a record must cite at least one"),
        ({"evidence_turn_ids": ["D1:4"]}, "turn 'D1:4' is not inside episode 'c1:S1:E1'"),
        ({"episode_id": "c1:S9:E9"}, "unknown episode 'c1:S9:E9'"),
        ({"episode_id": "c1:S1:E2"}, "turn 'D1:3' is not inside episode 'c1:S1:E2'"),
        ({"version": 9}, "field 'version' cannot be edited"),
        ({"status": "active"}, "field 'status' cannot be edited"),
        ({}, "nothing to change"),
        ({"value": "watercolour"}, "nothing changed"),
    ],
)
def test_invalid_edits_are_refused_with_one_line(built, changes, message) -> None:
    with pytest.raises(StoreError, match=message) as caught:
        built.curation.edit_record(R2, changes, who="ana", expected_version=1)
    assert str(caught.value).startswith(f"record '{R2}'") and "\n" not in str(caught.value)
    assert built.raw_store().record(R2).version == 1 and built.curation.edit_log(CONV) == []


def test_edit_needs_who(built) -> None:
    with pytest.raises(StoreError, match="needs who made it"):
        built.curation.edit_record(R2, {"value": "ink"}, who=" ", expected_version=1)
    assert built.raw_store().record(R2).version == 1


def test_evidence_may_move_inside_the_episode(built) -> None:
    saved = built.curation.edit_record(R2, {"evidence_turn_ids": "D1:2, D1:3"}, who="ana", expected_version=1)
    assert saved.evidence_turn_ids == ("D1:2", "D1:3")


def test_create_record_from_selected_turns(built) -> None:
    rec = built.curation.create_record(CONV, "c1:S1:E2", {"entity": "Ben", "entity_type": "person",
                                                 "property": "likes", "value": "trams",
                                                 "modality": "hypothetical"},
                              ["D1:5"], who="ana", why="missed")
    assert rec.origin == "annotator" and rec.version == 1 and rec.source_speaker == "Ana"
    assert rec.modality.value == "hypothetical" and rec.confidence == 1.0
    assert built.raw_store().record(rec.id) == rec
    (edit,) = built.curation.edit_log(CONV)
    assert edit.action == "create" and edit.before is None and edit.after["value"] == "trams"
    assert vector(built, rec.id) is not None
    rows = built.curation.search_records(CONV, query="trams ben").rows
    assert [r.id for r in rows] == [rec.id]


@pytest.mark.parametrize(
    ("episode", "fields", "evidence", "message"),
    [
        ("c1:S1:E2", {"entity": "Ben", "entity_type": "person", "property": "likes", "value": "x"},
         ["D1:1"], "turn 'D1:1' is not inside episode 'c1:S1:E2'"),
        ("c1:S1:E2", {"entity": "Ben", "entity_type": "person", "property": "likes", "value": "x"},
         [], "must cite at least one evidence turn"),
        ("c1:S1:E2", {"entity": "Ben", "entity_type": "person", "value": "x"}, ["D1:4"],
         "field 'property': must not be empty"),
        ("c1:S1:E2", {"entity": "Ben", "entity_type": "person", "property": "p", "value": "x", "id": "mine"},
         ["D1:4"], "field 'id' is set by the program"),
        ("nope", {"entity": "Ben", "entity_type": "person", "property": "p", "value": "x"}, ["D1:4"],
         "unknown episode 'nope'"),
    ],
)
def test_create_record_refusals(built, episode, fields, evidence, message) -> None:
    with pytest.raises(StoreError, match=message):
        built.curation.create_record(CONV, episode, fields, evidence, who="ana")
    assert built.curation.edit_log(CONV) == [] and built.curation.search_records(CONV).total == 8


def test_delete_and_mark_wrong_leave_the_index_and_export(built) -> None:
    deleted = built.curation.delete_record(R2, who="ana", why="not said", expected_version=1)
    wrong = built.curation.mark_wrong("c1:S1:E1:R3", who="ana")
    assert deleted.status == RecordStatus.DELETED and wrong.status == RecordStatus.WRONG
    assert vector(built, R2) is None and vector(built, "c1:S1:E1:R3") is None
    assert R2 not in {r.id for r in built.raw_store().records(CONV)}
    exported = [json.loads(line) for line in built.curation.export_corrected_records(CONV).splitlines()]
    assert len(exported) == 6 and {R2, "c1:S1:E1:R3"}.isdisjoint(r["id"] for r in exported)
    assert exported[0]["id"] == "c1:S1:E1:R1"
    with pytest.raises(StoreError, match="already deleted"):
        built.curation.delete_record(R2, who="ana")
    with pytest.raises(ConflictError):
        built.curation.mark_wrong("c1:S1:E1:R4", who="ana", expected_version=3)


def test_export_reflects_corrections(built) -> None:
    built.curation.edit_record(R2, {"value": "ink"}, who="ana", expected_version=1)
    exported = {json.loads(line)["id"]: json.loads(line)
                for line in built.curation.export_corrected_records(CONV).splitlines()}
    assert exported[R2]["value"] == "ink" and exported[R2]["version"] == 2


def test_changes_invalidate_query_caches(built) -> None:
    built.queries.index_cache.recheck_s = 3600.0  # without an invalidation the cached index is kept
    first = built.queries.conversation_index(CONV)
    assert built.queries.conversation_index(CONV) is first
    built.curation.edit_record(R2, {"value": "ink"}, who="ana", expected_version=1)
    second = built.queries.conversation_index(CONV)
    assert second is not first
    built.curation.mark_wrong(R2, who="ana")
    assert built.queries.conversation_index(CONV) is not second


def test_an_edited_record_vector_keeps_the_build_metadata(built) -> None:
    """Curation writes the same vector metadata as the build (session included): where the
    record belongs, never its words (no entity, no property)."""
    saved = built.curation.edit_record(R2, {"value": "watercolor"}, who="ana", expected_version=1)
    session = next(e.session for e in built.raw_store().episodes(CONV) if e.id == saved.episode_id)
    hits = built.raw_index().query("records", built.embedder.embed_one(saved.text()), k=1,
                                   where={"conv_id": CONV})
    assert hits[0].id == R2
    assert hits[0].metadata == {"conv_id": CONV, "episode_id": saved.episode_id, "session": session}


def test_each_edit_says_where_it_was_made(built) -> None:
    rec = built.raw_store().record("c1:S1:E1:R2")
    built.curation.edit_record(rec.id, {"value": "gouache"}, who="ana", expected_version=rec.version,
                               via="edit form")
    built.curation.mark_wrong(rec.id, who="ana", via="review queue")
    edit = built.curation.revert_edit(built.curation.edit_log(CONV)[-1].id, who="bea", via="history")
    built.curation.delete_record("c1:S1:E1:R3", who="ana")  # through the library: no place named
    log = built.curation.edit_log(CONV)
    assert [(e.action, e.via) for e in log] == [("update", "edit form"), ("mark_wrong", "review queue"),
                                                ("revert", "history"), ("delete", "")]
    assert built.raw_store().edit(edit.id).via == "history"
    with pytest.raises(StoreError, match=r"'via' .* one line"):
        built.curation.restore_record("c1:S1:E1:R3", who="ana", via="browse\nand more")
