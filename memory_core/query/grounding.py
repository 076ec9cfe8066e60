"""Whether an answer written by a model rests on its evidence: the support check every
backend's answer gets (the offline answer grades itself with its calibrated model).

    grade(text, plan, cited, records, claimed) -> SupportLevel

``supported`` needs all three: the answerer says the evidence settles it (``claimed``), every
content word of the answer is in a cited turn or a matched record — or is part of a date or
number, which an answer may resolve ("yesterday" said on 8 May 2023 -> 7 May 2023) — and
every target requirement's entity speaks in or is named by a cited turn or is a cited record's
entity. An answer that fails any of them is ``weak``; "Unknown" is ``unknown``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_core.models import BufferTurn, Plan, Record, SupportLevel
from memory_core.query.premise import UNKNOWN
from memory_core.query.text import STOPWORDS, fold, stem, words
from memory_core.timeexpr import MONTH_ALT

_DATE_WORD_RE = re.compile(r"^(?:\d+(?:st|nd|rd|th)?|" + MONTH_ALT
                           + r"|before|after|week|weekend|day|year|month|monday|tuesday|wednesday|thursday"
                           r"|friday"
                           r"|saturday|sunday|yes|no|likely)$",
                           re.IGNORECASE)


def _first(name: str) -> str:
    return fold(name.split("'")[0].split()[0]) if name.strip() else ""


def grounded(text: str, cited: Sequence[BufferTurn], records: Sequence[Record]) -> bool:
    """Every content word of the answer is in the cited turns or records (dates and numbers may
    be resolved, so their words need not be)."""
    said = {stem(w) for t in cited for w in words(f"{t.text} {t.image_caption or ''}")}
    said |= {stem(w) for r in records for w in words(f"{r.entity} {r.value}")}
    wanted = [w for w in words(text) if w not in STOPWORDS and not _DATE_WORD_RE.match(w)]
    return bool(cited or records) and all(stem(w) in said for w in wanted)


def entities_covered(plan: Plan, cited: Sequence[BufferTurn], records: Sequence[Record]) -> bool:
    targets = [r for r in plan.requirements if r.role != "bridge" and r.entity]
    for req in targets:
        first = _first(req.entity or "")
        speaks = any(_first(t.speaker) == first for t in cited)
        named = any(stem(first) in {stem(w) for w in words(t.text)} for t in cited)
        if not (speaks or named or any(_first(r.entity) == first for r in records)):
            return False
    return True


def grade(text: str, plan: Plan, cited: Sequence[BufferTurn], records: Sequence[Record],
          claimed: bool) -> SupportLevel:
    if not text.strip() or text.strip().rstrip(".").lower() == UNKNOWN.lower():
        return SupportLevel.UNKNOWN
    bare = re.sub(r"\s*\[[^\]]*\]\s*$", "", text)  # a trailing citation list
    ok = claimed and grounded(bare, cited, records) and entities_covered(plan, cited, records)
    return SupportLevel.SUPPORTED if ok else SupportLevel.WEAK
