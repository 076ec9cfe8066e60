"""Answer options: every complete piece the evidence offers, described for the answer model.

    Question.of(plan)                                  what the question asks, once
    sentence_options(q, cand, rank, best, doc)         constituents of one evidence sentence
    record_options(q, records, ranked)                 values of the active records that matched
    time_options(q, ranked)                            time expressions resolved on their session date
    frequency_options(q, ranked)                       "twice a week" for "how often"
    quote(cand)                                        the sentence itself, with speaker and date

An option keeps where it came from (the turn it cites, or the record), so the answer cites
the turn its words are in. Which option answers is the model's call (``answer_model``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from memory_core import timeexpr
from memory_core.backends.offline.answer_model import Option
from memory_core.backends.offline.constituents import Constituent, constituents
from memory_core.models import BufferTurn, Modality, Plan, Record
from memory_core.query.families import property_families, question_families, word_families
from memory_core.query.question_form import category_head
from memory_core.query.text import STOPWORDS, WEAK_WORDS, fold, stem, words

if TYPE_CHECKING:
    import numpy as np
    from spacy.tokens import Doc

    from memory_core.backends.offline.answering import Candidate

TIME_SENTENCES = 3  # time expressions are looked for in the best few sentences
Embed = Callable[[list[str]], "np.ndarray"]  # texts -> L2-normalised vectors


@dataclass(frozen=True)
class Choice:
    """One option with what the answer needs to cite it."""

    option: Option
    text: str
    turn: BufferTurn | None
    record: Record | None = None


@dataclass(frozen=True)
class Question:
    plan: Plan
    target: str
    stems: frozenset[str]  # the question's content stems, asked names left out
    asked: frozenset[str]  # folded first names of the asked entities
    head: str | None  # the category noun ("what instrument ..." -> instrument)
    head_families: frozenset[str]

    @classmethod
    def of(cls, plan: Plan) -> Question:
        asked = frozenset(fold(r.entity.split("'")[0].split()[0]) for r in plan.requirements
                          if r.entity and r.role != "bridge")
        stems = frozenset(stem(w) for w in words(plan.question) if w not in STOPWORDS and w not in WEAK_WORDS)
        head = category_head(plan.question)
        return cls(plan=plan, target=plan.answer_target or "value",
                   stems=stems - {stem(a) for a in asked}, asked=asked, head=head,
                   head_families=word_families(head) if head else frozenset())


def _content(text: str) -> list[str]:
    return [stem(w) for w in words(text) if w not in STOPWORDS]


def _shares(q: Question, text: str) -> tuple[float, float]:
    """(novelty, overlap): the share of the text's content words new to the question, and of
    the question's content words the text repeats."""
    mine = _content(text)
    if not mine:
        return 0.0, 0.0
    novelty = sum(s not in q.stems for s in mine) / len(mine)
    overlap = len(set(mine) & q.stems) / len(q.stems) if q.stems else 0.0
    return novelty, overlap


def _head_match(q: Question, text: str) -> bool:
    if not q.head:
        return False
    target = stem(fold(q.head))
    return any(stem(w) == target or (q.head_families and word_families(w) & q.head_families)
               for w in words(text) if w not in STOPWORDS)


def _asked_name(q: Question, text: str) -> bool:
    return bool(set(words(text)) & q.asked)


def _option(q: Question, text: str, kind: str, *, sentence_score: float, rank: int, distance: float = 1.0,
            attached: bool = False, proper: float = 0.0, speaker_is_asked: bool = False,
            closeness: float = 0.0, record: Record | None = None, sentence: str = "", dep: str = "",
            after: bool = False) -> Option:
    novelty, overlap = _shares(q, text)
    _n, sentence_overlap = _shares(q, sentence) if sentence else (0.0, 0.0)
    prop_match = False
    edited = False
    if record is not None:
        wanted = [r for r in q.plan.requirements if r.role != "bridge" and r.property]
        families = {f for r in wanted for f in property_families(r.property or "")}
        families |= question_families(q.plan.keywords, q.target)  # "where ..." asks for a place
        prop_match = any(fold(r.property or "") == fold(record.property) for r in wanted) or bool(
            families & property_families(record.property))
        edited = record.edited()
    return Option(text=text, kind=kind, target=q.target, sentence_score=sentence_score, sentence_rank=rank,
                  novelty=novelty, overlap=overlap, distance=distance, attached=attached, proper=proper,
                  words=len(text.split()), head_match=_head_match(q, text), asked_name=_asked_name(q, text),
                  speaker_is_asked=speaker_is_asked, record=record is not None, record_property=prop_match,
                  edited=edited, turn_closeness=closeness, sentence_overlap=sentence_overlap, dep=dep,
                  after=after)


