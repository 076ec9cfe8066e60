"""Time expressions, read in one place: session date-times, dates named in questions, time
spans of turns normalised against their session, and the relative phrases the offline answer
resolves. One month table serves every reader.

Four readers, each with its own contract (kept exactly; they feed the build's ``valid_time``
values and the retrieval figures):

``parse_datetime`` / ``search_datetime`` — session date-times as written in sources, read
without guessing. Accepted (case-insensitive; a weekday name, "on", "at" and commas may appear
anywhere)::

    1:56 pm on 8 May, 2023          LoCoMo
    2023/05/20 (Sat) 02:21          LongMemEval
    2023-05-14, 2023-05-14T10:00:00, 2023-05-14 10:00   ISO 8601 (time zones converted to UTC)
    14 May 2023, 14th May 2023 9am, May 14, 2023 10:30 pm, 14.05.2023

  Numeric dates with slashes other than year-first (05/06/2023) are ambiguous and not read
  (dateparser would read them, which is why these rules stay hand-written). ``parse_datetime``
  needs the whole text to be a date-time; ``search_datetime`` finds one inside a longer line.

``question_dates`` / ``session_near`` — absolute dates a question names ("on 1 February,
  2023", "in May 2023", "in 2022") as date ranges, so retrieval can favour sessions near them.
  Regexes find the spans and their extent (dateparser's ``search_dates`` reads "We" or "may"
  as dates in free text).

``normalise`` — a DATE/TIME span (as spaCy tags it; never free text) normalised against the
  session date-time with ``dateparser`` (RELATIVE_BASE = the session), at the granularity the
  expression states::

    "yesterday", "last Saturday", "two days ago", "last week"   -> "2023-05-06"   (date)
    "last month", "next month", "May 2023"                        -> "2023-04"      (month)
    "last year", "4 years ago", "since 2016", "last summer"       -> "2022"         (year)
    "last weekend" / "this weekend"                               -> the Saturday  (date)
    "a few days ago", "the other day"                             -> the month     (vague)

  Durations ("for three years", "28 years old", "a while") and vague words ("recently") give
  ``None``. ``prefer="future"`` reads bare months/weekdays forward (used for planned records).
  Weekends and seasons keep their own rules (dateparser has no notion of them); parses are
  cached per (text, session, preference) since dateparser costs ~2 ms a call.

``TIME_RE`` / ``resolve`` / ``find_and_resolve`` — relative time in a turn, resolved against the
  turn's session date for the offline answer's wording: "yesterday" said on 8 May 2023 ->
  "7 May 2023"; "last year" on 12 July 2023 -> "2022"; "two weeks ago" -> "the week of 24 April
  2023" (phrases dateparser does not produce).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import Any, Literal

# --------------------------------------------------------------------------- the month table
MONTH_NAMES: tuple[str, ...] = tuple(m.lower() for m in calendar.month_name if m)
MONTHS: dict[str, int] = {name: i for i, name in enumerate(MONTH_NAMES, start=1)}
MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
MONTHS["sept"] = 9
MONTH_ALT = "|".join(sorted(MONTHS, key=len, reverse=True))  # longest first, for regex alternation
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


# ==================================================== session date-times
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


# ==================================================== dates named in questions
_DMY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(" + MONTH_ALT + r")\b\.?,?\s*(\d{4})\b", re.IGNORECASE)
_MDY = re.compile(r"\b(" + MONTH_ALT + r")\b\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?!\d),?\s*(\d{4})\b",
                  re.IGNORECASE)
_DAY_FORMS = ((_DMY, (3, 2, 1)), (_MDY, (3, 1, 2)))  # (pattern, groups of year, month, day)
_MY = re.compile(r"\b(" + MONTH_ALT + r")\b\.?,?\s+(\d{4})\b", re.IGNORECASE)
_Y = re.compile(r"\b(?:in|during|of|since|before|after)\s+((?:19|20)\d{2})\b", re.IGNORECASE)
_M_ONLY = re.compile(
    r"\b(?:in|during)\s+(?:early\s+|late\s+|mid\s*-?\s*)?(" + MONTH_ALT + r")\b(?!\s*\d)", re.IGNORECASE
)


def _month_end(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


_RELATIVE_Q = re.compile(
    r"\b(?:yesterday|today|(?:last|past|previous|this)\s+(week(?:end)?|month|year|"
    + "|".join(WEEKDAYS) + r")|(a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a\s+couple\s+of|"
    r"a\s+few|few|several)\s+(days?|weeks?|months?)\s+ago)\b",
    re.IGNORECASE,
)


def _relative_range(m: re.Match[str], now: date) -> tuple[date, date] | None:
    """The days a relative phrase of a question covers, counted back from the asking day."""
    text = m.group(0).lower()
    if text == "yesterday":
        day = now - timedelta(days=1)
        return day, day
    if text == "today":
        return now, now
    if m.group(3):  # "N days / weeks / months ago"
        count = m.group(2).lower()
        n = int(count) if count.isdigit() else next((_NUM[w] for w in reversed(count.split()) if w in _NUM),
                                                    1)
        unit = m.group(3).lower().rstrip("s")
        if unit == "day":
            day = now - timedelta(days=n)
            return day - timedelta(days=1), day + timedelta(days=1)
        if unit == "week":
            day = now - timedelta(days=7 * n)
            return day - timedelta(days=3), day + timedelta(days=3)
        y, mo = _month_shift(now, -n)
        return date(y, mo, 1), _month_end(y, mo)
    which, unit = text.split()[0], m.group(1).lower()
    if unit == "weekend":
        saturday = _weekend(datetime.combine(now, datetime.min.time()), which, "past")
        return saturday, saturday + timedelta(days=1)
    if unit == "week":
        monday = now - timedelta(days=now.weekday())
        return (monday, now) if which == "this" else (monday - timedelta(days=7), monday - timedelta(days=1))
    if unit == "month":
        y, mo = (now.year, now.month) if which == "this" else _month_shift(now, -1)
        return date(y, mo, 1), min(_month_end(y, mo), now)
    if unit == "year":
        y = now.year if which == "this" else now.year - 1
        return date(y, 1, 1), min(date(y, 12, 31), now)
    back = (now.weekday() - WEEKDAYS.index(unit)) % 7 or 7  # the last such weekday before today
    day = now - timedelta(days=back)
    return day, day


def question_dates(text: str, reference: datetime | None = None, *,
                   now: datetime | None = None) -> list[tuple[date, date, str]]:
    """(first day, last day, surface text) of each date, month or year ``text`` names.

    A month without a year takes the year of ``reference`` (the last session) when given.
    With ``now`` (the day the question is asked) relative phrases count too: "yesterday",
    "last week", "three weeks ago", "last Saturday", "this month" are ranges back from it.
    """
    out: list[tuple[date, date, str]] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        return not any(a < m.end() and m.start() < b for a, b in taken)

    if now is not None:
        for m in _RELATIVE_Q.finditer(text):
            span = _relative_range(m, now.date())
            if span is not None:
                out.append((*span, m.group(0)))
                taken.append(m.span())

    for pattern, (gy, gm, gd) in _DAY_FORMS:
        for m in pattern.finditer(text):
            if not free(m):
                continue
            try:
                d = date(int(m.group(gy)), MONTHS[m.group(gm).lower()], int(m.group(gd)))
            except ValueError:
                continue
            out.append((d, d, m.group(0)))
            taken.append(m.span())
    for m in _MY.finditer(text):
        if not free(m):
            continue
        y, mo = int(m.group(2)), MONTHS[m.group(1).lower()]
        out.append((date(y, mo, 1), _month_end(y, mo), m.group(0)))
        taken.append(m.span())
    for m in _Y.finditer(text):
        if not free(m):
            continue
        y = int(m.group(1))
        out.append((date(y, 1, 1), date(y, 12, 31), m.group(0)))
        taken.append(m.span())
    if reference is not None:
        for m in _M_ONLY.finditer(text):
            if not free(m) or (
                m.group(1).lower() in ("may",) and not re.search(r"\b(?:in|during)\s+may\b", m.group(0), re.I)
            ):
                continue
            mo = MONTHS[m.group(1).lower()]
            y = reference.year if mo <= reference.month else reference.year - 1
            out.append((date(y, mo, 1), _month_end(y, mo), m.group(0)))
            taken.append(m.span())
    return out


def session_near(
    session_day: date, start: date, end: date, before_days: int = 3, after_days: int = 10
) -> float:
    """1.0 when a session falls inside [start - before, end + after], decaying outside it.

    Events are usually told shortly after they happen, so the window reaches further after.
    """
    lo = start - timedelta(days=before_days)
    hi = end + timedelta(days=after_days)
    if lo <= session_day <= hi:
        return 1.0
    gap = (lo - session_day).days if session_day < lo else (session_day - hi).days
    return max(0.0, 1.0 - gap / 21.0)


# ==================================================== spans normalised with dateparser
Granularity = Literal["date", "month", "year"]


@dataclass(frozen=True)
class TimeValue:
    iso: str
    text: str
    granularity: Granularity


_STRIP_LEAD = re.compile(
    r"^(?:the|since|on|in|during|around|about|at|by|until|till|from|of|early|late|mid|this past)\s+",
    re.I)
_RELATIVE_CUE = re.compile(
    r"\b(ago|last|next|this|past|previous|coming|yesterday|today|tonight|tomorrow|earlier|later|"
    r"before|after|since)\b", re.I)
_UNIT = re.compile(r"\b(day|days|week|weeks|month|months|year|years|decade|decades|hour|hours|"
                   r"minute|minutes|weekend|weekends)\b", re.I)
_WEEKDAY = re.compile(rf"\b({'|'.join(WEEKDAYS)})s?\b", re.I)
_MONTH = re.compile(rf"\b({MONTH_ALT})\b", re.I)
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")
_VAGUE = re.compile(r"\b(recently|lately|a while|some time|the past|these days|nowadays|once|ages|"
                    r"all the time|every|each|always|weekly|daily|monthly|annually|years old|"
                    r"year old|month old|week old|age)\b", re.I)
_FEW = re.compile(r"\b(a few|few|couple of|a couple of|several|some)\s+(days|weeks)\s+ago\b|"
                  r"\b(?:the )?other (day|week)\b", re.I)
_WEEKEND = re.compile(r"\b(last|this|past|next|the|previous|coming)?\s*weekend\b", re.I)
_SEASON = re.compile(r"\b(last|this|next|past)?\s*(summer|winter|spring|fall|autumn)\b", re.I)
_SEASON_MONTH = {"spring": 4, "summer": 7, "fall": 10, "autumn": 10, "winter": 1}


def normalise(text: str, base: datetime | None, *, prefer: Literal["past", "future"] = "past",
              preceded_by: str = "") -> TimeValue | None:
    """ISO value of the expression ``text`` relative to ``base``; None when not anchorable."""
    if base is None:
        return _absolute(text)
    raw = " ".join(text.split())
    if not raw or (_VAGUE.search(raw) and not _RELATIVE_CUE.search(raw)):
        return None
    cleaned = raw
    while True:
        stripped = _STRIP_LEAD.sub("", cleaned)
        if stripped == cleaned:
            break
        cleaned = stripped
    lower = cleaned.lower()
    if re.search(r"\b(years|months|weeks|days) old\b", lower):
        return None
    if _FEW.search(lower):
        approx = base - timedelta(days=10 if "week" in lower else 3)
        return TimeValue(f"{approx:%Y-%m}", raw, "month")
    # a bare duration ("three years", "a week") is not a point in time
    has_anchor = (_RELATIVE_CUE.search(lower) or _WEEKDAY.search(lower) or _MONTH.search(lower)
                  or _YEAR.search(lower))
    if _UNIT.search(lower) and not has_anchor and "weekend" not in lower:
        if preceded_by.lower() != "in":
            return None
        cleaned, lower = f"in {cleaned}", f"in {lower}"  # "in two weeks" -> future
        prefer = "future"
    if (not has_anchor and not _UNIT.search(lower) and not lower.startswith("in ")
            and not re.search(r"\b(weekend|summer|winter|spring|fall|autumn)\b", lower)):
        return None
    weekend = _WEEKEND.search(lower)
    if weekend:
        return TimeValue(_weekend(base, (weekend.group(1) or "").lower(), prefer).isoformat(), raw, "date")
    season = _SEASON.search(lower)
    if season and not _YEAR.search(lower):
        return TimeValue(str(_season_year(base, (season.group(1) or "").lower(), season.group(2).lower(),
                                          prefer)), raw, "year")
    parsed = _parse(cleaned, base, prefer)
    if parsed is None:
        year = _YEAR.search(lower)
        return TimeValue(year.group(1), raw, "year") if year else None
    found, period = parsed
    if period == "year" or (_YEAR.search(lower) and not _MONTH.search(lower) and period != "day"):
        return TimeValue(f"{found:%Y}", raw, "year")
    if period == "month":
        return TimeValue(f"{found:%Y-%m}", raw, "month")
    return TimeValue(f"{found:%Y-%m-%d}", raw, "date")


def _absolute(text: str) -> TimeValue | None:
    """Without a session date only explicit years/months/dates can be normalised."""
    lower = text.lower()
    if not _YEAR.search(lower) or _RELATIVE_CUE.search(lower):
        return None
    parsed = _parse(text, datetime(2000, 1, 1), "past")
    if parsed is None:
        return None
    found, period = parsed
    if period == "day" and _MONTH.search(lower):
        return TimeValue(f"{found:%Y-%m-%d}", text, "date")
    if period == "month" or (_MONTH.search(lower) and period != "year"):
        return TimeValue(f"{found:%Y-%m}", text, "month")
    return TimeValue(f"{found:%Y}", text, "year")


def _weekend(base: datetime, which: str, prefer: str) -> date:
    day = base.date()
    saturday = day + timedelta(days=5 - day.weekday())  # Saturday of base's Monday-Sunday week
    on_weekend = day.weekday() >= 5
    if which in ("last", "past", "previous"):
        return saturday - timedelta(days=7)
    if which in ("next", "coming"):
        return saturday + timedelta(days=7) if on_weekend else saturday
    if which == "this" or prefer == "future" or on_weekend:
        return saturday
    return saturday - timedelta(days=7)  # "over the weekend" told on a weekday: the one just past


def _season_year(base: datetime, which: str, season: str, prefer: str) -> int:
    month = _SEASON_MONTH[season]
    if which in ("last", "past"):
        return base.year if month < base.month else base.year - 1
    if which == "next":
        return base.year if month > base.month else base.year + 1
    if which == "this" or prefer == "future":
        return base.year
    return base.year if month <= base.month else base.year - 1


@lru_cache(maxsize=4096)
def _parse_cached(text: str, base_iso: str, prefer: str) -> tuple[datetime, str] | None:
    base = datetime.fromisoformat(base_iso)
    parser = _parser(base_iso, prefer)
    try:
        data: Any = parser.get_date_data(text)
    except (ValueError, OverflowError, TypeError):
        return None
    if data is None or data.date_obj is None:
        return None
    period = str(data.period or "day")
    found: datetime = data.date_obj
    if abs(found.year - base.year) > 200:
        return None
    return found, period


@lru_cache(maxsize=256)
def _parser(base_iso: str, prefer: str) -> Any:
    from dateparser.date import DateDataParser

    return DateDataParser(languages=["en"], settings={
        "RELATIVE_BASE": datetime.fromisoformat(base_iso),
        "PREFER_DATES_FROM": prefer,
        "RETURN_TIME_AS_PERIOD": True,
    })


def _parse(text: str, base: datetime, prefer: str) -> tuple[datetime, str] | None:
    return _parse_cached(text, base.replace(tzinfo=None).isoformat(), prefer)


# ========================================================== relative phrases for the offline answer
_NUM = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple": 2,
    "few": 3,
    "several": 3,
}

TIME_RE = re.compile(
    r"\b(?:yesterday|today|tonight|this\s+morning|this\s+afternoon|this\s+evening|last\s+night|"
    r"(?:last|this|next|past)\s+(?:week(?:end)?|month|year|summer|winter|spring|fall|autumn|"
    + "|".join(WEEKDAYS)
    + r")|"
    r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a\s+couple\s+of|a\s+few|few|several)\s+"
    r"(?:days?|weeks?|months?|years?)\s+ago|"
    r"(?:in|on|since|during)\s+(?:" + "|".join(MONTH_NAMES)
    + r")(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+\d{4})?|"
    r"(?:in|since|during)\s+(?:19|20)\d{2}|"
    r"\d{1,2}\s+(?:" + "|".join(MONTH_NAMES) + r"),?\s+\d{4}|"
    r"(?:" + "|".join(WEEKDAYS) + r"))\b",
    re.IGNORECASE,
)


def fmt_day(d: date) -> str:
    return f"{d.day} {d.strftime('%B')} {d.year}"


def _month_shift(d: date, months: int) -> tuple[int, int]:
    m = d.month - 1 + months
    return d.year + m // 12, m % 12 + 1


def resolve(expression: str, when: datetime | date) -> str:
    """Normalise one time expression against the session date ``when``."""
    d = when.date() if isinstance(when, datetime) else when
    e = " ".join(expression.lower().split())
    if e == "yesterday" or e == "last night":
        return fmt_day(d - timedelta(days=1))
    if (
        e in ("today", "tonight")
        or e.startswith("this morning")
        or e.startswith("this afternoon")
        or e.startswith("this evening")
    ):
        return fmt_day(d)
    m = re.fullmatch(r"(last|this|next|past) (\w+)", e)
    if m:
        rel, unit = m.groups()
        step = {"last": -1, "past": -1, "this": 0, "next": 1}[rel]
        if unit == "year":
            return str(d.year + step)
        if unit == "month":
            y, mo = _month_shift(d, step)
            return f"{MONTH_NAMES[mo - 1].capitalize()} {y}"
        if unit == "week":
            return f"the week {'before' if step < 0 else 'after' if step > 0 else 'of'} {fmt_day(d)}"
        if unit == "weekend":
            return f"the weekend {'before' if step < 0 else 'after' if step > 0 else 'of'} {fmt_day(d)}"
        if unit in WEEKDAYS:
            target = WEEKDAYS.index(unit)
            if step < 0:
                back = (d.weekday() - target) % 7 or 7
                return fmt_day(d - timedelta(days=back))
            fwd = (target - d.weekday()) % 7 or 7
            return fmt_day(d + timedelta(days=fwd))
        if unit in ("summer", "winter", "spring", "fall", "autumn"):
            return f"{unit} {d.year + step}"
    m = re.fullmatch(r"(.+?) (day|week|month|year)s? ago", e)
    if m:
        qty, unit = m.groups()
        qty = qty.replace("a couple of", "couple").replace("a few", "few")
        n = int(qty) if qty.isdigit() else _NUM.get(qty.split()[-1], 1)
        vague = qty.split()[-1] in ("few", "several", "couple")
        if unit == "day":
            return fmt_day(d - timedelta(days=n))
        if unit == "week":
            return f"the week of {fmt_day(d - timedelta(weeks=n))}"
        if unit == "month":
            y, mo = _month_shift(d, -n)
            return f"{MONTH_NAMES[mo - 1].capitalize()} {y}"
        if vague:
            return f"{qty} years before {d.year}"
        return str(d.year - n)
    m = re.fullmatch(r"(?:in|on|since|during) (\w+)(?: (\d{1,2})(?:st|nd|rd|th)?)?(?:,? (\d{4}))?", e)
    if m and m.group(1) in MONTH_NAMES:
        mo = MONTH_NAMES.index(m.group(1)) + 1
        y = int(m.group(3)) if m.group(3) else (d.year if mo <= d.month else d.year - 1)
        if m.group(2):
            return f"{int(m.group(2))} {MONTH_NAMES[mo - 1].capitalize()} {y}"
        return f"{MONTH_NAMES[mo - 1].capitalize()} {y}"
    m = re.fullmatch(r"(?:in|since|during) ((?:19|20)\d{2})", e)
    if m:
        return m.group(1)
    if e in WEEKDAYS:  # a bare weekday mostly refers to the latest one before the session
        back = (d.weekday() - WEEKDAYS.index(e)) % 7 or 7
        return fmt_day(d - timedelta(days=back))
    return expression


def find_and_resolve(text: str, when: datetime | date | None) -> list[tuple[str, str]]:
    """(expression, normalised) for each time expression in ``text``."""
    out = []
    for m in TIME_RE.finditer(text):
        expr = m.group(0)
        out.append((expr, resolve(expr, when) if when is not None else expr))
    return out


def format_iso(iso: str) -> str:
    """ "2023-05-07" -> "7 May 2023", "2023-04" -> "April 2023", "2022" -> "2022"."""
    parts = iso.split("-")
    try:
        if len(parts) == 3:
            return fmt_day(date(int(parts[0]), int(parts[1]), int(parts[2])))
        if len(parts) == 2:
            return f"{MONTH_NAMES[int(parts[1]) - 1].capitalize()} {int(parts[0])}"
    except (ValueError, IndexError):
        return iso
    return iso
