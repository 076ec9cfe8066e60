"""Issue 13.4, the Load page's progress per conversation: the build-status table (both
engines) and what a build on a real in-process Dask ``LocalCluster`` writes into it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_core.backends.offline.backend import OfflineBackend
from memory_core.contracts import ConversationInfo
from memory_core.embeddings import shared_embedder
from memory_core.errors import BuildError, StoreError
from memory_core.models import Episode, Session
from memory_core.services.building import one_line
from tests.robustness.test_forget import sample


def write(path: Path, *ids: str) -> Path:
    path.write_text(json.dumps([sample(conv_id, pet) for conv_id, pet in zip(ids, ("Miso", "Pixel", "Toast"),
                                                                              strict=False)]))
    return path


# ---------------------------------------------------------------------------- the table (both engines)
def test_a_row_per_conversation_the_latest_run_and_unknown_states_refused(store, engine) -> None:
    assert store.build_status() == []
    store.set_build_status("a", "run-1", "queued", stage="waiting for a worker", worker="client")
    store.set_build_status("b", "run-1", "queued", worker="client")
    store.set_build_status("a", "run-1", "building", stage="session 1 (2 to build)", worker="tcp://w1")
    rows = store.build_status()
    assert [(r["conv_id"], r["state"], r["stage"], r["worker"]) for r in rows] == [
        ("a", "building", "session 1 (2 to build)", "tcp://w1"), ("b", "queued", "", "client")]
    store.set_build_status("b", "run-2", "failed", error="conversation 'b': boom")  # a newer run
    assert [(r["conv_id"], r["state"], r["error"]) for r in store.build_status()] == [
        ("b", "failed", "conversation 'b': boom")]
    assert [r["conv_id"] for r in store.build_status("run-1")] == ["a"]
    with pytest.raises(StoreError, match="unknown state 'half'"):
        store.set_build_status("a", "run-1", "half")
    assert store.build_status("run-1")[0]["state"] == "building"


def test_forgetting_a_conversation_removes_its_status_row(services, tmp_path: Path) -> None:
    services.imports.import_file(write(tmp_path / "two.json", "s-a", "s-b"))
    for conv in ("s-a", "s-b"):
        services.raw_store().set_build_status(conv, "run-x", "failed", error=f"{conv}: could not build")
    services.imports.forget("s-a", who="test")
    assert [r.conv_id for r in services.builds.build_status("run-x")] == ["s-b"]


def test_one_line_errors() -> None:
    assert one_line(BuildError("conversation 'x': bad episode\nmore")) == "conversation 'x': bad episode"
    assert one_line(RuntimeError("worker lost")) == "RuntimeError: worker lost"
    assert one_line(KeyError()) == "KeyError"


# ---------------------------------------------------------------------------- a real LocalCluster
class HalfSegmenting(OfflineBackend):
    """The offline backend, but its segmentation forgets the session's last turn: the build's
    validation refuses that (a backend's wrong answer, the same on any worker)."""

    def segment(self, session: Session, info: ConversationInfo) -> list[Episode]:
        episodes = super().segment(session, info)
        last = episodes[-1]
        return [*episodes[:-1], last.model_copy(update={"turn_ids": last.turn_ids[:-1]})]


def dropping_backend() -> OfflineBackend:
    return HalfSegmenting(embedder=shared_embedder())


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    from distributed import LocalCluster

    c = LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                     dashboard_address=":0")  # 8787 may be taken by another cluster
    yield c
    c.close()


def test_a_cluster_build_writes_each_conversations_state_as_it_goes(
        cluster, services, tmp_path: Path) -> None:
    from distributed import Client

    from memory_core.cli.commands_build import offline_worker_backend

    services.imports.import_file(write(tmp_path / "two.json", "k-a", "k-b"))
    seen: dict[str, list[tuple[str, str]]] = {"k-a": [], "k-b": []}
    with Client(cluster) as client:
        for _event in services.builds.build_on_cluster(["k-a", "k-b"], offline_worker_backend, client=client,
                                                       run_id="run-ok"):
            for row in services.builds.build_status("run-ok"):  # what the page would read now
                if not seen[row.conv_id] or seen[row.conv_id][-1] != (row.state, row.stage):
                    seen[row.conv_id].append((row.state, row.stage))
    for conv in ("k-a", "k-b"):
        states = [state for state, _ in seen[conv]]
        assert states[0] == "queued" and states[-1] == "done", seen[conv]
        assert "building" in states and states.index("building") < states.index("done")
        assert any(stage.startswith("session 2 saved") for _, stage in seen[conv]), seen[conv]
    final = services.builds.build_status()
    assert [(r.conv_id, r.state, r.error) for r in final] == [("k-a", "done", ""),
                                                                        ("k-b", "done", "")]
    assert services.raw_store().built_sessions("k-a") == {1: "offline", 2: "offline"}


