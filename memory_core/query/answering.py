"""The offline extractive answer: the short span that answers, cited, with a support level.

1. Sentences (and image captions) of the buffer are scored by the question's words they
   contain (requirement values/properties count more than plain keywords). Speaker-aware:
   when the question is about one person, a first-person sentence said by someone else
   ("I adopted a puppy" said by Jonas, asked "What did Maya adopt?") counts little.
2. The answer form decides the span taken from the best sentence(s):
   time -> the time expression resolved against the turn's session date ("last year" on
   12 July 2023 -> 2022), else the session date; count -> the number; location -> the place
   after in/at/to/from; who -> the name or relation; yes/no -> Yes/No from negation;
   would/likely -> "Likely yes/no"; list -> the spans of up to four turns joined by commas;
   otherwise the words that follow the question's matched word up to the clause's end.
3. Support: ``supported`` when every target requirement is met by the answer's turn (its
   entity is the speaker or is named, and its words are there) and the span came out of the
   words the form asks for; ``weak`` when the answer rests on partial evidence (a fallback
   span, the session date instead of a time expression, an uncovered requirement);
   ``unknown`` when nothing in the buffer supports an answer (the text is "Unknown").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from memory_core.models import Answer, BufferTurn, Plan, ReasoningType, Requirement, SupportLevel
from memory_core.query import timeref
from memory_core.query.buffer import highlight_terms
from memory_core.query.text import STOPWORDS, WEAK_WORDS, fold, stem, word_spans, words

_SENTENCE_RE = re.compile(r"[^.!?]+[.!?]*")
UNKNOWN = "Unknown"
_WEIGHT = {"value": 1.0, "keyword": 0.7, "entity": 0.3}
MIN_SCORE = 0.7  # the best sentence must carry at least one keyword's worth of the question
SPAN_WORDS = 7  # longest span taken after the matched word
_FIRST_PERSON = frozenset({"i", "my", "me", "mine", "myself", "we", "our", "us"})
_NEGATION = frozenset({"not", "no", "never", "n't", "nothing", "neither", "nor", "cannot"})
_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "twice": 2, "once": 1, "both": 2, "couple": 2, "few": 3, "several": 3,
}  # fmt: skip
# words that end a clause: the span stops before them
_CLAUSE_END = frozenset(
    """because since which who that so but when while if although though as after before until
    it's its i'm i've i'll i'd we're we've you're you've they're it was is are am""".split()  # noqa: SIM905
)
# words not worth starting or ending a span with
_EDGE = STOPWORDS | WEAK_WORDS | frozenset({"really", "just", "so", "also", "too", "very", "lately", "now"})
_PLACE_PREP = frozenset({"in", "at", "to", "from", "near", "around", "into"})


@dataclass(frozen=True)
class Candidate:
    score: float  # word score x speaker weight (the ranking)
    order: int
    sentence: str
    turn: BufferTurn
    words_score: float = 0.0  # the question's words alone (the "anything to say?" test)


def _build_resolver() -> Callable[[str, datetime], str | None] | None:
    """The build's time normaliser (``memory_core.construct.timex.normalise``) when it is installed."""
    try:
        from memory_core.construct import timex
    except ImportError:
        return None
    normalise = getattr(timex, "normalise", None)
    if not callable(normalise):
        return None

    def resolve(expr: str, when: datetime) -> str | None:
        value = normalise(expr, when)
        iso = getattr(value, "iso", None)
        return timeref.format_iso(iso) if isinstance(iso, str) and iso else None

    return resolve


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


def _first_names(plan: Plan) -> set[str]:
    return {
        fold(r.entity.split("'")[0].split()[0]) for r in plan.requirements if r.entity and r.role != "bridge"
    }


def _speaker_weight(sentence: str, turn: BufferTurn, asked: set[str]) -> float:
    """1 unless the question is about one person and someone else says this about themselves."""
    if len(asked) != 1:
        return 1.0
    speaker = fold(turn.speaker.split()[0])
    if speaker in asked:
        return 1.0
    said = set(words(sentence))
    if said & asked:  # the other person talks about the asked one ("Maya, you ...")
        return 1.0
    if said & _FIRST_PERSON:
        return 0.35
    return 0.8


def candidates(plan: Plan, buffer: list[BufferTurn]) -> list[Candidate]:
    labels = highlight_terms(plan)
    asked = _first_names(plan)
    out = []
    for k, bt in enumerate(buffer):
        parts = sentences(bt.text)
        if bt.image_caption:
            parts.append(bt.image_caption)
        for s in parts:
            score = _score(s, labels)
            if score <= 0:
                continue
            if fold(bt.speaker.split()[0]) in asked:  # the asked-about person speaking counts a little
                score += 0.25
            out.append(Candidate(score * _speaker_weight(s, bt, asked), k, s, bt, score))
    out.sort(key=lambda c: (-c.score, c.order))
    return out


