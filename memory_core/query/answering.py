"""The offline extractive answer: the best-supported sentence(s) of the buffer, cited.

Sentences are scored by the question's words they contain (requirement values/properties
count more than plain keywords; the asked-about person speaking counts a little). A time
question answers with the time expression of the best sentence resolved against its session
date ("last year" on 12 July 2023 -> 2022), or the session date itself when the turn names
no time. List/aggregation questions join the best sentences of different turns. Nothing
supported -> "Unknown".
"""

from __future__ import annotations

import re
from datetime import datetime

from memory_core import timeexpr
from memory_core.models import Answer, BufferTurn, Plan, ReasoningType
from memory_core.query.buffer import highlight_terms
from memory_core.query.text import STOPWORDS, stem, words

_SENTENCE_RE = re.compile(r"[^.!?]+[.!?]*")
UNKNOWN = "Unknown"
_WEIGHT = {"value": 1.0, "keyword": 0.7, "entity": 0.3}


def _resolve_time(expr: str, when: datetime) -> str:
    """The expression normalised as the build does it (shown in words), else the answer's own
    reading of it ("the week of 24 April 2023")."""
    value = timeexpr.normalise(expr, when)
    return timeexpr.format_iso(value.iso) if value is not None and value.iso else timeexpr.resolve(expr, when)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_RE.findall(text) if s.strip()]


def _score(sentence: str, labels: dict[str, str]) -> float:
    seen: set[str] = set()
    score = 0.0
    for w in words(sentence):
        if w in STOPWORDS:
            continue
        s = stem(w)
        if s in labels and s not in seen:
            seen.add(s)
            score += _WEIGHT.get(labels[s], 0.5)
    return score


def _candidates(plan: Plan, buffer: list[BufferTurn]) -> list[tuple[float, int, str, BufferTurn]]:
    labels = highlight_terms(plan)
    entities = {(r.entity or "").split("'")[0].lower() for r in plan.requirements if r.entity}
    out = []
    for k, bt in enumerate(buffer):
        parts = sentences(bt.text)
        if bt.image_caption:
            parts.append(bt.image_caption)
        for s in parts:
            score = _score(s, labels)
            if score <= 0:
                continue
            if bt.speaker.lower() in entities:
                score += 0.25
            out.append((score, k, s, bt))
    out.sort(key=lambda c: (-c[0], c[1]))
    return out


def _time_answer(best: list[tuple[float, int, str, BufferTurn]]) -> tuple[str, BufferTurn] | None:
    for _score, _k, sentence, bt in best[:3]:
        found = timeexpr.TIME_RE.search(sentence) or timeexpr.TIME_RE.search(bt.text)
        if found and bt.session_time is not None:
            return _resolve_time(found.group(0), bt.session_time), bt
    if best and best[0][3].session_time is not None:
        bt = best[0][3]
        assert bt.session_time is not None
        return timeexpr.fmt_day(bt.session_time.date()), bt
    return None


def extractive_answer(question: str, plan: Plan, buffer: list[BufferTurn]) -> Answer:
    if not buffer:
        return Answer(text=UNKNOWN, cited_turn_ids=(), supported=False)
    ranked = _candidates(plan, buffer)
    if not ranked or ranked[0][0] < 0.7:
        return Answer(text=UNKNOWN, cited_turn_ids=(), supported=False)
    if plan.answer_target == "time" or plan.reasoning_type == ReasoningType.TEMPORAL:
        found = _time_answer(ranked)
        if found is not None:
            value, bt = found
            return Answer(text=f"{value} [{bt.turn_id}]", cited_turn_ids=(bt.turn_id,))
    if plan.reasoning_type in (ReasoningType.AGGREGATION, ReasoningType.COMPARISON) or plan.answer_target in (
        "list",
        "count",
    ):
        picked: list[tuple[str, BufferTurn]] = []
        used: set[str] = set()
        top = ranked[0][0]
        for score, _k, s, bt in ranked:
            if bt.turn_id in used or score < 0.6 * top:
                continue
            picked.append((s, bt))
            used.add(bt.turn_id)
            if len(picked) == 3:
                break
        text = "; ".join(f"{s} [{bt.turn_id}]" for s, bt in picked)
        return Answer(text=text, cited_turn_ids=tuple(bt.turn_id for _s, bt in picked))
    sentence, bt = ranked[0][2], ranked[0][3]
    return Answer(text=f"{sentence} [{bt.turn_id}]", cited_turn_ids=(bt.turn_id,))
