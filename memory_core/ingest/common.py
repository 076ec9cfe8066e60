"""What every importer shares: the per-file context, limits, warnings, value checks and the
pieces of layout several formats use (``session_N`` keys, LoCoMo-style turns, required keys).

An importer never raises anything but ``IngestError`` for bad input. It reports *where*
with a JSON path (``$[0].conversation.session_3[4].speaker``), a line (``line 7``) or a CSV
line, and *what* in a few words. Recoverable problems (unreadable dates, legacy encodings,
over-long turns) become warnings: ``<file>: <where>: <what>``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from memory_core.config import ImportLimits
from memory_core.errors import IngestError

MAX_WARNINGS = 50  # more than this are counted, not listed
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
SESSION_KEY = re.compile(r"^session_(\d+)$")  # LoCoMo's and REALTALK's lists of turns


class Context:
    """State of one file's import: its display name, the limits and the warnings so far."""

    def __init__(self, file: str, limits: ImportLimits) -> None:
        self.file = file
        self.limits = limits
        self.turns = 0
        self._warnings: list[str] = []
        self._suppressed = 0

    @property
    def stem(self) -> str:
        """The file name without extension, as a conversation id."""
        stem = Path(self.file).stem
        return re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-.") or "conversation"

    @property
    def name(self) -> str:
        return Path(self.file).name

    def error(self, where: str, what: str) -> IngestError:
        return IngestError(self.file, one_line(where), one_line(what))

    def warn(self, where: str, what: str) -> None:
        if len(self._warnings) >= MAX_WARNINGS:
            self._suppressed += 1
            return
        location = f"{self.file}: {one_line(where)}" if where else self.file
        self._warnings.append(f"{location}: {one_line(what)}")

    @property
    def warnings(self) -> list[str]:
        if not self._suppressed:
            return list(self._warnings)
        return [*self._warnings, f"{self.file}: {self._suppressed} more warnings not shown"]

    def count_turn(self, where: str) -> None:
        self.turns += 1
        if self.turns > self.limits.max_turns:
            raise self.error(where, f"more than {self.limits.max_turns} turns in one file (import limit)")

    def clip(self, text: str, where: str, what: str) -> str:
        """Truncate over-long text to ``limits.max_turn_chars`` with a named warning."""
        limit = self.limits.max_turn_chars
        if len(text) <= limit:
            return text
        self.warn(where, f"{what} is {len(text):,} characters; truncated to {limit:,} "
                         "(MNEMOSCOPE_MAX_TURN_CHARS)")
        return text[:limit]


# --------------------------------------------------------------------------- messages
def one_line(text: str) -> str:
    return _CONTROL.sub(" ", text.replace("\r", " ").replace("\n", " "))


def show(value: Any, limit: int = 40) -> str:
    """A short, one-line, quoted rendering of a user value for messages."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = one_line(text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"'{text}'"


def kind(value: Any) -> str:
    """The JSON name of a value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def first_item(data: Any) -> Any:
    """What a format check looks at: the first item of a non-empty list, else the value itself."""
    return data[0] if isinstance(data, list) and data else data


def numbered(base: str, i: int, count: int) -> str:
    """The id of item ``i`` of ``count`` read from one file: ``base``, or ``base-<i+1>`` if several."""
    return base if count == 1 else f"{base}-{i + 1}"


def listed(items: list[str], limit: int, sep: str = ", ") -> str:
    """The first ``limit`` items joined, then how many more were not shown."""
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return sep.join(items[:limit]) + more


def top_level_items(ctx: Context, data: Any, *, noun: str, expected: str) -> list[tuple[str, Any]]:
    """A list of objects or one object, each with its JSON path ("$[3]" or "$")."""
    if isinstance(data, list):
        if not data:
            raise ctx.error("$", f"empty list: no {noun}")
        return [(f"$[{i}]", item) for i, item in enumerate(data)]
    if isinstance(data, dict):
        return [("$", data)]
    raise ctx.error("$", f"expected {expected}, got {kind(data)}")


def key_path(path: str, key: str) -> str:
    return f"{path}.{key}" if _IDENT.fullmatch(key) else f"{path}[{json.dumps(key, ensure_ascii=False)}]"


