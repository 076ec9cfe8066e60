"""Choosing the format from the content and loading a file into validated conversations.

Detection (the file's extension is not used), on the first 64 KiB of decoded text:

1. first non-blank character ``{`` or ``[``: JSON — unless the first line is a complete
   ``{...}`` line and the next non-blank line also starts with ``{``: JSONL. A JSON
   document is scanned once as a stream (syntax, nesting, item count; memory bounded) and
   recognised by the shape of its first item: a REALTALK chat (``name.speaker_1``, turns with
   ``clean_text``), LoCoMo (samples with ``conversation`` / ``sample_id``, or the flat layout
   with ``speaker_a`` / ``session_N``), LongMemEval (items with ``question_id`` /
   ``haystack_sessions``), a ChatGPT export (chats with a ``mapping``), a Claude.ai export
   (chats with ``chat_messages``), a BEAM chat (batches with ``batch_number`` and ``turns``),
   else the generic JSON chat format. A JSON shape none of these fits is refused naming the
   keys it has.
2. the first non-blank line is a session header or a ``Speaker: text`` line and a turn
   line follows within 50 lines: a text transcript.
3. the first line is a comma-separated header of 2+ plain column names: CSV.
4. anything else is refused as an unknown format.

A refusal of a detected benchmark layout or chat export ends with what the file was read as
(``(read as a ChatGPT export)``), so a user whose file was taken for another layout sees why.

A directory is read as a BEAM chat directory: its ``chat.json`` (the questions beside it).

The size limit (``MNEMOSCOPE_MAX_FILE_MB``) applies to what is kept in memory. Most formats
are read whole, so a file over the limit is refused before it is read. A LongMemEval file is
streamed item by item: ``load_file`` keeps its items up to the limit, and ``stream_file``
validates the whole file keeping only ids, then hands the conversations over again one at a
time (``Streamed.conversations()``) so that a 250 MB or 2.7 GB file imports in bounded
memory.
"""

from __future__ import annotations

import codecs
import csv
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_core.config import ImportLimits
from memory_core.errors import IngestError
from memory_core.ingest import beam, chatgpt, claude, generic, locomo, longmemeval, realtalk, text
from memory_core.ingest.common import Context, first_item, kind, show
from memory_core.ingest.reading import (
    JsonShape,
    Opened,
    bytes_source,
    first_json_item,
    head_text,
    load_json,
    max_bytes,
    open_source,
    read_text,
    refuse_size,
    scan_json,
    stream_json,
)
from memory_core.models import Conversation
from memory_core.progress import OnProgress, Step

FORMATS = ("locomo", "longmemeval", "realtalk", "beam", "chatgpt", "claude", "json", "jsonl", "csv",
           "text")
STREAMED = ("longmemeval", "chatgpt", "claude")  # read item by item: the size limit is on what is kept
_CHAT_EXPORTS = {"chatgpt": chatgpt, "claude": claude}
_ALIASES = {"txt": "text", "transcript": "text", "generic": "json", "ndjson": "jsonl",
            "locomo10": "locomo", "lme": "longmemeval", "chatgpt-export": "chatgpt",
            "openai": "chatgpt", "claude.ai": "claude", "anthropic": "claude"}
_COLUMN = re.compile(r"[A-Za-z_][A-Za-z0-9_ .-]{0,40}")
_JSON_FAMILY = ("json", "locomo", "longmemeval", "realtalk", "beam")
_READ_AS = {"locomo": "LoCoMo", "longmemeval": "LongMemEval", "realtalk": "a REALTALK chat",
            "beam": "a BEAM chat", "chatgpt": "a ChatGPT export", "claude": "a Claude.ai export"}



