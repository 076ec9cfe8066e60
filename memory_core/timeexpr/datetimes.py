"""Session date-times as written in sources, read without guessing.

Accepted (case-insensitive; a weekday name, "on", "at" and commas may appear anywhere)::

    1:56 pm on 8 May, 2023          LoCoMo
    2023/05/20 (Sat) 02:21          LongMemEval
    2023-05-14, 2023-05-14T10:00:00, 2023-05-14 10:00   ISO 8601 (time zones converted to UTC)
    14 May 2023, 14th May 2023 9am, May 14, 2023 10:30 pm, 14.05.2023

Numeric dates with slashes other than year-first (05/06/2023) are ambiguous and not read
(dateparser would read them, which is why these rules stay hand-written). ``parse_datetime``
needs the whole text to be a date-time; ``search_datetime`` finds one inside a longer line.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from memory_core.timeexpr.months import MONTH_ALT, MONTHS

_DATES = [
    ("ymd", re.compile(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")),
    ("dmy", re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({MONTH_ALT})\.?,?\s+(\d{{4}})\b", re.I)),
    ("mdy", re.compile(rf"\b({MONTH_ALT})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)),
    ("dmy_dots", re.compile(r"\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b")),
]
_TIME = re.compile(
    r"(?<![\d:])(\d{1,2})(?::(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*([ap])\.?\s?m\b\.?"
    r"|(?<![\d:])(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?![\d:])",
    re.I,
)
_FILLER = re.compile(
    r"\b(on|at|the|of|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|t)\b|[\s,()\[\]|@-]",
    re.I,
)


def parse_datetime(text: str) -> datetime | None:
    """The date-time the whole of ``text`` names, or None."""
    text = text.strip()
    if not text or len(text) > 80:
        return None
    iso = _iso(text)
    if iso is not None:
        return iso
    found = _extract(text)
    if found is None:
        return None
    value, leftover = found
    return value if not _FILLER.sub("", leftover) else None


def search_datetime(text: str) -> datetime | None:
    """The first date (with a time next to it, if any) inside ``text``, or None."""
    found = _extract(text[:400])
    return None if found is None else found[0]


def _iso(text: str) -> datetime | None:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}([T ][\d:.]+)?(Z|[+-]\d{2}:?\d{2})?", text):
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


def _extract(text: str) -> tuple[datetime, str] | None:
    """(date-time, the text left over) for the first date found."""
    for kind, pattern in _DATES:
        match = pattern.search(text)
        if match is None:
            continue
        day = _date(kind, match.groups())
        if day is None:
            return None
        rest = text[: match.start()] + " " + text[match.end():]
        time, rest = _clock(rest)
        if time is None:
            return day, rest
        hour, minute, second = time
        return day.replace(hour=hour, minute=minute, second=second), rest
    return None


def _date(kind: str, groups: tuple[str | None, ...]) -> datetime | None:
    a, b, c = (g or "" for g in groups[:3])
    try:
        if kind == "ymd":
            return datetime(int(a), int(b), int(c))
        if kind == "dmy":
            return datetime(int(c), MONTHS[b.lower()], int(a))
        if kind == "mdy":
            return datetime(int(c), MONTHS[a.lower()], int(b))
        return datetime(int(c), int(b), int(a))  # dd.mm.yyyy
    except (ValueError, KeyError):
        return None


def _clock(text: str) -> tuple[tuple[int, int, int] | None, str]:
    match = _TIME.search(text)
    if match is None:
        return None, text
    rest = text[: match.start()] + " " + text[match.end():]
    if match.group(4):  # 12-hour clock
        hour, minute, second = int(match.group(1)), int(match.group(2) or 0), int(match.group(3) or 0)
        if not 1 <= hour <= 12:
            return None, text
        hour = hour % 12 + (12 if match.group(4).lower() == "p" else 0)
    else:
        hour, minute, second = int(match.group(5)), int(match.group(6)), int(match.group(7) or 0)
    if hour > 23 or minute > 59 or second > 59:
        return None, text
    return (hour, minute, second), rest
