"""``mcp [--http [--host H] [--port P]] [--app-url URL]``: serve the memory over MCP.

Standard input/output by default (what an MCP client launches); ``--http`` serves streamable
HTTP at ``http://HOST:PORT/mcp`` (127.0.0.1 unless told otherwise). Logs go to stderr only:
on stdio, standard output carries the protocol.
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
    from memory_core.mcp_server import DEFAULT_APP_URL, make_server
    from memory_core.services import Services

    services = Services.open(settings)
    try:
        server = make_server(services, args.app_url or DEFAULT_APP_URL)
        if args.http:
            print(f"serving MCP on http://{args.host}:{args.port}/mcp", file=sys.stderr, flush=True)
            server.run("streamable-http", host=args.host, port=args.port)
        else:
            server.run("stdio")
    finally:
        services.close()
    return 0
