"""Data commands: import, list, stats, export."""

from __future__ import annotations

import argparse
import json
from typing import Any

from memory_core.config import Settings
from memory_core.services import Services


def register(sub: Any) -> None:
    p = sub.add_parser("import", help="import a conversation file")
    p.add_argument("file")
    p.add_argument("--format", dest="fmt", default=None,
                   help="locomo | longmemeval | json | jsonl | csv | text (default: detect)")
    p.add_argument("--replace", action="store_true", help="replace conversations with the same id")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("list", help="list imported conversations")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("stats", help="counts for the home or one conversation")
    p.add_argument("--conv", default=None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    services = Services.open(settings)
    ids = services.import_file(args.file, fmt=args.fmt, replace=args.replace)
    for conv_id in ids:
        s = services.stats(conv_id)
        print(f"imported {conv_id}: {s['sessions']} sessions, {s['turns']} turns, {s['questions']} questions")
    return 0


def cmd_list(args: argparse.Namespace, settings: Settings) -> int:
    services = Services.open(settings)
    rows = services.list_conversations()
    if not rows:
        print("no conversations (import one with: python -m memory_core import FILE)")
    for row in rows:
        print(f"{row['id']}\t{row['sessions']} sessions\t{row['turns']} turns\t"
              f"{row['episodes']} episodes\t{row['records']} records\t{row['source_format']}")
    return 0


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    services = Services.open(settings)
    stats: dict[str, Any] = services.stats(args.conv)
    if args.json:
        print(json.dumps(stats))
    else:
        for key, value in stats.items():
            print(f"{key:>14}: {value}")
    return 0
