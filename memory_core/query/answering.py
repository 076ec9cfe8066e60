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
4. A question naming something no buffer turn says is answered "Unknown" with the names
   (``Answer.unmentioned``): the query pipeline checks that once after retrieval, for every
   backend (``query/premise.py``), and passes the names in.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime

from memory_core import timeexpr
from memory_core.models import Answer, BufferTurn, Plan, ReasoningType, Requirement, SupportLevel
from memory_core.query.buffer import highlight_terms
from memory_core.query.families import word_families
from memory_core.query.premise import UNKNOWN, unmentioned_answer
from memory_core.query.text import STOPWORDS, WEAK_WORDS, fold, stem, word_spans, words

_SENTENCE_RE = re.compile(r"[^.!?]+[.!?]*")
_WEIGHT = {"value": 1.0, "keyword": 0.7, "entity": 0.3}
MIN_SCORE = 0.7  # the best sentence must carry at least one keyword's worth of the question
TURN_WEIGHT = 4.0  # a sentence of the buffer turn closest to the question counts up to 5x
SPAN_WORDS = 7  # longest span taken after the matched word
LIST_ITEM_WORDS = 4  # a list item is a few words: the thing, not the sentence about it
SUPPORT_SHARE = 0.5  # share of a requirement's words the answer's turn must hold to support it
LATEST_SHARE = 0.7  # a question about the current state takes the latest candidate this close to the best
_CURRENT_RE = re.compile(
    r"\b(?:current(?:ly)?|now|these\s+days|at\s+the\s+moment|nowadays|still|any\s*more|latest|"
    r"most\s+recent(?:ly)?)\b", re.IGNORECASE)
_FIRST_PERSON = frozenset({"i", "my", "me", "mine", "myself", "we", "our", "us"})
_NEGATION = frozenset({"not", "no", "never", "n't", "nothing", "neither", "nor", "cannot"})
_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "twice": 2, "once": 1, "both": 2, "couple": 2, "few": 3, "several": 3,
}  # fmt: skip
# words not worth starting or ending a span with
_EDGE = STOPWORDS | WEAK_WORDS | frozenset({"really", "just", "so", "also", "too", "very", "lately", "now"})
# conversational fillers: a span made only of these (and stop words) says nothing
_PHATIC = frozenset(
    """thanks thank yeah yep yes yup no nope cool okay ok wow great perfect awesome sure hey hi hello
    oh ah haha lol totally definitely absolutely amazing nice glad sorry""".split()  # noqa: SIM905
)
_PLACE_PREP = frozenset({"in", "at", "to", "from", "near", "around", "into"})


@dataclass(frozen=True)
class Candidate:
    score: float  # word score x speaker weight (the ranking)
    order: int
    sentence: str
    turn: BufferTurn
    words_score: float = 0.0  # the question's words alone (the "anything to say?" test)


def _resolve_time(expr: str, when: datetime) -> str:
    """The expression normalised as the build does it (shown in words), else the answer's own
    reading of it ("the week of 24 April 2023")."""
    value = timeexpr.normalise(expr, when)
    return timeexpr.format_iso(value.iso) if value is not None and value.iso else timeexpr.resolve(expr, when)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_RE.findall(text) if s.strip()]


def _score(sentence: str, labels: dict[str, str], rarity: dict[str, float] | None = None) -> float:
    seen: set[str] = set()
    score = 0.0
    for w in words(sentence):
        if w in STOPWORDS:
            continue
        s = stem(w)
        if s in labels and s not in seen:
            seen.add(s)
            score += _WEIGHT.get(labels[s], 0.5) * (rarity.get(s, 1.0) if rarity else 1.0)
    return score


