"""Issue 7.4 — two annotators on one record; the CLI while another process holds the home."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memory_core.errors import ConflictError
from memory_core.models import Record
from memory_core.services import Services
from tests.curation.handmade import CONV, index_records, load
from tests.engines import another_process_holding

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def two_sessions(settings, engine, embedder):
    """Two services objects over one home. DuckDB: one store, index and model shared (two
    browser sessions of one app). PostgreSQL + Chroma server: two connections and two Chroma
    clients, as two app processes have."""
    first = Services(settings, embedder=embedder)
    load(first.raw_store())
    index_records(first)
    if engine == "duckdb":
        second = Services(settings, store=first.raw_store(), index=first.raw_index(), embedder=embedder)
    else:
        second = Services(settings, embedder=embedder)
    yield first, second
    if second.raw_store() is not first.raw_store():
        second.close()
    first.close()


def race(calls: list) -> list[object]:
    """Run the calls at the same moment in threads; each result is a value or the exception."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = calls[i]()
        except Exception as exc:
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


@pytest.mark.parametrize("record_id", ["c1:S1:E1:R1", "c1:S1:E2:R1", "c1:S2:E1:R2"])
def test_same_version_edited_twice_exactly_one_wins(two_sessions, record_id) -> None:
    ana, bea = two_sessions
    start = ana.raw_store().record(record_id)
    results = race([
        lambda: ana.curation.edit_record(record_id, {"value": "from ana"}, who="ana", why="mine",
                                expected_version=start.version),
        lambda: bea.curation.edit_record(record_id, {"value": "from bea", "confidence": 0.2}, who="bea",
                                expected_version=start.version),
    ])
    wins = [r for r in results if isinstance(r, Record)]
    losses = [r for r in results if isinstance(r, Exception)]
    assert len(wins) == 1 and len(losses) == 1
    assert isinstance(losses[0], ConflictError)
    winner = wins[0]
    final = ana.raw_store().record(record_id)
    assert final == winner and final.version == start.version + 1
    message = str(losses[0])
    who = "ana" if winner.value == "from ana" else "bea"
    assert f"by {who}" in message and repr(winner.value) in message and "reload" in message
    assert "\n" not in message
    log = ana.curation.edit_log(CONV)
    assert len(log) == 1 and log[0].who == who and log[0].after["value"] == winner.value


def test_many_annotators_many_records_nothing_overwritten(two_sessions) -> None:
    ana, bea = two_sessions
    ids = [r.id for r in ana.raw_store().records(CONV)]
    calls = []
    for n, rid in enumerate(ids * 2):
        svc = (ana, bea)[n % 2]
        calls.append(lambda s=svc, r=rid, n=n: s.curation.edit_record(r, {"value": f"edit {n}"},
                who=f"user{n}",
                                                             expected_version=1))
    results = race(calls)
    by_record: dict[str, list[object]] = {}
    for rid, result in zip(ids * 2, results, strict=True):
        by_record.setdefault(rid, []).append(result)
    for rid, outcome in by_record.items():
        wins = [r for r in outcome if isinstance(r, Record)]
        assert len(wins) == 1, outcome
        assert all(isinstance(r, ConflictError) for r in outcome if r not in wins)
        assert ana.raw_store().record(rid).value == wins[0].value
    assert len(ana.curation.edit_log(CONV)) == len(ids)


def test_edit_after_reload_succeeds(two_sessions) -> None:
    ana, bea = two_sessions
    rid = "c1:S1:E1:R2"
    ana.curation.edit_record(rid, {"value": "ink"}, who="ana", expected_version=1)
    with pytest.raises(ConflictError):
        bea.curation.edit_record(rid, {"value": "pencil"}, who="bea", expected_version=1)
    fresh = bea.raw_store().record(rid)
    saved = bea.curation.edit_record(rid, {"value": "pencil"}, who="bea", expected_version=fresh.version)
    assert saved.version == 3
    assert [e.who for e in ana.curation.edit_log(CONV)] == ["ana", "bea"]


def _env(database_url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "MNEMOSCOPE_"))}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
    if database_url:
        env["MNEMOSCOPE_DATABASE_URL"] = database_url
    return env


@pytest.mark.parametrize("command", [["stats"], ["list"], ["import", "sample_data/sample_conversation.json"]])
def test_cli_says_the_home_is_in_use(tmp_path: Path, command: list[str], engine, database_url) -> None:
    """DuckDB refuses a second process with one clear line; PostgreSQL lets the CLI run."""
    home = tmp_path / "home"
    with another_process_holding(database_url or str(home), env=_env()):
        done = subprocess.run([sys.executable, "-m", "memory_core", "--home", str(home), *command],
                              cwd=ROOT, env=_env(database_url), capture_output=True, text=True, timeout=120)
        if engine == "postgres":
            assert done.returncode == 0, done.stderr
        else:
            assert done.returncode != 0
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1, done.stderr
            assert "home is in use" in lines[0] and "Traceback" not in done.stderr
            assert str(home) in lines[0]
    # once the other process is gone the same command works
    after = subprocess.run([sys.executable, "-m", "memory_core", "--home", str(home), "stats"], cwd=ROOT,
                           env=_env(database_url), capture_output=True, text=True, timeout=120)
    assert after.returncode == 0, after.stderr
