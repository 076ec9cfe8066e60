"""Reading files safely: existence, size limit, encoding, bounded JSON parsing.

``open_source`` checks the path before anything is read: not found, not a regular file, over
``limits.max_file_mb``, empty. It then streams the bytes once (1 MiB at a time) to choose an
encoding: UTF-8 (a BOM is dropped), UTF-16 with a BOM, else the legacy cp1252 (latin-1 when
cp1252 cannot decode a byte) with a named warning. A NUL byte outside UTF-16 means binary
data and is refused.

``load_json`` scans bracket depth *before* ``json.loads`` so that absurd nesting is refused
with a position instead of exhausting the recursion limit.

Streamed JSON (``ijson``, any size): ``scan_json`` reads the whole document once as parser
events — syntax, nesting depth and the number of top-level items, in bounded memory —
and ``stream_json`` then yields the top-level items one at a time with their JSON path.
Errors name the item and the byte near which the parser stopped (``$[48] (near byte
123,731,968)``). Files in UTF-16 or a legacy encoding are re-encoded to UTF-8 on the fly.
"""

from __future__ import annotations

import codecs
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import ijson  # type: ignore[import-untyped]

from memory_core.ingest.common import Context

CHUNK = 1 << 20
HARD_MAX_DEPTH = 500  # json's C parser recurses; stay far below Python's recursion limit
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}"]', re.DOTALL)


@dataclass(frozen=True)
class Opened:
    """A source opened for reading: a file on disk, or an upload held as bytes (``data``;
    ``path`` is then its name only), with its size and the codec its text is read with."""

    path: Path
    size: int
    encoding: str  # codec used to read the text
    data: bytes | None = None

    def open_raw(self) -> BinaryIO:
        return io.BytesIO(self.data) if self.data is not None else self.path.open("rb")


def bytes_source(name: str, data: bytes, ctx: Context, *, check_size: bool = True) -> Opened:
    """An upload's bytes as an ``Opened`` file (the same checks as a file, nothing written to disk)."""
    if check_size:
        refuse_size(len(data), ctx)
    if not data:
        raise ctx.error("", "file is empty")
    encoding = _choose_encoding(lambda: io.BytesIO(data), ctx)
    return Opened(path=Path(name), size=len(data), encoding=encoding, data=data)


def open_source(path: Path, ctx: Context, *, check_size: bool = True) -> Opened:
    """Check the file and choose its encoding; raise ``IngestError`` for anything unusable.

    Without ``check_size`` the caller applies the size limit itself (``check_size``), once it
    knows whether the file is a layout streamed item by item.
    """
    try:
        if path.is_dir():
            raise ctx.error("", "is a directory, not a file")
        if not path.exists():
            raise ctx.error("", "no such file")
        if not path.is_file():
            raise ctx.error("", "not a regular file")
        size = path.stat().st_size
    except PermissionError:
        raise ctx.error("", "permission denied") from None
    except OSError as exc:
        raise ctx.error("", f"cannot read: {exc.strerror or exc}") from None
    if check_size:
        refuse_size(size, ctx)
    if size == 0:
        raise ctx.error("", "file is empty")
    try:
        encoding = _choose_encoding(lambda: path.open("rb"), ctx)
    except PermissionError:
        raise ctx.error("", "permission denied") from None
    except OSError as exc:
        raise ctx.error("", f"cannot read: {exc.strerror or exc}") from None
    return Opened(path=path, size=size, encoding=encoding)


def max_bytes(ctx: Context) -> int:
    return int(ctx.limits.max_file_mb * 2**20)


def refuse_size(size: int, ctx: Context, hint: str = "") -> None:
    """Refuse a file over ``limits.max_file_mb``."""
    if size > max_bytes(ctx):
        raise ctx.error("", f"file is {size / 2**20:.1f} MB, over the import limit of "
                            f"{ctx.limits.max_file_mb:g} MB (MNEMOSCOPE_MAX_FILE_MB){hint}")


def _choose_encoding(opener: Callable[[], BinaryIO], ctx: Context) -> str:
    with opener() as f:
        head = f.read(4)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        _check_decodes(opener, ctx, "utf-16", nul_is_binary=False)
        ctx.warn("", "file is UTF-16 (byte-order mark); decoded as UTF-16")
        return "utf-16"
    encoding = "utf-8-sig" if head.startswith(codecs.BOM_UTF8) else "utf-8"
    bad = _check_decodes(opener, ctx, encoding, nul_is_binary=True, fatal=False)
    if bad is None:
        return encoding
    line, byte = bad
    legacy = "cp1252"
    if _check_decodes(opener, ctx, "cp1252", nul_is_binary=True, fatal=False) is not None:
        legacy = "latin-1"  # decodes any byte; this pass still refuses binary data
        _check_decodes(opener, ctx, legacy, nul_is_binary=True)
    ctx.warn(f"line {line}", f"not valid UTF-8 (byte 0x{byte:02x}); decoded the file as {legacy}")
    return legacy


