"""How long between two things said: "How many days between finishing my draft and the deadline?"

    interval_parts(question) -> (unit, first, second) | None
    interval_answer(question, buffer, parse) -> (text, cited turns) | None

A question that asks for the days (weeks, months, years) between two events names both
("between A and B", "from A to B", "how many days after A did B"). Each event is looked for
in the buffer: the sentences that share the most of its words and say a date, the date nearest
those words, resolved against the sentence's session date (a day without a year is the one
nearest the session date: "the sprint ends on March 29" said on 10 March is this March). The
answer is the difference in the asked unit, with the two dates it was computed from; when
either event has no date, there is no such answer and the question is answered as any other.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from typing import TYPE_CHECKING

from memory_core import timeexpr
from memory_core.models import BufferTurn
from memory_core.query.text import SENTENCE_RE, STOPWORDS, WEAK_WORDS, stem, words

if TYPE_CHECKING:
    from spacy.tokens import Doc

Parse = Callable[[list[str]], list["Doc"]]

_ASKED_RE = re.compile(r"^\s*how\s+many\s+(?P<unit>days|weeks|months|years)\b(?P<rest>.*?)\??\s*$",
                       re.IGNORECASE)
_BETWEEN_RE = re.compile(r"\bbetween\s+(?P<a>.+?)\s+and\s+(?P<b>.+)$", re.IGNORECASE)
_FROM_RE = re.compile(r"\bfrom\s+(?P<a>.+?)\s+(?:to|until|till)\s+(?P<b>.+)$", re.IGNORECASE)
_AFTER_RE = re.compile(
    r"^\s*(?P<dir>after|before)\s+(?P<a>.+?)\s+(?:did|do|does|is|are|was|were|will|has|have|had|would)\s+(?P<b>.+)$",
    re.IGNORECASE)
CANDIDATES = 4  # the best-matching sentences of each event whose dates are read


def interval_parts(question: str) -> tuple[str, str, str] | None:
    """(unit, first event, second event) of a question asking how long between two events."""
    m = _ASKED_RE.match(" ".join(question.split()))
    if m is None:
        return None
    rest = m.group("rest")
    for pattern in (_BETWEEN_RE, _FROM_RE):
        found = pattern.search(rest)
        if found:
            return m.group("unit").lower(), found.group("a"), found.group("b")
    found = _AFTER_RE.search(rest)
    if found:
        first, second = found.group("a"), found.group("b")
        return (m.group("unit").lower(), first, second) if found.group("dir").lower() == "after" \
            else (m.group("unit").lower(), second, first)
    return None


def _stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOPWORDS and w not in WEAK_WORDS}


def _day(expression: str, when: datetime) -> date | None:
    """The day an expression names, said on ``when``: of its past and future readings, the one
    nearer ``when``; None unless it names a day."""
    readings = []
    for prefer in ("past", "future"):
        value = timeexpr.normalise(expression, when, prefer=prefer)
        if value is not None and value.granularity == "date":
            try:
                readings.append(date.fromisoformat(value.iso))
            except ValueError:
                continue
    return min(readings, key=lambda d: abs((d - when.date()).days)) if readings else None


def _event_day(event: str, buffer: list[BufferTurn], parse: Parse) -> tuple[date, BufferTurn] | None:
    """The day the buffer gives the event: among the sentences sharing most of its words, the
    first that says a day, the day said nearest those words."""
    wanted = _stems(event)
    if not wanted:
        return None
    scored: list[tuple[int, int, str, datetime, BufferTurn]] = []
    for k, bt in enumerate(buffer):
        if bt.session_time is None:
            continue
        for sentence in SENTENCE_RE.findall(bt.text):
            shared = len(wanted & _stems(sentence))
            if shared:
                scored.append((shared, k, sentence.strip(), bt.session_time, bt))
    scored.sort(key=lambda s: (-s[0], s[1]))  # most shared words first, then the earlier turn
    top = scored[:CANDIDATES]
    for (_shared, _k, sentence, when, bt), doc in zip(top, parse([s[2] for s in top]), strict=True):
        hits = [t.idx for t in doc if stem(t.lower_) in wanted]
        spans = [(e.start_char, e.text) for e in doc.ents if e.label_ == "DATE"]
        spans += [(m.start(), m.group(0)) for m in timeexpr.TIME_RE.finditer(sentence)]
        days = [(min((abs(at - h) for h in hits), default=0), day) for at, text in spans
                if (day := _day(text, when)) is not None]
        if days:
            return min(days, key=lambda d: d[0])[1], bt
    return None


def _in_unit(first: date, second: date, unit: str) -> str:
    days = abs((second - first).days)
    if unit == "days":
        return f"{days} day" + ("" if days == 1 else "s")
    if unit == "weeks":
        weeks = days / 7
        n = f"{weeks:.0f}" if days % 7 == 0 else f"{weeks:.1f}"
        return f"{n} week" + ("" if n == "1" else "s")
    lo, hi = sorted((first, second))
    months = (hi.year - lo.year) * 12 + hi.month - lo.month - (hi.day < lo.day)
    if unit == "months":
        return f"{months} month" + ("" if months == 1 else "s")
    years = months // 12
    return f"{years} year" + ("" if years == 1 else "s")


def interval_answer(question: str, buffer: list[BufferTurn],
                    parse: Parse) -> tuple[str, list[BufferTurn]] | None:
    """The time between the question's two events, with the days it was computed from and the
    turns that give them; None when the question asks no such thing or a day is not found."""
    parts = interval_parts(question)
    if parts is None:
        return None
    unit, a, b = parts
    first = _event_day(a, buffer, parse)
    second = _event_day(b, buffer, parse)
    if first is None or second is None or first[0] == second[0]:
        return None
    span = _in_unit(first[0], second[0], unit)
    said = f"{timeexpr.fmt_day(first[0])} to {timeexpr.fmt_day(second[0])}"
    return f"{span} ({said})", [first[1], second[1]]
