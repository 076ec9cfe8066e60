"""Builds on Dask: a LocalCluster of 2 worker processes, a `dask scheduler` + `dask worker` pair
over TCP driven through the CLI, and a worker killed with SIGKILL in the middle of its task.
Each cluster build must leave the same store as a serial build (episode, record, event and
entity ids, vector counts)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_core.backends.offline.backend import OfflineBackend
from memory_core.cli.commands_build import offline_worker_backend
from memory_core.construct.distributed import build_on_cluster
from memory_core.construct.pipeline import build_conversation
from memory_core.construct.sessions import ComputedConversation, compute_conversation
from memory_core.errors import BuildError
from memory_core.models import Conversation
from memory_core.progress import BuildDone
from memory_core.store import Store
from memory_core.store.vectors import VectorIndex
from tests.construct.dialogues import HIKING, POTTERY, TWO_THEMES, conversation, session
from tests.engines import free_port

ROOT = Path(__file__).resolve().parents[2]

POTTERY_LONGER = [
    *POTTERY,
    ("Anna", "Sure. My sister Lena wants to join the class next month."),
    ("Ben", "You two will fill the house with bowls."),
]


def conversations() -> list[Conversation]:
    return [
        conversation("c1", [session(1, TWO_THEMES), session(2, HIKING)]),
        conversation("c2", [session(1, POTTERY_LONGER), session(2, HIKING)]),
        conversation("c3", [session(1, HIKING), session(2, POTTERY_LONGER)]),
    ]


def snapshot(store: Store, index: VectorIndex, conv_id: str) -> dict[str, Any]:
    return {
        "episodes": [e.id for e in store.episodes(conv_id)],
        "records": sorted(r.id for r in store.records(conv_id, include_inactive=True)),
        "events": sorted(v.id for v in store.events(conv_id)),
        "entities": sorted(e.id for e in store.entities(conv_id)),
        "built": store.built_sessions(conv_id),
        "vectors": tuple(index.count(c, where={"conv_id": conv_id})
                         for c in ("turns", "records", "entities")),
    }


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory, embedder) -> dict[str, dict[str, Any]]:
    """The reference: every conversation built locally, one after the other."""
    store = Store(":memory:")
    index = VectorIndex(tmp_path_factory.mktemp("serial") / "chroma")
    backend = OfflineBackend(embedder=embedder)
    out = {}
    for conv in conversations():
        store.save_conversation(conv)
        list(build_conversation(store, index, embedder, conv.id, backend))
        out[conv.id] = snapshot(store, index, conv.id)
    store.close()
    return out


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    from distributed import LocalCluster

    from memory_core.construct.distributed import plain_main

    with plain_main():  # for the cluster's life: a killed worker restarts from the same blank main
        c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                         dashboard_address=":0")  # a free port: 8787 may be taken on a shared machine
        yield c
        c.close()


def fresh(tmp_path: Path) -> tuple[Store, VectorIndex]:
    store = Store(":memory:")
    for conv in conversations():
        store.save_conversation(conv)
    return store, VectorIndex(tmp_path / "chroma")


@pytest.mark.slow  # two worker processes load the models (~20 s); the fast lane: the in-process build
def test_a_local_cluster_build_equals_the_serial_build(cluster: Any, serial: dict[str, dict[str, Any]],
                                                       tmp_path: Path, embedder) -> None:
    from distributed import Client

    store, index = fresh(tmp_path)
    workers_used: dict[str, str] = {}
    with Client(cluster) as client:
        events = list(build_on_cluster(
            store, index, embedder, OfflineBackend(embedder=embedder), offline_worker_backend,
            ["c1", "c2", "c3"], client=client,
            on_result=lambda conv_id, c: workers_used.__setitem__(conv_id, c.worker)))
    kinds = [e.kind for e in events]
    assert kinds[:3] == ["conversation_queued"] * 3
    assert kinds.count("build_started") == 3 and kinds.count("build_done") == 3
    for conv_id in ("c1", "c2", "c3"):  # each conversation's own stream, in order
        mine = [e.kind for e in events if e.conv_id == conv_id]
        assert mine[1] == "build_started" and mine[-1] == "build_done"
        assert mine.count("session_done") == 2 and "episode_formed" in mine
        assert snapshot(store, index, conv_id) == serial[conv_id]
    assert all(str(os.getpid()) not in w.rsplit(":", 1)[-1] for w in workers_used.values())
    done = [e for e in events if isinstance(e, BuildDone)]
    assert all("worker_segment" in e.stats["stages"] for e in done)  # the work happened on the workers
    # a second run has nothing pending: built locally, sessions skipped, nothing queued
    with Client(cluster) as client:
        again = list(build_on_cluster(store, index, embedder, OfflineBackend(embedder=embedder),
                                      offline_worker_backend, ["c1"], client=client))
    assert [e.kind for e in again] == ["build_started", "session_skipped", "session_skipped", "build_done"]
    store.close()


def test_an_in_process_cluster_build_equals_the_serial_build(serial: dict[str, dict[str, Any]],
                                                            tmp_path: Path, embedder) -> None:
    """The fast lane's cluster build: the same submit / compute_task / commit path on a Dask
    cluster whose scheduler and worker are threads of this process (no worker processes to
    start; the process cluster above runs in ``make test``)."""
    from distributed import Client, LocalCluster

    store, index = fresh(tmp_path)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,  # ":0": a free port
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        events = list(build_on_cluster(
            store, index, embedder, OfflineBackend(embedder=embedder), offline_worker_backend,
            ["c1", "c2", "c3"], client=client))
    kinds = [e.kind for e in events]
    assert kinds[:3] == ["conversation_queued"] * 3 and kinds.count("build_done") == 3
    done = [e for e in events if isinstance(e, BuildDone)]
    assert all("worker_segment" in e.stats["stages"] for e in done)
    for conv_id in ("c1", "c2", "c3"):
        assert snapshot(store, index, conv_id) == serial[conv_id]
    store.close()


def test_a_worker_result_for_other_sessions_is_refused_before_anything_is_written(
        tmp_path: Path, embedder) -> None:
    """The replayed source commits only what the worker computed for exactly the sessions this
    build finds pending: a result for session 1 alone, given to a build with both sessions
    pending, is one clear error and leaves no build, episode or vector behind."""
    store, index = fresh(tmp_path)  # c1, c2, c3 imported, nothing built
    conv = conversations()[0]
    partial = compute_conversation(conv, [1], [], OfflineBackend(embedder=embedder), embedder)
    with pytest.raises(BuildError, match=r"conversation 'c1': the worker's result is for other pending "
                                         r"sessions \(\[1\] vs \[1, 2\]\); build it again"):
        list(build_conversation(store, index, embedder, "c1", OfflineBackend(embedder=embedder),
                                computed=partial))
    assert store.builds("c1") == [] and store.episodes("c1") == []
    assert store.built_sessions("c1") == {} and index.count("turns", where={"conv_id": "c1"}) == 0
    store.close()


@pytest.mark.slow  # kills a worker mid-build; the fast lane keeps the in-process cluster build
def test_a_worker_killed_mid_build_costs_only_a_rerun(cluster: Any, serial: dict[str, dict[str, Any]],
                                                      tmp_path: Path, embedder) -> None:
    from distributed import Client

    store, index = fresh(tmp_path)
    killed: dict[str, Any] = {}
    with Client(cluster) as client:
        client.wait_for_workers(2, timeout=60)
        pids = client.run(os.getpid)

        def killer() -> None:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not killed:
                for addr, keys in client.processing().items():
                    if keys and addr in pids:
                        time.sleep(0.5)  # inside the task (it sleeps 4 s before computing)
                        os.kill(pids[addr], signal.SIGKILL)
                        killed.update(pid=pids[addr], key=str(keys[0]))
                        return
                time.sleep(0.05)

        thread = threading.Thread(target=killer, daemon=True)
        thread.start()
        results: dict[str, ComputedConversation] = {}
        events = list(build_on_cluster(
            store, index, embedder, OfflineBackend(embedder=embedder), offline_worker_backend,
            ["c1", "c2", "c3"], client=client, task_extra={"delay_s": 4.0},
            on_result=lambda conv_id, c: results.__setitem__(conv_id, c)))
        thread.join(timeout=5)
    assert killed, "no worker was processing a task to kill"
    victim = next(c for c in ("c1", "c2", "c3") if f"build-{c}-" in killed["key"])
    # the killed worker's conversation was computed again, by another process
    assert not results[victim].worker.endswith(f":{killed['pid']}")
    assert [e.kind for e in events].count("build_done") == 3
    for conv_id in ("c1", "c2", "c3"):
        assert snapshot(store, index, conv_id) == serial[conv_id]
    store.close()


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the dask process exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


@pytest.mark.slow  # a dask scheduler + worker + CLI build in three processes (~30 s)
def test_a_scheduler_and_worker_over_tcp_through_the_cli(serial: dict[str, dict[str, Any]],
                                                         tmp_path: Path) -> None:
    dask = shutil.which("dask", path=str(Path(sys.executable).parent))
    assert dask, "the dask command is missing from the venv"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs: list[subprocess.Popen[bytes]] = []
    try:
        procs.append(subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                       "--no-dashboard"], cwd=ROOT, env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait_for_port(port, procs[0])
        procs.append(subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--nworkers", "1",
                                       "--host", "127.0.0.1", "--no-dashboard"], cwd=ROOT, env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        home = tmp_path / "home"
        store = Store.open_home(home)
        for conv in conversations():
            store.save_conversation(conv)
        store.close()
        run = subprocess.run([sys.executable, "-m", "memory_core", "--home", str(home), "build", "--all",
                              "--scheduler", address], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=600)
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.stdout.count("built 2 sessions") == 3, run.stdout
        assert "worker_extract" in run.stdout  # the stages line shows the work was remote
        store = Store.open_home(home)
        index = VectorIndex.open_home(home)
        for conv_id in ("c1", "c2", "c3"):
            assert snapshot(store, index, conv_id) == serial[conv_id]
        store.close()
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in reversed(procs):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.mark.slow  # waits out the client's 10 s connect timeout
def test_a_scheduler_nobody_runs_is_one_clear_line(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    home = tmp_path / "home"
    store = Store.open_home(home)
    store.save_conversation(conversations()[0])
    store.close()
    run = subprocess.run([sys.executable, "-m", "memory_core", "--home", str(home), "build", "--all",
                          "--scheduler", f"tcp://127.0.0.1:{free_port()}"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    lines = [line for line in run.stderr.strip().splitlines() if line.strip()]
    assert "no Dask scheduler answers there" in lines[-1], run.stderr[-2000:]
    store = Store.open_home(home)
    assert not store.built_sessions("c1")
    store.close()
