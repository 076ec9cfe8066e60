"""Reviewing records, pure parts: the review queue's order and supersession."""

from __future__ import annotations

from datetime import datetime

from memory_core.curation.review import cite_counts, review_queue, superseded_by
from memory_core.models import Answer, Match, MatchKind, Modality, Plan, Record, RecordStatus, Trace

ORDER = {"e1": 0, "e2": 1, "e3": 2}


def rec(rid: str, episode: str, value: str, *, entity: str = "Maya", prop: str = "lives_in",
        confidence: float = 0.5, importance: float = 0.0, status: RecordStatus = RecordStatus.ACTIVE,
        modality: Modality = Modality.OBSERVED) -> Record:
    return Record(id=rid, conv_id="c1", episode_id=episode, entity=entity, entity_type="person",
                  property=prop, value=value, evidence_turn_ids=("D1:1",), confidence=confidence,
                  importance=importance, status=status, modality=modality)


def trace(tid: str, record_ids: list[str]) -> Trace:
    return Trace(id=tid, conv_id="c1", question="q", strategy="s", backend="offline", plan=Plan(question="q"),
                 matches=tuple(Match(requirement=0, kind=next(iter(MatchKind)), score=1.0, record_id=r)
                               for r in record_ids),
                 answer=Answer(text="a"), created_at=datetime(2024, 1, 1))


def test_cite_counts_count_each_trace_once() -> None:
    counts = cite_counts([trace("t1", ["r1", "r1", "r2"]), trace("t2", ["r1"])])
    assert counts == {"r1": 2, "r2": 1}


def test_review_queue_lowest_confidence_then_most_cited() -> None:
    records = [rec("a", "e1", "x", confidence=0.9), rec("b", "e1", "y", confidence=0.3),
               rec("c", "e1", "z", confidence=0.3), rec("d", "e1", "w", confidence=0.1,
                                                       status=RecordStatus.WRONG),
               rec("e", "e1", "v", confidence=0.3, importance=2.0)]
    queue = review_queue(records, {"c": 3})
    assert [r.id for r in queue] == ["c", "e", "b", "a"]  # wrong records are not queued
    assert [r.id for r in review_queue(records, {"c": 3}, skip={"c", "e"})] == ["b", "a"]


def test_a_later_value_supersedes_an_earlier_one() -> None:
    lisbon, berlin = rec("r1", "e1", "Lisbon"), rec("r2", "e3", "Berlin")
    assert superseded_by([berlin, lisbon], ORDER) == {"r1": "r2"}


def test_the_latest_record_supersedes_every_earlier_different_value() -> None:
    records = [rec("r1", "e1", "Lisbon"), rec("r2", "e2", "Porto"), rec("r3", "e3", " berlin"),
               rec("r4", "e3", "Berlin")]
    assert superseded_by(records, ORDER) == {"r1": "r4", "r2": "r4"}  # latest by (episode, id)


def test_same_value_other_entity_or_episode_do_not_supersede() -> None:
    records = [rec("r1", "e1", "Lisbon"), rec("r2", "e2", "lisbon"),  # repeated, not updated
               rec("r3", "e1", "Porto", entity="Jonas"), rec("r4", "e3", "Rome", prop="visited")]
    assert superseded_by(records, ORDER) == {}


def test_a_refinement_is_not_an_update() -> None:
    records = [rec("r1", "e1", "sound engineer at a friend's studio", prop="occupation"),
               rec("r2", "e2", "sound engineer", prop="occupation")]
    assert superseded_by(records, ORDER) == {}


def test_many_valued_properties_never_supersede() -> None:
    records = [rec("r1", "e1", "tea", prop="likes"), rec("r2", "e1", "jazz", prop="likes"),
               rec("r3", "e2", "chess", prop="likes")]
    assert superseded_by(records, ORDER) == {}


def test_a_property_many_valued_for_one_entity_is_many_valued_for_all() -> None:
    records = [rec("r1", "e1", "tea", prop="likes", entity="Jonas"),
               rec("r2", "e1", "jazz", prop="likes", entity="Jonas"),
               rec("r3", "e1", "chess", prop="likes"), rec("r4", "e2", "golf", prop="likes")]
    assert superseded_by(records, ORDER) == {}


def test_inactive_and_planned_records_neither_supersede_nor_are_superseded() -> None:
    records = [rec("r1", "e1", "Lisbon"), rec("r2", "e2", "Berlin", status=RecordStatus.WRONG),
               rec("r3", "e3", "Paris", modality=Modality.PLANNED)]
    assert superseded_by(records, ORDER) == {}


def test_only_states_supersede_not_what_accumulates() -> None:
    records = [rec("r1", "e1", "Priya", prop="colleague"), rec("r2", "e3", "Tomas", prop="colleague"),
               rec("r3", "e1", "train", prop="means_of_transport"),
               rec("r4", "e2", "ferry", prop="means_of_transport"),
               rec("r5", "e1", "sound engineer", prop="occupation"),
               rec("r6", "e3", "producer", prop="occupation"),
               rec("r7", "e1", "green", prop="favorite_color"),
               rec("r8", "e2", "blue", prop="favorite_color")]
    assert superseded_by(records, ORDER) == {"r5": "r6", "r7": "r8"}