@dataclass(frozen=True)
class Loaded:
    """A file read and validated: its format, conversations and warnings."""

    format: str
    conversations: list[Conversation]
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Streamed:
    """A file validated completely, ready to be saved conversation by conversation.

    ``per_item``: the conversations were not kept (a streamed benchmark layout);
    ``conversations()`` reads the file again, one item at a time, and the importer saves them
    in batches. Otherwise they are the list already read and are saved in one transaction.
    """

    format: str
    ids: list[str]
    turns: int
    warnings: list[str]
    per_item: bool
    _read: Callable[[], Iterator[Conversation]]

    def conversations(self) -> Iterator[Conversation]:
        return self._read()


def load_file(path: str | Path, *, fmt: str | None = None, limits: ImportLimits | None = None,
              display: str | None = None) -> Loaded:
    """Read, detect and validate one file, keeping it. Raises ``IngestError`` for anything wrong."""
    path, display = _chat_dir(Path(path), display)
    ctx = Context(display or str(path), limits or ImportLimits())
    chosen = _format_name(fmt, ctx)
    source, family, _ = _open(path, ctx, chosen)
    return _load(source, family, chosen, ctx)


def load_bytes(name: str, data: bytes, *, fmt: str | None = None,
               limits: ImportLimits | None = None) -> Loaded:
    """``load_file`` for an upload held in memory: the same checks and messages (naming
    ``name``), nothing written to disk."""
    ctx = Context(name, limits or ImportLimits())
    chosen = _format_name(fmt, ctx)
    source, family, _ = _open(Path(name), ctx, chosen, data)
    return _load(source, family, chosen, ctx)


def _load(source: Opened, family: str, chosen: str | None, ctx: Context) -> Loaded:
    data: Any = None
    if family in _JSON_FAMILY and family != "longmemeval":
        data = load_json(read_text(source, ctx), ctx)
        family = chosen or _json_kind(data, ctx)
    try:
        conversations = _parse(source, family, data, ctx)
        _check_unique(conversations, ctx)
    except IngestError as exc:
        raise _read_as(exc, family, chosen) from None
    return Loaded(format=family, conversations=conversations, warnings=ctx.warnings)


def _parse(source: Opened, family: str, data: Any, ctx: Context) -> list[Conversation]:
    if family == "longmemeval":
        return _keep(longmemeval.read_items(source, ctx), ctx, source)
    if family in _CHAT_EXPORTS:
        return _keep([_CHAT_EXPORTS[family].parse(stream_json(source, ctx), ctx)], ctx, source,
                     "raise MNEMOSCOPE_MAX_FILE_MB to import it")
    if family == "beam":
        return beam.parse(data, ctx, source.path if source.data is None else None)
    if family in _JSON_FAMILY:
        return _PARSERS.get(family, generic.parse_json)(data, ctx)
    if family == "jsonl":
        return generic.parse_jsonl(source, ctx)
    if family == "csv":
        return generic.parse_csv(source, ctx)
    return text.parse(source, ctx)


def _read_as(exc: IngestError, family: str, chosen: str | None) -> IngestError:
    """A refusal of a detected layout says which layout the file was read as."""
    if chosen is not None or family not in _READ_AS or "(read as " in exc.what:
        return exc
    return IngestError(exc.file, exc.where, f"{exc.what} (read as {_READ_AS[family]})")


def stream_file(path: str | Path, *, fmt: str | None = None, limits: ImportLimits | None = None,
                display: str | None = None, on_progress: OnProgress | None = None) -> Streamed:
    """Validate one file completely, keeping only what a streamed layout needs (ids, counts).

    Formats read whole are loaded as by ``load_file``. Raises ``IngestError`` at the first
    problem, before anything could be saved.
    """
    path, display = _chat_dir(Path(path), display)
    ctx = Context(display or str(path), limits or ImportLimits())
    chosen = _format_name(fmt, ctx)
    source, family, shape = _open(path, ctx, chosen)
    if family == "longmemeval" and shape is not None:
        try:
            return _stream_longmemeval(source, ctx, shape.items, on_progress)
        except IngestError as exc:
            raise _read_as(exc, family, chosen) from None
    loaded = _load(source, family, chosen, ctx)
    kept = loaded.conversations
    return Streamed(format=loaded.format, ids=[c.id for c in kept],
                    turns=sum(len(c.turns) for c in kept), warnings=loaded.warnings,
                    per_item=False, _read=lambda: iter(kept))