def _speaker_is_asked(q: Question, turn: BufferTurn) -> bool:
    return bool(turn.speaker) and fold(turn.speaker.split()[0]) in q.asked


def sentence_options(q: Question, cand: Candidate, rank: int, best: float, doc: Doc,
                     closeness: float = 0.0) -> list[Choice]:
    """Every constituent of the candidate's sentence as an option (for a time question, a date
    resolved against the session's date when it can be)."""
    hits = [t.i for t in doc if not t.is_stop and stem(fold(t.text)) in q.stems]
    n = max(len(doc), 1)
    out = []
    when = cand.turn.session_time if q.target == "time" else None
    for c in constituents(doc):
        if not c.text or all(w in STOPWORDS for w in words(c.text)):
            continue
        if c.kind == "date" and when is not None:  # "tomorrow" said on 11 January -> 12 January 2024
            c = dataclasses.replace(c, text=resolve_time(c.text, when))
        out.append(Choice(_constituent_option(q, c, cand, rank, best, hits, n, closeness), c.text, cand.turn))
    return out


def _constituent_option(q: Question, c: Constituent, cand: Candidate, rank: int, best: float,
                        hits: list[int], n: int, closeness: float) -> Option:
    after = False
    if c.start >= 0 and hits:
        gaps = [0 if c.start <= h < c.end else min(abs(h - c.start), abs(h - (c.end - 1))) for h in hits]
        distance = min(gaps) / n
        nearest = min(hits, key=lambda h: abs(h - c.start))
        after = c.start > nearest
    else:
        distance = 1.0
    attached = bool(c.head_lemma) and stem(c.head_lemma) in q.stems
    return _option(q, c.text, c.kind, sentence_score=cand.score / best if best else 0.0, rank=rank,
                   distance=distance, attached=attached, proper=c.proper,
                   speaker_is_asked=_speaker_is_asked(q, cand.turn), closeness=closeness,
                   sentence=cand.sentence, dep=c.head_dep, after=after)


def record_options(q: Question, records: Sequence[Record], ranked: Sequence[Candidate],
                   by_turn: dict[str, BufferTurn], closeness: dict[str, float]) -> list[Choice]:
    """The matched active records about an asked entity (or any, when none is asked)."""
    best = ranked[0].score if ranked else 1.0
    turn_score: dict[str, float] = {}
    for c in ranked:
        turn_score.setdefault(c.turn.turn_id, c.score)
    out = []
    for rank, rec in enumerate(records):
        if q.asked and fold(rec.entity.split("'")[0].split()[0]) not in q.asked:
            continue
        if not rec.value.strip() or rec.modality == Modality.NEGATED:
            continue  # said in denial ("I'm not moving to Lisbon"): its value answers nothing
        cited = next((by_turn[t] for t in rec.evidence_turn_ids if t in by_turn), None)
        score = max((turn_score.get(t, 0.0) for t in rec.evidence_turn_ids), default=0.0)
        said_by_asked = fold((rec.source_speaker or "?").split()[0]) in q.asked
        option = _option(q, rec.value, "record", sentence_score=score / best if best else 0.0, rank=rank,
                         distance=0.0, attached=True, record=rec, speaker_is_asked=said_by_asked,
                         closeness=closeness.get(cited.turn_id, 0.0) if cited else 0.0,
                         sentence=cited.text if cited else "")
        out.append(Choice(option, rec.value, cited, rec))
    return out


# what a question of each answer form asks for, when it names no category of its own
TARGET_HEADS = {"entity": "a person", "location": "a place", "count": "a number", "time": "a date"}
HEAD_SIM_WORDS = 6  # options up to this long are compared with the question's category


def with_head_similarity(q: Question, choices: list[Choice], embed: Embed) -> list[Choice]:
    """Each short option's cosine with what the question asks for ("What instrument ..." ->
    "instrument"; "Who ..." -> "a person"), from the sentence embedder."""
    head = q.head or TARGET_HEADS.get(q.target)
    short = [i for i, c in enumerate(choices) if len(c.text.split()) <= HEAD_SIM_WORDS]
    if not head or not short:
        return choices
    vectors = embed([head, *(choices[i].text for i in short)])
    sims = vectors[1:] @ vectors[0]
    out = list(choices)
    for i, sim in zip(short, sims, strict=True):
        out[i] = dataclasses.replace(out[i], option=dataclasses.replace(out[i].option, head_sim=float(sim)))
    return out


