"""Issue 7.3 — kill -9 a build or an import at any moment: the home opens, nothing is half
written, and the next run finishes with the build's export invariants (issue 3)."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memory_core.store import DB_FILE, Store
from memory_core.store.vectors import VectorIndex

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "sample_conversation.json"

pytestmark = pytest.mark.slow


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "MNEMOSCOPE_"))}
    e.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False", PYTHONUNBUFFERED="1")
    return e


def cli(home: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memory_core", "--home", str(home), *args], cwd=ROOT,
                          env=env(), capture_output=True, text=True, timeout=timeout)


def run_and_kill(home: Path, args: list[str], when: Callable[[str], bool], delay: float,
                 deadline: float = 400) -> str:
    """Start the CLI, SIGKILL it ``delay`` seconds after ``when(stderr so far)`` is true.

    Returns the stderr seen; fails if the process ended before it could be killed."""
    proc = subprocess.Popen([sys.executable, "-m", "memory_core", "--home", str(home), *args], cwd=ROOT,
                            env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen: list[str] = []

    def pump() -> None:
        assert isinstance(proc.stderr, io.BufferedReader)  # a pipe, read as it comes
        while chunk := proc.stderr.read1(4096):
            seen.append(chunk.decode("utf-8", "replace"))

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    started = time.monotonic()
    try:
        while not when("".join(seen)):
            if proc.poll() is not None:
                tail = "".join(seen)[-500:]
                pytest.fail(f"{args} ended (rc {proc.returncode}) before the kill point: {tail}")
            if time.monotonic() - started > deadline:
                pytest.fail(f"kill point never reached: {''.join(seen)[-500:]}")
            time.sleep(0.02)
        time.sleep(delay)
        assert proc.poll() is None, "the process finished before the kill"
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
    reader.join(5)
    assert proc.returncode == -signal.SIGKILL
    return "".join(seen)


def half_built(store: Store, conv_id: str) -> list[str]:
    """Problems that would mean a session is half built."""
    built = set(store.built_sessions(conv_id))
    sessions = {s.index: [t.id for t in s.turns] for s in store.sessions(conv_id)}
    episodes = store.episodes(conv_id)
    by_id = {e.id: e for e in episodes}
    problems = []
    for e in episodes:
        if e.session not in built:
            problems.append(f"episode {e.id} of unbuilt session {e.session}")
    for s in built:
        covered = [t for e in episodes if e.session == s for t in e.turn_ids]
        if sorted(covered) != sorted(sessions[s]):
            problems.append(f"session {s} is marked built but its episodes do not cover its turns once")
    for r in store.records(conv_id, include_inactive=True):
        own = by_id.get(r.episode_id)
        if own is None or own.session not in built:
            problems.append(f"record {r.id} outside a built session")
        elif not r.evidence_turn_ids or not set(r.evidence_turn_ids) <= set(own.turn_ids):
            problems.append(f"record {r.id} cites turns outside its episode")
    for v in store.events(conv_id):
        own = by_id.get(v.episode_id)
        if own is None or own.session not in built:
            problems.append(f"event {v.id} outside a built session")
    return problems


def export_invariants(export: dict) -> list[str]:
    """Issue 3: every turn in exactly one episode, no episode crosses a session, every record
    cites >= 1 turn inside its own episode and has an entity and a property."""
    problems = []
    session_of = {t["id"]: t["session"] for t in export["turns"]}
    counted: dict[str, int] = {}
    episodes = {e["id"]: e for e in export["episodes"]}
    for e in export["episodes"]:
        if {session_of.get(t) for t in e["turn_ids"]} != {e["session"]}:
            problems.append(f"episode {e['id']} crosses sessions")
        for t in e["turn_ids"]:
            counted[t] = counted.get(t, 0) + 1
    wrong = [t for t in session_of if counted.get(t) != 1]
    if wrong:
        problems.append(f"{len(wrong)} turns not in exactly one episode (e.g. {wrong[:3]})")
    for r in export["records"]:
        e = episodes.get(r["episode_id"])
        if e is None or not r["evidence_turn_ids"] or not set(r["evidence_turn_ids"]) <= set(e["turn_ids"]):
            problems.append(f"record {r['id']} does not cite turns of its own episode")
        if not r["entity"] or not r["property"]:
            problems.append(f"record {r['id']} lacks an entity or a property")
    return problems


def open_and_check(home: Path, conv_id: str) -> set[int]:
    with Store.open_home(home) as store:  # replays the WAL the killed process left
        assert half_built(store, conv_id) == []
        built = set(store.built_sessions(conv_id))
    VectorIndex.open_home(home).count("records")  # the vector index opens too (on first use)
    return built


def test_build_killed_at_any_moment_resumes_to_a_whole_memory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = cli(home, "import", str(SAMPLE))
    assert done.returncode == 0, done.stderr
    with Store.open_home(home) as store:
        (conv_id,) = store.conversation_ids()
        sessions = len(store.sessions(conv_id))
    assert sessions >= 6

    def after(k: int) -> Callable[[str], bool]:  # the CLI prints "<conv> session k done" per session
        return lambda s: re.search(rf"{re.escape(conv_id)} session {k} done\b", s) is not None

    kills = [  # (what stderr must show, seconds after it): between, inside a session, in the graph
        (after(2), 0.0),
        (after(sessions // 2), 0.6),
        (after(sessions), 0.2),
    ]
    progress = []
    for when, delay in kills:
        try:
            run_and_kill(home, ["build", "--conv", conv_id], when, delay)
        except (pytest.fail.Exception, AssertionError):
            if len(open_and_check(home, conv_id)) == sessions:
                break  # the build got past this kill point before the signal: nothing left to kill
            raise
        progress.append(sorted(open_and_check(home, conv_id)))
    print(f"sessions built after each kill: {progress}")
    assert progress and len(progress[0]) < sessions  # at least one kill landed mid-build

    done = cli(home, "build", "--conv", conv_id)
    assert done.returncode == 0, done.stderr[-2000:]
    assert open_and_check(home, conv_id) == set(range(1, sessions + 1))
    out = cli(home, "export", "--conv", conv_id, "--format", "json")
    assert out.returncode == 0, out.stderr
    export = json.loads(out.stdout)
    assert export_invariants(export) == []
    assert len(export["records"]) >= len(export["turns"]) // 3
    with Store.open_home(home) as store:
        active = len(store.records(conv_id))
        edges, entities = len(store.edges(conv_id)), len(store.entities(conv_id))
    index = VectorIndex.open_home(home)
    assert index.count("records", where={"conv_id": conv_id}) == active  # vectors whole too
    assert index.count("entities", where={"conv_id": conv_id}) == entities > 0 and edges > 0


def big_locomo(path: Path, conversations: int = 90, sessions: int = 20, turns: int = 100) -> int:
    data = []
    for c in range(conversations):
        conv: dict[str, object] = {"speaker_a": "Ana", "speaker_b": "Ben"}
        for s in range(1, sessions + 1):
            conv[f"session_{s}_date_time"] = f"1:56 pm on {s} May, 2023"
            conv[f"session_{s}"] = [{"speaker": ("Ana", "Ben")[i % 2], "dia_id": f"D{s}:{i + 1}",
                                     "text": f"turn {i} of session {s}, conversation {c}"}
                                    for i in range(turns)]
        data.append({"sample_id": f"big-{c}", "conversation": conv, "qa": []})
    path.write_text(json.dumps(data), encoding="utf-8")
    return conversations * sessions * turns


def test_import_killed_mid_way_is_all_or_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = tmp_path / "big.json"
    total_turns = big_locomo(source)
    assert cli(home, "stats").returncode == 0  # creates the schema; the database file now exists
    db = home / DB_FILE

    def writing(_: str) -> bool:  # the one import transaction has started writing
        return db.stat().st_size > base_size or (home / f"{DB_FILE}.wal").exists()

    outcomes: list[object] = []
    for delay in (0.0, 0.25, 0.6):
        base_size = db.stat().st_size
        try:
            run_and_kill(home, ["import", str(source), "--replace"], writing, delay)
        except (pytest.fail.Exception, AssertionError):
            outcomes.append("finished first")  # the commit won the race: still all-or-nothing
        with Store.open_home(home) as store:
            stats = store.stats()
        assert (stats["conversations"], stats["turns"]) in ((0, 0), (90, total_turns)), stats
        outcomes.append(stats["conversations"])
    assert 0 in outcomes  # at least one kill landed inside the transaction

    done = cli(home, "import", str(source), "--replace", timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    with Store.open_home(home) as store:
        stats = store.stats()
    assert (stats["conversations"], stats["turns"], stats["sessions"]) == (90, total_turns, 90 * 20)