def detect_format(path: str | Path, *, limits: ImportLimits | None = None,
                  display: str | None = None) -> str:
    """The format ``load_file`` would use (a JSON document is scanned to see its first item)."""
    path, display = _chat_dir(Path(path), display)
    ctx = Context(display or str(path), limits or ImportLimits())
    source, family, _ = _open(path, ctx, None)
    if family == "json":
        return _json_kind(load_json(read_text(source, ctx), ctx), ctx)
    return family


def detect_bytes(name: str, data: bytes, *, limits: ImportLimits | None = None) -> str:
    """``detect_format`` for an upload held in memory (nothing written to disk)."""
    ctx = Context(name, limits or ImportLimits())
    source, family, _ = _open(Path(name), ctx, None, data)
    if family == "json":
        return _json_kind(load_json(read_text(source, ctx), ctx), ctx)
    return family


# --------------------------------------------------------------------------- helpers
def _open(path: Path, ctx: Context, chosen: str | None,
          data: bytes | None = None) -> tuple[Opened, str, JsonShape | None]:
    """Open the file and choose its format family, applying the size limit unless streamed.

    The family is final except "json" (LoCoMo or generic: decided on the whole document).
    A scanned JSON document's shape comes along.
    """
    if data is not None:
        source = bytes_source(str(path), data, ctx, check_size=not _may_stream(data[:4096], chosen))
    else:
        source = open_source(path, ctx, check_size=not _may_stream(_head(path), chosen))
    family = chosen or _sniff(source, ctx)
    shape = None
    if family in ("json", *STREAMED) and chosen in (None, *STREAMED):
        family, shape = _scan_kind(source, ctx, chosen)
    if family not in STREAMED:
        refuse_size(source.size, ctx)
    return source, family, shape


def _scan_kind(source: Opened, ctx: Context, chosen: str | None) -> tuple[str, JsonShape]:
    """Scan a JSON document (bounded memory) and tell LongMemEval from the other layouts."""
    try:
        shape = scan_json(source, ctx)
    except IngestError:
        if source.size <= max_bytes(ctx):
            load_json(read_text(source, ctx), ctx)  # the same problem, with line and column
        raise
    if chosen in STREAMED:
        return chosen, shape
    if shape.top == "value" or shape.items == 0:
        return "json", shape
    first = [first_json_item(source, ctx)]
    if locomo.looks_like(first):
        return "json", shape
    for name, module in _CHAT_EXPORTS.items():
        if module.looks_like(first):
            return name, shape
    return ("longmemeval" if longmemeval.looks_like(first) else "json"), shape


def _head(path: Path) -> bytes:
    """A file's first bytes (empty when it is no regular file: open_source names the problem,
    and a named pipe must not block)."""
    try:
        if not path.is_file():
            return b""
        with path.open("rb") as f:
            return f.read(4096)
    except OSError:
        return b""