def ranked_by_kind(choices: list[Choice]) -> list[Choice]:
    """The choices with each one's rank among the options of its kind (in the given order)."""
    seen: dict[str, int] = {}
    out = []
    for c in choices:
        k = seen.get(c.option.kind, 0)
        seen[c.option.kind] = k + 1
        out.append(dataclasses.replace(c, option=dataclasses.replace(c.option, kind_rank=k)))
    return out


def vague_phrase(expression: str, when: datetime) -> str | None:
    """A week-scale expression kept as said, anchored to the session date.

    "last week" said on 9 June 2023 names no day: "the week before 9 June 2023"; likewise
    "two weekends ago" -> "two weekends before 17 July 2023", "this week" -> "the week of 23
    August 2023". A weekday names one day, which is worked out for the reader beside what was
    said: "last Friday" on Saturday 15 July 2023 -> "the Friday before 15 July 2023 (14 July
    2023)" (said on a Friday, the Friday a week back). Days, months and years are resolved
    exactly by the time normaliser instead.
    """
    m = _VAGUE_RE.match(" ".join(expression.split()))
    if m is None:
        return None
    day = timeexpr.fmt_day(when.date())
    if m.group("unit"):
        unit = m.group("unit").lower()
        unit = unit.capitalize() if unit not in ("week", "weekend") else unit
        if m.group("rel").lower() == "this":
            return f"the {unit} of {day}"
        if unit.lower() in timeexpr.WEEKDAYS:  # the day it names, worked out: (28 February 2023)
            return f"the {unit} before {day} ({timeexpr.resolve(expression, when)})"
        return f"the {unit} before {day}"
    return f"{m.group('n').lower()} {m.group('units').lower()} before {day}"


_DAYS = "|".join(timeexpr.WEEKDAYS)
_VAGUE_RE = re.compile(
    r"^(?:(?P<rel>last|past|this)\s+(?P<unit>week|weekend|" + _DAYS + r")"
    r"|(?P<n>a|an|one|two|three|four|five|six|\d+|a\s+couple\s+of|a\s+few|few|several)\s+"
    r"(?P<units>weeks|weekends)\s+ago)$",
    re.IGNORECASE,
)
_QUANTITY = (r"(?:\d+(?:\s*(?:-|–|to|or)\s*\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
             r"twelve|a\s+few|a\s+couple(?:\s+of)?|several|many|half\s+an?|an?)")
_UNIT = r"(?:years?|months?|weeks?|days?|hours?|minutes?|nights?|decades?)"
# how long: "three weeks", "a couple of months", "2-3 hours", "since 2019"
DURATION_RE = re.compile(
    rf"\b(?:since\s+(?:19|20)\d{{2}}|{_QUANTITY}\s+{_UNIT}(?:\s+ago|\s+now)?)\b",
    re.IGNORECASE,
)
# how often: "every two weeks", "twice a month", "2-3 times a week", "once per year", "daily"
FREQUENCY_RE = re.compile(
    rf"\b(?:(?:every|each)\s+(?:other\s+|{_QUANTITY}\s+)?{_UNIT}"
    rf"|(?:once|twice|{_QUANTITY}\s+times?)\s+(?:a|an|per|every|each)\s+{_UNIT}"
    r"|daily|weekly|monthly|yearly|nightly|every\s+(?:morning|evening|night|weekend))\b",
    re.IGNORECASE,
)
# a time counted forward from when it was said: "in 5 days", "two weeks from now"
AHEAD_RE = re.compile(rf"\bin\s+(?P<n>{_QUANTITY})\s+(?P<unit>{_UNIT})(?!\s+ago)\b"
                      rf"|\b(?P<n2>{_QUANTITY})\s+(?P<unit2>{_UNIT})\s+from\s+now\b", re.IGNORECASE)
# a span asked for: "how long ...?", "how many days (weeks ...) between / after / since ...?" -- not
# "how many days a week" (how often)
HOW_LONG_RE = re.compile(r"\s*(?:for\s+)?how\s+(?:long\b|many\s+(?:minutes|hours|days|weeks|months|years)\b"
                         r"(?!\s+(?:a|an|per|each|every)\s))", re.IGNORECASE)
HOW_OFTEN_RE = re.compile(r"\s*how\s+often\b", re.IGNORECASE)


