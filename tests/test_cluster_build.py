"""Issue 13.4 — conversations built on Dask workers (a LocalCluster with 2 workers, and a
separate ``dask scheduler`` + ``dask worker`` pair over TCP on 127.0.0.1 with one worker
killed mid-build) against PostgreSQL + a Chroma server equal a serial build: the same episode,
record and entity ids, no half-written session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from memory_core.cli import main
from memory_core.config import Settings
from memory_core.services import Services
from memory_core.store import Store
from tests.engines import free_port
from tests.robustness.test_forget import sample

ROOT = Path(__file__).resolve().parents[1]
CONVS = ("c-a", "c-b", "c-c")


def ids(services: Services, conv: str) -> tuple[list[str], list[str], list[str]]:
    store = services.raw_store()
    return ([e.id for e in store.episodes(conv)], sorted(r.id for r in store.records(conv)),
            sorted(e.id for e in store.entities(conv)))


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cluster") / "three.json"
    path.write_text(json.dumps([sample("c-a", "Miso"), sample("c-b", "Pixel"), sample("c-c", "Toast")]))
    return path


@pytest.fixture(scope="module")
def serial(pg_cluster, chroma_server, data, tmp_path_factory, embedder):
    """The ids a serial build makes."""
    name = pg_cluster.fresh()
    settings = Settings(home=tmp_path_factory.mktemp("serial"), database_url=pg_cluster.url(name),
                        chroma_url=chroma_server.fresh())
    services = Services(settings, embedder=embedder)
    services.imports.import_file(data)
    for conv in CONVS:
        for _ in services.builds.build(conv):
            pass
    expected = {conv: ids(services, conv) for conv in CONVS}
    services.close()
    pg_cluster.drop(name)
    return expected


def check(pg_cluster, url: str, chroma: str, home: Path, serial, embedder) -> None:
    built = Services(Settings(home=home, database_url=url, chroma_url=chroma), embedder=embedder)
    try:
        assert {conv: ids(built, conv) for conv in CONVS} == serial
        assert all(built.raw_store().built_sessions(c) == {1: "offline", 2: "offline"} for c in CONVS)
        assert built.raw_index().count("turns") == 15
    finally:
        built.close()


@pytest.mark.slow
def test_two_local_workers_build_what_a_serial_build_builds(pg_cluster, chroma_server, data, serial, tmp_path,
                                                            embedder, monkeypatch, capsys) -> None:
    name, chroma = pg_cluster.fresh(), chroma_server.fresh()
    monkeypatch.setenv("MNEMOSCOPE_CHROMA_URL", chroma)
    home = ["--home", str(tmp_path / "home"), "--database", pg_cluster.url(name)]
    assert main([*home, "import", str(data)]) == 0
    assert main([*home, "build-cluster", "--all", "--workers", "2"]) == 0
    assert "3 of 3 conversations built" in capsys.readouterr().out
    check(pg_cluster, pg_cluster.url(name), chroma, tmp_path / "home", serial, embedder)
    pg_cluster.drop(name)


@pytest.mark.slow
def test_a_worker_killed_mid_build_costs_only_a_rerun(pg_cluster, chroma_server, data, serial, tmp_path,
                                                      embedder) -> None:
    name, chroma = pg_cluster.fresh(), chroma_server.fresh()
    url = pg_cluster.url(name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "MNEMOSCOPE_"))}
    env.update(PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               ANONYMIZED_TELEMETRY="False", MNEMOSCOPE_DATABASE_URL=url, MNEMOSCOPE_CHROMA_URL=chroma)
    home = str(tmp_path / "home")
    subprocess.run([sys.executable, "-m", "memory_core", "--home", home, "import", str(data)], env=env,
                   cwd=ROOT, check=True, capture_output=True)
    dask = str(Path(sys.executable).with_name("dask"))
    port = free_port()
    log = (tmp_path / "dask.log").open("wb")
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                  "--no-dashboard"], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    workers = [subprocess.Popen([dask, "worker", f"tcp://127.0.0.1:{port}", "--nthreads", "1", "--no-nanny",
                                 "--no-dashboard"], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
               for _ in range(2)]
    build: subprocess.Popen[str] | None = None
    try:
        command = [sys.executable, "-m", "memory_core", "--home", home, "build-cluster", "--all",
                   "--scheduler", f"tcp://127.0.0.1:{port}"]
        build = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        store = Store(url)
        deadline = time.monotonic() + 300
        while store.scalar("SELECT count(*) FROM built_sessions") == 0:  # a session is committed
            assert time.monotonic() < deadline and build.poll() is None
            time.sleep(0.2)
        store.close()
        assert workers[0].poll() is None and build.poll() is None
        workers[0].kill()  # kill -9 in the middle of the build
        out, err = build.communicate(timeout=600)
        assert build.returncode == 0, err
        assert "3 of 3 conversations built" in out
    finally:
        procs: list[subprocess.Popen[Any] | None] = [build, *workers, scheduler]
        for proc in procs:
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        log.close()
    assert b"Remove worker" in (tmp_path / "dask.log").read_bytes()  # the scheduler saw it die
    check(pg_cluster, url, chroma, Path(home), serial, embedder)
    pg_cluster.drop(name)


def test_build_cluster_needs_the_servers(tmp_path: Path, capsys) -> None:
    assert main(["--home", str(tmp_path), "build-cluster", "--all", "--workers", "2"]) == 1
    assert "build-cluster: workers share the home through servers" in capsys.readouterr().err
