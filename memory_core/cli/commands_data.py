"""Data commands: import, list, stats, export, setup-sample."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.config import Settings
from memory_core.errors import ConfigError, StoreError

if TYPE_CHECKING:
    from memory_core.progress import Step
    from memory_core.services import MemoryServices
    from memory_core.store import Store

# Imports of the heavy layers (services, ingest, store) sit inside the commands: ``list`` and
# ``stats`` are run often, in a new process each, and must not pay for the build and query code.

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "sample_conversation.json"


def register(sub: Any) -> None:
    p = sub.add_parser("import", help="import a conversation file (all of it or nothing)")
    p.add_argument("file")
    p.add_argument("--format", dest="fmt", default=None,
                   help="locomo, longmemeval, … (default: detected from the content; "
                        "an unknown name is refused with the list)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--replace", action="store_true", help="replace conversations with the same id")
    mode.add_argument("--append", action="store_true",
                      help="grow known conversations: new sessions, or new turns at the end of the last "
                           "session; memory, edits and traces stay (the next build does only what is new)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("list", help="list imported conversations")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("stats", help="counts for the home or one conversation")
    p.add_argument("--conv", default=None)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("export", help="export a conversation and its memory")
    p.add_argument("--conv", required=True)
    p.add_argument("--format", dest="fmt", choices=("json", "graphml"), default="json")
    p.add_argument("--out", default="-", help="output file ('-': standard output, JSON only)")
    p.add_argument("--as-of", default=None, metavar="DAY",
                   help="graphml: both graphs as they stood on DAY (YYYY-MM-DD), by the rule of the "
                        "app's 'Memory as of' (said in a session by then, about a time not after it)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("setup-sample",
                       help="import the shipped sample conversation if missing and build what is unbuilt")
    p.set_defaults(func=cmd_setup_sample)


@contextmanager
def _services(settings: Settings) -> Iterator[MemoryServices]:
    from memory_core.services import Services

    services = Services.open(settings)
    try:
        yield services
    finally:
        services.close()


@contextmanager
def _store(settings: Settings) -> Iterator[Store]:
    """The relational store alone: what ``list`` and ``stats`` read (counts). No vector index,
    embedder or backend is made, so the build and query code is never imported."""
    from memory_core.store import Store

    store = Store.open_settings(settings)
    try:
        yield store
    finally:
        store.close()


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    from memory_core.ingest import stream_file

    if args.append:
        return _append(args, settings)
    # Validate the whole file before the home is even opened: a refused file writes nothing.
    progress = _ImportProgress()
    streamed = stream_file(args.file, fmt=args.fmt, limits=settings.limits, on_progress=progress)
    with _services(settings) as services:
        result = services.imports.save_streamed(streamed, replace=args.replace, file=args.file,
                                                on_progress=progress)
        for warning in result.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if streamed.per_item:  # hundreds of benchmark items: one line, not one per item
            print(f"imported {len(result.ids)} conversations ({result.format}, "
                  f"{len(result.replaced)} replaced): {streamed.turns} turns")
            return 0
        # one summary query for every line (not one stats query per conversation)
        counts = {row.id: row for row in services.imports.list_conversations()}
        for conv_id in result.ids:
            s = counts[conv_id]
            verb = "replaced" if conv_id in result.replaced else "imported"
            print(f"{verb} {conv_id} ({result.format}): {s.sessions} sessions, {s.turns} turns, "
                  f"{s.questions} questions")
    return 0


def _append(args: argparse.Namespace, settings: Settings) -> int:
    with _services(settings) as services:
        grown = services.imports.append_file(args.file, fmt=args.fmt)
        for warning in (w for g in grown for w in g.warnings):
            print(f"warning: {warning}", file=sys.stderr)
        for g in grown:
            if not g.changed:
                print(f"{g.conv_id}: nothing new")
                continue
            parts = [f"{len(g.turn_ids)} turns"]
            if g.sessions_added:
                parts.append("new session(s) " + ", ".join(map(str, g.sessions_added)))
            if g.session_extended is not None:
                parts.append(f"session {g.session_extended} extended (it will be built again)")
            if g.questions_added:
                parts.append(f"{g.questions_added} questions")
            print(f"appended to {g.conv_id}: " + "; ".join(parts) + " — run build to extend the memory")
    return 0


class _ImportProgress:
    """One stderr line per ~2 s while a streamed file is checked and saved."""

    def __init__(self) -> None:
        self._last = 0.0

    def __call__(self, step: Step) -> None:
        now = time.monotonic()
        if step.done < step.total and now - self._last < 2.0:
            return
        self._last = now
        print(f"{step.stage} {step.done}/{step.total} items", file=sys.stderr, flush=True)


def cmd_list(args: argparse.Namespace, settings: Settings) -> int:
    with _store(settings) as store:
        rows = store.conversation_summaries()
    if not rows:
        print("no conversations (import one with: python -m memory_core import FILE)")
    for row in rows:
        print(f"{row['id']}\t{row['sessions']} sessions\t{row['turns']} turns\t"
              f"{row['episodes']} episodes\t{row['records']} records\t{row['source_format']}")
    return 0


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    with _store(settings) as store:
        stats: dict[str, Any] = store.stats(args.conv)
    if args.json:
        print(json.dumps(stats))
    else:
        for key, value in stats.items():
            print(f"{key:>14}: {value}")
    return 0


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    from memory_core.as_of import parse_day

    day = None if args.as_of is None else parse_day(args.as_of, what="--as-of")
    if day is not None and args.fmt != "graphml":
        raise ConfigError("--as-of: only the graphs are exported as of a day (add --format graphml)")
    with _services(settings) as services:
        services.imports.require_conversations([args.conv])
        if args.fmt == "graphml":
            if args.out == "-":
                raise ConfigError("--format graphml needs --out FILE")
            for path in services.builds.export_graphml(args.conv, Path(args.out), as_of=day):
                print(f"wrote {path}")
            return 0
        text = json.dumps(services.imports.export_json(args.conv), ensure_ascii=False, indent=2)
    if args.out == "-":
        print(text)
    else:
        write_atomic(Path(args.out), text)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def write_atomic(path: Path, text: str) -> None:
    """Write a file via a temporary sibling and a rename: never a half-written export."""
    if path.is_dir():
        raise StoreError(f"{path}: is a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.write("\n")
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise StoreError(f"{path}: cannot write: {exc.strerror or exc}") from None


def cmd_setup_sample(args: argparse.Namespace, settings: Settings) -> int:
    from memory_core.ingest import Loaded
    from memory_core.progress import (
        EntitiesMerged,
        EpisodeFormed,
        GraphUpdated,
        RecordsExtracted,
        SessionStarted,
    )

    quiet = (SessionStarted, EpisodeFormed, RecordsExtracted, EntitiesMerged, GraphUpdated)
    if not SAMPLE.is_file():
        raise ConfigError(f"{SAMPLE}: the shipped sample conversation is missing")
    with _services(settings) as services:
        loaded = services.imports.load(SAMPLE)
        known = set(services.imports.conversation_ids())
        missing = [c for c in loaded.conversations if c.id not in known]
        if missing:
            result = services.imports.save_loaded(Loaded(loaded.format, missing, loaded.warnings),
                                                  file=str(SAMPLE))
            for warning in result.warnings:
                print(f"warning: {warning}", file=sys.stderr)
            print(f"imported sample: {', '.join(result.ids)}")
        else:
            print(f"sample already imported: {', '.join(c.id for c in loaded.conversations)}")
        for row in services.imports.list_conversations():
            todo = row.sessions - row.built_sessions
            if todo <= 0:
                continue
            print(f"building {row.id}: {todo} of {row.sessions} sessions to build", flush=True)
            for event in services.builds.build(row.id):
                if isinstance(event, quiet):
                    continue  # one line per session (plus start and end), not per episode
                print(str(event), flush=True)
    return 0
