"""Offline question planning: question -> Plan (answer target, reasoning type, scope,
requirements aligned with the home's own vocabulary, time condition, hops, keywords).

Rules, not a model: the question's wording decides the reasoning type and scope; entity
mentions are found among the conversation's speakers and entities (exact, possessive and
fuzzy matches); the remaining content words form the property, aligned to the record
property vocabulary by fuzzy string match and, when an embedder is given, by embedding
similarity. Relative time ("last year", "in May 2023") is kept as a condition, never
resolved here.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from rapidfuzz import fuzz

from memory_core.contracts import ASSISTANT_ROLES, USER_ROLES, Vocabulary
from memory_core.models import Plan, ReasoningType, Requirement, Scope
from memory_core.query.qembed import embed_question
from memory_core.query.text import STOPWORDS, WEAK_WORDS, content_words, fold, stem, words
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

_TEMPORAL_RE = re.compile(
    r"^\s*(?:when|what\s+(?:year|month|date|day|time|week)|which\s+(?:year|month|date|day|week)|"
    r"how\s+long|since\s+when|how\s+many\s+(?:years|months|weeks|days|times\s+a))\b|\b(?:how\s+long\s+ago|"
    r"what\s+date|which\s+(?:year|month))\b",
    re.IGNORECASE,
)
_COUNT_RE = re.compile(
    r"\bhow\s+(?:many|often|much)\b|\b(?:the\s+)?total\s+(?:number|amount|count|cost|sum)\b"
    r"|^\s*what\s+(?:is|was)\s+the\s+number\s+of\b",
    re.IGNORECASE,
)
_COMPARISON_RE = re.compile(
    r"\b(?:both|in\s+common|same|similar|differ|different|difference|compare|compared|more\s+than|"
    r"less\s+than|either|neither|share)\b",
    re.IGNORECASE,
)
# the counting operator of an aggregation question: no content word ("the total number of siblings")
_OPERATOR_RE = re.compile(
    r"\b(?:the\s+)?total\s+(?:number|amount|count|sum)(?:\s+of)?\b|\bthe\s+number\s+of\b|\btotal\b",
    re.IGNORECASE,
)
# hypothetical mood: a modal verb or a hedge word asks for an inference, not a stated fact
_OPEN_RE = re.compile(
    r"\b(?:would|might|could|likely|unlikely|probably|possibly|perhaps)\b"
    r"|\bif\s+\w+\s+(?:had|hadn't|hadn’t|were|weren't|weren’t|did|didn't|didn’t)\b",
    re.IGNORECASE,
)
_REPORTED = frozenset({"say", "says", "said", "tell", "tells", "told", "promise", "promised", "thought"})


def is_hypothetical(question: str) -> bool:
    """A modal, a hedge or a counterfactual asks for an inference; a modal in reported speech
    ("what she said she would buy") reports a stated fact instead."""
    for m in _OPEN_RE.finditer(question):
        before = words(question[: m.start()])[-3:]
        if m.group(0).lower() in ("would", "might", "could") and _REPORTED & set(before):
            continue
        return True
    return False


_AUXILIARY = r"(?:is|are|was|were|has|have|had|did|does|do|can|will|would|might)"
# "what/which <up to three words> <auxiliary>": the words before the verb are the answer's
# category; a plural head ("what LGBTQ+ events has ...", "in what ways is ...") asks for a list
_CATEGORY_RE = re.compile(
    r"\b(?:what|which)\s+((?:[\w+\-/]+\s+){0,2}?[\w+\-/]+)\s+" + _AUXILIARY + r"\b", re.IGNORECASE
)


def _plural(word: str) -> bool:
    w = fold(word)
    return len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is", "ous", "'s"))


def asks_for_list(question: str) -> bool:
    """A plural answer category ("what books has ...", "what types of ...") or "list/all the"."""
    if re.search(r"\b(?:list|all\s+the)\b", question, re.IGNORECASE):
        return True
    # "what are (some of) X's <plural>": the subject after the verb is the category
    after = re.match(r"\s*(?:what|which)\s+(?:are|were)\s+((?:[\w'’+\-/]+\s*){1,5})", question, re.IGNORECASE)
    if after and any(_plural(w) for w in after.group(1).split()[:5]):
        return True
    for m in _CATEGORY_RE.finditer(question):
        head = m.group(1).split()
        if head[0].lower() in ("kind", "kinds", "type", "types", "sort", "sorts") and len(head) > 1:
            return _plural(head[0])
        if _plural(head[-1].split("/")[0]):
            return True
    return False


# question forms whose answer is gathered from several turns even with one person named:
# a reason or a manner ("why did ...", "what inspired ...", "how did ... <verb>" — the
# decision and what led to it are told across turns), a habit ("what ... does X make/do")
# or an experience summed over time ("what has X painted") — the present tense and the
# perfect ask about every occasion.
# states are held, not done on occasions: "what job does Bob have?" asks for one fact
_STATIVE = (
    r"(?:have|has|own|owns|need|needs|mean|means|know|knows|call|calls|name|names"
    r"|seem|seems|look|looks|weigh|cost|stand|stands)"
)
_GATHERING_RE = re.compile(
    r"^\s*(?:why\b|how\s+(?:did|does|do|has|have)\b(?!.*\bfeel)"
    r"|what\s+(?:inspired|motivated|prompted|caused|led|made|drove|pushed)\b"
    r"|what\b(?:\s+\w+){0,3}?\s+(?:does|do|has|have)\s+[A-Z]\w*(?:['’]s)?\s+(?!" + _STATIVE + r"\b)\w+)",
    re.IGNORECASE,
)
_BOOLEAN_RE = re.compile(r"^\s*(?:did|does|do|is|are|was|were|has|have|had|can|will)\b", re.IGNORECASE)
_RELATION_WORDS = frozenset(
    """
    daughter son kids kid children child husband wife partner mom mother dad father parents brother
    sister sibling siblings friend friends family grandma grandmother grandpa grandfather boss
    coworker colleague pet pets dog dogs cat cats team teacher mentor
    """.split()  # noqa: SIM905
)
_NOT_PROPERTY = STOPWORDS | WEAK_WORDS | frozenset({"s"})
# A chat with an assistant has role-named speakers: the asker's "I/my" is the user, and
# "you said/suggested ..." (the assistant's earlier words) is the assistant.
_FIRST_PERSON_RE = re.compile(r"\b(?:i|i['’](?:m|ve|d|ll)|me|my|mine|myself)\b", re.IGNORECASE)
_YOU_SAID_RE = re.compile(
    r"\byou\s+(?:\w+ly\s+)?(?:said|told|gave|wrote|made|came up with|\w+ed)\b", re.IGNORECASE
)


def answer_target(question: str) -> str:
    q = question.strip().lower()
    if _TEMPORAL_RE.search(q):
        return "time"
    if _COUNT_RE.search(q):
        return "count"
    if q.startswith("where") or re.search(r"\bwhere\b", q):
        return "location"
    if q.startswith("who") or re.search(r"\bwhose\b", q):
        return "entity"
    if q.startswith("why") or (q.startswith("how did") and "feel" not in q):
        return "explanation"
    if is_hypothetical(q):
        return "likelihood"
    if _BOOLEAN_RE.search(q):
        return "boolean"
    if asks_for_list(question):
        return "list"
    return "value"


def reasoning_type(question: str, n_entities: int) -> tuple[ReasoningType, Scope]:
    q = question.strip()
    if _TEMPORAL_RE.search(q):
        if _COUNT_RE.search(q) and re.search(r"\btimes\b", q, re.IGNORECASE):
            return ReasoningType.AGGREGATION, Scope.ALL
        return ReasoningType.TEMPORAL, Scope.POINT
    if _COMPARISON_RE.search(q) and (n_entities >= 2 or re.search(r"\bboth\b|\bin\s+common\b", q, re.I)):
        return ReasoningType.COMPARISON, Scope.ALL
    if is_hypothetical(q):
        return ReasoningType.OPEN_DOMAIN, Scope.ALL
    if _COUNT_RE.search(q) or asks_for_list(q):
        return ReasoningType.AGGREGATION, Scope.ALL
    if n_entities >= 2 or _GATHERING_RE.search(q):
        return ReasoningType.MULTI_HOP, Scope.ALL
    return ReasoningType.POINT, Scope.POINT


def find_entities(question: str, vocabulary: Vocabulary) -> list[tuple[str, str, tuple[int, int]]]:
    """(canonical name, type, span) of the vocabulary's names mentioned in ``question``.

    Names are matched as whole words (possessives included); a capitalised word that matches
    no name exactly is matched fuzzily against first names (ratio >= 0.85).
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
        if best is not None and ratio >= 0.85:
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
    best, best_score, how = None, 0.0, ""
    for prop in vocabulary.properties:
        prop_stems = {stem(w) for w in words(prop) if w not in STOPWORDS}
        if not prop_stems:
            continue
        overlap = len(prop_stems & phrase_stems) / len(prop_stems)
        fuzzy = max(
            (fuzz.ratio(p, s) / 100.0 for p in prop_stems for s in phrase_stems), default=0.0
        )
        score = max(overlap, fuzzy if fuzzy >= 0.85 else 0.0)
        if score > best_score:
            best, best_score, how = prop, score, "fuzzy"
    if embedder is not None and best_score < 1.0:
        _EMBEDDERS[id(embedder)] = embedder
        matrix = _property_matrix(vocabulary.properties, id(embedder))
        vec = phrase_vector if phrase_vector is not None else embed_question(embedder, phrase)
        sims = matrix @ vec
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


def plan_question(question: str, vocabulary: Vocabulary, *, embedder: Embedder | None = None) -> Plan:
    q = " ".join(question.split())
    entities = find_entities(q, vocabulary)
    if not entities and (addressed := addressed_speaker(q, vocabulary.speakers)) is not None:
        entities = [(addressed[0], "person", addressed[1])]
    times = list(_TIME_CONDITION_RE.finditer(q))
    time_text = "; ".join(m.group(0).strip(" ,") for m in times) or None
    phrase = _property_phrase(q, [e[2] for e in entities], [(m.start(), m.end()) for m in times])
    target = answer_target(q)
    rtype, scope = reasoning_type(q, len(entities))
    prop, _score, _how = align_property(phrase, vocabulary, embedder)
    property_text = prop or (phrase or None)
    # relation words right after a possessive ("Melanie's daughter") become a bridge requirement
    relations = [w for w in content_words(q) if w in _RELATION_WORDS]
    requirements: list[Requirement] = []
    for name, etype, _span in entities:
        requirements.append(
            Requirement(
                entity=name,
                entity_type=etype,
                property=property_text,
                value=None,
                condition=time_text,
                role="target",
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