# ----------------------------------------------------------------------------- spans
def _trim(tokens: list[str]) -> list[str]:
    while tokens and fold(tokens[0]) in _EDGE:
        tokens = tokens[1:]
    while tokens and fold(tokens[-1]) in _EDGE:
        tokens = tokens[:-1]
    return tokens


def _question_stems(plan: Plan) -> set[str]:
    out = {stem(w) for w in words(plan.question) if w not in STOPWORDS}
    return out


def value_span(sentence: str, plan: Plan) -> str | None:
    """The words after the last question word the sentence repeats, up to the clause's end.

    "Researching adoption agencies - it's been a dream" asked "What did Caroline research?"
    -> "adoption agencies". When the question's word ends the clause, the words before it.
    """
    qstems = _question_stems(plan)
    names = {stem(n) for n in _first_names(plan)}
    toks = [(a, b, w) for a, b, w in word_spans(sentence)]
    if not toks:
        return None
    matched = [i for i, (_a, _b, w) in enumerate(toks) if w not in STOPWORDS and stem(w) in qstems - names]
    if not matched:
        return None
    m = matched[-1]
    span: list[str] = []
    for i in range(m + 1, min(len(toks), m + 1 + SPAN_WORDS)):
        gap = sentence[toks[i - 1][1] : toks[i][0]]
        if i > m + 1 and re.search(r"[,;:!?()\u2014\u2013]|\s-\s", gap):
            break
        if span and fold(toks[i][2]) in _CLAUSE_END:
            break
        if stem(toks[i][2]) in qstems:
            if span:
                break
            continue
        span.append(sentence[toks[i][0] : toks[i][1]])
    span = _trim(span)
    if not span:  # the question's word ends the clause: take the words before it
        back: list[str] = []
        for i in range(m - 1, max(-1, m - 1 - SPAN_WORDS), -1):
            gap = sentence[toks[i][1] : toks[i + 1][0]]
            if re.search(r"[,;:!?()\u2014\u2013]|\s-\s", gap) or fold(toks[i][2]) in _CLAUSE_END:
                break
            if stem(toks[i][2]) in qstems:
                continue
            back.insert(0, sentence[toks[i][0] : toks[i][1]])
        span = _trim(back)
    return " ".join(span) if span else None


def place_span(sentence: str) -> str | None:
    """A capitalised name after in/at/to/from, else the noun phrase after such a preposition."""
    toks = list(word_spans(sentence))
    for i, (_a, _b, w) in enumerate(toks[:-1]):
        if w not in _PLACE_PREP:
            continue
        name = []
        for a, b, _w in toks[i + 1 : i + 5]:
            surface = sentence[a:b]
            if surface[:1].isupper() and surface.lower() not in ("i",):
                name.append(surface)
            elif name or surface.lower() not in ("the", "a", "my", "our"):
                break
        if name:
            return " ".join(name)
    for i, (_a, _b, w) in enumerate(toks[:-1]):
        if w in _PLACE_PREP:
            rest = _trim([sentence[a:b] for a, b, _w in toks[i + 1 : i + 4]])
            if rest:
                return " ".join(rest)
    return None


def name_span(sentence: str, speaker: str, plan: Plan) -> str | None:
    """A person's name other than the speaker and the asked ones, else a relation phrase."""
    asked = _first_names(plan) | {fold(speaker.split()[0])}
    toks = list(word_spans(sentence))
    for k, (a, b, w) in enumerate(toks):
        surface = sentence[a:b]
        if k > 0 and surface[:1].isupper() and w not in asked and w not in STOPWORDS and surface != "I":
            return surface
    for k, (_a, _b, w) in enumerate(toks[:-1]):
        if w in ("my", "her", "his", "our", "their"):
            a, b, _w = toks[k + 1]
            return sentence[a:b]
    return None


def count_span(text: str) -> str | None:
    for _a, _b, w in word_spans(text):
        if w.isdigit() and len(w) < 4:
            return w
        if w in _NUMBERS:
            return str(_NUMBERS[w])
    return None


def polarity(sentence: str) -> bool:
    """True unless the sentence is negated."""
    said = {fold(w) for w in re.findall(r"[A-Za-z']+", sentence.lower())}
    return not (said & _NEGATION or any(w.endswith("n't") for w in said))


