"""Absolute dates named in a question ("on 1 February, 2023", "in May 2023", "in 2022") as
date ranges, so retrieval can favour sessions held near them.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
_MONTHS["sept"] = 9
_M = "|".join(sorted(_MONTHS, key=len, reverse=True))

_DMY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(" + _M + r")\b\.?,?\s*(\d{4})\b", re.IGNORECASE)
_MDY = re.compile(r"\b(" + _M + r")\b\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?!\d),?\s*(\d{4})\b", re.IGNORECASE)
_MY = re.compile(r"\b(" + _M + r")\b\.?,?\s+(\d{4})\b", re.IGNORECASE)
_Y = re.compile(r"\b(?:in|during|of|since|before|after)\s+((?:19|20)\d{2})\b", re.IGNORECASE)
_M_ONLY = re.compile(
    r"\b(?:in|during)\s+(?:early\s+|late\s+|mid\s*-?\s*)?(" + _M + r")\b(?!\s*\d)", re.IGNORECASE
)


def _month_end(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


def question_dates(text: str, reference: datetime | None = None) -> list[tuple[date, date, str]]:
    """(first day, last day, surface text) of each absolute date/month/year in ``text``.

    A month without a year takes the year of ``reference`` (the last session) when given.
    """
    out: list[tuple[date, date, str]] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        return not any(a < m.end() and m.start() < b for a, b in taken)

    for m in _DMY.finditer(text):
        try:
            d = date(int(m.group(3)), _MONTHS[m.group(2).lower()], int(m.group(1)))
        except ValueError:
            continue
        out.append((d, d, m.group(0)))
        taken.append(m.span())
    for m in _MDY.finditer(text):
        if not free(m):
            continue
        try:
            d = date(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2)))
        except ValueError:
            continue
        out.append((d, d, m.group(0)))
        taken.append(m.span())
    for m in _MY.finditer(text):
        if not free(m):
            continue
        y, mo = int(m.group(2)), _MONTHS[m.group(1).lower()]
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
            mo = _MONTHS[m.group(1).lower()]
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