def _check_decodes(opener: Callable[[], BinaryIO], ctx: Context, encoding: str, *, nul_is_binary: bool,
                   fatal: bool = True) -> tuple[int, int] | None:
    """Stream-decode the file; return (line, byte) of the first bad byte, or None if it decodes.

    Also refuses binary data (NUL bytes) and files holding only whitespace.
    """
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    lines = 1
    content = False
    with opener() as f:
        while True:
            chunk = f.read(CHUNK)
            final = not chunk
            if nul_is_binary and b"\x00" in chunk:
                at = chunk.index(b"\x00")
                line = lines + chunk.count(b"\n", 0, at)
                raise ctx.error(f"line {line}", "binary data (NUL byte): not UTF-8 text and not decodable")
            try:
                text = decoder.decode(chunk, final=final)
            except UnicodeDecodeError as exc:
                if fatal:
                    raise ctx.error("", f"cannot decode as {encoding}: {exc.reason}") from None
                data = bytes(exc.object)
                byte = data[exc.start] if 0 <= exc.start < len(data) else 0
                return lines + data.count(b"\n", 0, max(exc.start, 0)), byte
            content = content or bool(text.strip())
            lines += chunk.count(b"\n")
            if final:
                break
    if not content:
        raise ctx.error("", "file is empty (only whitespace)")
    return None


def read_text(source: Opened, ctx: Context) -> str:
    """The whole file as text (its size was checked against the limit)."""
    with open_text(source) as f:
        text = f.read(max_bytes(ctx) + 1)
    return text


def open_text(source: Opened, *, newline: str | None = None) -> TextIO:
    return io.TextIOWrapper(source.open_raw(), encoding=source.encoding, errors="strict", newline=newline)


def iter_lines(source: Opened) -> Iterator[tuple[int, str]]:
    """(1-based line number, line without its end) — streamed, for JSONL and transcripts."""
    with open_text(source) as f:
        for number, line in enumerate(f, start=1):
            yield number, line.rstrip("\r\n")


def head_text(source: Opened, chars: int = 65536) -> str:
    with open_text(source) as f:
        return f.read(chars)


# --------------------------------------------------------------------------- JSON
def check_depth(text: str, ctx: Context, line: int | None = None) -> None:
    """Refuse nesting deeper than ``limits.max_depth`` without recursing.

    ``line`` is the file line of a one-line document (JSONL).
    """
    limit = min(ctx.limits.max_depth, HARD_MAX_DEPTH)
    if text.count("[") + text.count("{") <= limit:
        return
    depth = 0
    for match in _TOKEN.finditer(text):
        piece = match.group()
        if piece in ("[", "{"):
            depth += 1
            if depth > limit:
                pos = match.start()
                at = _position(text, pos, line)
                raise ctx.error(at, f"JSON nested deeper than {limit} levels (MNEMOSCOPE_MAX_DEPTH)")
        elif piece in ("]", "}"):
            depth -= 1
        elif piece == '"':
            return  # an unterminated string: json.loads reports it with its position


