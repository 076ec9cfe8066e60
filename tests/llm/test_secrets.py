"""The API key never reaches disk, logs, traces or error messages."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

import pytest

from memory_core.backends.openai.backend import OpenAIBackend
from memory_core.config import Settings
from memory_core.contracts import ConversationInfo, Vocabulary
from memory_core.errors import LLMError
from memory_core.llm import llm_scope
from memory_core.models import BufferTurn
from memory_core.store import Store
from tests.llm.conftest import FAKE_KEY, Reply, Script, ScriptedServer, smart_reply


def _files_containing(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_key_is_nowhere_after_stages_and_failures(server: ScriptedServer, llm_settings, tmp_path: Path,
                                                  sample_conversation,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    conv = sample_conversation
    info = ConversationInfo(conv_id=conv.id, speakers=conv.speakers)
    home = tmp_path / "home"
    store = Store(home / "mnemoscope.duckdb")
    backend = OpenAIBackend(llm_settings, store)
    errors: list[str] = []
    with caplog.at_level(logging.DEBUG), llm_scope(conv.id, "build:secret"):
        session = conv.sessions[0]
        episodes = backend.segment(session, info)
        by_id = {t.id: t for t in session.turns}
        backend.extract_many([(e, [by_id[t] for t in e.turn_ids]) for e in episodes], info)
        plan = backend.plan(conv.qa[0].question, Vocabulary(speakers=conv.speakers))
        buffer = [BufferTurn(turn_id=t.id, speaker=t.speaker, text=t.text, session=1)
                  for t in session.turns[:4]]
        answer = backend.answer(conv.qa[0].question, plan, buffer, unmentioned=())
        backend.judge(conv.qa[0].question, conv.qa[0].answer or "", answer.text)
        # endpoints that echo the key in their error bodies
        for status in (400, 401, 403, 404, 422, 500):
            echo = {"message": f"bad key {FAKE_KEY}"}
            server.script = _failing(status, echo)
            failing = OpenAIBackend(dataclasses.replace(llm_settings, max_retries=0), store)
            with pytest.raises(LLMError) as err:
                failing.plan(f"question {status}?", Vocabulary())
            errors.append(str(err.value))
        server.script = smart_reply
    store.close()

    assert len(errors) == 6 and all(FAKE_KEY not in e for e in errors)
    assert all(FAKE_KEY not in r.getMessage() and FAKE_KEY not in str(r.args) for r in caplog.records)
    assert any(r.name == "memory_core.llm.client" for r in caplog.records)
    assert _files_containing(tmp_path, FAKE_KEY.encode()) == []
    assert FAKE_KEY not in repr(Settings(llm=llm_settings)) and FAKE_KEY not in repr(llm_settings)
    # the key did reach the endpoint, where it belongs
    assert all(a == f"Bearer {FAKE_KEY}" for a in server.auth)


def _failing(status: int, error: dict[str, Any]) -> Script:
    """A script answering every request with ``status`` and ``error``."""
    return lambda body, n: Reply(status=status, error=error)
