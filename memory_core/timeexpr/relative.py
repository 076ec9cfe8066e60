"""Relative time in a turn, resolved for the offline answer's wording.

``TIME_RE`` / ``resolve`` / ``find_and_resolve``: relative time in a turn, resolved against the
turn's session date: "yesterday" said on 8 May 2023 -> "7 May 2023"; "last year" on 12 July
2023 -> "2022"; "two weeks ago" -> "the week of 24 April 2023" (phrases dateparser does not
produce). ``named_time``: a month, day or season named without its year ("April next year",
"the 15th of April", "last summer") with the year meant. ``fmt_day`` and ``format_iso`` write
dates the same way.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from memory_core.timeexpr.months import MONTH_NAMES, MONTHS, NUMBER_WORDS, WEEKDAYS, month_shift

_MONTH = "(?:" + "|".join(MONTH_NAMES) + ")"
TIME_RE = re.compile(
    r"\b(?:yesterday|today|tonight|this\s+morning|this\s+afternoon|this\s+evening|last\s+night|"
    r"(?:last|this|next|past)\s+(?:week(?:end)?|month|year|summer|winter|spring|fall|autumn|"
    + "|".join(WEEKDAYS)
    + r")|"
    r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a\s+couple\s+of|a\s+few|few|several)\s+"
    r"(?:days?|weeks?|months?|years?)\s+ago|"
    # "the 15th of April", "April 15th", "April 15, 2024" (a day of a month, with or without its year)
    r"(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\s+of\s+" + _MONTH + r"(?:,?\s+\d{4})?|"
    + _MONTH + r"\s+\d{1,2}(?:st|nd|rd|th)?(?:,\s+\d{4}|\s+\d{4})?(?!\s*(?:%|percent|am|pm|a\.m|p\.m))(?!\d)|"
    r"(?:next|last)\s+" + _MONTH + r"|"
    r"(?:in|on|since|during)\s+" + _MONTH
    + r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+\d{4}|\s+(?:next|last|this)\s+year)?|"
    r"(?:in|since|during)\s+(?:19|20)\d{2}|"
    r"\d{1,2}\s+" + _MONTH + r",?\s+\d{4}|"
    r"(?:" + "|".join(WEEKDAYS) + r"))\b",
    re.IGNORECASE,
)
# a month named with the year it falls in ("April next year", "next April", "in May last year")
_MONTH_YEAR_RE = re.compile(r"(?:in\s+)?(?:(?P<rel>next|last)\s+(?P<m1>" + _MONTH + r")"
                            r"|(?P<m2>" + _MONTH + r")\s+(?P<rel2>next|last|this)\s+year)", re.IGNORECASE)
# a day of a month without its year ("the 15th of April", "on April 15th")
_DAY_OF_MONTH_RE = re.compile(r"(?:on\s+|in\s+)?(?:the\s+)?(?:(?P<d1>\d{1,2})(?:st|nd|rd|th)\s+of\s+(?P<m1>"
                              + _MONTH + r")|(?P<m2>" + _MONTH + r")\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?)",
                              re.IGNORECASE)
_SEASON_RE = re.compile(r"(?P<rel>last|this|next|past)\s+(?P<season>summer|winter|spring|fall|autumn)",
                        re.IGNORECASE)


def named_time(expression: str, when: datetime | date) -> str | None:
    """A month or day named without its year, or a season, resolved against the session date
    ``when``; None for any other expression.

    "April next year" said on 14 September 2023 -> "April 2024"; "next April" -> "April 2024";
    "the 15th of April" said on 19 March 2023 -> "15 April 2023" (a day named without a year
    is the nearest such day, before or after: people name coming days as often as past ones);
    "last summer" said on 12 June 2023 -> "summer 2022" (the season is kept: a year alone
    says less than was said).
    """
    d = when.date() if isinstance(when, datetime) else when
    e = " ".join(expression.split())
    if m := _MONTH_YEAR_RE.fullmatch(e):
        month = MONTHS[(m.group("m1") or m.group("m2")).lower()]
        rel = (m.group("rel") or m.group("rel2")).lower()
        if m.group("m2"):  # "April next year": the month of that year
            year = d.year + {"next": 1, "last": -1, "this": 0}[rel]
        elif rel == "next":  # "next April": the first April after the session's month
            year = d.year if month > d.month else d.year + 1
        else:  # "last April": the latest April before it
            year = d.year if month < d.month else d.year - 1
        return f"{MONTH_NAMES[month - 1].capitalize()} {year}"
    if m := _DAY_OF_MONTH_RE.fullmatch(e):
        month = MONTHS[(m.group("m1") or m.group("m2")).lower()]
        day = int(m.group("d1") or m.group("d2"))
        found = [x for x in (_day(d.year + k, month, day) for k in (-1, 0, 1)) if x is not None]
        return fmt_day(min(found, key=lambda x: abs((x - d).days))) if found else None
    if m := _SEASON_RE.fullmatch(e):
        season = m.group("season").lower()
        return f"{season} {season_year(d, m.group('rel').lower(), season)}"
    return None


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


_SEASON_MONTH = {"spring": 4, "summer": 7, "fall": 10, "autumn": 10, "winter": 1}


def season_year(d: date, which: str, season: str, prefer: str = "past") -> int:
    """The year of "<which> <season>" said on ``d`` ("last summer" said in June 2023 -> 2022)."""
    month = _SEASON_MONTH[season]
    if which in ("last", "past"):
        return d.year if month < d.month else d.year - 1
    if which == "next":
        return d.year if month > d.month else d.year + 1
    if which == "this" or prefer == "future":
        return d.year
    return d.year if month <= d.month else d.year - 1


def fmt_day(d: date) -> str:
    return f"{d.day} {d.strftime('%B')} {d.year}"


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
            y, mo = month_shift(d, step)
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
        if unit in _SEASON_MONTH:
            return f"{unit} {season_year(d, rel, unit)}"
    m = re.fullmatch(r"(.+?) (day|week|month|year)s? ago", e)
    if m:
        qty, unit = m.groups()
        qty = qty.replace("a couple of", "couple").replace("a few", "few")
        n = int(qty) if qty.isdigit() else NUMBER_WORDS.get(qty.split()[-1], 1)
        vague = qty.split()[-1] in ("few", "several", "couple")
        if unit == "day":
            return fmt_day(d - timedelta(days=n))
        if unit == "week":
            return f"the week of {fmt_day(d - timedelta(weeks=n))}"
        if unit == "month":
            y, mo = month_shift(d, -n)
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
