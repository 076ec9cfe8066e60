"""Offline question planning: question -> Plan (answer target, reasoning type, scope,
requirements aligned with the home's own vocabulary, time condition, hops, keywords).

Rules, not a model: the question's wording decides the answer target, reasoning type and
scope (``memory_core.query.question_form``); entity mentions are found among the
conversation's speakers and entities (exact, possessive and fuzzy matches); the remaining
content words form the property, aligned to the record property vocabulary by fuzzy string
match and, when an embedder is given, by embedding similarity. Relative time ("last year",
"in May 2023") is kept as a condition, never resolved here.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from rapidfuzz import fuzz

from memory_core.contracts import ASSISTANT_ROLES, USER_ROLES, Vocabulary
from memory_core.models import Plan, ReasoningType, Requirement
from memory_core.query.families import families_of_words, property_families
from memory_core.query.qembed import embed_question
from memory_core.query.question_form import answer_target, reasoning_type
from memory_core.query.text import SPELLING, STOPWORDS, WEAK_WORDS, content_words, fold, stem, words
from memory_core.timeexpr import MONTH_ALT

if TYPE_CHECKING:
    from memory_core.embeddings import Embedder

_TIME_CONDITION_RE = re.compile(
    r"\b(?:(?:last|this|next|past|previous|coming)\s+(?:year|month|week|weekend|summer|winter|spring|fall|"
    r"autumn|night|time|(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
    r"|yesterday|today|tonight|tomorrow|recently|lately|ago|"
    r"(?:in|on|during|since|before|after|by|around)\s+(?:(?:the\s+)?(?:early|late|mid)\s+)?"
    r"(?:\d{1,2}\s+)?(?:" + MONTH_ALT + r")\b(?:[\s,]*\d{1,2}(?:st|nd|rd|th)?(?!\d))?(?:[\s,]*\d{4})?"
    r"|(?:in|on|during|since|before|after|by)\s+\d{4}"
    r"|\d{1,2}\s+(?:" + MONTH_ALT + r")\b,?\s*\d{4}"
    r"|(?:" + MONTH_ALT + r")\s+\d{1,2}(?:st|nd|rd|th)?,?\s*\d{4})",
    re.IGNORECASE,
)
# the counting operator of an aggregation question: no content word ("the total number of siblings")
_OPERATOR_RE = re.compile(
    r"\b(?:the\s+)?total\s+(?:number|amount|count|sum)(?:\s+of)?\b|\bthe\s+number\s+of\b|\btotal\b",
    re.IGNORECASE,
)
_RELATION_WORDS = frozenset(
    """
    daughter son kids kid children child husband wife partner mom mother dad father parents brother
    sister sibling siblings friend friends family grandma grandmother grandpa grandfather boss
    coworker colleague pet pets dog dogs cat cats team teacher mentor
    """.split()  # noqa: SIM905
)
_NOT_PROPERTY = STOPWORDS | WEAK_WORDS | frozenset({"s"})
# verbs that say little until their object or particle does ("take place", "get into", "make up")
LIGHT_STEMS = frozenset(stem(w) for w in ("take", "get", "make", "have", "go", "do", "give", "put", "come",
                                           "keep"))
# A chat with an assistant has role-named speakers: the asker's "I/my" is the user, and
# "you said/suggested ..." (the assistant's earlier words) is the assistant.
_FIRST_PERSON_RE = re.compile(r"\b(?:i|i['’](?:m|ve|d|ll)|me|my|mine|myself)\b", re.IGNORECASE)
_YOU_SAID_RE = re.compile(
    r"\byou\s+(?:\w+ly\s+)?(?:said|told|gave|wrote|made|came up with|\w+ed)\b", re.IGNORECASE
)


def find_entities(question: str, vocabulary: Vocabulary) -> list[tuple[str, str, tuple[int, int]]]:
    """(canonical name, type, span) of the vocabulary's names mentioned in ``question``.

    Names are matched as whole words (possessives included); a capitalised word that matches
    no name exactly is matched fuzzily against first names (ratio >= ``SPELLING``).
    """
    candidates: list[tuple[str, str]] = [(s, "person") for s in vocabulary.speakers]
    candidates += [(n, t) for n, t in vocabulary.entities if n and n not in vocabulary.speakers]
    found: list[tuple[str, str, tuple[int, int]]] = []
    taken: list[tuple[int, int]] = []
    for name, etype in sorted(candidates, key=lambda c: -len(c[0])):
        if len(name) < 3 or name.lower() in STOPWORDS:
            continue
        pattern = r"\b" + re.escape(name) + r"(?:['’]s?)?\b"
        for m in re.finditer(pattern, question, re.IGNORECASE):
            span = (m.start(), m.end())
            if any(a < span[1] and span[0] < b for a, b in taken):
                continue
            if etype != "person" and not name[0].isupper() and len(name.split()) == 1 and len(name) < 5:
                continue
            taken.append(span)
            found.append((name, etype, span))
    # fuzzy: capitalised words (not sentence-initial) close to a speaker's/person's first name
    persons = [n for n, t in candidates if t == "person"]
    for m in re.finditer(r"\b[A-Z][a-z]{2,}\b", question):
        span = (m.start(), m.end())
        if m.start() == 0 or any(a < span[1] and span[0] < b for a, b in taken):
            continue
        word = m.group(0).lower()
        best, ratio = None, 0.0
        for name in persons:
            first = name.split()[0].lower()
            r = fuzz.ratio(word, first) / 100.0
            if first.startswith(word) and len(word) >= 3:
                r = max(r, 0.86)
            if r > ratio:
                best, ratio = name, r
        if best is not None and ratio >= SPELLING / 100:
            taken.append(span)
            found.append((best, "person", span))
    found.sort(key=lambda f: f[2][0])
    seen: dict[str, tuple[str, str, tuple[int, int]]] = {}
    for f in found:
        seen.setdefault(f[0], f)
    return list(seen.values())


def addressed_speaker(question: str, speakers: tuple[str, ...]) -> tuple[str, tuple[int, int]] | None:
    """The role-named speaker a question with no named person is about, and the words that say so.

    Only for chats between a user and an assistant (speakers named by role): "you suggested /
    told me ..." asks about the assistant's turns; otherwise "I / my / me" is the user.
    """
    roles = {s.lower(): s for s in speakers}
    assistant = next((roles[r] for r in ASSISTANT_ROLES if r in roles), None)
    user = next((roles[r] for r in USER_ROLES if r in roles), None)
    if assistant is not None and (m := _YOU_SAID_RE.search(question)):
        return assistant, (m.start(), m.end())
    if user is not None and (m := _FIRST_PERSON_RE.search(question)):
        return user, (m.start(), m.end())
    return None


@lru_cache(maxsize=64)
def _property_matrix(properties: tuple[str, ...], embedder_id: int) -> np.ndarray:
    embedder = _EMBEDDERS[embedder_id]
    return embedder.embed(list(properties))


_EMBEDDERS: dict[int, Embedder] = {}


def align_property(
    phrase: str,
    vocabulary: Vocabulary,
    embedder: Embedder | None = None,
    phrase_vector: np.ndarray | None = None,
) -> tuple[str | None, float, str]:
    """Best vocabulary property for ``phrase``: (property, score, how) or (None, 0, '')."""
    if not phrase or not vocabulary.properties:
        return None, 0.0, ""
    phrase_stems = {stem(w) for w in words(phrase) if w not in _NOT_PROPERTY}
    # a property with a head verb the question does not say, naming another kind of fact, is no
    # match whatever else it shares: "job" (work) is not ``gets_job`` (getting things)
    asked = families_of_words(w for w in words(phrase) if w not in _NOT_PROPERTY)
    fits = [not asked or "_" not in p or stem(p.split("_")[0]) in phrase_stems
            or not (fam := property_families(p)) or bool(fam & asked) for p in vocabulary.properties]
    best, best_score, how = None, 0.0, ""
    for prop, fit in zip(vocabulary.properties, fits, strict=True):
        if not fit:
            continue
        prop_stems = {stem(w) for w in words(prop) if w not in STOPWORDS}
        if not prop_stems:
            continue
        said = phrase_stems
        if prop_stems - LIGHT_STEMS:  # "hobbies taken up" is not ``takes_place``: a light verb
            prop_stems, said = prop_stems - LIGHT_STEMS, phrase_stems - LIGHT_STEMS  # matches nothing alone
        overlap = len(prop_stems & said) / len(prop_stems)
        fuzzy = max(
            (fuzz.ratio(p, s) / 100.0 for p in prop_stems for s in said), default=0.0
        )
        score = max(overlap, fuzzy if fuzzy >= 0.85 else 0.0)
        if score > best_score:
            best, best_score, how = prop, score, "fuzzy"
    if embedder is not None and best_score < 1.0:
        _EMBEDDERS[id(embedder)] = embedder
        matrix = _property_matrix(vocabulary.properties, id(embedder))
        vec = phrase_vector if phrase_vector is not None else embed_question(embedder, phrase)
        sims = np.where(fits, matrix @ vec, -1.0)
        k = int(np.argmax(sims))
        if float(sims[k]) >= 0.55 and float(sims[k]) > best_score:
            best, best_score, how = vocabulary.properties[k], float(sims[k]), "embedding"
    if best_score < 0.5:
        return None, 0.0, ""
    return best, round(best_score, 3), how


def _property_phrase(
    question: str, entity_spans: list[tuple[int, int]], time_spans: list[tuple[int, int]]
) -> str:
    cut = sorted(entity_spans + time_spans)
    kept, last = [], 0
    for a, b in cut:
        kept.append(question[last:a])
        last = b
    kept.append(question[last:])
    rest = " ".join(kept)
    return " ".join(w for w in content_words(rest) if w not in _NOT_PROPERTY)


# what may stand between two names asked about together: "Ana and Ben", "Ana, Ben or Cy"
_JOINED_RE = re.compile(r"\s*(?:,\s*)?(?:and|or|&|,)\s*", re.IGNORECASE)


def _joined_runs(question: str, spans: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The names' spans in the order said, in runs the question joins ("Ana and Ben", "Ana,
    Ben or Cy" are one run; "What did Ana lend Ben?" has two)."""
    runs: list[list[tuple[int, int]]] = []
    for span in sorted(spans):
        if runs and _JOINED_RE.fullmatch(question[runs[-1][-1][1] : span[0]]):
            runs[-1].append(span)
        else:
            runs.append([span])
    return runs


