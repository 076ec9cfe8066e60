"""Who an MCP call runs as: an API token (``python -m memory_core token create``) or the local user.

    transport  principal
    HTTP       every request carries ``Authorization: Bearer <token>``; ``BearerGate`` verifies it
               (``access.verify_token``) per request and hands the principal to the tools
               (``request.state.principal``); a missing, wrong or revoked token gets HTTP 401 with
               a one-line reason (plain text, and the same line in ``WWW-Authenticate``)
    stdio      ``MNEMOSCOPE_TOKEN`` in the server's environment (how an MCP client config passes
               it): that token's principal; a wrong or revoked token stops the server before it
               serves. Without it: the local user (admin) on an embedded home, but a team home
               (database URL set) or ``MNEMOSCOPE_REQUIRE_LOGIN=1`` needs a token, as the app
               needs a login there.

The tools then run through ``services.for_principal(principal, "mcp")``: every call is checked
by the guard (role, conversation scope) and written to the audit trail with front end ``mcp``.
The token is never logged or repeated in a reply.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from typing import Any

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

from memory_core.errors import AccessError
from memory_core.services import MemoryServices, Principal

TOKEN_ENV = "MNEMOSCOPE_TOKEN"  # noqa: S105 -- the variable's name, not a secret
MISSING = ("API token required: send 'Authorization: Bearer <token>' "
           "(an admin makes one with: python -m memory_core token create --role viewer)")
NEEDS_TOKEN = (f"this home needs an API token on the MCP server: set {TOKEN_ENV} in the server's "
               "environment (python -m memory_core token create --role viewer)")


def stdio_principal(services: MemoryServices, environ: Mapping[str, str] | None = None) -> Principal:
    """The principal a stdio server runs as (see the module docstring); ``AccessError`` in one
    line when the token is wrong or revoked, or when the home needs a token and none is set."""
    env = os.environ if environ is None else environ
    token = env.get(TOKEN_ENV, "").strip()
    if token:
        return services.access.verify_token(token)
    if services.requires_login("127.0.0.1"):
        raise AccessError(NEEDS_TOKEN)
    return services.principal


def bearer(scope: Scope) -> str | None:
    """The token of an ``Authorization: Bearer`` header (``None``: no such header)."""
    for key, value in scope.get("headers", []):
        if key.lower() == b"authorization":
            text = value.decode("latin-1").strip()
            if text[:7].lower() == "bearer ":
                return text[7:].strip()
            return None
    return None


class BearerGate:
    """ASGI middleware in front of the streamable HTTP app: one verified token per request.

    ``lock`` is the tools' lock: the check reads (and touches) the store, which is driven by one
    call at a time."""

    def __init__(self, app: ASGIApp, services: MemoryServices, lock: threading.Lock) -> None:
        self.app = app
        self.services = services
        self.lock = lock

    def _verify(self, token: str) -> Principal:
        with self.lock:
            return self.services.access.verify_token(token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)  # lifespan
            return
        token = bearer(scope)
        if not token:
            await _refuse(send, MISSING)
            return
        try:
            principal = await anyio.to_thread.run_sync(self._verify, token)
        except AccessError as exc:
            await _refuse(send, str(exc).splitlines()[0])
            return
        state: dict[str, Any] = scope.setdefault("state", {})
        state["principal"] = principal
        await self.app(scope, receive, send)


async def _refuse(send: Send, line: str) -> None:
    body = (line + "\n").encode("utf-8")
    challenge = "Bearer error=\"invalid_token\", error_description=" + json.dumps(line)
    await send({"type": "http.response.start", "status": 401,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()),
                            (b"www-authenticate", challenge.encode("latin-1", "replace"))]})
    await send({"type": "http.response.body", "body": body})
