"""The two store engines and the two vector-index modes: settings, one-line failures, dialect."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from memory_core.config import Settings
from memory_core.errors import ConfigError, StoreError
from memory_core.models import GraphEdge
from memory_core.store import Store, VectorIndex
from memory_core.store.engines import _pg, redact
from tests.engines import free_port
from tests.test_store import conversation, memory

ROOT = Path(__file__).resolve().parents[1]


def test_settings_read_the_two_urls() -> None:
    env = {"MNEMOSCOPE_DATABASE_URL": "postgresql://app:pw@db:5432/mnemo",
           "MNEMOSCOPE_CHROMA_URL": "http://chroma:8000"}
    settings = Settings.from_env(env)
    assert settings.database_url == env["MNEMOSCOPE_DATABASE_URL"]
    assert settings.chroma_url == "http://chroma:8000"
    assert "pw" not in repr(settings)
    assert Settings.from_env({}).database_url is None and Settings.from_env({}).chroma_url is None
    with pytest.raises(ConfigError, match="MNEMOSCOPE_DATABASE_URL: expected a postgresql://"):
        Settings.from_env({"MNEMOSCOPE_DATABASE_URL": "mysql://x/y"})
    with pytest.raises(ConfigError, match="MNEMOSCOPE_CHROMA_URL: expected http://host:port"):
        Settings.from_env({"MNEMOSCOPE_CHROMA_URL": "chroma:8000"})


def test_placeholders_and_passwords() -> None:
    assert _pg("SELECT '?', x FROM t WHERE a = ? AND b LIKE '5%' AND c = ?") == \
        "SELECT '?', x FROM t WHERE a = %s AND b LIKE '5%%' AND c = %s"
    assert redact("postgresql://app:s3cret@db:5432/m?sslmode=require") == \
        "postgresql://app@db:5432/m?sslmode=require"
    assert redact("postgresql://postgres@/m?host=/tmp/s") == "postgresql://postgres@/m?host=/tmp/s"


def test_database_down_is_one_line_without_the_password() -> None:
    url = f"postgresql://app:s3cret@127.0.0.1:{free_port()}/mnemo"
    with pytest.raises(StoreError) as err:
        Store(url)
    message = str(err.value)
    assert message == f"database down: {redact(url)}: connection refused"
    assert "s3cret" not in message


def test_cli_database_down(tmp_path: Path) -> None:
    url = f"postgresql://app:s3cret@127.0.0.1:{free_port()}/mnemo"
    done = subprocess.run([sys.executable, "-m", "memory_core", "--home", str(tmp_path), "--database", url,
                           "stats"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [f"error: database down: {redact(url)}: connection refused"]
    bad = subprocess.run([sys.executable, "-m", "memory_core", "--database", "sqlite:///x", "stats"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1
    assert bad.stderr.strip() == "error: --database: expected a postgresql://… URL, got 'sqlite://…'"


def test_a_dropped_connection_is_a_clear_error(pg_cluster) -> None:
    name = pg_cluster.fresh()
    store = Store(pg_cluster.url(name))
    store.save_conversation(conversation())
    pg_cluster._admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", [name])
    with pytest.raises(StoreError, match=r"^database down: postgresql://postgres@/t\S+: ") as err:
        store.stats()
    assert "\n" not in str(err.value)
    store.close()
    pg_cluster.drop(name)


def test_chroma_server_down_is_one_line() -> None:
    port = free_port()
    index = VectorIndex(url=f"http://127.0.0.1:{port}")  # opens on first use
    with pytest.raises(StoreError) as err:
        index.count("turns")
    assert str(err.value) == (f"vector index down: http://127.0.0.1:{port}: no Chroma server answers "
                              f"(start one with `chroma run --path DIR --host 127.0.0.1 --port {port}`)")


def test_types_and_bulk_rows_round_trip(store: Store, engine: str) -> None:
    """numpy scalars, datetimes, JSON text and NULLs come back the same on both engines."""
    assert store.engine == engine
    store.save_conversation(conversation())
    episodes, records, events = memory()
    rec = records[0].model_copy(update={"confidence": float(np.float32(0.25)), "importance": 0.125})
    store.save_session_memory("c", 1, episodes, [rec], events, backend="offline", stats={"t": 1.5})
    edge = GraphEdge(conv_id="c", source="a", target="b", property="knows", record_ids=("c:r1", "x"),
                     importance=float(np.float64(0.5)), first_mentioned=datetime(2023, 5, 8, 13, 56, 1, 250))
    store.save_graph("c", [], [], [edge], [], record_importance={"c:r1": 0.75})
    assert store.record("c:r1").importance == 0.75
    assert store.edges("c") == [edge]
    store.touch_edges("c", ["nothing"])  # no edge carries that record: nothing is touched
    assert store.edges("c")[0].last_accessed is None
    store.touch_edges("c", ["x"])
    assert store.edges("c")[0].last_accessed is not None
    store.cache_response("k", "http://e", "m", "first", 1, 2)
    store.cache_response("k", "http://e", "m", "second", 3, 4)  # an upsert, never a duplicate
    assert store.cached_response("k") == ("second", 3, 4)


def test_vectors_round_trip_in_both_modes(settings: Settings, engine: str) -> None:
    index = VectorIndex.open_settings(settings)
    assert (index.url is not None) == (engine == "postgres")
    vectors = np.eye(3, dtype=np.float32)
    metas = [{"conv_id": "a"}, {"conv_id": "a"}, {"conv_id": "b"}]
    index.upsert("turns", ["a:1", "a:2", "b:1"], vectors, metas)
    hits = index.query("turns", vectors[1], k=2)
    assert hits[0].id == "a:2" and hits[0].score == pytest.approx(1.0, abs=1e-5)
    index.delete_conversation("a")
    assert index.count("turns") == 1 and index.count("turns", {"conv_id": "b"}) == 1
    assert set(index.get_vectors("turns", ["b:1"])) == {"b:1"}


def test_chroma_keeps_no_words_and_a_compaction_strips_an_older_index(settings: Settings) -> None:
    """Chroma gets vectors, keys and where-to metadata only; an index written when it was still
    handed documents, names and name-made ids loses them at the next compaction, and its
    vectors are found under our ids before and after."""
    index = VectorIndex.open_settings(settings)
    vectors = np.eye(2, dtype=np.float32)
    index.upsert("entities", ["c:ent:quillon"], vectors[:1], [{"conv_id": "c", "name": "Quillon"}])
    kept = index._collections["entities"].get(where={"conv_id": "c"}, include=["documents", "metadatas"])
    assert "quillon" not in str(kept).lower() and kept["metadatas"] == [{"conv_id": "c"}]
    # as an index written before looks: the name in the id, a document and the metadata
    old = {"conv_id": "c", "name": "Vantrel"}
    index._collections["entities"].upsert(ids=["c:ent:vantrel"], embeddings=[vectors[1].tolist()],
                                          documents=["Vantrel"], metadatas=[old])
    both = ["c:ent:quillon", "c:ent:vantrel"]
    assert set(index.get_vectors("entities", both)) == set(both)
    index.compact()
    stripped = index._collections["entities"].get(where={"conv_id": "c"}, include=["documents", "metadatas"])
    assert "vantrel" not in str(stripped).lower() and "quillon" not in str(stripped).lower()
    assert stripped["documents"] == [None, None] and stripped["metadatas"] == [{"conv_id": "c"}] * 2
    found = index.get_vectors("entities", both)
    assert np.allclose(found["c:ent:vantrel"], vectors[1])
    index.delete("entities", ids=["c:ent:vantrel"])
    assert index.count("entities", {"conv_id": "c"}) == 1


def test_two_connections_replacing_the_same_graph_rows(store: Store, engine: str, open_store) -> None:
    """Two processes' graph patches re-insert the same entity ids: serialised, never a key clash."""
    import threading

    from memory_core.models import Entity

    store.save_conversation(conversation())
    other = open_store() if engine == "postgres" else store  # DuckDB: one process, one store
    entity = Entity(id="c:ana", conv_id="c", name="Ana", type="person")
    failures: list[Exception] = []
    barrier = threading.Barrier(2)

    def patch(s: Store) -> None:
        barrier.wait()
        for _ in range(30):
            try:
                s.patch_graph("c", delete_entity_ids=[], entities=[entity], delete_edge_sources=[], edges=[],
                              merges_reason="test", merges=[])
            except Exception as exc:
                failures.append(exc)

    threads = [threading.Thread(target=patch, args=(s,)) for s in (store, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    if other is not store:
        other.close()
    assert failures == [] and store.entities("c") == [entity]
