"""``python -m memory_core [--home DIR] COMMAND``.

Each command lives in its own module exposing ``register(subparsers)``; the handler gets the
parsed arguments and a lazily opened ``Services``. Project errors become one line on stderr
and exit status 1; anything else is a bug and surfaces with its traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from memory_core.cli import (
    commands_bench,
    commands_build,
    commands_cluster,
    commands_data,
    commands_delete,
    commands_eval,
    commands_mcp,
    commands_query,
)
from memory_core.config import Settings, check_database_url
from memory_core.errors import MnemoscopeError

log = logging.getLogger("memory_core")

COMMAND_MODULES: list[Any] = [commands_data, commands_build, commands_query, commands_eval, commands_bench,
                             commands_delete, commands_cluster, commands_mcp]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m memory_core",
        description="Mnemoscope: build and inspect long-term conversational memory.",
    )
    parser.add_argument("--home", help="data directory (default: $MNEMOSCOPE_HOME or ./data)")
    parser.add_argument("--database", metavar="URL",
                        help="relational store on PostgreSQL: postgresql://… (default: "
                             "$MNEMOSCOPE_DATABASE_URL, else DuckDB in the home)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log INFO lines to stderr")
    parser.add_argument("--cache-only", action="store_true",
                        help="openai backend: replay cached LLM responses only, never call the endpoint")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    handler: Callable[[argparse.Namespace, Settings], int] = args.func
    try:
        settings = Settings.from_env(home=args.home)
        if args.database:
            settings = replace(settings, database_url=check_database_url(args.database, "--database"))
        if args.cache_only:
            settings = replace(settings, llm=replace(settings.llm, cache_only=True))
        return handler(args, settings)
    except MnemoscopeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
