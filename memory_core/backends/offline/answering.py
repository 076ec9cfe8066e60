"""The offline answer: a short, complete, typed piece of the evidence, cited, with a support level.

1. Sentences (and image captions) of the buffer are ranked by the question's words they hold
   (requirement values/properties count more than plain keywords), speaker-aware: when the
   question is about one person, a first-person sentence said by someone else counts little.
2. The answer is composed, in this order:
   a. an annotator's corrected (or added) active record about the asked entity whose
      property is the one asked for: its value answers, cited by its evidence turns; for
      "what is the name of Maya's puppy?", a matched ``is_called`` record of a thing of that
      noun, said by (or owned by) the person asked about (``called_record``);
   b. yes/no (would/likely: "Likely yes/no") for a polar question, from the negation of the
      best sentence, which is kept as the answer's ``quote``;
   c. for a question that gathers (lists, counts of kinds, comparisons), the best option of
      each of several turns and records, de-duplicated and joined;
   d. else the option the answer model (``answer_model``) scores highest among every complete
      piece the evidence offers (``compose``): the matched records' values, the named
      entities, noun phrases, arguments and predicates of the best sentences, the time
      expressions resolved against their session's date ("yesterday" said on 8 May 2023 ->
      7 May 2023), and each sentence itself, quoted with speaker and date.
   Pieces are whole constituents of a parse, so an answer never ends in a cut-off word.
3. Support: ``supported`` when the model's probability that the answer is right reaches the
   threshold calibrated for its answer form on the tune files and every target requirement is met
   by the answer's source (its record's entity, or the turn's speaker/names and words);
   ``unknown`` when nothing in the evidence carries an answer, or when the probability is at or
   below the one up to which the tune answers were rarely right (the answer is then shown as a
   guess); ``weak`` otherwise.
4. A question naming something no buffer turn says is answered "Unknown" with the names
   (``Answer.unmentioned``): the query pipeline checks that once after retrieval, for every
   backend (``query/premise.py``), and passes the names in.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from memory_core import timeexpr
from memory_core.backends.offline import clauses
from memory_core.backends.offline.answer_model import AnswerModel, default_model, featurise
from memory_core.backends.offline.compose import (
    AHEAD_RE,
    DURATION_RE,
    FREQUENCY_RE,
    HOW_LONG_RE,
    HOW_OFTEN_RE,
    TIME_SENTENCES,
    Choice,
    Embed,
    Question,
    frequency_options,
    quote,
    ranked_by_kind,
    record_options,
    sentence_options,
    time_key,
    time_options,
    with_head_similarity,
)
from memory_core.backends.offline.intervals import interval_answer
from memory_core.backends.offline.planner import LIGHT_STEMS, addressed_speaker
from memory_core.construct import lexicon
from memory_core.contracts import USER_ROLES
from memory_core.models import Answer, BufferTurn, Plan, ReasoningType, Record, Requirement, SupportLevel
from memory_core.query.buffer import highlight_terms
from memory_core.query.families import property_families
from memory_core.query.pipeline import KIND_PROPERTIES
from memory_core.query.premise import UNKNOWN, unmentioned_answer
from memory_core.query.standing import rule_clause
from memory_core.query.text import SENTENCE_RE, STOPWORDS, WEAK_WORDS, fold, stem, words
from memory_core.timeexpr.months import NUMBER_WORDS

if TYPE_CHECKING:
    from spacy.tokens import Doc

Parse = Callable[[list[str]], list["Doc"]]  # texts -> spaCy parses (the offline backend's cache)

# a sentence does not end after an abbreviation ("St. Pauli", "Dr. Ito") or an initial ("J. Smith")
_ABBREVIATIONS = frozenset({"st", "dr", "mr", "ms", "mrs", "jr", "sr", "vs", "mt", "prof", "approx", "etc",
                            "e.g", "i.e"})
_WEIGHT = {"value": 1.0, "keyword": 0.7, "entity": 0.3}
MIN_SCORE = 0.7  # the best sentence must carry at least one keyword's worth of the question
TURN_WEIGHT = 4.0  # a sentence of the buffer turn closest to the question counts up to 5x
SUPPORT_SHARE = 0.5  # share of a requirement's words the answer's turn must hold to support it
LATEST_SHARE = 0.7  # a question about the current state takes the latest candidate this close to the best
SENTENCE_OPTIONS = 5  # the best sentences whose constituents are options
RECORD_OPTIONS = 12  # the best matched records whose values are options
GATHER_SHARE = 0.5  # a gathered item's probability, at least this share of the best one's
LIST_ITEMS = 5
NAMED_SOURCES = 3  # sentences beyond the best ones that say the noun whose name is asked
GATHERING = frozenset({ReasoningType.AGGREGATION, ReasoningType.COMPARISON})
RELATION_PROPERTIES = frozenset(p.name for p in lexicon.KIN.values())  # sibling, colleague, pet, ...
_CURRENT_RE = re.compile(
    r"\b(?:current(?:ly)?|now|these\s+days|at\s+the\s+moment|nowadays|still|any\s*more|latest|"
    r"most\s+recent(?:ly)?)\b", re.IGNORECASE)
_TIME_KINDS = frozenset({"date", "session_date"})  # the option kinds that are times
_FIRST_PERSON = frozenset({"i", "my", "me", "mine", "myself", "we", "our", "us"})
_NEGATION = frozenset({"not", "no", "never", "n't", "nothing", "neither", "nor", "cannot"})


@dataclass(frozen=True)
class Candidate:
    score: float  # word score x speaker weight (the ranking)
    order: int
    sentence: str
    turn: BufferTurn
    words_score: float = 0.0  # the question's words alone (the "anything to say?" test)


def sentences(text: str) -> list[str]:
    out: list[str] = []
    for piece in SENTENCE_RE.findall(text):
        if out and out[-1].endswith(".") and _glued(out[-1]):
            out[-1] += piece
        else:
            out.append(piece)
    return [s.strip() for s in out if s.strip()]


def _glued(piece: str) -> bool:
    """The piece ends in an abbreviation or an initial: the next one continues its sentence."""
    words_ = piece.rstrip(".").split()
    last = words_[-1].lower() if words_ else ""
    return last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())


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


def _speaker_stems(buffer: list[BufferTurn]) -> set[str]:
    return {stem(fold(bt.speaker.split()[0])) for bt in buffer if bt.speaker.strip()}


def _floor_labels(labels: dict[str, str], speakers: set[str]) -> dict[str, str]:
    """The question's words as the "anything to say?" test weighs them: a name the question
    asks about that no one in the buffer speaks under (``speakers``: ``_speaker_stems``; "When
    was Teo born?") says as much as a keyword — a sentence naming such a one has something to
    say of it."""
    return {s: "keyword" if kind == "entity" and s not in speakers else kind for s, kind in labels.items()}


def _floor(plan: Plan, buffer: list[BufferTurn]) -> float:
    """The words' score the best sentence needs: a keyword's worth (``MIN_SCORE``), or all the
    question says besides the speakers' names when that is less ("When was Maya in Porto?" says
    only a name: a sentence that says "Porto" has something to say)."""
    speakers = _speaker_stems(buffer)
    labels = _floor_labels(highlight_terms(plan), speakers)
    content = sum(_WEIGHT.get(kind, 0.5) for s, kind in labels.items() if s not in speakers)
    return min(MIN_SCORE, content) if content > 0 else MIN_SCORE


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


def _index(turn: BufferTurn) -> int | None:
    """The turn's number in its session ("D4:12" -> 12), when its id says it."""
    try:
        return int(turn.turn_id.rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return None


def _said_at(turn: BufferTurn | None) -> tuple[int, int]:
    """Where a turn sits in the conversation (session, number); a missing turn last."""
    return (turn.session, _index(turn) or 0) if turn is not None else (1 << 30, 0)


def _follows(prev: BufferTurn, turn: BufferTurn) -> bool:
    """``turn`` is the reply right after ``prev`` (same session, next turn, other speaker)."""
    a, b = _index(prev), _index(turn)
    if a is None or b is None:
        return False
    return prev.session == turn.session and b == a + 1 and prev.speaker != turn.speaker


def candidates(plan: Plan, buffer: list[BufferTurn]) -> list[Candidate]:
    """Buffer sentences ranked as answers; a sentence of a turn close to the question (its
    ``closeness``, set by retrieval) counts more.

    A question in the buffer that repeats the asked words is not itself the answer: it
    counts half, and the first sentences of the reply right after it inherit its score.
    """
    labels = highlight_terms(plan)
    floor_labels = _floor_labels(labels, _speaker_stems(buffer))
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
            if _only_names(s, labels):
                continue  # "Hey Maya!", "JONAS.": a name called out answers nothing
            plain = _score(s, floor_labels)
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


def _only_names(sentence: str, labels: dict[str, str]) -> bool:
    """A sentence that says nothing but the question's names and interjections."""
    said = [w for w in words(sentence) if w not in STOPWORDS]
    return bool(said) and all(labels.get(stem(w)) == "entity" or clauses.is_noise_word(w) for w in said)


def _user(question: str, ranked: list[Candidate]) -> set[str] | None:
    """The (folded) user a first-person question is about, in a chat between a user and an
    assistant (``planner.addressed_speaker``); None elsewhere."""
    addressed = addressed_speaker(question, tuple(dict.fromkeys(c.turn.speaker for c in ranked)))
    return {fold(addressed[0])} if addressed is not None else None


def _said_by(asked: set[str], ranked: list[Candidate]) -> list[Candidate]:
    """The candidates said by one of the (folded first) names ``asked``."""
    return [c for c in ranked if fold(c.turn.speaker.split()[0]) in asked]


CONTRADICTION_SHARE = 0.2  # the user's sentences weighed for a contradiction score this share of the best
CONTRADICTION_SENTENCES = 12


def _contradicted(question: str, ranked: list[Candidate], parse: Parse) -> Answer | None:
    """"Have I ever ...?" asked of an assistant's memory, when the user denied it in one turn
    ("I've never repotted any orchids") and said it in another ("I repotted two orchids with
    fresh bark"): the answer says so, quoting both, instead of picking a side.

    The denial is a user's sentence whose negated verb, with what it governs, holds at least half
    of the question's words (``_denies``): "I'm not sure how to ...", or a "never" about
    something else in a sentence that shares a word with the question, denies nothing. The
    other side is the user's best sentence from another turn (a share of the best score
    ``CONTRADICTION_SHARE``), not a question and not negated, that repeats at least half, and at
    least two, of the question's words the denial uses. Only for a user asking about themselves
    in a user/assistant chat. The shares were chosen on BEAM tune's contradiction probes (9 of 12
    found) against the yes/no questions about a speaker in LoCoMo dev and REALTALK tune, whose
    answers are consistent (0 of 18 called contradictory); on the check files: BEAM 3 of 8, and
    0 of 21 REALTALK check questions called contradictory (docs/results.md, 2026-12-06 night)."""
    user = _user(question, ranked)
    if user is None or not ranked:
        return None
    top = ranked[0].score
    own = [c for c in _said_by(user, ranked[:3 * CONTRADICTION_SENTENCES])
           if not c.sentence.endswith("?") and c.score >= CONTRADICTION_SHARE * top][:CONTRADICTION_SENTENCES]
    if not own:
        return None
    asked = _content_stems(question)
    denied = [_denies(doc, asked) for doc in parse([c.sentence for c in own])]
    no = next((c for c, d in zip(own, denied, strict=True) if d), None)
    if no is None:
        return None
    key = _content_stems(no.sentence) & asked
    need = max(2, math.ceil(len(key) / 2))
    yes = next((c for c, d in zip(own, denied, strict=True)
                if not d and c.turn.turn_id != no.turn.turn_id and polarity(c.sentence)
                and len(_content_stems(c.sentence) & key) >= need), None)
    if yes is None:
        return None
    yes_doc, no_doc = parse([yes.sentence, no.sentence])
    said = {yes.turn.turn_id: _said_clause(yes_doc, key, need, negated=False),
            no.turn.turn_id: _said_clause(no_doc, key, need, negated=True)}
    first, second = sorted((yes, no), key=lambda c: _said_at(c.turn))
    return _answer(f'Contradictory: "{said[first.turn.turn_id]}" ({first.turn.turn_id}), but later '
                   f'"{said[second.turn.turn_id]}" ({second.turn.turn_id})', [first.turn, second.turn],
                   SupportLevel.WEAK)


LONG_SENTENCE = 25  # tokens: a longer sentence is quoted by the clause that says it


def _said_clause(doc: Doc, key: set[str], need: int, *, negated: bool) -> str:
    """What a long sentence says of the asked words: the shortest clause (a verb with all it
    governs) holding ``need`` of the ``key`` stems -- with its negation when ``negated`` -- so a
    request of a hundred words that mentions the thing in passing is quoted by that passage."""
    if len(doc) <= LONG_SENTENCE:
        return doc.text
    best = None
    for tok in doc:
        if tok.pos_ not in ("VERB", "AUX") or (
                negated and not any(t.dep_ == "neg" or t.lower_ == "never" for t in tok.children)):
            continue
        span = doc[tok.left_edge.i:tok.right_edge.i + 1]
        if len({stem(t.lower_) for t in span if not t.is_punct} & key) >= need \
                and (best is None or len(span) < len(best)):
            best = span
    if best is None:
        return doc.text
    end = best.end  # no joining word left hanging at its end ("…, so")
    while end > best.start + 1 and (doc[end - 1].is_punct or doc[end - 1].pos_ in ("CCONJ", "SCONJ")
                                    or doc[end - 1].lower_ in ("so", "then")):
        end -= 1
    return doc[best.start:end].text


def _content_stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOPWORDS}