def resolve_time(expr: str, when: datetime, ahead: bool = False) -> str:
    """A time expression said on ``when``, in words: kept vague at week scale, else the date
    the time normaliser resolves it to ("yesterday" on 8 May 2023 -> 7 May 2023). A bare month
    or weekday is read forwards when ``ahead`` (its clause speaks of what is to come: "the studio
    is having a show in August", said in July 2023 -> August 2023), else backwards."""
    vague = vague_phrase(expr, when) or timeexpr.named_time(expr, when)
    if vague is not None:
        return vague
    value = timeexpr.normalise(expr, when, prefer="future" if ahead else "past")
    return timeexpr.format_iso(value.iso) if value is not None and value.iso else timeexpr.resolve(expr, when)


def time_options(q: Question, ranked: Sequence[Candidate], closeness: dict[str, float],
                 ahead: Callable[[Candidate], frozenset[str]] | None = None) -> list[Choice]:
    """Time expressions (durations for "how long") of the best sentences (else of their turns),
    resolved against their session's date, best sentence first; the best sentence's session
    date as the last option. ``ahead`` gives the expressions (lower-cased) a sentence says of
    what is still to come; those are read forwards."""
    best = ranked[0].score if ranked else 1.0
    how_long = bool(HOW_LONG_RE.match(q.plan.question))
    out: list[Choice] = []
    for rank, cand in enumerate(ranked[:TIME_SENTENCES]):
        bt = cand.turn
        near = closeness.get(bt.turn_id, 0.0)
        if how_long:
            out += _said_as(DURATION_RE, q, cand, rank, best, near)
        if bt.session_time is None:
            continue
        said = list(timeexpr.TIME_RE.finditer(cand.sentence)) or list(timeexpr.TIME_RE.finditer(bt.text))
        coming = ahead(cand) if ahead is not None else frozenset()
        day = timeexpr.fmt_day(bt.session_time.date())
        # "in 5 days" -> "5 days after 30 December 2023" (not "ran it in 54 minutes")
        counted = [f"{m.group('n') or m.group('n2')} {m.group('unit') or m.group('unit2')} after {day}"
                   for m in AHEAD_RE.finditer(cand.sentence) if ahead is None or time_key(m) in coming]
        # the sentence's own expressions (else the rest of its turn's), and the times it counts ahead
        resolved = [resolve_time(m.group(0), bt.session_time, time_key(m) in coming) for m in said]
        for text in [*resolved, *counted]:
            option = _option(q, text, "date", sentence_score=cand.score / best, rank=rank, distance=0.0,
                             speaker_is_asked=_speaker_is_asked(q, bt), closeness=near,
                             sentence=cand.sentence)
            out.append(Choice(option, text, bt))
    top = ranked[0] if ranked else None
    if top is not None and top.turn.session_time is not None:
        text = timeexpr.fmt_day(top.turn.session_time.date())
        out.append(Choice(_option(q, text, "session_date", sentence_score=1.0, rank=0, sentence=top.sentence,
                                  closeness=closeness.get(top.turn.turn_id, 0.0)), text, top.turn))
    return out


def time_key(m: re.Match[str]) -> str:
    """A matched time expression as ``time_options``' ``ahead`` names it: lower-cased, single-spaced."""
    return " ".join(m.group(0).lower().split())


def frequency_options(q: Question, ranked: Sequence[Candidate], closeness: dict[str, float]) -> list[Choice]:
    """For "how often": the frequency expressions of the best sentences ("twice a week")."""
    best = ranked[0].score if ranked else 1.0
    return [c for rank, cand in enumerate(ranked[:TIME_SENTENCES])
            for c in _said_as(FREQUENCY_RE, q, cand, rank, best, closeness.get(cand.turn.turn_id, 0.0))]


def _said_as(pattern: re.Pattern[str], q: Question, cand: Candidate, rank: int, best: float,
             closeness: float) -> list[Choice]:
    """The candidate sentence's matches of ``pattern`` (a duration, a frequency) as number options."""
    return [Choice(_option(q, m.group(0), "number", sentence_score=cand.score / best, rank=rank, distance=0.0,
                           closeness=closeness, sentence=cand.sentence), m.group(0), cand.turn)
            for m in pattern.finditer(cand.sentence)]


def quote(cand: Candidate, rank: int, best: float, q: Question, closeness: float = 0.0) -> Choice:
    """The sentence itself, quoted with who said it and when."""
    bt = cand.turn
    when = f", {timeexpr.fmt_day(bt.session_time.date())}" if bt.session_time else ""
    text = f"“{cand.sentence.strip()}” ({bt.speaker}{when})"
    option = _option(q, cand.sentence, "sentence", sentence_score=cand.score / best if best else 0.0,
                     rank=rank, distance=0.0, speaker_is_asked=_speaker_is_asked(q, bt), closeness=closeness,
                     sentence=cand.sentence)
    return Choice(option, text, bt)