def _rarity(parts: list[str], labels: dict[str, str]) -> dict[str, float]:
    """How rare each question word is among the buffer's sentences (1 = in every sentence).

    A word the whole buffer repeats ("dance" in a conversation about a dance studio) tells
    the sentences apart less than one only the answer's sentence holds.
    """
    n = len(parts)
    df: dict[str, int] = dict.fromkeys(labels, 0)
    for part in parts:
        for s in {stem(w) for w in words(part) if w not in STOPWORDS}:
            if s in df:
                df[s] += 1
    return {s: 1.0 + math.log(n / d) if d else 1.0 for s, d in df.items()} if n else {}


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


def _normalised(buffer: list[BufferTurn]) -> dict[str, float]:
    """The buffer turns' closeness to the question, min-max normalised over the buffer."""
    scores = {b.turn_id: b.closeness for b in buffer if b.closeness is not None}
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    span = hi - lo or 1.0
    return {turn_id: (score - lo) / span for turn_id, score in scores.items()}


def _follows(prev: BufferTurn, turn: BufferTurn) -> bool:
    """``turn`` is the reply right after ``prev`` (same session, next turn, other speaker)."""
    try:
        a = int(prev.turn_id.rsplit(":", 1)[1])
        b = int(turn.turn_id.rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return False
    return prev.session == turn.session and b == a + 1 and prev.speaker != turn.speaker


def candidates(plan: Plan, buffer: list[BufferTurn]) -> list[Candidate]:
    """Buffer sentences ranked as answers; a sentence of a turn close to the question (its
    ``closeness``, set by retrieval) counts more.

    A question in the buffer that repeats the asked words is not itself the answer: it
    counts half, and the first sentences of the reply right after it inherit its score.
    """
    labels = highlight_terms(plan)
    asked = _first_names(plan)
    everything = [
        p for bt in buffer for p in [*sentences(bt.text), *([bt.image_caption] if bt.image_caption else [])]
    ]
    rarity = _rarity(everything, labels)
    closeness = _normalised(buffer)
    out = []
    asked_before = 0.0  # best score of a question sentence in the previous turn
    for k, bt in enumerate(buffer):
        inherit = asked_before if k and _follows(buffer[k - 1], bt) else 0.0
        asked_before = 0.0
        parts = sentences(bt.text)
        if bt.image_caption:
            parts.append(bt.image_caption)
        for n, s in enumerate(parts):
            plain = _score(s, labels)
            score = _score(s, labels, rarity)
            if s.endswith("?"):
                asked_before = max(asked_before, score)
                score *= 0.5
            if inherit and n < 2 and not s.endswith("?"):
                score = max(score, 0.8 * inherit)
            if score <= 0:
                continue
            if fold(bt.speaker.split()[0]) in asked:  # the asked-about person speaking counts a little
                score += 0.25
                plain += 0.25
            score *= _speaker_weight(s, bt, asked)
            if closeness:
                score *= 1.0 + TURN_WEIGHT * closeness.get(bt.turn_id, 0.0)
            out.append(Candidate(score, k, s, bt, plain))
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
    return {stem(w) for w in words(plan.question) if w not in STOPWORDS}


_CLAUSE_SPLIT_RE = re.compile(r"\s*(?:[,;:!?()\"“”\u2014\u2013]|\s-\s|\.\s)\s*")


def _clauses(sentence: str) -> list[str]:
    return [c for c in _CLAUSE_SPLIT_RE.split(sentence) if c and c.strip()]


def value_span(sentence: str, plan: Plan) -> str | None:
    """The part of the sentence that is not the question: after the question's last word there.

    The sentence is cut into clauses; in the clause repeating most of the question's words,
    the words after the last repeated one are the span ("Researching adoption agencies -
    it's been a dream" asked "What did Caroline research?" -> "adoption agencies"); when
    nothing follows, the clause's other words, else the next clause.
    """
    qstems = _question_stems(plan) - {stem(n) for n in _first_names(plan)}
    clauses = _clauses(sentence)
    if not clauses:
        return None

    def hits(clause: str) -> list[int]:
        return [i for i, w in enumerate(words(clause)) if w not in STOPWORDS and stem(w) in qstems]

    scored = [(len(set(stem(words(c)[i]) for i in hits(c))), n) for n, c in enumerate(clauses)]
    best_hits, at = max(scored, key=lambda x: (x[0], -x[1]))
    clause = clauses[at]
    toks = clause.split()
    if best_hits == 0:
        span = _trim(toks)[:SPAN_WORDS]
        return " ".join(span) if span else None
    folded = [fold(re.sub(r"[^\w'’-]", "", t)) for t in toks]
    matched = [i for i, w in enumerate(folded) if w and w not in STOPWORDS and stem(w) in qstems]
    last = matched[-1] if matched else -1
    after = [t for t, w in zip(toks[last + 1 :], folded[last + 1 :], strict=True) if stem(w) not in qstems]
    after = _trim(after)
    if len(after) >= 2 or (after and fold(after[0]) not in _EDGE):
        return " ".join(after[: SPAN_WORDS + 3])
    rest = _trim([t for t, w in zip(toks, folded, strict=True) if not w or stem(w) not in qstems])
    if len(rest) >= 2:
        return " ".join(rest[: SPAN_WORDS + 3])
    if at + 1 < len(clauses):
        nxt = _trim(clauses[at + 1].split())
        if nxt:
            return " ".join(nxt[: SPAN_WORDS + 3])
    return " ".join(rest) if rest else None


_QUOTE_RE = re.compile(r"[\"“]([^\"“”]{2,60})[\"”]")


def quoted_span(sentence: str, question: str) -> str | None:
    """A quoted title or phrase the question does not already contain ("The Lean Startup")."""
    for m in _QUOTE_RE.finditer(sentence):
        inner = m.group(1).strip()
        if 0 < len(inner.split()) <= 8 and inner.lower() not in question.lower():
            return inner
    return None


def category_head(question: str) -> str | None:
    """The noun the question names as the answer's category ("What workshop did ..." -> workshop)."""
    m = re.search(
        r"\b(?:what|which)\s+(?:kinds?\s+of\s+|types?\s+of\s+|sorts?\s+of\s+)?([A-Za-z+\-]+)\s+"
        r"(?:is|are|was|were|has|have|had|did|does|do)\b",
        question,
        re.IGNORECASE,
    )
    if not m or m.group(1).lower() in STOPWORDS:
        return None
    return m.group(1)


def head_phrase(sentence: str, head: str) -> str | None:
    """The modifiers before the category noun, with it: "an LGBTQ+ counseling workshop" -> that."""
    target = stem(fold(head))
    toks = sentence.split()
    for i, raw in enumerate(toks):
        w = fold(re.sub(r"[^\w'’+-]", "", raw))
        if not w or stem(w) != target:
            continue
        mods: list[str] = []
        for j in range(i - 1, max(-1, i - 4), -1):
            prev = re.sub(r"[^\w'’+-]", "", toks[j])
            if not prev or fold(prev) in STOPWORDS or fold(prev) in _EDGE or re.search(r"[,;:.!?]$", toks[j]):
                break
            mods.insert(0, prev)
        if mods:
            return " ".join([*mods, re.sub(r"[^\w'’+-]", "", raw)])
    return None


def place_span(sentence: str, exclude: frozenset[str] = frozenset()) -> str | None:
    """A capitalised name after in/at/to/from, else one anywhere after the sentence's first
    word (not a name in ``exclude``), else the noun phrase after such a preposition."""
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
    for k, (a, b, w) in enumerate(toks):
        surface = sentence[a:b]
        if k and surface[:1].isupper() and surface != "I" and w not in exclude and w not in STOPWORDS:
            return surface
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
    return len(wanted & said) >= SUPPORT_SHARE * len(wanted)


def support_level(plan: Plan, best: Candidate, span_found: bool) -> SupportLevel:
    targets = [r for r in plan.requirements if r.role != "bridge"] or list(plan.requirements)
    covered = all(requirement_met(r, best, plan) for r in targets)
    return SupportLevel.SUPPORTED if covered and span_found else SupportLevel.WEAK


# ----------------------------------------------------------------------------- answers
_DAYS = "|".join(timeexpr.WEEKDAYS)
_VAGUE_RE = re.compile(
    r"^(?:(?P<rel>last|past|this)\s+(?P<unit>week|weekend|" + _DAYS + r")"
    r"|(?P<n>a|an|one|two|three|four|five|six|\d+|a\s+couple\s+of|a\s+few|few|several)\s+"
    r"(?P<units>weeks|weekends)\s+ago)$",
    re.IGNORECASE,
)


def vague_phrase(expression: str, when: datetime) -> str | None:
    """A week-scale expression kept as said, anchored to the session date.

    "last week" said on 9 June 2023 names no day: "the week before 9 June 2023"; likewise
    "last Friday" -> "the Friday before 15 July 2023", "two weekends ago" -> "two weekends
    before 17 July 2023", "this week" -> "the week of 23 August 2023". Days, months and years
    are resolved exactly by the time normaliser instead.
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
        return f"the {unit} before {day}"
    return f"{m.group('n').lower()} {m.group('units').lower()} before {day}"


_DURATION_RE = re.compile(
    r"\b(?:since\s+(?:19|20)\d{2}"
    r"|(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+few|a\s+couple\s+of|"
    r"several|many)\s+(?:years?|months?|weeks?|days?)(?:\s+ago|\s+now)?)\b",
    re.IGNORECASE,
)


def duration_answer(ranked: list[Candidate]) -> tuple[str, Candidate] | None:
    """For "how long (ago)": the duration as said ("4 years", "since 2016", "10 years ago")."""
    for cand in ranked[:3]:
        found = _DURATION_RE.search(cand.sentence)
        if found:
            return found.group(0), cand
    return None


def _time_answer(ranked: list[Candidate]) -> tuple[str, Candidate, bool] | None:
    for cand in ranked[:3]:
        bt = cand.turn
        found = timeexpr.TIME_RE.search(cand.sentence) or timeexpr.TIME_RE.search(bt.text)
        if found and bt.session_time is not None:
            expr = found.group(0)
            vague = vague_phrase(expr, bt.session_time)
            if vague is not None:
                return vague, cand, True
            return _resolve_time(expr, bt.session_time), cand, True
    if ranked and ranked[0].turn.session_time is not None:
        best = ranked[0]
        assert best.turn.session_time is not None
        return timeexpr.fmt_day(best.turn.session_time.date()), best, False
    return None


def _span(plan: Plan, cand: Candidate) -> tuple[str | None, bool]:
    """(span, specific): specific when the answer form found its kind of words (a number, a
    place or person name, a quoted title, the category's noun phrase); a clause left over
    once the question's words are removed is not specific."""
    target = plan.answer_target
    sentence = cand.sentence
    if target == "count":
        return count_span(sentence), True
    specific: str | None = None
    head = category_head(plan.question)
    kinds = word_families(head) if head else frozenset()
    if target == "location" or "places" in kinds:  # "what country ..." asks for a place too
        specific = place_span(sentence, frozenset(_first_names(plan) | {fold(cand.turn.speaker.split()[0])}))
    elif target == "entity":
        specific = name_span(sentence, cand.turn.speaker, plan)
    if specific is None:
        specific = quoted_span(sentence, plan.question)
    if specific is None:
        specific = head_phrase(sentence, head) if head else None
    if specific:
        return specific, True
    span = value_span(sentence, plan)
    if span and all(w in _PHATIC or w in _EDGE for w in words(span)):
        return None, False  # only fillers left ("Thanks", "Yeah"): not an answer
    return span, False


def _answer(text: str, cited: list[Candidate], level: SupportLevel) -> Answer:
    ids = tuple(dict.fromkeys(c.turn.turn_id for c in cited))
    text = text.strip().rstrip(".,;:!?").strip() or text
    return Answer(
        text=f"{text} [{', '.join(ids)}]",
        cited_turn_ids=ids,
        supported=level != SupportLevel.UNKNOWN,  # the yes/no flag; the grade is in ``support``
        support=level,
    )


def unknown() -> Answer:
    return Answer(text=UNKNOWN, cited_turn_ids=(), supported=False, support=SupportLevel.UNKNOWN)


def latest_first(question: str, ranked: list[Candidate]) -> tuple[list[Candidate], Candidate | None]:
    """For a question about the current state ("where is it hanging now?", "what is my current
    job?"): the strong candidate said latest goes first, and the strongest candidate of an
    earlier session it outranks is returned as the statement it updates (else None)."""
    if not ranked or not _CURRENT_RE.search(question):
        return ranked, None
    floor = LATEST_SHARE * ranked[0].score
    strong = [c for c in ranked if c.score >= floor]
    latest = max(strong, key=lambda c: c.order)  # the buffer is in dialogue order
    earlier = next((c for c in strong if c.turn.session < latest.turn.session), None)
    return [latest, *(c for c in ranked if c is not latest)], earlier


def extractive_answer(question: str, plan: Plan, buffer: list[BufferTurn], *,
                      unmentioned: tuple[str, ...]) -> Answer:
    """The answer from the buffer; sentences of the turns closest to the question (each
    turn's ``closeness``) are favoured; a question about the current state takes the latest
    statement and names the earlier one it updates. ``unmentioned``: the question's names no
    buffer turn says (``premise.unmentioned``, checked by the pipeline) — when the buffer has
    something to say, the answer is "Unknown" with them."""
    if not buffer:
        return unknown()
    ranked = candidates(plan, buffer)
    if not ranked or max(c.words_score for c in ranked) < MIN_SCORE:
        return unknown()
    if unmentioned:  # "my post as Ward Nursing Director" when only "Head Ward Nurse" was said
        return unmentioned_answer(unmentioned)
    ranked, updated = latest_first(question, ranked)
    answer = _extract(question, plan, ranked)
    if updated is not None and answer.supported and updated.turn.turn_id not in answer.cited_turn_ids:
        when = updated.turn.session_time
        said = when.strftime("%-d %B %Y") if when else f"session {updated.turn.session}"
        answer = answer.model_copy(update={"updates": f"{updated.turn.turn_id} ({said})"})
    return answer


def _extract(question: str, plan: Plan, ranked: list[Candidate]) -> Answer:
    best = ranked[0]
    target = plan.answer_target
    if re.match(r"\s*how\s+long\b", question, re.IGNORECASE):
        lasting = duration_answer(ranked)
        if lasting is not None:
            return _answer(lasting[0], [lasting[1]], support_level(plan, lasting[1], True))
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
        met = 0
        for cand in ranked:
            if cand.turn.turn_id in seen_turns or cand.score < 0.6 * best.score:
                continue
            span, _specific = _span(plan, cand)
            if not span or span.lower() in seen_spans:
                continue
            picked.append((" ".join(span.split()[:LIST_ITEM_WORDS]), cand))
            seen_turns.add(cand.turn.turn_id)
            seen_spans.add(span.lower())
            met += support_level(plan, cand, True) == SupportLevel.SUPPORTED
            if len(picked) == 4:
                break
        if picked:  # a list is supported when at least two of its items are
            level = SupportLevel.SUPPORTED if met >= 2 else SupportLevel.WEAK
            return _answer(", ".join(s for s, _c in picked), [c for _s, c in picked], level)
        return _answer(best.sentence, [best], SupportLevel.WEAK)
    for cand in ranked[:3]:
        span, specific = _span(plan, cand)
        if span:
            return _answer(span, [cand], support_level(plan, cand, specific))
    return _answer(best.sentence, [best], SupportLevel.WEAK)
