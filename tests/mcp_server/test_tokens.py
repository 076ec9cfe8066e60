"""API tokens on the MCP server, driven by the official SDK client: over HTTP a request without
a token, or with a wrong or revoked one, gets 401 with one line; a viewer token may ask but not
remember (a one-line tool error); a token limited to one conversation lists and reads only
that one; every call is audited with front end ``mcp``. Over stdio ``MNEMOSCOPE_TOKEN`` sets
the principal, a wrong token stops the server (exit 2, one line), and a home that needs a
login needs a token. One HTTP server for the module; real DuckDB home, Chroma, embedding model."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from memory_core.config import Settings
from memory_core.services import Services
from tests.conftest import filled_home
from tests.mcp_server import run_async
from tests.mcp_server.conversations import CONV, write
from tests.mcp_server.test_clients import AGENT, ROOT, Served, _env, http_client, make_token, text_of

OTHER = "cara-dan"  # a second conversation (imported, not built)
REMEMBER = {"conversation": CONV, "turns": [{"speaker": "Ben", "text": "I bought a red kayak."}]}


class Home:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.tokens: dict[str, tuple[str, str]] = {}  # kind -> (id, secret)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Home:
    root = tmp_path_factory.mktemp("mcp-tokens")

    def fill(services: Any) -> None:
        services.imports.import_file(write(root / "two.json", 2))
        services.imports.import_file(write(root / "other.json", 1, conv_id=OTHER))
        for _ in services.builds.build(CONV):
            pass

    home = Home(filled_home(root / "home", embedder, fill))
    for kind, role, conv in (("viewer", "viewer", None), ("scoped", "viewer", CONV),
                             ("revoked", "viewer", None)):
        home.tokens[kind] = make_token(home.path, role, conv)
    services = Services(Settings(home=home.path))
    try:
        services.access.revoke_token(home.tokens["revoked"][0], by=services.principal, frontend="cli")
    finally:
        services.close()
    return home


@pytest.fixture(scope="module")
def server(home: Home) -> Iterator[Served]:
    served = Served(home.path)
    try:
        served.wait_listening()
        yield served
    finally:
        served.stop()


def post(url: str, token: str | None) -> httpx2.Response:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    return httpx2.post(url, json=body, headers=headers, timeout=30)


def test_http_refuses_a_missing_wrong_or_revoked_token_in_one_line(server: Served, home: Home) -> None:
    revoked_id, revoked = home.tokens["revoked"]
    cases = {None: "API token required: send 'Authorization: Bearer <token>'",
             "mnemo_not-a-token": "API token refused: unknown token",
             revoked: f"API token refused: token '{revoked_id}' was revoked"}
    for token, line in cases.items():
        answer = post(server.url, token)
        assert answer.status_code == 401, (token, answer.text)
        assert answer.text.startswith(line) and answer.text.count("\n") == 1, answer.text
        assert answer.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
        assert token is None or token not in answer.text

    async def connect() -> None:
        async with http_client(server.url, "mnemo_not-a-token") as client:
            await client.list_tools()

    with pytest.raises(ExceptionGroup) as refused:  # the SDK client cannot even start a session
        run_async(connect)
    assert [type(e) for e in leaves(refused.value)] == [MCPError], repr(refused.value)


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def test_viewer_token_asks_but_may_not_remember(server: Served, home: Home) -> None:
    token_id, token = home.tokens["viewer"]

    async def main() -> None:
        async with http_client(server.url, token) as client:
            listed = (await client.call_tool("list_conversations", {})).structured_content
            assert listed is not None
            assert sorted(c["id"] for c in listed["conversations"]) == sorted([CONV, OTHER])
            question = {"conversation": CONV, "question": "Where did Anna go hiking?"}
            asked = await client.call_tool("ask", question)
            assert not asked.is_error, text_of(asked)
            assert "alps" in asked.structured_content["answer"].lower()
            refused = await client.call_tool("remember", REMEMBER)
            assert refused.is_error
            assert text_of(refused) == f"viewer 'token:{token_id}' may not import conversations (needs admin)"

    run_async(main)


def test_scoped_token_sees_only_its_conversation(server: Served, home: Home) -> None:
    token_id, token = home.tokens["scoped"]

    async def main() -> None:
        async with http_client(server.url, token) as client:
            listed = (await client.call_tool("list_conversations", {})).structured_content
            assert [c["id"] for c in listed["conversations"]] == [CONV]
            own = await client.call_tool("get_turns", {"conversation": CONV, "ids": ["D1:1"]})
            assert not own.is_error and own.structured_content["turns"], text_of(own)
            for name, args in (("get_turns", {"conversation": OTHER, "ids": ["D1:1"]}),
                               ("ask", {"conversation": OTHER, "question": "Who is Cara?"})):
                other = await client.call_tool(name, args)
                assert other.is_error, name
                assert text_of(other) == (f"'token:{token_id}' is limited to conversation '{CONV}', "
                                          f"not conversation '{OTHER}'")

    run_async(main)


def test_agent_calls_are_in_the_audit_trail(server: Served, home: Home) -> None:
    """Runs last: it stops the module's server to read the home."""
    viewer_id, viewer = home.tokens["viewer"]

    async def main() -> None:
        async with http_client(server.url, viewer) as client:
            await client.call_tool("search_memory", {"conversation": CONV, "query": "puppy", "limit": 2})
            await client.call_tool("remember", REMEMBER)

    run_async(main)
    server.stop()
    services = Services(Settings(home=home.path))
    try:
        rows = services.access.audit_log(services.principal, frontend="mcp")
        assert {r["frontend"] for r in rows} == {"mcp"}
        mine = {(r["action"], r["conv_id"], r["detail"]) for r in rows if r["who"] == f"token:{viewer_id}"}
        assert ("ask", CONV, "search puppy") in mine, mine
        assert ("refused", CONV, "imports.remember") in mine, mine
        assert ("read", CONV, "imports") in mine, mine  # the search's source turns
        assert services.imports.stats(CONV)["sessions"] == 2, "the refused remember added nothing"
    finally:
        services.close()


def _stdio(home: Path, **env: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "memory_core", "--home", str(home), "mcp"],
                                 env={**_env(), **env}, cwd=str(ROOT))


def test_stdio_runs_as_its_token_and_refuses_a_wrong_one(home: Home) -> None:
    token_id, token = home.tokens["scoped"]

    async def main() -> None:
        async with Client(_stdio(home.path, MNEMOSCOPE_TOKEN=token), client_info=AGENT,
                          read_timeout_seconds=300) as client:
            listed = (await client.call_tool("list_conversations", {})).structured_content
            assert [c["id"] for c in listed["conversations"]] == [CONV]
            refused = await client.call_tool("remember", {**REMEMBER, "conversation": OTHER})
            assert text_of(refused).startswith(f"viewer 'token:{token_id}' may not import conversations")

    run_async(main)
    command = [sys.executable, "-m", "memory_core", "--home", str(home.path), "mcp"]
    revoked_id, revoked = home.tokens["revoked"]
    cases = (({"MNEMOSCOPE_TOKEN": revoked}, f"error: API token refused: token '{revoked_id}' was revoked"),
             ({"MNEMOSCOPE_REQUIRE_LOGIN": "1"}, "error: this home needs an API token on the MCP server"))
    for extra, line in cases:
        env = {k: v for k, v in os.environ.items() if k != "MNEMOSCOPE_TOKEN"}
        done = subprocess.run(command, cwd=ROOT, env={**env, **_env(), **extra}, input="",
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(line) and done.stderr.count("\n") == 1, done.stderr
        assert done.stdout == ""