def load_json(text: str, ctx: Context, line: int | None = None) -> Any:
    """Parse JSON text, refusing bad syntax (with line:column), deep nesting and huge numbers.

    ``line`` is the file line of a one-line document (JSONL).
    """
    check_depth(text, ctx, line)
    where = "" if line is None else f"line {line}"
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = _position(text, exc.pos, line)
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            raise ctx.error(at, f"truncated JSON: unexpected end of data ({exc.msg})") from None
        raise ctx.error(at, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise ctx.error(where, "JSON nested too deeply") from None
    except ValueError as exc:  # e.g. integers with thousands of digits
        raise ctx.error(where, f"invalid JSON: {str(exc).splitlines()[0]}") from None


def _position(text: str, pos: int, line: int | None) -> str:
    column = pos - text.rfind("\n", 0, pos)
    if line is None:
        line = text.count("\n", 0, pos) + 1
    return f"line {line}, column {column}"


# --------------------------------------------------------------------------- streamed JSON
@dataclass(frozen=True)
class JsonShape:
    """What a streamed scan learnt about a JSON document without keeping it."""

    top: str  # "list" | "object" | "value"
    items: int  # items of a top-level list (1 for an object)


class _Utf8Reader:
    """The file as UTF-8 bytes for ijson, whatever its encoding; counts the bytes read."""

    def __init__(self, source: Opened) -> None:
        self.position = 0
        self._text: TextIO | None = None
        self._raw = None
        if source.encoding in ("utf-8", "utf-8-sig"):
            self._raw = source.open_raw()
            if source.encoding == "utf-8-sig":
                self._raw.read(len(codecs.BOM_UTF8))
        else:
            self._text = open_text(source)

    def read(self, size: int = -1) -> bytes:
        if self._raw is not None:
            data = self._raw.read(size)
            self.position += len(data)
            return data
        assert self._text is not None
        if size == 0:
            return b""  # ijson reads 0 bytes to see whether the file gives bytes or text
        text = self._text.read(size if size < 0 else max(1, size // 4))
        self.position += len(text)
        return text.encode("utf-8", "surrogatepass")

    def close(self) -> None:
        for f in (self._raw, self._text):
            if f is not None:
                f.close()

    def __enter__(self) -> _Utf8Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_OPEN = ("start_map", "start_array")
_CLOSE = ("end_map", "end_array")


def scan_json(source: Opened, ctx: Context) -> JsonShape:
    """Stream the whole document once: refuse bad syntax and deep nesting, count the items.

    Memory stays bounded whatever the size; errors name the top-level item (``$[48]``) and
    the byte offset near which the parser stopped.
    """
    limit = min(ctx.limits.max_depth, HARD_MAX_DEPTH)
    depth = 0
    top = ""
    items = 0
    with _Utf8Reader(source) as reader:
        try:
            for event, _ in ijson.basic_parse(reader, use_float=True):
                if not top:
                    top = {"start_array": "list", "start_map": "object"}.get(event, "value")
                    items = 0 if top == "list" else 1
                if event in _OPEN:
                    depth += 1
                    if depth == 2 and top == "list":
                        items += 1
                    if depth > limit:
                        raise ctx.error(_near(top, items, reader),
                                        f"JSON nested deeper than {limit} levels (MNEMOSCOPE_MAX_DEPTH)")
                elif event in _CLOSE:
                    depth -= 1
                elif depth == 1 and top == "list" and event != "map_key":
                    items += 1
        except (ijson.JSONError, ValueError, UnicodeDecodeError) as exc:
            raise ctx.error(_near(top, items, reader), _json_problem(exc)) from None
    if not top:
        raise ctx.error("", "file is empty (no JSON value)")
    return JsonShape(top=top, items=items)


def stream_json(source: Opened, ctx: Context) -> Iterator[tuple[str, Any]]:
    """The top-level items one at a time: ``("$[i]", item)`` of a list, or ``("$", value)``.

    Call ``scan_json`` first: it bounds the nesting that building an item relies on.
    """
    shape_list = _first_byte(source) == b"["
    prefix = "item" if shape_list else ""
    index = 0
    with _Utf8Reader(source) as reader:
        stream = ijson.items(reader, prefix, use_float=True)
        while True:
            try:
                value = next(stream)
            except StopIteration:
                return
            except (ijson.JSONError, ValueError, UnicodeDecodeError) as exc:
                where = _near("list" if shape_list else "object", index + 1, reader)
                raise ctx.error(where, _json_problem(exc)) from None
            yield (f"$[{index}]" if shape_list else "$"), value
            index += 1


def first_json_item(source: Opened, ctx: Context) -> Any:
    """The first item of a top-level list (or the top-level object) — after ``scan_json``."""
    for _, value in stream_json(source, ctx):
        return value
    return []


def _first_byte(source: Opened) -> bytes:
    with _Utf8Reader(source) as reader:
        while True:
            chunk = reader.read(4096)
            if not chunk:
                return b""
            stripped = chunk.lstrip()
            if stripped:
                return stripped[:1]


def _near(top: str, items: int, reader: _Utf8Reader) -> str:
    where = f"$[{max(items - 1, 0)}]" if top == "list" and items else "$"
    return f"{where} (near byte {reader.position:,})"


def _json_problem(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = text.removeprefix("parse error: ").strip()
    if "premature EOF" in text:
        return "truncated JSON: unexpected end of data"
    return f"invalid JSON: {text}"
