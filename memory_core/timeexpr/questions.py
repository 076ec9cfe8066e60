"""Absolute dates a question names, as date ranges: ``question_dates`` / ``session_near``.

"on 1 February, 2023", "in May 2023", "in 2022" (and relative ones such as "last week" when
the moment of asking is known) become date ranges, so retrieval can favour sessions near them.
Regexes find the spans and their extent (dateparser's ``search_dates`` reads "We" or "may" as
dates in free text).
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

from memory_core.timeexpr.months import (
    MONTH_ALT,
    MONTHS,
    NUMBER_WORDS,
    WEEKDAYS,
    month_shift,
    weekend_saturday,
)

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
        n = int(count) if count.isdigit() else next(
            (NUMBER_WORDS[w] for w in reversed(count.split()) if w in NUMBER_WORDS), 1)
        unit = m.group(3).lower().rstrip("s")
        if unit == "day":
            day = now - timedelta(days=n)
            return day - timedelta(days=1), day + timedelta(days=1)
        if unit == "week":
            day = now - timedelta(days=7 * n)
            return day - timedelta(days=3), day + timedelta(days=3)
        y, mo = month_shift(now, -n)
        return date(y, mo, 1), _month_end(y, mo)
    which, unit = text.split()[0], m.group(1).lower()
    if unit == "weekend":
        saturday = weekend_saturday(datetime.combine(now, datetime.min.time()), which, "past")
        return saturday, saturday + timedelta(days=1)
    if unit == "week":
        monday = now - timedelta(days=now.weekday())
        return (monday, now) if which == "this" else (monday - timedelta(days=7), monday - timedelta(days=1))
    if unit == "month":
        y, mo = (now.year, now.month) if which == "this" else month_shift(now, -1)
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
