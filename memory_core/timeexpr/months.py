"""What every reader of time expressions shares: the month and weekday tables, number words,
and two calendar steps (a month shift, the Saturday of a weekend)."""

from __future__ import annotations

import calendar
from datetime import date, datetime, timedelta

MONTH_NAMES: tuple[str, ...] = tuple(m.lower() for m in calendar.month_name if m)
MONTHS: dict[str, int] = {name: i for i, name in enumerate(MONTH_NAMES, start=1)}
MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
MONTHS["sept"] = 9
MONTH_ALT = "|".join(sorted(MONTHS, key=len, reverse=True))  # longest first, for regex alternation
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

NUMBER_WORDS = {
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


def month_shift(d: date, months: int) -> tuple[int, int]:
    """(year, month) ``months`` after (or before, negative) ``d``'s month."""
    m = d.month - 1 + months
    return d.year + m // 12, m % 12 + 1


def weekend_saturday(base: datetime, which: str, prefer: str) -> date:
    """The Saturday of "<which> weekend" said at ``base`` (last / next / this / bare)."""
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