def _denies(doc: Doc, asked: set[str]) -> bool:
    """Does the sentence negate a verb (not "be") whose words -- the verb and all it governs --
    hold at least half of the question's content words ``asked``? "I've never repotted any
    orchids in my flat" denies "Have I repotted orchids in my flat?"; "I'm not sure the bark was
    right" does not."""
    need = max(1, math.ceil(len(asked) / 2))
    for tok in doc:
        if tok.dep_ != "neg" and tok.lower_ != "never":
            continue
        verb = tok.head
        if verb.pos_ != "VERB" or verb.lemma_ == "be":
            continue
        if len({stem(t.lower_) for t in verb.subtree if not t.is_punct} & asked) >= need:
            return True
    return False


def polarity(sentence: str) -> bool:
    """True unless the sentence is negated."""
    said = {fold(w) for w in re.findall(r"[A-Za-z']+", sentence.lower())}
    return not (said & _NEGATION or any(w.endswith("n't") for w in said))


# the words a choice's head word keeps in front of it ("a national park", "full-time")
_MODIFIERS = frozenset({"det", "amod", "compound", "nummod", "poss", "nmod", "advmod", "quantmod", "punct"})
_ARTICLE_RE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)
_PREPOSITIONS = frozenset({"as", "in", "at", "on", "to", "by", "for", "with", "from"})


def alternatives(doc: Doc) -> tuple[str, str] | None:
    """The two choices a question offers with "or" ("a humanities or a technical degree",
    "full-time or part-time"), from the parse: the first is the head word of "or" with the
    modifiers before it; the second is its conjunct's whole phrase after a preposition ("or in
    the countryside"), else the conjunct with its modifiers ("or a city break", without "for
    her vacation")."""
    for tok in doc:
        if tok.lower_ != "or" or tok.dep_ != "cc":
            continue
        first = tok.head
        second = next((c for c in first.children if c.dep_ == "conj" and c.i > tok.i), None)
        if second is None:
            continue
        start = first.i
        while start > 0 and doc[start - 1].dep_ in _MODIFIERS and start <= doc[start - 1].head.i < tok.i:
            start -= 1
        kept = [t.right_edge.i for t in second.rights if t.dep_ in _MODIFIERS and t.dep_ != "punct"]
        end = _hyphened(doc, second.right_edge.i if second.pos_ == "ADP" else max([second.i, *kept]))
        one = doc[start:tok.i].text.strip(" ,")
        two = doc[tok.i + 1:end + 1].text.strip(" ,?")
        lead = one.split()[0].lower() if one else ""
        if lead in _PREPOSITIONS and two.lower().startswith(lead + " "):  # "as a cook or as a baker"
            one, two = one[len(lead):].strip(), two[len(lead):].strip()
        one, two = _ARTICLE_RE.sub("", one), _ARTICLE_RE.sub("", two)
        if one and two:
            return one, two
    return None


def _hyphened(doc: Doc, i: int) -> int:
    """The last token of the word ending at token ``i``, across hyphens ("part-time")."""
    while i + 2 < len(doc) and doc[i + 1].text == "-" and not (doc[i].whitespace_ or doc[i + 1].whitespace_):
        i += 2
    return i


_ANY_RE = re.compile(r"\b(?:ever|any|anything|anyone|anybody|anywhere|either)\b", re.IGNORECASE)


def alternative(question: str, ranked: list[Candidate], parse: Parse, embed: Embed | None,
                k: int = SENTENCE_OPTIONS) -> tuple[str, Candidate] | None:
    """For a polar question that offers two choices ("Does she work full-time or part-time?"),
    the choice the best sentences speak for, with the sentence that does: each choice's own
    words (those the other lacks) found in a sentence count that sentence's score; when no
    sentence says either, the choice closer in meaning to the best sentences (``embed``)."""
    if " or " not in f" {question.lower()} " or not ranked or _ANY_RE.search(question):
        return None  # "have you ever taken a course or a workshop?" asks yes or no
    found = alternatives(parse([question])[0])
    if found is None:
        return None
    own = [{stem(w) for w in words(a) if w not in STOPWORDS} for a in found]
    own = [own[0] - own[1], own[1] - own[0]]
    if not all(own):
        return None
    top = ranked[:k]
    votes = [0.0, 0.0]
    where: list[Candidate | None] = [None, None]
    for cand in top:
        said = {stem(w) for w in words(cand.sentence)}
        for n in (0, 1):
            if own[n] & said:
                votes[n] += cand.score * len(own[n] & said) / len(own[n])
                where[n] = where[n] or cand
    if votes[0] != votes[1]:
        n = 0 if votes[0] > votes[1] else 1
        return found[n], where[n] or top[0]
    if embed is None:
        return None
    vectors = embed([*found, *(c.sentence for c in top)])
    sims = vectors[2:] @ vectors[:2].T  # sentences x choices
    weights = np.array([c.score for c in top])
    n = int(np.argmax(weights @ sims))
    return found[n], top[int(np.argmax(sims[:, n]))]


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


