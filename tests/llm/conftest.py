"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for the LLM tests.

``ScriptedServer`` is a real ``ThreadingHTTPServer`` on a free loopback port serving
``POST /v1/chat/completions``. Each request body is handed to a *script* — a function
``(body, n) -> Reply`` where ``n`` counts requests from 1 — which decides what to send:
a message content, an HTTP error, a delay. ``smart_reply`` is a script that reads the
prompt like a (very literal) model would: it finds the turn ids in a segment or extract
prompt, the excerpts in an answer prompt, the question in a plan prompt, and answers with
well-formed JSON built from them. Nothing in it knows any conversation.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "sample_conversation.json"
FAKE_KEY = "sk-mnemoscope-test-Zq7XwV93kPpL2rT"  # distinctive: grepped for after each run


@dataclass
class Reply:
    content: str | None = None
    status: int = 200
    error: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    usage: bool = True
    raw: bytes | None = None  # sent as is (text/html), instead of a chat completion


Script = Callable[[dict[str, Any], int], Reply]


class ScriptedServer:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.auth: list[str] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.requests.append(body)
                    server.auth.append(self.headers.get("authorization", ""))
                    n = len(server.requests)
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                reply = server.script(body, n)
                if reply.delay:
                    server.stopping.wait(reply.delay)
                if reply.raw is not None:
                    self._send_raw(reply.status, reply.raw, "text/html")
                    return
                if reply.status != 200:
                    self._send(reply.status, {"error": reply.error or {"message": "scripted failure"}},
                               reply.headers)
                    return
                content = reply.content or ""
                prompt_chars = sum(len(m.get("content") or "") for m in body.get("messages", []))
                payload: dict[str, Any] = {
                    "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0,
                    "model": body.get("model", "?"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                }
                if reply.usage:
                    tin, tout = prompt_chars // 4 + 1, len(content) // 4 + 1
                    payload["usage"] = {"prompt_tokens": tin, "completion_tokens": tout,
                                        "total_tokens": tin + tout}
                self._send(200, payload, reply.headers)

            def _send(self, status: int, payload: dict[str, Any],
                      headers: dict[str, str] | None = None) -> None:
                self._send_raw(status, json.dumps(payload).encode(), "application/json", headers)

            def _send_raw(self, status: int, data: bytes, content_type: str,
                          headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(status)
                    self.send_header("content-type", content_type)
                    self.send_header("content-length", str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def calls(self) -> int:
        with self.lock:
            return len(self.requests)

    def stage_calls(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        with self.lock:
            for body in self.requests:
                stage = stage_of(body)
                counts[stage] = counts.get(stage, 0) + 1
        return counts

    def close(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


# ---------------------------------------------------------------------------- reading prompts
_TURN_LINE = re.compile(r"^\[([^\]\s]+)\] ([^:\n]+): ?(.*)$", re.MULTILINE)
_CAPITAL = re.compile(r"\b([A-Z][a-z]{2,})\b")
_SHAPES = {'{"episodes"': "segment", '{"records"': "extract", '"requirements"': "plan",
           '"cited_turn_ids"': "answer", '{"label"': "judge"}
_COMMON = {"The", "This", "That", "What", "When", "Where", "Who", "How", "Which", "Did", "Does", "Has",
           "Have", "Was", "Were", "Are", "Is", "Why", "And", "But", "Yes", "Haha", "Hey", "Also", "Not",
           "She", "You", "They", "Those", "These", "His", "Her", "Its", "Our", "Your", "Their", "Them",
           "Him", "Mine", "Yours", "Then", "There", "Here", "Some", "Any", "All", "One", "Two", "From",
           "With", "For", "About", "After", "Before", "Into", "Over", "Whom", "New", "Old", "Who"}


def first_user(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def stage_of(body: dict[str, Any]) -> str:
    fmt = body.get("response_format") or {}
    name = (fmt.get("json_schema") or {}).get("name", "")
    if name.startswith("mnemoscope_"):
        return name.removeprefix("mnemoscope_")
    text = first_user(body)
    for marker, stage in _SHAPES.items():
        if marker in text:
            return stage
    return "unknown"


def is_repair(body: dict[str, Any]) -> bool:
    return body["messages"][-1]["role"] == "user" and any(m["role"] == "assistant" for m in body["messages"])


def turn_lines(text: str) -> list[tuple[str, str, str]]:
    return _TURN_LINE.findall(text)


def _names(text: str) -> list[str]:
    return list(dict.fromkeys(n for n in _CAPITAL.findall(text) if n not in _COMMON))


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}


def smart_content(body: dict[str, Any]) -> str:
    """Well-formed JSON for whichever stage ``body`` is, derived from the prompt alone."""
    stage = stage_of(body)
    text = first_user(body)
    if stage == "segment":
        ids = [t[0] for t in turn_lines(text)]
        chunks = [ids[i:i + 5] for i in range(0, len(ids), 5)]
        texts = {t[0]: t[2] for t in turn_lines(text)}
        return json.dumps({"episodes": [
            {"start": c[0], "end": c[-1], "theme": " ".join(texts[c[0]].split()[:3]) or "chat",
             "theme_type": "topic", "keywords": _names(texts[c[0]])[:3],
             "reason": "session start" if k == 0 else "five turns later"}
            for k, c in enumerate(chunks)]})
    if stage == "extract":
        records, events, seen = [], [], set()
        for turn_id, speaker, said in turn_lines(text):
            records.append({"entity": speaker, "entity_type": "person", "property": "says",
                            "value": " ".join(said.split()[:8]), "evidence": [turn_id],
                            "modality": "observed", "confidence": 0.9})
            for name in _names(said):
                if name != speaker and (name, speaker) not in seen:
                    seen.add((name, speaker))
                    records.append({"entity": name, "entity_type": "other", "property": "mentioned_by",
                                    "value": speaker, "evidence": [turn_id]})
        lines = turn_lines(text)
        if lines:
            events.append({"action": "talk", "participants": sorted({s for _, s, _ in lines}),
                           "evidence": [lines[0][0]]})
        return json.dumps({"records": records, "events": events})
    if stage == "plan":
        question = text.rsplit("Question:", 1)[-1].strip()
        names = _names(question) or ["conversation"]
        return json.dumps({"answer_target": "a fact", "reasoning_type": "point", "scope": "point",
                           "requirements": [{"entity": n, "entity_type": "other", "property": "says",
                                             "role": "target"} for n in names],
                           "keywords": sorted(_words(question))})
    if stage == "answer":
        question = text.rsplit("Question:", 1)[-1].strip()
        excerpts = turn_lines(text.split("Excerpts:", 1)[-1])
        if not excerpts:
            return json.dumps({"answer": "Unknown", "cited_turn_ids": [], "supported": False})
        wanted = _words(question)
        best = max(excerpts, key=lambda t: len(wanted & _words(t[2])))
        return json.dumps({"answer": " ".join(best[2].split()[:12]), "cited_turn_ids": [best[0]],
                           "supported": True})
    if stage == "judge":
        gold = re.search(r"Reference answer: (.*)", text)
        got = re.search(r"Generated answer: (.*)", text)
        overlap = _words(gold.group(1) if gold else "") & _words(got.group(1) if got else "")
        return json.dumps({"label": "CORRECT" if overlap else "WRONG"})
    return "{}"


def smart_reply(body: dict[str, Any], n: int) -> Reply:
    return Reply(smart_content(body))


# ---------------------------------------------------------------------------- fixtures
@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer(smart_reply)
    yield srv
    srv.close()


@pytest.fixture
def llm_settings(server: ScriptedServer):
    from memory_core.config import LLMSettings

    return LLMSettings(base_url=server.url, api_key=FAKE_KEY, model="test-model", timeout_s=2.0,
                       max_retries=2, workers=3)


@pytest.fixture
def sample_conversation():
    return load_conversation(SAMPLE)


def load_conversation(path: Path):
    """The first conversation of a LoCoMo file, through the project's importer."""
    from memory_core.ingest import load_file

    return load_file(path).conversations[0]
