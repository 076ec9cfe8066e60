"""Both store engines under the same tests: a throwaway PostgreSQL cluster and a Chroma server.

Tests that ask (directly or through ``store``/``settings``/``services``) for the ``engine``
fixture and live in one of ``ENGINE_SUITES`` run twice: ``[duckdb]`` (the embedded default,
a DuckDB file + embedded Chroma) and ``[postgres]`` (PostgreSQL + a Chroma server). Every
other test gets ``duckdb``.

One PostgreSQL cluster (``initdb``/``pg_ctl`` on a Unix socket in a temp dir, as the
``postgres`` user when running as root) and one ``chroma run`` server on a free loopback port
start on first use and stop at the end of the session. Each test gets a fresh database,
copied from a migrated template (``CREATE DATABASE … TEMPLATE``, ~0.1 s), and a fresh
Chroma database on the server.
"""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

PG_BIN = Path(os.environ.get("MNEMOSCOPE_PG_BIN", "/usr/lib/postgresql/15/bin"))
ENGINES = ("duckdb", "postgres")
# the suites that run against both engines (paths relative to tests/)
ENGINE_SUITES = (
    "test_store.py",
    "test_access.py",
    "curation/",
    "ingest/test_service.py",
    "construct/test_service_cli.py",
    "robustness/test_concurrency.py",
    "robustness/test_forget.py",
    "test_engines.py",
    "scale/",
    "mcp_server/test_growth.py",
)
TESTS = Path(__file__).resolve().parent
_names = itertools.count()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


HOLDER = """
import sys
from memory_core.store import Store
s = Store(sys.argv[1]) if sys.argv[1].startswith("postgresql://") else Store.open_home(sys.argv[1])
s.execute("INSERT INTO schema_version VALUES (?)", [0])  # a write, held open
print("ready", flush=True)
sys.stdin.readline()
s.close()
"""


@contextmanager
def another_process_holding(target: str, env: dict[str, str] | None = None) -> Iterator[None]:
    """A second process keeps ``target`` (a home directory or a PostgreSQL URL) open, after one
    write, until the block ends."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, target], cwd=TESTS.parent, env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(30)


def _as_postgres(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


class PostgresCluster:
    """A throwaway cluster: trust auth, Unix socket only, no fsync (tests only)."""

    def __init__(self) -> None:
        if not (PG_BIN / "initdb").exists():
            pytest.fail(f"PostgreSQL is not installed ({PG_BIN}/initdb missing): "
                        "`apt-get install -y postgresql` (make test does it)")
        self.root = Path(tempfile.mkdtemp(prefix="mnemoscope-pg-"))
        self.data, self.sock = self.root / "data", self.root / "sock"
        self.data.mkdir()
        self.sock.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
            for d in (self.data, self.sock):
                shutil.chown(d, "postgres")
        self.port = free_port()
        subprocess.run(_as_postgres([str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres",
                                     "-A", "trust", "-E", "UTF8", "--no-sync"]),
                       check=True, capture_output=True)
        options = (f"-k {self.sock} -p {self.port} -c listen_addresses='' -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        subprocess.run(_as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", options,
                                     "-l", str(self.sock / "pg.log"), "-w", "start"]),
                       check=True, capture_output=True)
        import psycopg

        self._admin = psycopg.connect(self.url("postgres"), autocommit=True)
        self._admin.execute("CREATE DATABASE mnemoscope_template")
        from memory_core.store import Store

        Store(self.url("mnemoscope_template")).close()  # migrated once, copied per test

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={self.sock}&port={self.port}"

    def fresh(self) -> str:
        name = f"t{os.getpid()}_{next(_names)}"
        self._admin.execute(f"CREATE DATABASE {name} TEMPLATE mnemoscope_template")
        return name

    def checkpoint(self) -> None:
        """Flush shared buffers to the table files (before scanning them)."""
        self._admin.execute("CHECKPOINT")

    def drop(self, name: str) -> None:
        self._admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        self._admin.close()
        stop = [str(PG_BIN / "pg_ctl"), "-D", str(self.data), "stop", "-m", "immediate"]
        subprocess.run(_as_postgres(stop), capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)


class ChromaServer:
    """``chroma run`` on a free loopback port with its data in a temp dir."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="mnemoscope-chroma-"))
        self.port = free_port()
        chroma = Path(sys.executable).with_name("chroma")
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
        self.log = (self.root / "server.log").open("wb")
        self.proc = subprocess.Popen([str(chroma), "run", "--path", str(self.root / "data"), "--host",
                                      "127.0.0.1", "--port", str(self.port)],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{self.base}/api/v2/heartbeat", timeout=2):
                    break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    pytest.fail(f"chroma server did not start (see {self.root}/server.log)")
                time.sleep(0.1)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def fresh(self) -> str:
        return f"{self.base}/t{os.getpid()}_{next(_names)}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)


# ---------------------------------------------------------------------------- hooks and fixtures
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "engine" not in metafunc.fixturenames:
        return
    rel = Path(str(metafunc.definition.path)).resolve().relative_to(TESTS).as_posix()
    if any(rel == s or (s.endswith("/") and rel.startswith(s)) for s in ENGINE_SUITES):
        team_only = metafunc.definition.get_closest_marker("team_engines") is not None
        metafunc.parametrize("engine", ("postgres",) if team_only else ENGINES, indirect=True)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PostgresCluster]:
    cluster = PostgresCluster()
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def chroma_server() -> Iterator[ChromaServer]:
    server = ChromaServer()
    yield server
    server.stop()


@pytest.fixture
def engine(request: pytest.FixtureRequest) -> str:
    """``duckdb`` or ``postgres`` (parametrised in ``ENGINE_SUITES``)."""
    return str(getattr(request, "param", "duckdb"))


@pytest.fixture
def database_url(engine: str, request: pytest.FixtureRequest) -> Iterator[str | None]:
    """A fresh, migrated PostgreSQL database for this test (None on DuckDB)."""
    if engine != "postgres":
        yield None
        return
    cluster: PostgresCluster = request.getfixturevalue("pg_cluster")
    name = cluster.fresh()
    yield cluster.url(name)
    cluster.drop(name)


@pytest.fixture
def chroma_url(engine: str, request: pytest.FixtureRequest) -> str | None:
    """A fresh Chroma database on the shared server (None on DuckDB: embedded Chroma)."""
    if engine != "postgres":
        return None
    server: ChromaServer = request.getfixturevalue("chroma_server")
    return server.fresh()


@pytest.fixture
def open_store(engine: str, database_url: str | None, tmp_path: Path):
    """open_store(read_only=False) -> a new connection to this test's database: the home's
    DuckDB file, or this test's PostgreSQL database."""
    from memory_core.store import Store

    def _open(*, read_only: bool = False) -> Store:
        if database_url is not None:
            return Store(database_url, read_only=read_only)
        return Store.open_home(tmp_path / "home", read_only=read_only)

    return _open