def _about(req: Requirement, record: Record) -> bool:
    """The record is about the requirement's entity (or the requirement names none)."""
    return not req.entity or fold(record.entity.split("'")[0].split()[0]) == fold(
        req.entity.split("'")[0].split()[0])


def _source(choice: Choice, ranked: list[Candidate]) -> Candidate | None:
    """The best sentence of the turn the choice was taken from."""
    turn_id = choice.turn.turn_id if choice.turn is not None else None
    return next((c for c in ranked if c.turn.turn_id == turn_id), None)


def covered(plan: Plan, choice: Choice, ranked: list[Candidate]) -> bool:
    """Every target requirement is met by the answer's source: its record's entity, or the
    words of the turn it was taken from."""
    targets = [r for r in plan.requirements if r.role != "bridge"] or list(plan.requirements)
    if choice.record is not None:
        return all(_about(r, choice.record) for r in targets)
    cand = _source(choice, ranked)
    return cand is not None and all(requirement_met(r, cand, plan) for r in targets)


# ----------------------------------------------------------------------------- answers
def _answer(text: str, cited: list[BufferTurn], level: SupportLevel, *, quote_text: str | None = None,
            record_ids: tuple[str, ...] = (), confidence: float | None = None) -> Answer:
    ids = tuple(dict.fromkeys(t.turn_id for t in cited))
    text = text.strip().rstrip(".,;:!?").strip() or text
    return Answer(
        text=f"{text} [{', '.join(ids)}]" if ids else text,
        cited_turn_ids=ids,
        supported=level != SupportLevel.UNKNOWN,  # the yes/no flag; the grade is in ``support``
        support=level,
        quote=quote_text,
        record_ids=record_ids,
        confidence=None if confidence is None else round(confidence, 4),
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


_PRONOUN_OPENING_RE = re.compile(r"^(?:he|she|they|his|her|their|it|its)\b", re.IGNORECASE)


def _with_antecedent(cand: Candidate) -> Candidate:
    """The sentence with the one before it in its turn when it opens with a pronoun ("Lotte had
    a baby boy. His name is Teun."): a quote that says whose it is."""
    parts = sentences(cand.turn.text)
    if not _PRONOUN_OPENING_RE.match(cand.sentence) or cand.sentence not in parts[1:]:
        return cand
    before = parts[parts.index(cand.sentence) - 1]
    return dataclasses.replace(cand, sentence=f"{before} {cand.sentence}")


def _said(cand: Candidate) -> str:
    bt = cand.turn
    when = f", {bt.session_time:%-d %B %Y}" if bt.session_time else ""
    return f"{bt.speaker}{when}: “{cand.sentence.strip()}”"


_LONE_LETTER_RE = re.compile(r"\W*[A-Za-z]\W*")  # a letter left of a clitic or a typo ("id be" -> "d")


def options(question: str, plan: Plan, ranked: list[Candidate], records: Sequence[Record],
            buffer: list[BufferTurn], parse: Parse, embed: Embed | None = None) -> list[Choice]:
    """Every answer option the evidence offers for the question's answer form."""
    q = Question.of(plan)
    closeness = _normalised(buffer)
    by_turn = {bt.turn_id: bt for bt in buffer}
    best = ranked[0].score if ranked else 1.0
    out: list[Choice] = record_options(q, records[:RECORD_OPTIONS], ranked, by_turn, closeness)
    kin = _asked_kin(question, q)
    if kin is not None:  # "the name of Maya's nephew": her sibling's record names someone else
        out = [c for c in out if c.record is None or c.record.property not in RELATION_PROPERTIES
               or c.record.property == kin]
    top = ranked[:SENTENCE_OPTIONS] + _typed_sources(question, plan, ranked, embed)
    docs = parse([c.sentence for c in top]) if top else []
    if q.target == "time" or plan.reasoning_type == ReasoningType.TEMPORAL:
        # the best few sentences lead ``top``: their parses say which times lie ahead
        ahead = _said_ahead(list(zip(top, docs, strict=True))[:TIME_SENTENCES])
        out += time_options(q, ranked, closeness, ahead)
    if HOW_OFTEN_RE.match(question):
        out += frequency_options(q, ranked, closeness)
    for rank, (cand, doc) in enumerate(zip(top, docs, strict=True)):
        near = closeness.get(cand.turn.turn_id, 0.0)
        out += sentence_options(q, cand, rank, best, doc, near)
        out.append(quote(cand, rank, best, q, near))
    # a piece whose every word the question already says adds nothing ("What book ..." -> "book"),
    # nor does a lone letter left of a clitic or a typo ("id be" -> "d"), nor a cry ("Ahh", "lol")
    out = ranked_by_kind([c for c in out if c.option.kind == "sentence" or (
        c.option.novelty > 0 and not _LONE_LETTER_RE.fullmatch(c.text) and not _cry(c.text))])
    return with_head_similarity(q, out, embed) if embed is not None else out


def _said_ahead(parsed: Sequence[tuple[Candidate, Doc]]) -> Callable[[Candidate], frozenset[str]]:
    """For each of these parsed sentences, the time expressions (lower-cased) its clauses say of
    what is still to come ("is having a show in August": "in august"; "we leave in two days",
    not "I ran it in 54 minutes")."""
    found: dict[str, frozenset[str]] = {}
    for cand, doc in parsed:
        coming = set()
        for m in [*timeexpr.TIME_RE.finditer(doc.text), *AHEAD_RE.finditer(doc.text)]:
            span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
            if span is not None and clauses.looks_ahead(span):
                coming.add(time_key(m))
        found[cand.sentence] = frozenset(coming)
    return lambda cand: found.get(cand.sentence, frozenset())


# a request for help or advice ("How do I ...?", "Can you show me ...?", "I'm planning X. What
# would you suggest?"), not a question about what was said ("Can you list what I brought up?")
_REQUEST_RE = re.compile(
    r"^\s*(?:(?:can|could|would|will)\s+you\b|how\s+(?:do|can|should|would|could|might)\s+(?:i|we)\b|"
    r"how\s+to\b|(?:please\s+)?(?:show|help|explain|walk|give|suggest|recommend|tell)\s+(?:me|us)\b|"
    r"i['’]?m\s+(?:planning|looking|working|trying|applying|updating|building|preparing)\b|"
    r"(?:if|when)\s+(?:i['’]?m|i|building|creating|writing|making)\b)", re.IGNORECASE)
_ABOUT_THE_PAST_RE = re.compile(
    r"\b(?:did|have\s+i|had|was|were|mentioned|said|told|brought\s+up|remember|remind|order\s+in\s+which|"
    r"recommended|suggested|gave|shared|sent|wrote|last\s+time|earlier|before)\b", re.IGNORECASE)


def standing_rule(question: str, buffer: Sequence[BufferTurn]) -> tuple[BufferTurn, str] | None:
    """For a request to an assistant ("How do I bake banana bread?"), the user's standing
    instruction in the evidence closest to it and the sentence that states it ("Always give
    quantities in grams when I ask about a baking recipe") — in user/assistant chats only, and
    never for a question about what was said."""
    if not _REQUEST_RE.match(question) or _ABOUT_THE_PAST_RE.search(question):
        return None
    # the rule's own clause, not the long request it is told in ("…, so I prefer few
    # dependencies, how do I start?")
    rules = [(bt, said) for bt in buffer
             if bt.speaker.lower() in USER_ROLES and (said := rule_clause(bt.text)) is not None]
    if not rules:
        return None
    return max(rules, key=lambda rule: rule[0].closeness or 0.0)


def _kin(noun: str | None) -> str | None:
    """The relation property of a kin noun ("nephew" -> relative, "pets" -> pet), if it is one."""
    kin = lexicon.kin_of(_singular(noun.lower())) if noun else None
    return kin.name if kin is not None else None


def _asked_kin(question: str, q: Question) -> str | None:
    """The relation property of the kin noun the question asks about ("Maya's nephew" -> relative)."""
    return _kin(named_noun(question) or q.head)


def _cry(text: str) -> bool:
    """Every word of the piece is laughter, an interjection or a shout: it answers nothing."""
    said = text.split()
    return bool(said) and all(clauses.is_noise_word(w, acknowledgements=False) for w in said)


def _typed_sources(question: str, plan: Plan, ranked: list[Candidate],
                   embed: Embed | None) -> list[Candidate]:
    """More sentences for a question asking for a person, a place or a name: the one after the
    best sentence in its turn, when it is closer in meaning to the question than the second-best
    sentence ("I signed up for a pottery class. The first lesson was at a studio in Utrecht."),
    and, when the question names what is named, the sentences beyond the best few that say that
    noun ("my manager Ruben") and, for a name, the sentence after each sentence that says it ("The
    show is live! We called it 'Night Owls'.")."""
    if not ranked or not (plan.answer_target in ("entity", "location") or asks_for_a_name(plan)):
        return []
    out = []
    after = _next_sentence(ranked[0])
    if after is not None and embed is not None:
        rival = [ranked[1].sentence] if len(ranked) > 1 else []
        v = np.asarray(embed([question, after.sentence, *rival]), dtype=float)  # normalised
        if not rival or v[0] @ v[1] > v[0] @ v[2]:
            out.append(after)
    noun = named_noun(question)
    if noun is not None:
        said = re.compile(rf"\b{re.escape(_singular(noun))}(?:e?s)?\b", re.IGNORECASE)
        out += [c for c in ranked[SENTENCE_OPTIONS:] if said.search(c.sentence)][:NAMED_SOURCES]
        if asks_for_a_name(plan):
            out += [nxt for c in ranked if said.search(c.sentence)
                    if (nxt := _next_sentence(c)) is not None][:NAMED_SOURCES]
    shown = {r.sentence for r in ranked[:SENTENCE_OPTIONS]}
    return list({c.sentence: c for c in out if c.sentence not in shown}.values())


def _next_sentence(cand: Candidate) -> Candidate | None:
    """The sentence after the candidate's in its turn (not a question), at the candidate's score."""
    parts = sentences(cand.turn.text)
    if cand.sentence not in parts:
        return None
    after = parts.index(cand.sentence) + 1
    if after >= len(parts) or parts[after].endswith("?"):
        return None
    return Candidate(cand.score, cand.order, parts[after], cand.turn, 0.0)


def scored_options(question: str, plan: Plan, ranked: list[Candidate], records: Sequence[Record],
                   buffer: list[BufferTurn], parse: Parse, model: AnswerModel,
                   embed: Embed | None = None) -> list[tuple[float, Choice]]:
    """The options with the model's probability of being right, best first."""
    found = options(question, plan, ranked, records, buffer, parse, embed)
    scored = list(zip(model.probabilities([featurise(c.option) for c in found]), found, strict=True))
    scored.sort(key=lambda pc: -pc[0])
    return scored


def _edited(plan: Plan, records: Sequence[Record]) -> Record | None:
    """An annotator's record about the asked entity whose property is the one asked for: the
    correction answers before anything the build extracted."""
    q = Question.of(plan)
    for rec in records:
        if not rec.edited() or not rec.value.strip():
            continue
        option = record_options(q, [rec], [], {}, {})
        if option and option[0].option.record_property:
            return rec
    return None


# what a person *is* or *has* rather than what they did: a question "what is X's <noun>?"
# aligned to one of these is answered by X's record of it ("What is Tom's job?" -> occupation)
STATE_PROPERTIES = RELATION_PROPERTIES | {"occupation", "employer", "species", "relationship_status", "age"}
_COPULAR_RE = re.compile(r"^\s*(?:what|who)\s+(?:is|are|was|were)\s+\w+['’]s?\s+\w+\s*\??\s*$", re.IGNORECASE)


# "What pets does Maya have?": the owner's relation records ("what kind of pet" asks for a kind)
_OWNED_KIN_RE = re.compile(
    r"^\s*(?:what|which)\s+([a-z]+)\s+(?:does|do|did)\s+.+?\s+(?:have|own|keep)\s*\??\s*$", re.IGNORECASE)


def owned_records(question: str, plan: Plan, records: Sequence[Record]) -> list[Record]:
    """For "What pets does Maya have?": the names the asked people's matched records of that
    relation give, each once — when they name every one the records know of."""
    m = _OWNED_KIN_RE.match(question)
    kin = _kin(m.group(1)) if m else None
    targets = [r for r in plan.requirements if r.role != "bridge" and r.entity]
    if kin is None or not any(r.property == kin for r in targets):
        return []
    owners = _first_names(plan)
    found = [rec for rec in records if rec.property == kin and fold(rec.entity.split()[0]) in owners]
    named = [rec for rec in found if rec.value.strip()[:1].isupper() and not re.search(r"['’]s\b", rec.value)]
    if len(named) < len(found):
        return []  # "Maya's cat", "a pup": the records know of one they cannot name — the evidence answers
    out: dict[str, Record] = {}
    for rec in named:
        out.setdefault(fold(rec.value.strip()), rec)
    return list(out.values())


# "Which members of Jonas's family are mentioned?", "Who are Maya's relatives?", "What family
# members does Ben have?": who is in the family (not "What did his family members give him?")
_FAMILY_RE = re.compile(r"^\s*(?:(?:which|who)\b.*\b(?:members?\s+of\s+.+?\s+family|family\s+members?"
                        r"|relatives)|what\s+(?:family\s+members?|relatives))\b", re.IGNORECASE)
FAMILY_PROPERTIES = ("spouse", "partner", "parent", "child", "sibling", "grandparent", "relative")


def family_records(question: str, plan: Plan, records: Sequence[Record]) -> list[tuple[str, Record]]:
    """For "Which members of Jonas's family are mentioned?": the asked person's matched kin
    records (parents, siblings, children, partner, other relatives), each relative once, with
    how the answer names them (``_relative``)."""
    if not _FAMILY_RE.match(question):
        return []
    asked = _first_names(plan)
    out: dict[str, tuple[str, Record]] = {}
    for rec in records:
        if rec.property in FAMILY_PROPERTIES and rec.value.strip() and fold(rec.entity.split()[0]) in asked \
                and "'" not in rec.entity:
            named = _relative(rec)
            out.setdefault(fold(named), (named, rec))
    return sorted(out.values(), key=lambda nr: FAMILY_PROPERTIES.index(nr[1].property))


def _relative(rec: Record) -> str:
    """How an answer names the relative a kin record gives: its own name with the relation
    ("Felix (sibling)"), or the noun the owner said ("Jonas's mom" -> "mom")."""
    value = rec.value.strip()
    owner, mark, noun = value.partition("'s ")
    if mark and owner.split() and fold(owner.split()[0]) == fold(rec.entity.split()[0]):
        return noun
    return f"{value} ({rec.property})"


def called_record(plan: Plan, records: Sequence[Record]) -> Record | None:
    """For "What is the name of Anna's puppy?": the matched record of what a thing of the asked
    noun is called ("puppy · is_called · Biscuit", "Anna's puppy · is_called · Biscuit"), said
    by (or naming as owner) a person the question asks about, when it asks about one."""
    if not _one_name(plan):
        return None
    noun = named_noun(plan.question)
    if noun is None:
        return None
    wanted = _singular(noun.lower())
    asked = _first_names(plan) - {wanted}
    for rec in records:
        if rec.property != lexicon.IS_CALLED.name or not rec.value.strip():
            continue
        owner, _, thing = rec.entity.rpartition("'s ")
        if wanted not in {_singular(w) for w in words(thing or rec.entity)}:
            continue
        who = owner or rec.source_speaker or ""
        if asked and (not who.strip() or fold(who.split()[0]) not in asked):
            continue
        return rec
    return None


def _kind_of(name: str, records: Sequence[Record]) -> Record | None:
    """The record saying what the thing of this name is ("Oscar · species · guinea pig")."""
    key = name.strip().lower()
    return next((r for r in records if r.property in KIND_PROPERTIES and r.entity.strip().lower() == key
                 and r.value.strip()), None)


def _a(noun: str) -> str:
    """The noun with its indefinite article ("a guinea pig", "an iguana")."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def state_record(question: str, plan: Plan, records: Sequence[Record]) -> Record | None:
    """For "What is Tom's job?" / "Who is Tom's sister?": the best matched active record of
    the asked person whose property is the one asked for and whose value says more than the
    question (not "Tom's sister" again)."""
    targets = [r for r in plan.requirements if r.role != "bridge"]
    if not _COPULAR_RE.match(question) or len(targets) != 1:
        return None
    req = targets[0]
    if not req.entity or req.property not in STATE_PROPERTIES:
        return None
    asked = {stem(w) for w in words(question)}
    for rec in records:
        if rec.property != req.property or not _about(req, rec) or re.search(r"['’]s\b", rec.value):
            continue
        if {stem(w) for w in words(rec.value) if w not in STOPWORDS} - asked:
            return rec
    return None


# "Who is Priya?", "What is Kleiwerk?": a name alone is asked about — what it is to the people of
# the conversation (their relation records) and what it is (its role or kind)
_WHO_IS_RE = re.compile(r"^\s*(?i:who|what)(?:\s+(?i:is|was)|['’]s)\s+([A-Z][^?'’]*?)\s*\??\s*$")
_NAME_WORDS = 6
ROLE_PROPERTIES = ("occupation", *KIND_PROPERTIES)


def _asked_name_only(question: str) -> str | None:
    """The name of "Who is <name>?" / "What is <name>?", when the question says nothing more
    ("What is Anna doing?" asks about something else)."""
    m = _WHO_IS_RE.match(question)
    if not m or len(m.group(1).split()) > _NAME_WORDS or not m.group(1).split()[-1][:1].isupper():
        return None
    return m.group(1).strip()


def identity_records(asked: str, records: Sequence[Record]) -> tuple[str, list[Record]] | None:
    """For "Who is <asked>?": the asked one's relations to others ("Maya's colleague") and role
    or kind ("teacher"), from the matched active records — never the name itself again."""
    name = fold(asked)
    relations: dict[str, Record] = {}
    role: Record | None = None
    for rec in records:
        entity, value = fold(rec.entity.strip()), fold(rec.value.strip())
        if rec.property in RELATION_PROPERTIES and "'" not in rec.value and "'" not in rec.entity:
            other = rec.entity if value == name else rec.value if entity == name else None
            if other and fold(other) != name:
                relations.setdefault(f"{other.strip()}'s {rec.property.replace('_', ' ')}", rec)
        elif role is None and rec.property in ROLE_PROPERTIES and entity == name and value and value != name:
            role = rec
    if not relations and role is None:
        return None
    text = " and ".join(relations)
    if role is not None:
        text = f"{text} ({role.value.strip()})" if text else role.value.strip()
    return text, [*relations.values(), *([role] if role is not None else [])]


def _cited_by(records: Sequence[Record], buffer: list[BufferTurn]) -> list[BufferTurn]:
    """The buffer turns the records cite, in buffer order."""
    turn_ids = {t for rec in records for t in rec.evidence_turn_ids}
    return [bt for bt in buffer if bt.turn_id in turn_ids]


def _from_records(text: str, used: Sequence[Record], buffer: list[BufferTurn],
                  ranked: list[Candidate]) -> Answer:
    """A weak answer the records ``used`` give, cited by the buffer turns they cite and quoting
    the best-ranked sentence of one of them."""
    cited = _cited_by(used, buffer)
    cited_ids = {bt.turn_id for bt in cited}
    source = next((c for c in ranked if c.turn.turn_id in cited_ids), None)
    return _answer(text, cited, SupportLevel.WEAK, record_ids=tuple(r.id for r in used),
                   quote_text=_said(source) if source is not None else None)


def extractive_answer(question: str, plan: Plan, buffer: list[BufferTurn], *, unmentioned: tuple[str, ...],
                      parse: Parse, records: Sequence[Record] = (), embed: Embed | None = None,
                      model: AnswerModel | None = None) -> Answer:
    """The answer from the evidence, in this order: an annotator's corrected record that
    states the asked property; for "what is <name>'s <noun>?" asking for what someone is or
    has (a job, a sister), the matched record of it; for a polar question offering two choices,
    the one the evidence speaks for; yes/no for a polar question, with the sentence that decides
    it; for a question that gathers, the best options of several turns and records joined; else
    the best-scored complete piece (a record's value, a constituent of a sentence, a resolved
    time, or the sentence itself quoted; a proper name when the question asks for a name). ``records``: the
    active records retrieval matched, best first. ``unmentioned``: the question's names no
    buffer turn says — the answer is then "Unknown" with them."""
    return draft_answer(question, plan, buffer, unmentioned=unmentioned, parse=parse, records=records,
                        embed=embed, model=model).answer


@dataclass(frozen=True)
class Draft:
    answer: Answer
    how: str  # how it was composed: "edited", "unknown", "time", "list", "piece", "record", ...


def draft_answer(question: str, plan: Plan, buffer: list[BufferTurn], *, unmentioned: tuple[str, ...],
                 parse: Parse, records: Sequence[Record] = (), embed: Embed | None = None,
                 model: AnswerModel | None = None) -> Draft:
    """The answer ``extractive_answer`` gives, with how it was composed (what the support
    calibration of ``eval.answer_fit`` needs: a time is graded by the thresholds of times)."""
    model = model or default_model()
    if not buffer and not records:
        return Draft(unknown(), "unknown")
    ranked = candidates(plan, buffer)
    edited = _edited(plan, records)
    if edited is not None:
        cited = _cited_by([edited], buffer)
        answer = _answer(edited.value, cited, SupportLevel.SUPPORTED, record_ids=(edited.id,), confidence=1.0)
        return Draft(answer, "edited")
    answer, how = _draft(question, plan, buffer, ranked, unmentioned=unmentioned, parse=parse,
                         records=records, embed=embed, model=model)
    return Draft(answer, how)


def _draft(question: str, plan: Plan, buffer: list[BufferTurn], ranked: list[Candidate], *,
           unmentioned: tuple[str, ...], parse: Parse, records: Sequence[Record], embed: Embed | None,
           model: AnswerModel) -> tuple[Answer, str]:
    who = _asked_name_only(question)  # "Who is Priya?"
    identity = identity_records(who, records) if who is not None else None
    if identity is not None:
        text, used = identity
        return _from_records(text, used, buffer, ranked), "identity"
    owned = owned_records(question, plan, records)
    if owned:  # the records say it even when no sentence repeats the question's words
        named = [(rec, _kind_of(rec.value, records)) for rec in owned]
        used = [r for rec, kind in named for r in (rec, kind) if r is not None]
        text = "; ".join(rec.value.strip() + (f", {_a(kind.value.strip())}" if kind is not None else "")
                         for rec, kind in named)
        return _answer(text, _cited_by(used, buffer), SupportLevel.WEAK,
                       record_ids=tuple(r.id for r in used)), "owned"
    family = family_records(question, plan, records)
    if family:  # the kin records name the family even when no sentence says "family"
        return _from_records(", ".join(named for named, _rec in family), [rec for _named, rec in family],
                             buffer, ranked), "family"
    called = called_record(plan, records)
    if called is not None:  # "What is the name of Anna's puppy?" -- "puppy · is_called · Biscuit"
        return _from_records(called.value, [called], buffer, ranked), "called"
    rule = standing_rule(question, buffer)
    if rule is not None:  # "How do I bake banana bread?": what the user asked of such answers
        turn, said = rule
        return _answer(f"Your standing instruction: “{said}”", [turn], SupportLevel.WEAK,
                       quote_text=said), "rule"
    if not ranked or max(c.words_score for c in ranked) < _floor(plan, buffer):
        return unknown(), "unknown"
    if unmentioned:  # "my post as Ward Nursing Director" when only "Head Ward Nurse" was said
        return unmentioned_answer(unmentioned), "unknown"
    if who is not None:  # no record says what the name is: the sentence that says most of it
        said = _said(_with_antecedent(ranked[0]))
        return _answer(said, [ranked[0].turn], SupportLevel.WEAK, quote_text=said), "who"
    state = state_record(question, plan, records)
    if state is not None:
        cited = _cited_by([state], buffer)
        source = next((c for c in ranked if cited and c.turn.turn_id == cited[0].turn_id), None)
        return _answer(state.value, cited, SupportLevel.WEAK, record_ids=(state.id,),
                       quote_text=_said(source) if source is not None else None), "state"
    ranked, updated = latest_first(question, ranked)
    answer, how = _compose(question, plan, ranked, records, buffer, parse, model, embed)
    if updated is not None and answer.supported and updated.turn.turn_id not in answer.cited_turn_ids:
        when = updated.turn.session_time
        said = when.strftime("%-d %B %Y") if when else f"session {updated.turn.session}"
        answer = answer.model_copy(update={"updates": f"{updated.turn.turn_id} ({said})"})
    return answer, how


def _compose(question: str, plan: Plan, ranked: list[Candidate], records: Sequence[Record],
             buffer: list[BufferTurn], parse: Parse, model: AnswerModel, embed: Embed | None
             ) -> tuple[Answer, str]:
    best = ranked[0]
    target = plan.answer_target
    if target in ("boolean", "likelihood"):
        picked = alternative(question, ranked, parse, embed)
        if picked is not None:  # "is it A or B?" is answered with A or B, never with "yes"
            text, cand = picked
            return _answer(text, [cand.turn], SupportLevel.WEAK, quote_text=_said(cand)), "alternative"
        if target == "boolean" and (both := _contradicted(question, ranked, parse)) is not None:
            return both, "contradiction"
        yes = polarity(best.sentence)
        text = ("Yes" if yes else "No") if target == "boolean" else ("Likely yes" if yes else "Likely no")
        return _answer(text, [best.turn], SupportLevel.WEAK, quote_text=_said(best)), "polar"
    if _ORDER_RE.search(question) and _RAISED_RE.search(question):
        return _raised_in_order(question, plan, ranked), "order"
    if target == "count" and (stated := counted(question, ranked, parse)) is not None:
        text, cand = stated  # "How many project cards …?": the latest number said of them
        return _answer(text, [cand.turn], SupportLevel.WEAK, quote_text=_said(cand)), "count"
    if target == "time" and (between := interval_answer(question, buffer, parse)) is not None:
        text, turns = between  # "how many days between A and B?": counted from the days said
        return _answer(text, turns, SupportLevel.WEAK), "interval"
    scored = scored_options(question, plan, ranked, records, buffer, parse, model, embed)
    if target == "time" or plan.reasoning_type == ReasoningType.TEMPORAL:
        how_long = bool(HOW_LONG_RE.match(question))
        timed = _timed(scored, how_long=how_long, within=calendar_asked(question))
        if timed is not None:
            p, choice = timed
            source = _source(choice, ranked) or best
            if how_long and not DURATION_RE.search(choice.text):
                # a day given for "how long?" is the nearest time there was, not what was
                # asked: the sentence it was said in is quoted instead
                said = _said(source)
                return _answer(said, [source.turn], SupportLevel.WEAK, quote_text=said), "sentence"
            sure = model.supports(p, "time", len(scored)) and covered(plan, choice, ranked)
            return _answer(choice.text, [choice.turn] if choice.turn is not None else [],
                           _level(model, p, sure),  # a time picked for fitting: never a guess
                           quote_text=_said(source), confidence=p), "time"
    if not scored:
        return _answer(_said(best), [best.turn], SupportLevel.WEAK, quote_text=_said(best)), "sentence"
    if HOW_OFTEN_RE.match(question) and (often := _often(scored)) is not None:
        scored = [often] + [pc for pc in scored if pc is not often]
    first = scored[0][1]  # the model's own first choice (a guess when unsure), times included
    timed_too = scored
    scored = _untimed(plan, scored)
    if gathers(plan) and not _one_name(plan):  # "what is the name of ...?" wants one name, not a list
        return gathered(plan, scored, ranked, model), "list"
    p, choice = _kin_named(plan, scored, records) or _typed(plan, scored)
    if target == "count" and _HOW_MANY_RE.match(question) and not _COUNTED_RE.search(choice.text):
        # "how many?" is answered with a number: one said in the best sentences ("3 times"), else
        # the best sentence quoted, never a piece that counts nothing ("grocery shopping trip")
        number = next(((q, c) for q, c in timed_too
                       if c.option.sentence_rank < TYPED_SENTENCES and _COUNTED_RE.search(c.text)), None)
        if number is None:
            return _answer(_said(best), [best.turn], SupportLevel.WEAK, quote_text=_said(best)), "sentence"
        p, choice = number
    sure = model.supports(p, plan.answer_target, len(scored)) and covered(plan, choice, ranked)
    cand = _source(choice, ranked) or best
    return _answer(with_verb(plan, choice, parse), [choice.turn] if choice.turn is not None else [],
                   _level(model, p, sure, doubtable=choice is first), quote_text=_said(cand),
                   record_ids=(choice.record.id,) if choice.record is not None else (),
                   confidence=p), "record" if choice.record is not None else "piece"


_UNITS_OF_TIME = frozenset(stem(w) for w in ("time", "second", "minute", "hour", "day", "week", "month",
                                              "year"))
_NUMBER_RE = re.compile(r"\d|\b(?:" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)


_HOW_MANY_RE = re.compile(r"\s*how\s+many\b", re.IGNORECASE)  # not "how much progress ...?"
# a number said as digits or a word ("3", "twice", "two dozen"), not the article "a"
_COUNTED_RE = re.compile(r"\d|\b(?:" + "|".join(w for w in NUMBER_WORDS if w not in ("a", "an"))
                         + r"|once|twice|thrice)\b", re.IGNORECASE)


def counted(question: str, ranked: list[Candidate], parse: Parse) -> tuple[str, Candidate] | None:
    """"How many project cards are in my gallery?": the number the conversation last gave of the
    counted noun, with it ("10 cards"), a count said again later being the current one ("I
    planned 8 cards" … "now I have a total of 10 cards"). A number counts when it quantifies a
    plural noun with the question's head word; those whose other words the question does not
    use ("2 weak sources" for "How many sources …?") come after the rest, and those that
    share the question's own modifier ("project") come first. None when no number is said of
    it, and for units of time ("how many days/times"), answered as durations and frequencies."""
    asked = parse([question])[0]
    many = next((t for t in asked if t.lower_ == "many" and t.head.pos_ in ("NOUN", "PROPN")), None)
    if many is None:
        return None
    noun = stem(many.head.lower_)
    if noun in _UNITS_OF_TIME:
        return None
    mods = {stem(c.lower_) for c in many.head.children if c.dep_ in ("compound", "amod") and c is not many}
    words_asked = _content_stems(question)
    said = [c for c in ranked if _NUMBER_RE.search(c.sentence) and noun in _content_stems(c.sentence)]
    best: tuple[tuple[bool, bool, tuple[int, int]], str, Candidate] | None = None
    for cand, doc in zip(said, parse([c.sentence for c in said]), strict=True):
        for tok in doc:
            head = tok.head
            if tok.dep_ != "nummod" or stem(head.lower_) != noun or head.tag_ not in ("NNS", "NNPS"):
                continue
            own = {stem(c.lower_) for c in head.children if c.dep_ in ("compound", "amod")}
            key = (own <= words_asked, bool(mods & own) or not mods, _said_at(cand.turn))
            if best is None or key > best[0]:
                text = doc[tok.i:head.i + 1].text if tok.i < head.i else f"{tok.text} {head.text}"
                best = (key, text, cand)
    return (best[1], best[2]) if best is not None else None


def with_verb(plan: Plan, choice: Choice, parse: Parse) -> str:
    """A record's value, led by the verb that carries it when the question asks about another
    property: "How did the dog hurt her leg?" with `Rex · cuts · her leg on a nail` is answered
    "cut her leg on a nail", not "her leg on a nail". The verb is the one the source turn says
    (its own tense), just before the value; a light verb, a property the question asks about
    (`cooks` for "What did she bake?") or a value the turn does not say after its verb keep the
    value alone."""
    record, turn = choice.record, choice.turn
    if record is None or turn is None or record.property in {r.property for r in plan.requirements}:
        return choice.text
    head = stem(record.property.split("_")[0])
    if head in _LIGHT_VERB_STEMS or not choice.text:
        return choice.text
    doc = parse([turn.text])[0]
    wanted = choice.text.lower()
    for tok in doc:
        if tok.pos_ not in ("VERB", "AUX") or stem(tok.lemma_.lower()) != head:
            continue
        if doc[tok.i + 1:].text.lower().startswith(wanted):
            return f"{tok.text} {choice.text}"
    return choice.text


# the planner's light verbs, and the heads of the properties they name in the third person
_LIGHT_VERB_STEMS = LIGHT_STEMS | frozenset(stem(w) for w in ("be", "is", "has"))


_TIME_ASKED_RE = re.compile(r"\b(?:when|dates?|days?|weeks?|months?|years?|deadlines?|times?)\b",
                            re.IGNORECASE)


def _untimed(plan: Plan, scored: list[tuple[float, Choice]]) -> list[tuple[float, Choice]]:
    """The options without the times, for a question that asks for no time ("What did she make
    at the studio?" is answered with what she made, not with the month she made it in)."""
    if plan.reasoning_type == ReasoningType.TEMPORAL or _TIME_ASKED_RE.search(plan.question):
        return scored
    kept = [(p, c) for p, c in scored if c.option.kind not in _TIME_KINDS]
    return kept or scored


def _names_people(noun: str) -> bool:
    """The noun is said of people ("sister", "manager", "guy", "teacher"): their names are people's."""
    word = _singular(noun.lower())
    kin = lexicon.KIN.get(word) or lexicon.KIN.get(noun.lower())
    return (word in lexicon.PERSON_NOUNS or word in lexicon.OCCUPATIONS or word in ("person", "people")
            or (kin is not None and kin.value_type == "person"))


def _kin_named(plan: Plan, scored: list[tuple[float, Choice]],
               records: Sequence[Record]) -> tuple[float, Choice] | None:
    """For "What is the name of Jonas's dog?": the best-scored name a matched pet record gives
    (`Jonas · pet · Pepper`), unless a record says it is another kind of animal (`Pepper ·
    species · cat` does not name a dog). People's kin are left to the evidence: one relation
    holds several nouns ("sister" and "brother" are both `sibling`, "manager" a `colleague`)."""
    noun = named_noun(plan.question) if asks_for_a_name(plan) else None
    kin = _kin(noun)
    if noun is None or kin != lexicon.PET.name:
        return None
    wanted = _singular(noun.lower())
    for p, c in scored:
        if c.record is None or c.record.property != kin or not is_a_name(c):
            continue
        kind = _kind_of(c.record.value, records)
        if (kind is not None and wanted in lexicon.ANIMAL_NOUNS and wanted != "pet"
                and _singular(kind.value.strip().lower()) != wanted):
            continue
        return p, c
    return None


def _level(model: AnswerModel, p: float, sure: bool, *, doubtable: bool = False) -> SupportLevel:
    """Supported when ``sure``; a guess ("unknown": the answer is shown, marked as a guess) when
    it is the model's own first choice (``doubtable``) and such choices made with probability
    ``p`` were rarely right on the tune files; else weak. A piece picked for fitting the
    question's form (a name, a place, a date) is not the model's choice and is not judged so."""
    if sure:
        return SupportLevel.SUPPORTED
    return SupportLevel.UNKNOWN if doubtable and model.doubtful(p) else SupportLevel.WEAK


# the kinds of piece that fit an answer form: a person or a group for "who", a place for
# "where" (or "what country/city ..."), a number for "how many"
FITTING_KINDS: dict[str, frozenset[str]] = {
    "entity": frozenset({"person", "org", "group"}),
    "location": frozenset({"place", "org"}),
    "count": frozenset({"number"}),
    "places": frozenset({"place"}),
}
TYPED_SENTENCES = 3  # a fitting piece is looked for in the best few sentences


def _typed(plan: Plan, scored: list[tuple[float, Choice]]) -> tuple[float, Choice]:
    """The best-scored option whose kind fits the answer form, when the best sentences hold
    one (else the best-scored option). When the question names what is named ("the name of
    the studio ...", "who is her manager?"), a fitting piece the evidence ties to that noun
    ("a studio called Kleiwerk", "my manager Ruben") comes first."""
    q = Question.of(plan)
    form = "places" if q.target == "value" and "places" in q.head_families else q.target
    kinds = FITTING_KINDS.get(form)
    naming = asks_for_a_name(plan)
    if kinds or naming:
        noun = named_noun(plan.question) if naming or form == "entity" else None
        # the name of a band, a studio or a book is no person's name ("Kai, our singer")
        thing = naming and noun is not None and not _names_people(noun)

        def fits(c: Choice, tied: bool = False) -> bool:
            if kinds:
                return c.option.kind in kinds
            # a name the turn ties to the noun ("a studio called Kleiwerk") whatever the tagger says
            return is_a_name(c) and (tied or not (thing and c.option.kind == "person"))

        fitting = [(p, c) for p, c in scored if fits(c)]
        tied = [(p, c) for p, c in scored if noun is not None
                and (fits(c, tied=True) or (naming and c.option.kind == "quote")) and names_the(noun, c)]
        # the turn of the best sentence speaks first, its next sentence included ("I signed up
        # for a pottery class. The first lesson was at a studio in Utrecht." before a place said
        # in another turn)
        best = next((c.turn.turn_id for _p, c in scored
                     if c.option.sentence_rank == 0 and not c.option.record and c.turn is not None), None)
        near = [(p, c) for p, c in fitting if c.option.sentence_rank < TYPED_SENTENCES
                or (c.turn is not None and c.turn.turn_id == best)]
        # for "where", a place before an organisation (the tagger calls people "org" now and
        # then: "Anneke asked me to show a few pieces" beside "a studio here in Utrecht")
        near.sort(key=lambda pc: (form == "location" and pc[1].option.kind != "place",
                                  pc[1].turn is None or pc[1].turn.turn_id != best))
        if tied or near:
            p, choice = (tied or near)[0]
            return p, choice if kinds else _named(choice)
    return scored[0]


# the noun whose name is asked: "the name of the pottery studio where ..." -> studio,
# "what is her dog called?" -> dog, "who is Maya's manager at ...?" -> manager, "what is
# Maya's sister's name?" -> sister
_NAME_OF_RE = re.compile(r"\bnames?\s+of\s+([^?,]+)", re.IGNORECASE)
_S_NAME_RE = re.compile(r"([A-Za-z][\w\-]*)['’]s?\s+(?:first\s+|full\s+|last\s+)?names?\b")
_WHAT_IS_RE = re.compile(r"^\s*(?:what|who)\s+(?:is|was|are|were)\s+([^?,]+)", re.IGNORECASE)
_BOUNDARY_RE = re.compile(
    r"\s+(?:called|named|where|that|which|who|whom|whose|when|at|in|on|from|for|with|by)\b.*$", re.IGNORECASE)


def named_noun(question: str) -> str | None:
    """The common noun whose name (or holder) the question asks for, if it says one."""
    m = _NAME_OF_RE.search(question) or _S_NAME_RE.search(question) or _WHAT_IS_RE.search(question)
    if not m:
        return None
    found = re.findall(r"[A-Za-z][\w\-]*", _BOUNDARY_RE.sub("", m.group(1)))
    if not found:
        return None
    noun = found[-1]
    # a capitalised word is a name, not a category ("who is Maya?"); an all-capitals one is not
    return None if (noun[0].isupper() and not noun.isupper()) or noun.lower() in STOPWORDS else noun


def _singular(noun: str) -> str:
    return noun[:-1] if len(noun) > 3 and noun.endswith("s") and not noun.endswith("ss") else noun


def names_the(noun: str, choice: Choice) -> bool:
    """The choice's turn ties its text to the noun as that noun's name: "a studio called
    Kleiwerk", "the EP ... we called it 'Low Light'", "my manager Ruben", "Kleiwerk, the
    studio", "the Kleiwerk studio"."""
    if choice.turn is None or not choice.text.strip():
        return False
    name = re.escape(_LEAD_PRONOUN_RE.sub("", choice.text).strip().strip('"“”'))
    n = rf"(?i:\b{re.escape(_singular(noun))}(?:e?s)?\b)"
    q = "[\"“]?"
    return any(re.search(pattern, choice.turn.text) for pattern in (
        rf"{n}[^?]{{0,40}}?\b(?i:called|named|titled)\s+(?i:(?:it|him|her|them)\s+)?{q}{name}\b",
        rf"{n}\s*,?\s+{q}{name}\b",
        rf"\b{name}{q}\s*,\s*(?i:the|a|an|my|our|his|her|their)\s+(?:\w+\s+)?{n}",
        rf"\b{name}\s+{n}",
    ))


_LEAD_PRONOUN_RE = re.compile(r"^(?:him|her|them|it|his|its|their|my|your|our)\s+(?=[A-Z])")
# "what is the name of ...", "what are her pets' names?", "what is the studio called?"
_NAME_RE = re.compile(r"\bnames?\b(?!\s+(?:him|her|it|them)\b)|\b(?:called|named)\s*\??$", re.IGNORECASE)
NAME_KINDS = frozenset({"person", "place", "org", "group", "name"})


def _named(choice: Choice) -> Choice:
    """A name without a pronoun the parse left before it ("him Steve" -> "Steve")."""
    return dataclasses.replace(choice, text=_LEAD_PRONOUN_RE.sub("", choice.text))


def asks_for_a_name(plan: Plan) -> bool:
    """The question asks for a name, not a count or a time ("how many dog names ..." counts)."""
    return plan.answer_target not in ("count", "time", "boolean", "likelihood") and bool(
        _NAME_RE.search(plan.question.strip()))


def _one_name(plan: Plan) -> bool:
    return (asks_for_a_name(plan) and plan.answer_target != "list"
            and not re.search(r"\bnames\b", plan.question, re.IGNORECASE))


def is_a_name(choice: Choice) -> bool:
    """A piece that is a proper name other than the asked one's: a named entity, or a short
    piece (or record value) mostly of capitalised words; a possessive phrase ("Vanessa's cat")
    describes, it does not name."""
    o = choice.option
    if o.asked_name or re.search(r"['’]s\b", choice.text):
        return False
    if o.kind in NAME_KINDS:
        return True
    if o.kind in ("sentence", "quote", "predicate") or o.words > 5:
        return False
    return o.proper >= 0.5 or (o.kind == "record" and _capitalised(choice.text))


def _capitalised(text: str) -> bool:
    """At least half of the words start with a capital: a name more than a description."""
    said = text.split()
    return bool(said) and 2 * sum(w[:1].isupper() for w in said) >= len(said)


def _timed(scored: list[tuple[float, Choice]], *, how_long: bool = False,
           within: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset())
           ) -> tuple[float, Choice] | None:
    """A time question's answer: the first time expression said in the best sentences (a
    duration first for "how long"), else the best sentence's session date; a time that places
    nothing on the calendar ("in the morning") gives way to one that does, and one outside the
    month or year the question names ("... camping in July?") to one inside it. On the tune
    files this order beat the answer model's own pick for time questions (LoCoMo temporal F1
    0.74 against 0.66), so the model only grades it."""
    order = {id(c): k for k, (_p, c) in enumerate(scored)}
    timed = [(p, c) for p, c in scored if c.option.kind in _TIME_KINDS
             or (c.option.kind == "number" and DURATION_RE.fullmatch(c.text))]
    if not timed:
        return None
    rank = {"number": 0, "date": 1, "session_date": 2}

    def placed(c: Choice) -> bool:  # a duration (for "when": one that counts back, "two weeks ago"),
        # or a time that names a day, month or year (an hour alone does not)
        if c.option.kind == "number" or (DURATION_RE.search(c.text) and not _DATED_RE.search(c.text)):
            return how_long or bool(_BACK_RE.search(c.text))
        return any(ch.isdigit() for ch in c.text) and not _clock(c)

    p, chosen = min(timed, key=lambda pc: (fits_calendar(pc[1].text, within) is False, not placed(pc[1]),
                                           rank[pc[1].option.kind],
                                           pc[1].option.sentence_rank, order[id(pc[1])]))
    # a day said with the hour its turn gives ("at 5am" -> "5am on 6 January 2024")
    hour = next((c for _p, c in timed if _clock(c) and c.turn is not None and chosen.turn is not None
                 and c.turn.turn_id == chosen.turn.turn_id), None)
    if hour is not None and placed(chosen) and chosen.option.kind != "number":
        chosen = dataclasses.replace(chosen, text=f"{hour.text} on {chosen.text}")
    return p, chosen


# a year or a month's name: the text places itself on the calendar
_DATED_RE = re.compile(r"\b(?:1[89]|20)\d{2}\b|\b(?:" + "|".join(timeexpr.MONTH_NAMES) + r")\b",
                       re.IGNORECASE)
_BACK_RE = re.compile(r"\b(?:ago|since)\b", re.IGNORECASE)
_CLOCK_RE = re.compile(r"(?:at\s+)?(?:\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)|\d{1,2}:\d{2})", re.IGNORECASE)


_MONTH_WORDS = "|".join(timeexpr.MONTH_NAMES)
# the month or year a question places its event in: "in July", "during August 2023", "in 2022"
_ASKED_MONTH_RE = re.compile(r"\b(?:in|during)\s+(?:early\s+|late\s+|mid-?\s*)?(" + _MONTH_WORDS + r")\b",
                             re.IGNORECASE)
_ASKED_YEAR_RE = re.compile(r"\b(?:in|during)\s+(?:(?:" + _MONTH_WORDS + r")\s+)?((?:19|20)\d{2})\b",
                            re.IGNORECASE)
# a day, month and year of a resolved time ("23 July 2023", "July 2023")
_DAY_MONTH_YEAR_RE = re.compile(r"\b(?:(\d{1,2})\s+)?(" + _MONTH_WORDS + r")\s+((?:19|20)\d{2})\b",
                                re.IGNORECASE)
_YEAR_RE = re.compile(r"\b(?:19|20)\d{2}\b")
_RESOLVED_RE = re.compile(r"\(([^()]*)\)\s*$")  # "the Sunday before 25 July 2023 (23 July 2023)"


def calendar_asked(question: str) -> tuple[frozenset[int], frozenset[int]]:
    """The months (1-12) and years the question places what it asks about in."""
    months = frozenset(timeexpr.MONTHS[m.group(1).lower()] for m in _ASKED_MONTH_RE.finditer(question))
    years = frozenset(int(m.group(1)) for m in _ASKED_YEAR_RE.finditer(question))
    return months, years


def fits_calendar(text: str, within: tuple[frozenset[int], frozenset[int]]) -> bool | None:
    """Does a resolved time fall in the month and year the question names? ``None`` when the
    question names none or the time cannot tell (a bare "2023" for "in July"). A time counted
    back from an early day of a month ("the week before 3 July 2023") may fall in the month before."""
    months, years = within
    if not months and not years:
        return None
    if (resolved := _RESOLVED_RE.search(text)) is not None and _DAY_MONTH_YEAR_RE.search(resolved.group(1)):
        text = resolved.group(1)
    said: set[tuple[int, int]] = set()
    for m in _DAY_MONTH_YEAR_RE.finditer(text):
        day, month, year = int(m.group(1) or 0), timeexpr.MONTHS[m.group(2).lower()], int(m.group(3))
        said.add((year, month))
        if re.search(r"\bbefore\s+$", text[:m.start()]) and 0 < day <= 14:
            said.add((year - (month == 1), month - 1 or 12))
    if years and not said:
        found = {int(y) for y in _YEAR_RE.findall(text)}
        return bool(found & years) if found else None
    if not said:
        return None
    return any((not months or month in months) and (not years or year in years) for year, month in said)


def _clock(c: Choice) -> bool:
    """The piece is an hour of the day only ("5am", "10:30"): it places nothing on the calendar."""
    return bool(_CLOCK_RE.fullmatch(c.text.strip()))


def gathers(plan: Plan) -> bool:
    """The question gathers items (a list, or a reasoning type that collects across turns)."""
    target = plan.answer_target
    return target != "count" and (target == "list" or plan.reasoning_type in GATHERING)


def _often(scored: list[tuple[float, Choice]]) -> tuple[float, Choice] | None:
    """A "how often" question's answer: the frequency said in the best sentence that says one
    ("twice a week" rather than the bare "2" of "2 times a week")."""
    said = [(k, pc) for k, pc in enumerate(scored)
            if pc[1].option.kind == "number" and FREQUENCY_RE.fullmatch(pc[1].text)]
    if not said:
        return None
    return min(said, key=lambda kpc: (kpc[1][1].option.sentence_rank, kpc[0]))[1]


# asks for an order ("in which order ...", "the order in which ...", "list in order how ..."), not
# a purpose ("in order to ...")
_ORDER_RE = re.compile(r"\b(?:in\s+(?:what|which|chronological)\s+order|the\s+order\s+in\s+which"
                       r"|in\s+order\s+(?:how|what|which|when))\b", re.IGNORECASE)


# what was raised in talk, not done: "the order in which I brought up ...", "... mentioned ..."
_RAISED_RE = re.compile(r"\b(?:br(?:ought|ing|ings)\s+up|mention(?:ed|s)?|rais(?:ed|e)|discuss(?:ed)?"
                        r"|talk(?:ed)?\s+about|ask(?:ed)?\s+about)\b", re.IGNORECASE)
_ITEMS_RE = re.compile(
    r"\b(\d{1,2}|" + "|".join(NUMBER_WORDS) + r")\s+(?:items?|points?|aspects?|things?|topics?)\b",
    re.IGNORECASE)


def _raised_in_order(question: str, plan: Plan, ranked: list[Candidate]) -> Answer:
    """"In which order did I bring up ...?": the turns that say the question's words best (the
    asked person's, when they said any), as many as the question asks for (else ``LIST_ITEMS``),
    each by its best sentence, numbered in the order they were said."""
    m = _ITEMS_RE.search(question)
    n = (int(m.group(1)) if m.group(1).isdigit() else NUMBER_WORDS[m.group(1).lower()]) if m else LIST_ITEMS
    user = _user(question, ranked)  # "I brought up" in a user/assistant chat
    own = _said_by(user if user is not None else _first_names(plan), ranked)
    best: dict[str, Candidate] = {}
    for cand in own or ranked:  # best first: a turn's first sentence here is its best
        best.setdefault(cand.turn.turn_id, cand)
    picked = sorted(list(best.values())[:max(n, 1)], key=lambda c: _said_at(c.turn))
    text = ", ".join(f"{k}) {c.sentence.rstrip('.!?')}" for k, c in enumerate(picked, start=1))
    return _answer(text, [c.turn for c in picked], SupportLevel.WEAK)


def _list_kinds(plan: Plan) -> frozenset[str] | None:
    """The kinds of piece a list question asks for: places for "which cities / where ...",
    people for "who ..."; None when it asks for things of any kind."""
    q = Question.of(plan)
    if "places" in q.head_families or q.target == "location":
        return FITTING_KINDS["places"]
    return FITTING_KINDS["entity"] if q.target == "entity" else None


def _of_kind(choice: Choice, kinds: frozenset[str]) -> bool:
    """The piece is of one of these kinds: a named entity of that type, or a record whose
    property names such a thing (``destination``, ``friend``) and whose value is a name."""
    if choice.option.kind in kinds:
        return True
    rec = choice.record
    if rec is None:
        return False
    family = "places" if "place" in kinds else "relations"
    return _capitalised(choice.text) and family in property_families(rec.property)


def gathered(plan: Plan, scored: list[tuple[float, Choice]], ranked: list[Candidate],
              model: AnswerModel) -> Answer:
    """The best option of each strong source (a sentence scoring at least ``GATHER_SHARE`` of
    the best, or a record citing one), de-duplicated, best first, joined (at most
    ``LIST_ITEMS``). An item needs at least ``model.gather_floor`` of the best option's
    probability (fitted on the tune files): a weak source adds noise, not an item."""
    if asks_for_a_name(plan) and any(is_a_name(c) for _p, c in scored):
        scored = [(p, _named(c)) for p, c in scored if is_a_name(c)]  # "her pets' names?": names only
    kinds = _list_kinds(plan)
    if kinds and any(_of_kind(c, kinds) for _p, c in scored):  # "which cities ...?": places only
        scored = [(p, c) for p, c in scored if _of_kind(c, kinds)]
    floor = model.gather_floor * scored[0][0] if scored else 0.0
    best_per_source: dict[str, tuple[float, Choice]] = {}
    for p, choice in scored:  # best first: the first option of a source is its best
        if p < floor:
            break  # the rest are weaker still
        if choice.option.kind == "sentence" or (choice.option.sentence_score < GATHER_SHARE
                                                  and not (kinds and choice.option.record_property)):
            continue  # a weak source adds noise; a record of the asked kind of thing is its own source
        source = choice.record.id if choice.record is not None else choice.turn.turn_id if choice.turn else ""
        best_per_source.setdefault(source, (p, choice))
    picked: list[tuple[float, Choice]] = []
    seen_words: list[set[str]] = []
    for p, choice in sorted(best_per_source.values(), key=lambda pc: -pc[0]):
        mine = {stem(w) for w in words(choice.text) if w not in STOPWORDS}
        if not mine or any(mine <= other or other <= mine for other in seen_words):
            continue
        picked.append((p, choice))
        seen_words.append(mine)
        if len(picked) == LIST_ITEMS:
            break
    if not picked:
        picked = [scored[0]]
    if _ORDER_RE.search(plan.question):  # "in which order did I bring up ...": as said, first first
        picked.sort(key=lambda pc: _said_at(pc[1].turn))
    cited = [c.turn for _p, c in picked if c.turn is not None]
    sure = all(model.supports(p, plan.answer_target, len(scored)) and covered(plan, c, ranked)
               for p, c in picked)
    return _answer(", ".join(c.text for _p, c in picked), cited,
                   _level(model, max(p for p, _c in picked), sure),  # a list: not the model's one choice
                   record_ids=tuple(c.record.id for _p, c in picked if c.record is not None),
                   confidence=min(p for p, _c in picked))
