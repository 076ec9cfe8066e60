"""The DuckDB repository: round trips, transactions, optimistic concurrency, migrations."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from memory_core.errors import ConflictError, StoreError
from memory_core.models import (
    Conversation,
    Entity,
    EntityMerge,
    Episode,
    EventFrame,
    EventLink,
    GraphEdge,
    Modality,
    QAItem,
    Record,
    RecordStatus,
    Session,
    ThemeType,
    Turn,
)
from memory_core.store import Store
from memory_core.store.schema import SCHEMA_VERSION
from tests.engines import another_process_holding

T1 = datetime(2023, 5, 8, 13, 56)


def conversation(conv_id: str = "c") -> Conversation:
    s1 = Session(index=1, time=T1, time_text="1:56 pm on 8 May, 2023", turns=(
        Turn(id="D1:1", session=1, index=0, speaker="Ana", text="I adopted a cat.", session_time=T1),
        Turn(id="D1:2", session=1, index=1, speaker="Ben", text="", image_caption="a cat",
             image_url="https://example.org/c.jpg", session_time=T1),
    ))
    s2 = Session(index=3, time=None, time_text="", turns=(
        Turn(id="D3:1", session=3, index=0, speaker="Ana", text="Miso opens doors 'now'; DROP TABLE turns;"),
    ))
    qa = (QAItem(qid=0, question="Pet?", answer="a cat", evidence=("D1:1",), category=4),
          QAItem(qid=1, question="Adversarial?", evidence=(), category=5, adversarial_answer="a dog",
                 question_time=datetime(2023, 6, 1)))
    return Conversation(id=conv_id, speakers=("Ana", "Ben"), sessions=(s1, s2), qa=qa, source_format="locomo",
                        source_name="x.json", meta={"observation": {"k": ["v", 1]}, "ü": "ok"})


def memory(conv_id: str = "c") -> tuple[list[Episode], list[Record], list[EventFrame]]:
    ep = Episode(id=f"{conv_id}:S1:E1", conv_id=conv_id, session=1, turn_ids=("D1:1", "D1:2"), theme=("cat",),
                 theme_type=ThemeType.ENTITY, boundary_reason="start", boundary_score=1.0, start_time=T1)
    rec = Record(id=f"{conv_id}:r1", conv_id=conv_id, episode_id=ep.id, entity="Ana", entity_type="person",
                 property="pet", value="cat", modality=Modality.OBSERVED, valid_time="2023-05-06",
                 evidence_turn_ids=("D1:1",), confidence=0.8, source_speaker="Ana")
    ev = EventFrame(id=f"{conv_id}:v1", conv_id=conv_id, episode_id=ep.id, action="adopt",
                    participants=("Ana",), time="2023-05-06", source_turn_ids=("D1:1",))
    return [ep], [rec], [ev]


def test_conversation_round_trip(store: Store):
    conv = conversation()
    store.save_conversation(conv)
    assert store.has_conversation("c") and store.conversation_ids() == ["c"]
    assert store.load_conversation("c") == conv
    assert store.load_conversation("c", with_qa=False).qa == ()
    assert [t.id for t in store.turns("c", ids=["D3:1", "D1:1"])] == ["D1:1", "D3:1"]
    assert store.turns("c", ids=[]) == []
    assert store.qa_items("c") == list(conv.qa)
    stats = store.stats("c")
    assert (stats["conversations"], stats["sessions"], stats["turns"], stats["questions"]) == (1, 2, 3, 2)
    (row,) = store.conversation_summaries()
    summary = [row[k] for k in ("id", "sessions", "turns", "questions", "built_sessions")]
    assert summary == ["c", 2, 3, 2, 0]


def test_saving_an_existing_id_needs_replace(store: Store):
    store.save_conversation(conversation())
    with pytest.raises(StoreError, match="already exists"):
        store.save_conversation(conversation())
    store.save_session_memory("c", 1, *memory(), backend="offline")
    store.save_conversation(conversation(), replace=True)
    assert store.stats("c")["records"] == 0 and store.stats("c")["turns"] == 3
    with pytest.raises(StoreError, match="unknown conversation 'zz' \\(known: c\\)"):
        store.stats("zz")


def test_add_sessions_appends_in_order(store: Store):
    store.save_conversation(conversation())
    extra = Session(index=4, turns=(Turn(id="D4:1", session=4, index=0, speaker="Ben", text="later"),))
    store.add_sessions("c", [extra])
    assert [t.id for t in store.turns("c")] == ["D1:1", "D1:2", "D3:1", "D4:1"]


def test_session_memory_round_trip_and_clear(store: Store):
    store.save_conversation(conversation())
    episodes, records, events = memory()
    store.save_session_memory("c", 1, episodes, records, events, backend="offline", stats={"s": 1.5})
    assert store.episodes("c") == episodes and store.episodes("c", session=3) == []
    assert store.records("c") == records and store.record("c:r1") == records[0]
    assert store.events("c") == events
    assert store.built_sessions("c") == {1: "offline"}
    # saving the session again replaces, never duplicates
    store.save_session_memory("c", 1, episodes, records, events, backend="offline")
    assert len(store.records("c")) == 1
    store.clear_session_memory("c", 1)
    assert (store.episodes("c"), store.records("c"), store.built_sessions("c")) == ([], [], {})


def test_graph_round_trip(store: Store):
    store.save_conversation(conversation())
    store.save_session_memory("c", 1, *memory(), backend="offline")
    entities = [Entity(id="c:ana", conv_id="c", name="Ana", type="person", aliases=("Annie",), importance=0.5,
                       attributes={"pet": ["cat"]})]
    merges = [EntityMerge(conv_id="c", canonical_id="c:ana", alias="Annie", reason="normalised name")]
    edges = [GraphEdge(conv_id="c", source="c:ana", target="c:ana", property="knows", record_ids=("c:r1",),
                       importance=0.3, first_mentioned=T1)]
    links = [EventLink(conv_id="c", source="c:v1", target="c:v1", kind="episode")]
    store.save_graph("c", entities, merges, edges, links, record_importance={"c:r1": 0.9})
    assert store.entities("c") == entities and store.entity_merges("c") == merges
    assert store.edges("c") == edges and store.event_links("c") == links
    assert store.record("c:r1").importance == 0.9
    store.touch_edges("c", ["c:r1"])
    assert store.edges("c")[0].last_accessed is not None


def test_update_record_optimistic_concurrency(store: Store):
    store.save_conversation(conversation())
    store.save_session_memory("c", 1, *memory(), backend="offline")
    first = store.record("c:r1")
    saved = store.update_record(first.model_copy(update={"value": "two cats"}), expected_version=1)
    assert saved.version == 2 and store.record("c:r1").value == "two cats"
    with pytest.raises(ConflictError) as err:  # a second editor still holding version 1
        store.update_record(first.model_copy(update={"status": RecordStatus.WRONG}), expected_version=1)
    assert "now version 2" in str(err.value) and "'two cats'" in str(err.value)
    assert store.record("c:r1").value == "two cats" and store.record("c:r1").status == RecordStatus.ACTIVE
    with pytest.raises(StoreError, match="unknown record"):
        store.record("nope")


def test_atomic_rollback_leaves_nothing(store: Store):
    with pytest.raises(RuntimeError), store.atomic():
        store.save_conversation(conversation("a"))
        with store.atomic():  # nested blocks join the outer transaction
            store.save_conversation(conversation("b"))
        assert store.conversation_ids() == ["a", "b"]
        raise RuntimeError("boom")
    assert store.conversation_ids() == []
    assert store.stats() == {key: 0 for key in store.stats()}
    with store.atomic():
        store.save_conversation(conversation("a"))
    assert store.conversation_ids() == ["a"]


def test_schema_version_and_reopen(open_store):
    with open_store() as store:
        assert store.schema_version == SCHEMA_VERSION
        rows = store.all("SELECT version FROM schema_version ORDER BY version")
        assert [r[0] for r in rows] == list(range(1, SCHEMA_VERSION + 1))
        store.save_conversation(conversation())
    with open_store() as again:  # migrations do not run twice
        assert again.all("SELECT count(*) FROM schema_version")[0][0] == SCHEMA_VERSION
        assert again.load_conversation("c") == conversation()
    with open_store(read_only=True) as ro:
        assert ro.conversation_ids() == ["c"]


def test_a_newer_schema_is_refused(open_store):
    with open_store() as store:
        store.execute("INSERT INTO schema_version VALUES (?)", [SCHEMA_VERSION + 1])
    with pytest.raises(StoreError, match="newer than this program understands"):
        open_store()


def test_a_second_process_on_the_same_home(engine, database_url, tmp_path: Path, open_store):
    """DuckDB: a clear "in use" refusal. PostgreSQL: both processes read and write."""
    open_store().close()
    with another_process_holding(database_url or str(tmp_path / "home")):
        if engine == "duckdb":
            with pytest.raises(StoreError, match="in use by another process"):
                open_store()
        else:
            with open_store() as store:
                store.save_conversation(conversation())
                assert store.scalar("SELECT count(*) FROM schema_version WHERE version = 0") == 1


def test_in_transaction_is_true_inside_atomic_blocks_only(store: Store) -> None:
    assert not store.in_transaction()
    with store.atomic():
        assert store.in_transaction()
        with store.atomic():
            assert store.in_transaction()
        assert store.in_transaction()
    assert not store.in_transaction()
    with pytest.raises(RuntimeError), store.atomic():
        raise RuntimeError("rolled back")
    assert not store.in_transaction()
