"""The MCP server driven by the official SDK client, as an agent would: over stdio (the client
launches ``python -m memory_core mcp``) and over streamable HTTP (``mcp --http``, with an admin
API token). Tools are listed with their schemas and annotations; list, ask, search, get turns
and a record,
remember (which builds the new session); a bad argument and an unknown conversation are tool
errors, and the server keeps answering. Agent calls are saved as traces under the client's
name. Real home: DuckDB, Chroma, the embedding model, the offline backend."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import Implementation

from memory_core.config import Settings
from memory_core.models import TraceRow
from memory_core.services import Services
from tests.conftest import filled_home
from tests.construct.dialogues import HIKING, POTTERY
from tests.mcp_server import run_async
from tests.mcp_server.conversations import CONV, write

ROOT = Path(__file__).resolve().parents[2]
AGENT = Implementation(name="test-agent", version="1.0")
TOOLS = {"list_conversations", "search_memory", "ask", "get_turns", "get_record", "remember"}


@pytest.fixture(scope="module")
def built_home(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    root = tmp_path_factory.mktemp("mcp")

    def fill(services: Any) -> None:
        services.imports.import_file(write(root / "two.json", 2))
        for _ in services.builds.build(CONV):
            pass

    return filled_home(root / "home", embedder, fill)


@pytest.fixture
def home(built_home: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(built_home, copy)
    return copy


def _env() -> dict[str, str]:
    return {"HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}


def text_of(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


async def drive(client: Client) -> None:
    """One agent session against a home holding the two-session conversation."""
    listed = (await client.list_tools()).tools
    by_name = {t.name: t for t in listed}
    assert set(by_name) == TOOLS
    for name, tool in by_name.items():
        assert tool.output_schema is not None, name
        assert tool.annotations is not None and tool.annotations.read_only_hint is (name != "remember"), name
    remember = by_name["remember"].annotations
    assert remember is not None and remember.destructive_hint is False
    assert set(by_name["ask"].input_schema["properties"]) == {"conversation", "question", "as_of"}
    assert by_name["search_memory"].input_schema["properties"]["limit"]["maximum"] == 50

    convs = (await client.call_tool("list_conversations", {})).structured_content
    assert convs is not None
    assert [(c["id"], c["sessions"], c["built_sessions"]) for c in convs["conversations"]] == [(CONV, 2, 2)]

    asked = await client.call_tool("ask", {"conversation": CONV, "question": "Where did Anna go hiking?"})
    assert not asked.is_error, text_of(asked)
    answer = asked.structured_content
    assert answer is not None and answer["answer"] and answer["support"] in ("supported", "weak", "unknown")
    assert "alps" in answer["answer"].lower(), answer
    assert "D2:2" in [t["id"] for t in answer["cited_turns"]], answer  # the turn that says it, quoted:
    assert next(t for t in answer["cited_turns"] if t["id"] == "D2:2")["text"] == HIKING[1][1]
    assert answer["app_link"].endswith(f"/ask?conv={CONV}&trace={answer['trace_id']}")

    found = await client.call_tool("search_memory", {"conversation": CONV, "query": "Rex the puppy",
                                                     "limit": 3})
    assert not found.is_error, text_of(found)
    records = found.structured_content["records"]
    assert 1 <= len(records) <= 3
    said = [f"{r['entity']} {r['value']}".lower() for r in records]
    assert any("rex" in x or "puppy" in x for x in said), said
    assert all(r["source_turns"] and all(t["id"].startswith("D") and t["text"] for t in r["source_turns"])
               for r in records)
    record = (await client.call_tool("get_record", {"id": records[0]["id"]})).structured_content
    assert record == records[0]
    got = await client.call_tool("get_turns", {"conversation": CONV, "ids": ["D2:2", "D1:3"]})
    turns = got.structured_content["turns"]
    assert [(t["id"], t["speaker"]) for t in turns] == [("D1:3", "Anna"), ("D2:2", "Anna")]  # dialogue order
    assert turns[1]["text"] == HIKING[1][1]

    bad = await client.call_tool("search_memory", {"conversation": CONV, "query": "Rex", "limit": "many"})
    assert bad.is_error
    assert text_of(bad) == ("search_memory: limit: Input should be a valid integer, unable to parse "
                            "string as an integer")
    unknown = await client.call_tool("ask", {"conversation": "nope", "question": "Who is Rex?"})
    assert unknown.is_error and text_of(unknown).startswith("unknown conversation 'nope'")  # the CLI's line
    assert "\n" not in text_of(unknown)
    empty = await client.call_tool("remember", {"conversation": CONV, "turns": []})
    assert empty.is_error and text_of(empty).startswith("remember: turns: ")
    late = await client.call_tool("remember", {"conversation": CONV, "session": 1,
                                               "turns": [{"speaker": "Ben", "text": "Hi"}]})
    assert text_of(late) == "remember: session: 1 is not the last session (2) or a new one after it"

    new = [{"speaker": line[0], "text": line[1]} for line in POTTERY]
    remembered = await client.call_tool("remember", {"conversation": CONV, "turns": new,
                                                      "date": "2023-06-02"})
    assert not remembered.is_error, text_of(remembered)
    grown = remembered.structured_content
    assert grown is not None
    assert (grown["session"], grown["new_session"], grown["sessions_built"]) == (3, True, 1)
    assert grown["turn_ids"] == [f"D3:{i}" for i in range(1, len(POTTERY) + 1)]
    listed_now = (await client.call_tool("list_conversations", {})).structured_content["conversations"]
    assert [(c["sessions"], c["built_sessions"]) for c in listed_now] == [(3, 3)]
    found = await client.call_tool("search_memory", {"conversation": CONV, "query": "pottery class bowl"})
    found_records = found.structured_content["records"]
    sources = {t["id"] for r in found_records for t in r["source_turns"]}
    assert sources & set(grown["turn_ids"]), "the remembered session's records are searchable"


def agent_traces(home: Path) -> list[TraceRow]:
    services = Services(Settings(home=home))
    try:
        return services.queries.traces(CONV, agents=True)
    finally:
        services.close()


def test_stdio(home: Path) -> None:
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "memory_core", "--home", str(home), "mcp"], env=_env(),
                                   cwd=str(ROOT))

    async def main() -> None:
        async with Client(params, client_info=AGENT, read_timeout_seconds=300) as client:
            await drive(client)

    run_async(main)
    calls = agent_traces(home)
    assert {(c.client, c.kind) for c in calls} == {("mcp:test-agent", "ask"),
                                                         ("mcp:test-agent", "search")}
    assert len(calls) == 3  # one ask and two searches (the bad and the unknown calls saved nothing)


def make_token(home: Path, role: str, conv: str | None = None) -> tuple[str, str]:
    """An API token (id, secret) made by the local admin, before a server holds the home."""
    services = Services(Settings(home=home))
    try:
        return services.access.create_token(role, f"test {role}", conv_id=conv, by=services.principal,
                                            frontend="cli")
    finally:
        services.close()


@asynccontextmanager
async def http_client(url: str, token: str | None) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, sending ``Authorization: Bearer <token>``."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, client_info=AGENT, read_timeout_seconds=300) as client:
            yield client


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """The ``mcp --http`` server process this test started, and its address."""

    def __init__(self, home: Path) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.log = home.parent / "mcp-http.log"  # a file, not a pipe nobody drains
        with self.log.open("w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "memory_core", "--home", str(home), "mcp", "--http", "--port",
                 str(self.port)], cwd=ROOT, env={**os.environ, **_env()}, stdout=subprocess.DEVNULL,
                stderr=log)

    def wait_listening(self, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            assert self.proc.poll() is None, self.log.read_text()
            time.sleep(0.3)
        pytest.fail(f"the MCP HTTP server did not listen within {seconds:.0f} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def admin_token(home: Path) -> str:
    return make_token(home, "admin")[1]


@pytest.fixture
def http_server(home: Path, admin_token: str) -> Iterator[Served]:
    served = Served(home)
    try:
        served.wait_listening()
        yield served
    finally:
        served.stop()


def test_streamable_http(http_server: Served, home: Path, admin_token: str) -> None:
    async def main() -> None:
        async with http_client(http_server.url, admin_token) as client:
            await drive(client)

    run_async(main)
    http_server.stop()  # the home is the server's until it exits
    assert {c.client for c in agent_traces(home)} == {"mcp:test-agent"}
