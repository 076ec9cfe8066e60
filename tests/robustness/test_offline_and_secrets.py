"""Issue 7.5 — no outbound connection offline; the API key reaches no file, log, trace,
export or error message on the app-level paths (CLI import/build/ask/eval/export, edits).

The CLI runs in subprocesses with a ``sitecustomize`` guard that records every socket connect
and name lookup and refuses any that is not loopback; when the machine allows it, the same
commands also run in an empty network namespace (``unshare -n``: no interface but a downed
loopback), where any attempt to reach the network would fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.llm.conftest import FAKE_KEY, Reply, ScriptedServer, smart_reply

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

GUARD = r'''
import json, os, socket

_LOG = os.environ["NET_GUARD_LOG"]
_LOCAL = ("127.", "::1", "localhost", "0:0:0:0:0:0:0:1")


def _note(kind, target):
    with open(_LOG, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"pid": os.getpid(), "kind": kind, "target": str(target)}) + "\n")


def _host(address):
    return address[0] if isinstance(address, tuple) else address


def _check(sock, address):
    if sock.family == getattr(socket, "AF_UNIX", None):
        return
    host = str(_host(address))
    if not host.startswith(_LOCAL):
        _note("connect", address)
        raise OSError(f"network disabled by the test: connect to {address}")


_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex


def connect(self, address):
    _check(self, address)
    return _connect(self, address)


def connect_ex(self, address):
    _check(self, address)
    return _connect_ex(self, address)


_getaddrinfo = socket.getaddrinfo


def getaddrinfo(host, *args, **kwargs):
    if host is not None and not str(host).startswith(_LOCAL):
        _note("lookup", host)
        raise socket.gaierror(f"network disabled by the test: lookup of {host}")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = connect, connect_ex, getaddrinfo
_note("loaded", os.getpid())
'''

SMALL = {
    "sample_id": "tiny",
    "conversation": {
        "speaker_a": "Ana", "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a cat called Miso last Saturday."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I am going to Lisbon in July."},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "Miso loves the balcony."},
        ],
        "session_2_date_time": "9:00 am on 1 June, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "I booked the train to Lisbon."},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Miso says hi, she is painting with me."},
        ],
    },
    "qa": [{"question": "What is the name of Ana's cat?", "answer": "Miso", "evidence": ["D1:1"],
            "category": 1}],
}


@pytest.fixture
def guarded(tmp_path: Path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(GUARD, encoding="utf-8")
    log = tmp_path / "net.log"
    log.touch()
    source = tmp_path / "tiny.json"
    source.write_text(json.dumps([SMALL]), encoding="utf-8")

    def run(home: Path, *args: str, extra: dict[str, str] | None = None, netns: bool = False,
            ok: bool = True) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "MNEMOSCOPE_"))}
        env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", NET_GUARD_LOG=str(log),
                   PYTHONPATH=os.pathsep.join([str(site), env.get("PYTHONPATH", "")]).rstrip(os.pathsep))
        env.pop("ANONYMIZED_TELEMETRY", None)  # telemetry must be off by the program's own settings
        env.update(extra or {})
        command = [sys.executable, "-m", "memory_core", "-v", "--home", str(home), *args]
        if netns:
            command = ["unshare", "-n", *command]
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
        if ok:
            assert done.returncode == 0, f"{args}: {done.stderr[-3000:]}"
        return done

    setattr(run, "log", log)  # the fixture hands out the runner with its helpers
    setattr(run, "source", source)
    return run


def entries(log: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def attempts(log: Path) -> list[dict[str, str]]:
    return [e for e in entries(log) if e["kind"] != "loaded"]


def guarded_runs(log: Path) -> int:
    return sum(1 for e in entries(log) if e["kind"] == "loaded")


def test_the_guard_catches_an_outbound_connection(guarded, tmp_path: Path) -> None:
    env = {**os.environ, "NET_GUARD_LOG": str(guarded.log),
           "PYTHONPATH": str(tmp_path / "site")}
    code = ("import socket\n"
            "for go in (lambda: socket.create_connection(('192.0.2.1', 443), timeout=1),\n"
            "           lambda: socket.socket().connect(('192.0.2.2', 80))):\n"
            "    try:\n        go()\n    except OSError:\n        pass\n")
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)
    assert [(a["kind"], a["target"]) for a in attempts(guarded.log)] == [
        ("lookup", "192.0.2.1"), ("connect", "('192.0.2.2', 80)")]


def test_offline_cli_opens_no_outbound_connection(guarded, tmp_path: Path) -> None:
    home = tmp_path / "home"
    guarded(home, "import", str(guarded.source))
    guarded(home, "build", "--all")
    answer = guarded(home, "ask", "--conv", "tiny", "What is the name of Ana's cat?", "--json")
    trace = json.loads(answer.stdout)
    assert trace["answer"]["text"] and trace["buffer"]
    for strategy in ("glong", "seem"):
        guarded(home, "ask", "--conv", "tiny", "Where is Ben going?", "--strategy", strategy)
    guarded(home, "export", "--conv", "tiny", "--format", "json", "--out", str(tmp_path / "e.json"))
    guarded(home, "export", "--conv", "tiny", "--format", "graphml", "--out", str(tmp_path / "g.graphml"))
    guarded(home, "eval", "locomo", str(guarded.source), "--out", str(tmp_path / "run.jsonl"))
    guarded(home, "stats")
    assert attempts(guarded.log) == []
    assert guarded_runs(guarded.log) >= 9  # the guard was active in every command
    netns = shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if netns and netns.returncode == 0:
        again = guarded(home, "ask", "--conv", "tiny", "Where is Ben going?", "--json", netns=True)
        assert json.loads(again.stdout)["answer"]["text"]
        guarded(home, "list", netns=True)
        assert attempts(guarded.log) == []


def test_api_key_reaches_no_file_log_trace_export_or_error(guarded, tmp_path: Path) -> None:
    server = ScriptedServer(smart_reply)
    try:
        home = tmp_path / "home"
        llm = {"MNEMOSCOPE_BACKEND": "openai", "OPENAI_API_KEY": FAKE_KEY, "OPENAI_BASE_URL": server.url,
               "MNEMOSCOPE_MODEL": "test-model", "MNEMOSCOPE_LLM_RETRIES": "0"}
        outputs = [guarded(home, "import", str(guarded.source), extra=llm)]
        outputs.append(guarded(home, "build", "--all", extra=llm))
        outputs.append(guarded(home, "ask", "--conv", "tiny", "Where is Ben going?", "--json", extra=llm))
        trace = json.loads(outputs[-1].stdout)
        assert trace["backend"] == "openai"
        outputs.append(guarded(home, "eval", "locomo", str(guarded.source),
                               "--out", str(tmp_path / "run.jsonl"), "--save-traces", extra=llm))
        outputs.append(guarded(home, "export", "--conv", "tiny", "--format", "json",
                               "--out", str(tmp_path / "export.json"), extra=llm))
        outputs.append(guarded(home, "export", "--conv", "tiny", "--format", "graphml",
                               "--out", str(tmp_path / "graph.graphml"), extra=llm))
        assert server.calls > 0 and all(a == f"Bearer {FAKE_KEY}" for a in server.auth)
        # an endpoint that echoes the key back in its error body
        server.script = lambda body, n: Reply(status=401, error={"message": f"invalid key {FAKE_KEY}"})
        failed = guarded(home, "ask", "--conv", "tiny", "Who adopted a cat?", extra=llm, ok=False)
        assert failed.returncode != 0 and "Traceback" not in failed.stderr
        outputs.append(failed)
    finally:
        server.close()

    # app-level curation on the same home: an edit, the log, the corrected export
    from memory_core.config import Settings
    from memory_core.services import Services

    services = Services(Settings.from_env({"OPENAI_API_KEY": FAKE_KEY}, home=str(home)))
    try:
        record = services.curation.search_records("tiny").rows[0]
        services.curation.edit_record(record.id, {"value": "checked"}, who="ana", why="check",
                             expected_version=record.version)
        (tmp_path / "corrected.jsonl").write_text(services.curation.export_corrected_records("tiny"),
                encoding="utf-8")
        store = services.raw_store()
        traces = [store.trace(t["id"]).model_dump_json() for t in store.traces("tiny")]
    finally:
        services.close()

    key = FAKE_KEY.encode()
    leaked = [p for p in tmp_path.rglob("*") if p.is_file() and key in p.read_bytes()]
    assert leaked == []
    assert traces and not any(FAKE_KEY in t for t in traces)
    for done in outputs:
        assert FAKE_KEY not in done.stdout and FAKE_KEY not in done.stderr
    assert attempts(guarded.log) == []  # only the loopback endpoint was contacted


def test_vector_index_telemetry_is_off(tmp_path: Path) -> None:
    from memory_core.store.vectors import VectorIndex

    index = VectorIndex(tmp_path / "chroma")
    assert index._client.get_settings().anonymized_telemetry is False
