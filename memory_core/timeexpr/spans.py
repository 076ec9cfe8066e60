"""A DATE/TIME span normalised against its session: ``normalise`` -> ``TimeValue`` or ``None``.

The span is what spaCy tags DATE/TIME (never free text); ``dateparser`` reads it with
RELATIVE_BASE = the session date-time, at the granularity the expression states::

  "yesterday", "last Saturday", "two days ago", "last week"   -> "2023-05-06"   (date)
  "last month", "next month", "May 2023"                        -> "2023-04"      (month)
  "last year", "4 years ago", "since 2016", "last summer"       -> "2022"         (year)
  "last weekend" / "this weekend"                               -> the Saturday  (date)
  "a few days ago", "the other day"                             -> the month     (vague)

Durations ("for three years", "28 years old", "a while") and vague words ("recently") give
``None``. ``prefer="future"`` reads bare months/weekdays forward (used for planned records).
Weekends and seasons keep their own rules (dateparser has no notion of them); parses are
cached per (text, session, preference) since dateparser costs ~2 ms a call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Literal

from memory_core.timeexpr.months import MONTH_ALT, WEEKDAYS, weekend_saturday
from memory_core.timeexpr.relative import season_year

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
        saturday = weekend_saturday(base, (weekend.group(1) or "").lower(), prefer)
        return TimeValue(saturday.isoformat(), raw, "date")
    season = _SEASON.search(lower)
    if season and not _YEAR.search(lower):
        which, name = (season.group(1) or "").lower(), season.group(2).lower()
        return TimeValue(str(season_year(base.date(), which, name, prefer)), raw, "year")
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