# --------------------------------------------------------------------------- value checks
def required(ctx: Context, obj: dict[str, Any], key: str, where: str, what: str = "missing") -> Any:
    """``obj[key]``, or an error at ``where.key`` (``what``) when the key is absent."""
    if key not in obj:
        raise ctx.error(key_path(where, key), what)
    return obj[key]


def session_keys(obj: dict[str, Any]) -> list[tuple[int, str]]:
    """The ``session_N`` keys of an object as ``(N, key)``, in N order."""
    return sorted((int(m.group(1)), k) for k in obj if (m := SESSION_KEY.match(k)))


def turn_fields(ctx: Context, turn: dict[str, Any], where: str,
                text_key: str = "text") -> tuple[str, str | None, str | None]:
    """A LoCoMo-style turn's speaker (required), text and ``blip_caption``."""
    speaker = get_str(ctx, required(ctx, turn, "speaker", where), key_path(where, "speaker"))
    text = opt_str(ctx, turn.get(text_key), key_path(where, text_key))
    caption = opt_str(ctx, turn.get("blip_caption"), key_path(where, "blip_caption"))
    return speaker, text, caption


def named_speakers(ctx: Context, obj: dict[str, Any], keys: tuple[str, ...], where: str) -> list[str]:
    """The speakers named under ``keys`` (absent or empty names left out)."""
    return [name for k in keys if (name := opt_str(ctx, obj.get(k), key_path(where, k)))]


def valid_unicode(ctx: Context, text: str, where: str) -> str:
    """Refuse lone surrogates (``\\ud800`` escapes): they cannot be stored as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ctx.error(where, "invalid unicode (a lone surrogate escape)") from None
    return text


def get_dict(ctx: Context, value: Any, where: str, what: str = "an object") -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ctx.error(where, f"expected {what}, got {kind(value)}")
    return value


def get_list(ctx: Context, value: Any, where: str, what: str = "a list") -> list[Any]:
    if not isinstance(value, list):
        raise ctx.error(where, f"expected {what}, got {kind(value)}")
    return value


def get_str(ctx: Context, value: Any, where: str, *, numbers: bool = False) -> str:
    """A string (numbers accepted and converted when ``numbers``)."""
    if isinstance(value, str):
        return valid_unicode(ctx, value, where)
    if numbers and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise ctx.error(where, f"expected a string, got {kind(value)}")


def opt_str(ctx: Context, value: Any, where: str, *, numbers: bool = False) -> str | None:
    """A string or nothing; empty strings count as nothing."""
    if value is None:
        return None
    text = get_str(ctx, value, where, numbers=numbers)
    return text if text.strip() else None


def get_id(ctx: Context, value: Any, where: str, what: str) -> str:
    """A non-empty identifier without control characters (numbers accepted)."""
    if value is None:
        raise ctx.error(where, f"missing {what}")
    text = get_str(ctx, value, where, numbers=True).strip()
    if not text:
        raise ctx.error(where, f"empty {what}")
    if _CONTROL.search(text) or "\n" in text:
        raise ctx.error(where, f"{what} {show(text)} contains control characters")
    if len(text) > 200:
        raise ctx.error(where, f"{what} is longer than 200 characters")
    return text


def get_int(ctx: Context, value: Any, where: str, *, minimum: int = 1) -> int:
    """An integer (a whole float or a digit string accepted) not below ``minimum``."""
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif (isinstance(value, float) and value.is_integer()) or (
            isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,9}\s*", value)):
        number = int(value)
    if number is None:
        raise ctx.error(where, f"expected a whole number, got {kind(value)} {show(value)}")
    if number < minimum:
        raise ctx.error(where, f"expected a number >= {minimum}, got {number}")
    return number


def answer_text(ctx: Context, value: Any, where: str) -> str | None:
    """Gold answers come as strings, numbers or short lists of those."""
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return ", ".join(get_str(ctx, v, where, numbers=True) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return get_str(ctx, value, where, numbers=True)


def check_meta(ctx: Context, meta: dict[str, Any], where: str) -> dict[str, Any]:
    """Meta is stored as JSON text: it must encode as UTF-8."""
    try:
        json.dumps(meta, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ctx.error(where, "invalid unicode (a lone surrogate escape)") from None
    except (ValueError, RecursionError):
        raise ctx.error(where, "cannot be stored as JSON") from None
    return meta
