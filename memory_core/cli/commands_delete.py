"""``delete --conv ID [--session N]``: forget a conversation (or one session) and everything
derived from it — turns, memory, graphs, vectors, traces, cached LLM answers, edit contents —
leaving one audit line without content. Asks for the id to be typed unless ``--yes``.

``compact-index``: rewrite the vector index with vectors, ids and where-to metadata only (an
index written before Chroma stopped being given words loses them; deleted items' space is
reclaimed)."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from memory_core.config import Settings
from memory_core.errors import ConfigError

SUMMARY = ("turns", "sessions", "episodes", "records", "entities", "events", "traces", "edits",
           "llm_cache")


def register(sub: Any) -> None:
    p = sub.add_parser("delete", help="forget a conversation (or one session) and everything derived from it")
    p.add_argument("--conv", required=True, help="conversation id")
    p.add_argument("--session", type=int, default=None, help="forget only this session (its index)")
    p.add_argument("--who", default=None, help="who asks for it (the audit line; default: the OS user)")
    p.add_argument("--why", default="", help="reason kept in the audit line")
    p.add_argument("--yes", action="store_true", help="do not ask to type the id to confirm")
    p.set_defaults(func=cmd_delete)
    c = sub.add_parser("compact-index",
                       help="rewrite the vector index keeping vectors, ids and where-to metadata only")
    c.set_defaults(func=cmd_compact_index)


def cmd_delete(args: argparse.Namespace, settings: Settings) -> int:
    what = args.conv if args.session is None else f"session {args.session} of {args.conv}"
    if not args.yes:
        if not sys.stdin.isatty():
            raise ConfigError(f"delete {what}: add --yes to confirm (nothing was deleted)")
        typed = input(f"This erases {what} and everything derived from it. Type '{args.conv}' to confirm: ")
        if typed.strip() != args.conv:
            raise ConfigError(f"delete {what}: the typed id does not match; nothing was deleted")
    from memory_core.services import Services

    services = Services.open(settings)
    try:
        counts = services.imports.forget(args.conv, session=args.session, who=args.who or getpass.getuser(),
                                         why=args.why)
        removed = ", ".join(f"{counts[k]} {k}" for k in SUMMARY if counts.get(k))
        print(f"forgot {what}: {removed or 'nothing derived yet'}")
        if args.session is not None and services.curation.records(args.conv):
            for _ in services.builds.build(args.conv):  # recompute the conversation-wide graph
                pass
            entities = services.imports.stats(args.conv)["entities"]
            print(f"recomputed the graph of {args.conv}: {entities} entities")
    finally:
        services.close()
    return 0


def cmd_compact_index(args: argparse.Namespace, settings: Settings) -> int:
    """Strip an index written before Chroma stopped being given words (documents, names in
    ids and metadata) and reclaim deleted items' space; ``delete`` does the same each time."""
    from memory_core.services import Services

    services = Services.open(settings)
    try:
        kept = services.imports.compact_index()
    finally:
        services.close()
    if not kept:
        print("compacted the vector index: nothing is on disk yet")
    else:
        print("compacted the vector index: " + ", ".join(f"{n} {name}" for name, n in kept.items())
              + " kept, with vectors, ids and where-to metadata only")
    return 0