def plan_question(question: str, vocabulary: Vocabulary, *, embedder: Embedder | None = None) -> Plan:
    q = " ".join(question.split())
    entities = find_entities(q, vocabulary)
    if not entities and (addressed := addressed_speaker(q, vocabulary.speakers)) is not None:
        entities = [(addressed[0], "person", addressed[1])]
    times = list(_TIME_CONDITION_RE.finditer(q))
    time_text = "; ".join(m.group(0).strip(" ,") for m in times) or None
    spans = [e[2] for e in entities]
    phrase = _property_phrase(q, spans, [(m.start(), m.end()) for m in times])
    target = answer_target(q)
    # the first name said and those joined to it are asked about; a later name only constrains
    runs = _joined_runs(q, spans)
    asked = set(runs[0]) if runs else set()
    rtype, scope = reasoning_type(q, len(entities), together=max((len(r) for r in runs), default=0))
    prop, _score, _how = align_property(phrase, vocabulary, embedder)
    property_text = prop or (phrase or None)
    # relation words right after a possessive ("Melanie's daughter") become a bridge requirement
    relations = [w for w in content_words(q) if w in _RELATION_WORDS]
    requirements: list[Requirement] = []
    for name, etype, span in entities:
        is_asked = span in asked
        requirements.append(
            Requirement(
                entity=name,
                entity_type=etype,
                property=property_text if is_asked else None,
                value=None,
                condition=time_text,
                role="target" if is_asked else "constraint",
            )
        )
    if not requirements:
        requirements.append(
            Requirement(
                entity=None,
                entity_type=None,
                property=property_text,
                value=None,
                condition=time_text,
                role="target",
            )
        )
    hops = 1
    if relations and entities:
        anchor = entities[0][0]
        bridge = Requirement(
            entity=f"{anchor}'s {relations[0]}",
            entity_type="person",
            property="relation",
            value=relations[0],
            condition=None,
            role="bridge",
        )
        requirements = [bridge] + [r.model_copy(update={"depends_on": 0}) for r in requirements]
        hops = 2
        if rtype == ReasoningType.POINT:
            rtype = ReasoningType.MULTI_HOP
    if rtype == ReasoningType.MULTI_HOP:
        hops = max(hops, 2)
    if time_text and rtype == ReasoningType.POINT and target == "time":
        rtype = ReasoningType.TEMPORAL
    keywords = tuple(
        w
        for w in content_words(_OPERATOR_RE.sub(" ", q))
        if w not in WEAK_WORDS and fold(w) not in {fold(e[0]).lower() for e in entities}
    )
    return Plan(
        question=question,
        answer_target=target,
        reasoning_type=rtype,
        scope=scope,
        requirements=tuple(requirements),
        hops=hops,
        time_condition=time_text,
        keywords=keywords,
    )
