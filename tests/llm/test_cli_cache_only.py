"""``--cache-only`` on the command line: a rebuild replays the cache with the endpoint gone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.cli import main
from tests.llm.conftest import FAKE_KEY, ScriptedServer


def _small_conversation(path: Path) -> Path:
    turns = [
        {"conversation_id": "tiny", "session": 1, "session_time": "2023-05-01T10:00:00",
         "speaker": "Ann", "text": "I adopted a grey cat named Miso last week."},
        {"conversation_id": "tiny", "session": 1, "session_time": "2023-05-01T10:00:00",
         "speaker": "Bo", "text": "Lovely! Does Miso like the new flat?"},
        {"conversation_id": "tiny", "session": 1, "session_time": "2023-05-01T10:00:00",
         "speaker": "Ann", "text": "She hides under the sofa, but she loves the balcony."},
    ]
    path.write_text("\n".join(json.dumps(t) for t in turns) + "\n", encoding="utf-8")
    return path


def test_cache_only_rebuild_needs_no_endpoint(tmp_path: Path, server: ScriptedServer,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("MNEMOSCOPE_MODEL", "test-model")
    home = str(tmp_path / "home")
    assert main(["--home", home, "import", str(_small_conversation(tmp_path / "tiny.jsonl"))]) == 0
    assert main(["--home", home, "build", "--conv", "tiny", "--backend", "openai"]) == 0
    calls = server.calls
    assert calls > 0
    server.close()  # the endpoint is gone: only the cache can answer now
    assert main(["--home", home, "--cache-only", "build", "--conv", "tiny", "--backend", "openai",
                 "--rebuild"]) == 0
    assert server.calls == calls
    capsys.readouterr()
    # without the cache-only switch, a rebuild would also be served from the cache; a question it
    # never saw is a miss, and cache-only says so in one line instead of calling out
    assert main(["--home", home, "--cache-only", "ask", "--conv", "tiny", "Where does Miso hide?",
                 "--backend", "openai"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cache" in err[0].lower() and FAKE_KEY not in err[0]
