"""Time expressions, read in one place: session date-times, dates named in questions, time
spans of turns normalised against their session, and the relative phrases the offline answer
resolves. One month table serves every reader.

Four readers, each with its own contract (kept exactly; they feed the build's ``valid_time``
values and the retrieval figures), each in its module and all re-exported here:

    datetimes   ``parse_datetime`` / ``search_datetime``: session date-times as written in sources
    questions   ``question_dates`` / ``session_near``: absolute dates a question names, as ranges
    spans       ``normalise``: a DATE/TIME span against the session date-time (``TimeValue``)
    relative    ``TIME_RE`` / ``resolve`` / ``find_and_resolve`` / ``named_time``: relative time in a
                turn, resolved for the offline answer's wording (``fmt_day``, ``format_iso``)
    months      the month and weekday tables, number words and calendar steps they share
"""

from __future__ import annotations

from memory_core.timeexpr.datetimes import parse_datetime, search_datetime
from memory_core.timeexpr.months import MONTH_ALT, MONTH_NAMES, MONTHS, WEEKDAYS
from memory_core.timeexpr.questions import question_dates, session_near
from memory_core.timeexpr.relative import TIME_RE, find_and_resolve, fmt_day, format_iso, named_time, resolve
from memory_core.timeexpr.spans import Granularity, TimeValue, normalise

__all__ = ["MONTHS", "MONTH_ALT", "MONTH_NAMES", "TIME_RE", "WEEKDAYS", "Granularity", "TimeValue",
           "find_and_resolve", "fmt_day", "format_iso", "named_time", "normalise", "parse_datetime",
           "question_dates", "resolve", "search_datetime", "session_near"]
