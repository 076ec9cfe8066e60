"""Choosing the format from the content and loading a file into validated conversations.

Detection (the file's extension is not used), on the first 64 KiB of decoded text:

1. first non-blank character ``{`` or ``[``: JSON — unless the first line is a complete
   ``{...}`` line and the next non-blank line also starts with ``{``: JSONL. A JSON
   document is then recognised by its shape: LoCoMo (samples with ``conversation`` /
   ``sample_id``, or the flat layout with ``speaker_a`` / ``session_N``), LongMemEval (items
   with ``question_id`` / ``haystack_sessions``), else the generic JSON chat format.
2. the first non-blank line is a session header or a ``Speaker: text`` line and a turn
   line follows within 50 lines: a text transcript.
3. the first line is a comma-separated header of 2+ plain column names: CSV.
4. anything else is refused as an unknown format.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_core.config import ImportLimits
from memory_core.ingest import generic, locomo, longmemeval, text
from memory_core.ingest.common import Context, show
from memory_core.ingest.reading import Source, head_text, load_json, open_source, read_text
from memory_core.models import Conversation

FORMATS = ("locomo", "longmemeval", "json", "jsonl", "csv", "text")
_ALIASES = {"txt": "text", "transcript": "text", "generic": "json", "ndjson": "jsonl",
            "locomo10": "locomo", "lme": "longmemeval"}
_COLUMN = re.compile(r"[A-Za-z_][A-Za-z0-9_ .-]{0,40}")


@dataclass(frozen=True)
class Loaded:
    """A file read and validated: its format, conversations and warnings."""

    format: str
    conversations: list[Conversation]
    warnings: list[str] = field(default_factory=list)


def load_file(path: str | Path, *, fmt: str | None = None, limits: ImportLimits | None = None,
              display: str | None = None) -> Loaded:
    """Read, detect and validate one file. Raises ``IngestError`` for anything wrong."""
    ctx = Context(display or str(path), limits or ImportLimits())
    chosen = _format_name(fmt, ctx)
    source = open_source(Path(path), ctx)
    family = chosen or _sniff(source, ctx)
    conversations: list[Conversation]
    if family in ("json", "locomo", "longmemeval"):
        data = load_json(read_text(source, ctx), ctx)
        family = chosen or _json_kind(data, ctx)
        if family == "locomo":
            conversations = locomo.parse(data, ctx)
        elif family == "longmemeval":
            conversations = longmemeval.parse(data, ctx)
        else:
            conversations = generic.parse_json(data, ctx)
    elif family == "jsonl":
        conversations = generic.parse_jsonl(source, ctx)
    elif family == "csv":
        conversations = generic.parse_csv(source, ctx)
    else:
        conversations = text.parse(source, ctx)
    _check_unique(conversations, ctx)
    return Loaded(format=family, conversations=conversations, warnings=ctx.warnings)


def detect_format(path: str | Path, *, limits: ImportLimits | None = None,
                  display: str | None = None) -> str:
    """The format ``load_file`` would use (JSON documents are parsed to see their shape)."""
    ctx = Context(display or str(path), limits or ImportLimits())
    source = open_source(Path(path), ctx)
    family = _sniff(source, ctx)
    if family == "json":
        return _json_kind(load_json(read_text(source, ctx), ctx), ctx)
    return family


def _format_name(fmt: str | None, ctx: Context) -> str | None:
    if fmt is None or not fmt.strip():
        return None
    name = _ALIASES.get(fmt.strip().lower(), fmt.strip().lower())
    if name not in FORMATS:
        raise ctx.error("format", f"unknown format {show(fmt)} (one of: {', '.join(FORMATS)})")
    return name


def _sniff(source: Source, ctx: Context) -> str:
    head = head_text(source)
    lines = [line.strip() for line in head.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if first[:1] in ("{", "["):
        if first.startswith("{") and len(first) > 1 and len(lines) > 1 and lines[1].startswith("{"):
            return "jsonl"
        return "json"
    if text.looks_like(head):
        return "text"
    if _csv_header(first):
        return "csv"
    raise ctx.error("", "unknown format: not JSON, JSONL, CSV with a header, or a 'Speaker: text' "
                        "transcript (use --format to choose one)")


def _csv_header(line: str) -> bool:
    try:
        cells = next(csv.reader([line]))
    except (csv.Error, StopIteration):
        return False
    return len(cells) >= 2 and all(_COLUMN.fullmatch(c.strip()) for c in cells)


def _json_kind(data: Any, ctx: Context) -> str:
    if locomo.looks_like(data):
        return "locomo"
    if longmemeval.looks_like(data):
        return "longmemeval"
    first = data[0] if isinstance(data, list) and data else data
    if isinstance(first, dict) and ("turns" in first or set(first) & set(generic.FIELDS)):
        return "json"
    if isinstance(data, list) and not data:
        raise ctx.error("$", "empty list: nothing to import")
    where = "$[0]" if isinstance(data, list) else "$"
    raise ctx.error(where, "unrecognised JSON shape: expected LoCoMo samples, LongMemEval items, "
                           "turn objects or {\"conversation_id\", \"turns\": [...]}")


def _check_unique(conversations: list[Conversation], ctx: Context) -> None:
    seen: set[str] = set()
    for conv in conversations:
        if conv.id in seen:
            raise ctx.error(f"conversation {show(conv.id)}", "appears more than once in the file")
        seen.add(conv.id)
