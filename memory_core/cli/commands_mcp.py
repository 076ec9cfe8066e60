"""``mcp [--http [--host H] [--port P]] [--app-url URL]``: serve the memory over MCP.

Standard input/output by default (what an MCP client launches); ``--http`` serves streamable
HTTP at ``http://HOST:PORT/mcp`` (127.0.0.1 unless told otherwise). Logs go to stderr only:
on stdio, standard output carries the protocol.

Over HTTP every request needs ``Authorization: Bearer <API token>``; over stdio the server runs
as ``MNEMOSCOPE_TOKEN``'s principal when it is set (a wrong or revoked token: one line on
stderr, exit 2), else as the local user — which a team home refuses (``mcp_server.auth``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memory_core.config import Settings


def register(sub: Any) -> None:
    p = sub.add_parser("mcp", help="serve the memory over MCP (stdio; --http: streamable HTTP)")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="--http: address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="--http: port (default 8765)")
    p.add_argument("--app-url", default=None,
                   help="the Mnemoscope app's address, for the trace links (default http://127.0.0.1:8501)")
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from memory_core.errors import AccessError
    from memory_core.mcp_server import DEFAULT_APP_URL, http_app, make_server
    from memory_core.mcp_server.auth import stdio_principal
    from memory_core.services import Services

    services = Services.open(settings)
    try:
        app_url = args.app_url or DEFAULT_APP_URL
        if args.http:
            server = make_server(services, app_url)
            print(f"serving MCP on http://{args.host}:{args.port}/mcp (API token required)",
                  file=sys.stderr, flush=True)
            uvicorn.run(http_app(server, args.host), host=args.host, port=args.port, log_level="warning")
        else:
            try:
                principal = stdio_principal(services)
            except AccessError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
            make_server(services, app_url, principal=principal).run("stdio")
    finally:
        services.close()
    return 0