def test_a_failed_cluster_build_shows_its_one_line_error(cluster, services, tmp_path: Path) -> None:
    from distributed import Client

    services.imports.import_file(write(tmp_path / "two.json", "f-a", "f-b"))
    with Client(cluster) as client, pytest.raises(BuildError) as raised:
        for _ in services.builds.build_on_cluster(["f-a", "f-b"], dropping_backend, client=client,
                                                  run_id="run-bad"):
            pass
    line = str(raised.value).splitlines()[0]
    rows = services.builds.build_status()
    assert [(r.conv_id, r.run_id, r.state) for r in rows] == [("f-a", "run-bad", "failed"),
                                                                       ("f-b", "run-bad", "failed")]
    [about] = [r for r in rows if f"'{r.conv_id}'" in line]  # the one the error names: its line
    assert about.error == line and "\n" not in line
    [other] = [r for r in rows if r is not about]  # the other one: not built, and why
    assert other.error == f"not built: the run stopped ({line})"
    assert services.raw_store().built_sessions("f-a") == services.raw_store().built_sessions("f-b") == {}


def test_a_worker_building_itself_writes_its_stages(services, tmp_path: Path) -> None:
    """``build-cluster``'s task body (team mode: the worker writes) on this process."""
    services.imports.import_file(write(tmp_path / "one.json", "w-a"))
    states = []
    for event in services.builds.build_tracked("w-a", "run-w", worker="tcp://127.0.0.1:1"):
        if event.kind in ("build_started", "session_done", "build_done"):
            [row] = services.builds.build_status("run-w")
            states.append((row.state, row.stage))
    assert states[0] == ("building", "starting") and states[-1] == ("done", "")
    assert ("building", "session 1 saved (2 to build)") in states
    assert services.builds.build_status()[0].worker == "tcp://127.0.0.1:1"


@pytest.mark.team_engines
def test_build_cluster_tasks_write_their_own_rows_on_the_team_engines(
        cluster, services, settings, engine, tmp_path: Path) -> None:
    """``build-cluster``'s task (``build_on_worker``) on a real worker: it opens the shared
    PostgreSQL store and Chroma server itself and writes its conversation's row."""
    assert engine == "postgres"  # build-cluster needs the team engines (workers open the store themselves)
    from distributed import Client

    from memory_core.cli.commands_cluster import build_on_worker

    services.imports.import_file(write(tmp_path / "one.json", "t-a"))
    services.raw_store().set_build_status("t-a", "run-team", "queued", worker="client")
    with Client(cluster) as client:
        result = client.submit(build_on_worker, settings, "t-a", "run-team", pure=False).result()
        workers = set(client.scheduler_info()["workers"])
    assert result["conv_id"] == "t-a" and result["records"] > 0
    [row] = services.builds.build_status()
    assert (row.run_id, row.state, row.error) == ("run-team", "done", "")
    assert row.worker in workers  # written by the worker, not the client


def test_an_abandoned_build_does_not_stay_building(services, tmp_path: Path) -> None:
    """A run stopped mid-way (Ctrl-C in the CLI, a consumer that stops reading) ends
    ``failed: interrupted``, so the Load page does not poll a run that will never finish."""
    services.imports.import_file(write(tmp_path / "one.json", "i-a"))
    events = services.builds.build_tracked("i-a", "run-i", worker="local")
    assert next(events).kind == "build_started"
    assert services.builds.build_status("run-i")[0].state == "building"
    events.close()
    [row] = services.builds.build_status("run-i")
    assert (row.state, row.error) == ("failed", "interrupted")