def _may_stream(head: bytes, chosen: str | None) -> bool:
    """Could this file be a streamed layout? (a cheap look at its first bytes)"""
    if chosen is not None and chosen not in STREAMED and chosen != "json":
        return False
    for bom in (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        if head.startswith(bom):
            head = head[len(bom):].replace(b"\x00", b"")
            break
    return head.lstrip()[:1] in (b"[", b"{")


def _keep(conversations: Iterable[Conversation], ctx: Context, source: Opened,
          hint: str = "import it with `python -m memory_core import FILE`, which streams it "
                      "item by item") -> list[Conversation]:
    """Keep streamed conversations while what is kept stays under the size limit."""
    kept: list[Conversation] = []
    size = 0
    for conv in conversations:
        size += _kept_bytes(conv)
        if size > max_bytes(ctx):
            raise ctx.error("", f"file is {source.size / 2**20:.1f} MB and its first {len(kept) + 1} "
                                f"conversation(s) already hold more than the import limit of "
                                f"{ctx.limits.max_file_mb:g} MB (MNEMOSCOPE_MAX_FILE_MB); {hint}")
        kept.append(conv)
    return kept


_TURN_OVERHEAD = 1000  # bytes a kept Turn costs beyond its text (measured: ~1,400)


def _kept_bytes(conv: Conversation) -> int:
    """Roughly the memory a kept conversation takes."""
    return sum(len(t.text) + len(t.image_caption or "") + _TURN_OVERHEAD for t in conv.turns)


def _stream_longmemeval(source: Opened, ctx: Context, total: int,
                        on_progress: OnProgress | None) -> Streamed:
    ids: list[str] = []
    seen: set[str] = set()
    turns = 0
    for conv in longmemeval.read_items(source, ctx, per_item_limits=True):
        if conv.id in seen:
            raise ctx.error(f"conversation {show(conv.id)}", "appears more than once in the file")
        seen.add(conv.id)
        ids.append(conv.id)
        turns += len(conv.turns)
        if on_progress is not None:
            on_progress(Step("checked", len(ids), total))

    def again() -> Iterator[Conversation]:
        # a fresh context: the warnings were reported by the validating pass
        return longmemeval.read_items(source, Context(ctx.file, ctx.limits), per_item_limits=True)

    return Streamed(format="longmemeval", ids=ids, turns=turns, warnings=ctx.warnings,
                    per_item=True, _read=again)


def _format_name(fmt: str | None, ctx: Context) -> str | None:
    if fmt is None or not fmt.strip():
        return None
    name = _ALIASES.get(fmt.strip().lower(), fmt.strip().lower())
    if name not in FORMATS:
        raise ctx.error("format", f"unknown format {show(fmt)} (one of: {', '.join(FORMATS)})")
    return name


def _sniff(source: Opened, ctx: Context) -> str:
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


_PARSERS: dict[str, Callable[[Any, Context], list[Conversation]]] = {
    "locomo": locomo.parse, "realtalk": realtalk.parse, "json": generic.parse_json}
_SHAPES = (("realtalk", realtalk.looks_like), ("locomo", locomo.looks_like), ("beam", beam.looks_like))


def _json_kind(data: Any, ctx: Context) -> str:
    for name, looks_like in _SHAPES:
        if looks_like(data):
            return name
    first = first_item(data)
    if isinstance(first, dict) and ("turns" in first or set(first) & set(generic.FIELDS)):
        return "json"
    if isinstance(data, list) and not data:
        raise ctx.error("$", "empty list: nothing to import")
    if beam.looks_like_questions(data):
        raise ctx.error("$", "BEAM probing questions alone: import the chat.json beside them, or their "
                             "chat's directory (the questions are read from there)")
    where = "$[0]" if isinstance(data, list) else "$"
    seen = (f"an object with keys {', '.join(show(k, 24) for k in list(first)[:8])}"
            + (" …" if len(first) > 8 else "")) if isinstance(first, dict) and first else f"a {kind(first)}"
    raise ctx.error(where, f"unrecognised JSON shape ({seen}): expected LoCoMo samples, LongMemEval "
                           "items, a REALTALK chat, BEAM batches, ChatGPT or Claude.ai chats, turn "
                           "objects or {\"conversation_id\", \"turns\": [...]}")


def _chat_dir(path: Path, display: str | None) -> tuple[Path, str | None]:
    """A directory holding a ``chat.json`` (a BEAM chat) is read as that file."""
    try:
        inner = path / "chat.json"
        if path.is_dir() and inner.is_file():
            return inner, None if display is None else str(Path(display) / "chat.json")
    except OSError:
        pass  # open_source names the problem
    return path, display


def _check_unique(conversations: list[Conversation], ctx: Context) -> None:
    seen: set[str] = set()
    for conv in conversations:
        if conv.id in seen:
            raise ctx.error(f"conversation {show(conv.id)}", "appears more than once in the file")
        seen.add(conv.id)