# ----------------------------------------------------------------------------- support
def requirement_met(req: Requirement, cand: Candidate, plan: Plan) -> bool:
    """The answer's turn states the requirement: its entity speaks or is named, its words are there."""
    text = f"{cand.turn.text} {cand.turn.image_caption or ''}"
    said = {stem(w) for w in words(text)}
    if req.entity:
        first = fold(req.entity.split("'")[0].split()[0])
        if fold(cand.turn.speaker.split()[0]) != first and stem(first) not in said:
            return False
    wanted = {stem(w) for w in words(" ".join(x for x in (req.property, req.value) if x))}
    wanted |= {stem(fold(w)) for w in plan.keywords}
    wanted -= {stem(w) for w in STOPWORDS | WEAK_WORDS}
    if req.entity:
        wanted -= {stem(w) for w in words(req.entity)}
    if not wanted:
        return True
    return len(wanted & said) * 2 >= len(wanted)


def support_level(plan: Plan, best: Candidate, span_found: bool) -> SupportLevel:
    targets = [r for r in plan.requirements if r.role != "bridge"] or list(plan.requirements)
    covered = all(requirement_met(r, best, plan) for r in targets)
    return SupportLevel.SUPPORTED if covered and span_found else SupportLevel.WEAK


# ----------------------------------------------------------------------------- answers
def _time_answer(ranked: list[Candidate]) -> tuple[str, Candidate, bool] | None:
    resolver = _build_resolver()
    for cand in ranked[:3]:
        bt = cand.turn
        found = timeref.TIME_RE.search(cand.sentence) or timeref.TIME_RE.search(bt.text)
        if found and bt.session_time is not None:
            expr = found.group(0)
            value = None
            if resolver is not None:
                try:
                    value = resolver(expr, bt.session_time)
                except Exception:  # the build's resolver may reject an expression; fall back
                    value = None
            text = value if isinstance(value, str) and value else timeref.resolve(expr, bt.session_time)
            return text, cand, True
    if ranked and ranked[0].turn.session_time is not None:
        best = ranked[0]
        assert best.turn.session_time is not None
        return timeref.fmt_day(best.turn.session_time.date()), best, False
    return None


def _span(plan: Plan, cand: Candidate) -> str | None:
    target = plan.answer_target
    if target == "count":
        return count_span(cand.sentence)
    if target == "location":
        return place_span(cand.sentence) or value_span(cand.sentence, plan)
    if target == "entity":
        return name_span(cand.sentence, cand.turn.speaker, plan) or value_span(cand.sentence, plan)
    return value_span(cand.sentence, plan)


def _answer(text: str, cited: list[Candidate], level: SupportLevel) -> Answer:
    ids = tuple(dict.fromkeys(c.turn.turn_id for c in cited))
    return Answer(
        text=f"{text} [{', '.join(ids)}]",
        cited_turn_ids=ids,
        supported=level == SupportLevel.SUPPORTED,
        support=level,
    )


def unknown() -> Answer:
    return Answer(text=UNKNOWN, cited_turn_ids=(), supported=False, support=SupportLevel.UNKNOWN)


def extractive_answer(question: str, plan: Plan, buffer: list[BufferTurn]) -> Answer:
    if not buffer:
        return unknown()
    ranked = candidates(plan, buffer)
    if not ranked or max(c.words_score for c in ranked) < MIN_SCORE:
        return unknown()
    best = ranked[0]
    target = plan.answer_target
    if target == "time" or plan.reasoning_type == ReasoningType.TEMPORAL:
        found = _time_answer(ranked)
        if found is not None:
            value, cand, explicit = found
            return _answer(value, [cand], support_level(plan, cand, explicit))
    if target == "boolean":
        yes = polarity(best.sentence)
        return _answer("Yes" if yes else "No", [best], support_level(plan, best, True))
    if target == "likelihood":
        yes = polarity(best.sentence)
        return _answer("Likely yes" if yes else "Likely no", [best], SupportLevel.WEAK)
    many = target in ("list", "count") or plan.reasoning_type in (
        ReasoningType.AGGREGATION,
        ReasoningType.COMPARISON,
    )
    if many and target != "count":
        picked: list[tuple[str, Candidate]] = []
        seen_turns: set[str] = set()
        seen_spans: set[str] = set()
        for cand in ranked:
            if cand.turn.turn_id in seen_turns or cand.score < 0.6 * best.score:
                continue
            span = _span(plan, cand)
            if not span or span.lower() in seen_spans:
                continue
            picked.append((span, cand))
            seen_turns.add(cand.turn.turn_id)
            seen_spans.add(span.lower())
            if len(picked) == 4:
                break
        if picked:
            level = support_level(plan, picked[0][1], True)
            return _answer(", ".join(s for s, _c in picked), [c for _s, c in picked], level)
        return _answer(best.sentence, [best], SupportLevel.WEAK)
    for cand in ranked[:3]:
        span = _span(plan, cand)
        if span:
            return _answer(span, [cand], support_level(plan, cand, True))
    return _answer(best.sentence, [best], SupportLevel.WEAK)
