"""Theme-coherent episodes: TextTiling over turn embeddings, plus dialogue rules.

For a session of n turns with normalised embeddings v_1..v_n:

1. **Gap similarity.** For each gap g (a boundary before turn g) the similarity between the
   mean of the ``window`` turns before it and the mean of the ``window`` turns after it
   (cosine), smoothed with weights (0.25, 0.5, 0.25).
2. **Depth.** depth(g) = (highest similarity reached climbing left from g − sim(g)) +
   (highest climbing right − sim(g)). Only valleys (local minima) are candidates.
3. **Sustained shift.** A candidate becomes a boundary when depth ≥ max(``min_depth``,
   mean(depth) − ½·stdev(depth)) over the session's valleys (TextTiling's cut-off), deepest
   first, as long as the rules below hold.
4. **Rules.** No episode shorter than ``min_len`` turns (no one-turn fragments); no boundary
   right after an opening greeting; no boundary before an acknowledgement or a short
   follow-up (they stay with what they answer) nor after a short question (it stays with its
   answer). Episodes longer than ``max_len`` are split at their deepest allowed gap
   ("length cap").

Each episode gets a theme (its key phrases: named entities and noun chunks ranked by
frequency, entities first), a theme type (``entity`` when the top phrase names an entity,
``event`` when a dated happening is told, otherwise ``topic``) and a boundary reason with its
score ("session start", "depth 0.42 at similarity valley", "length cap at depth 0.08").
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from memory_core.backends.offline.clauses import is_bare_contraction, is_noise_word
from memory_core.construct import lexicon
from memory_core.models import Episode, Session, ThemeType, Turn

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

WINDOW = 3
MIN_LEN = 3
MAX_LEN = 14
MIN_DEPTH = 0.06

_WORD = re.compile(r"[a-z']+")
_ENTITY_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "PRODUCT", "WORK_OF_ART", "EVENT",
                            "NORP", "LANGUAGE"})
_STOP_NOUNS = frozenset({
    "thing", "things", "lot", "lots", "time", "times", "way", "ways", "stuff", "day", "days", "bit",
    "what", "anything", "something", "everything", "nothing", "one", "ones", "kind", "sort",
    "people", "someone", "everyone", "anyone", "guy", "guys", "idea", "moment", "part", "end",
    "today", "yesterday", "week", "weekend", "year", "years", "month", "months", "while", "fun",
    "photo", "picture", "pic", "image", "look", "sense", "deal", "feeling", "feelings", "place",
    "news", "question", "questions", "update", "updates", "chat", "talk",
})
_TIME_ENTS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"})
_EDGE_POS = frozenset({"VERB", "AUX", "INTJ", "ADP", "CCONJ", "DET", "PART", "PRON", "ADV", "SCONJ"})
_EVENT_WORDS = frozenset(p for p, prop in lexicon.VERBS.items() if prop.event) | {"go", "take"}


@dataclass(frozen=True)
class Span:
    start: int  # index of the first turn
    end: int  # one past the last turn
    reason: str
    score: float


# --------------------------------------------------------------------------- turn kinds
def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def is_acknowledgement(turn: Turn) -> bool:
    """A short reply with no content of its own ("Thanks!", "Wow, that's great!")."""
    if turn.image_caption:
        return False
    words = _words(turn.text)
    if not words:
        return True
    content = [w for w in words if w not in lexicon.ACK_WORDS]
    return len(words) <= 10 and len(content) <= 1


def is_greeting(turn: Turn) -> bool:
    words = _words(turn.text)
    if not words or words[0] not in ("hey", "hi", "hello", "howdy", "yo", "morning", "evening",
                                     "good", "long"):
        return False
    content = [w for w in words if w not in lexicon.GREETING_WORDS and w not in lexicon.ACK_WORDS]
    return len(content) <= 4


def is_short_question(turn: Turn) -> bool:
    return turn.text.strip().endswith("?") and len(_words(turn.text)) <= 7 and not turn.image_caption


def is_short_followup(turn: Turn) -> bool:
    return len(_words(turn.text)) <= 5 and not turn.image_caption


# --------------------------------------------------------------------------- similarity valleys
def gap_similarities(vectors: np.ndarray, window: int = WINDOW) -> np.ndarray:
    """Smoothed cosine similarity at each gap 1..n-1 (index i is the gap before turn i+1)."""
    n = len(vectors)
    if n < 2:
        return np.zeros(0, dtype=np.float32)
    sims = np.zeros(n - 1, dtype=np.float32)
    for g in range(1, n):
        left = vectors[max(0, g - window):g].mean(axis=0)
        right = vectors[g:g + window].mean(axis=0)
        denom = float(np.linalg.norm(left) * np.linalg.norm(right)) or 1.0
        sims[g - 1] = float(left @ right) / denom
    if len(sims) >= 3:
        padded = np.concatenate([sims[:1], sims, sims[-1:]])
        sims = (0.25 * padded[:-2] + 0.5 * padded[1:-1] + 0.25 * padded[2:]).astype(np.float32)
    return sims


def depth_scores(sims: np.ndarray) -> np.ndarray:
    depths = np.zeros_like(sims)
    for i, s in enumerate(sims):
        left = s
        for j in range(i - 1, -1, -1):
            if sims[j] < left:
                break
            left = sims[j]
        right = s
        for j in range(i + 1, len(sims)):
            if sims[j] < right:
                break
            right = sims[j]
        depths[i] = (left - s) + (right - s)
    return depths


def _allowed(turns: list[Turn], g: int) -> bool:
    """May an episode start at turn g (0 < g < n)?"""
    if is_acknowledgement(turns[g]) or is_short_followup(turns[g]):
        return False
    if is_short_question(turns[g - 1]):
        return False
    # an opening greeting stays with what follows it
    return not all(is_greeting(t) for t in turns[:g])


def find_spans(turns: list[Turn], vectors: np.ndarray, *, window: int = WINDOW, min_len: int = MIN_LEN,
               max_len: int = MAX_LEN, min_depth: float = MIN_DEPTH) -> list[Span]:
    """Cut one session's turns into contiguous spans covering every turn once."""
    n = len(turns)
    if n == 0:
        return []
    if n < 2 * min_len:
        return [Span(0, n, "session start", 1.0)]
    sims = gap_similarities(vectors, window)
    depths = depth_scores(sims)
    valleys = [i for i in range(len(sims))
               if (i == 0 or sims[i] <= sims[i - 1]) and (i == len(sims) - 1 or sims[i] <= sims[i + 1])]
    valley_depths = [float(depths[i]) for i in valleys]
    cutoff = min_depth
    if len(valley_depths) >= 2:
        cutoff = max(min_depth, statistics.fmean(valley_depths) - 0.5 * statistics.pstdev(valley_depths))
    cuts: dict[int, str] = {}

    def fits(g: int) -> bool:
        bounds = sorted([0, n, *cuts, g])
        return all(b - a >= min_len for a, b in itertools.pairwise(bounds)) and _allowed(turns, g)

    for i in sorted(valleys, key=lambda k: -depths[k]):
        g = i + 1
        if depths[i] >= cutoff and fits(g):
            cuts[g] = f"depth {depths[i]:.2f} at similarity valley"
    # length cap: split over-long spans at their deepest allowed gap
    changed = True
    while changed:
        changed = False
        bounds = sorted([0, n, *cuts])
        for a, b in itertools.pairwise(bounds):
            if b - a <= max_len:
                continue
            options = [g for g in range(a + min_len, b - min_len + 1) if fits(g)]
            if not options:
                continue
            g = max(options, key=lambda k: float(depths[k - 1]))
            cuts[g] = f"length cap at depth {depths[g - 1]:.2f}"
            changed = True
            break
    bounds = sorted([0, n, *cuts])
    spans = []
    for a, b in itertools.pairwise(bounds):
        if a == 0:
            spans.append(Span(a, b, "session start", 1.0))
        else:
            spans.append(Span(a, b, cuts[a], round(float(depths[a - 1]), 4)))
    return spans


# --------------------------------------------------------------------------- themes
def key_phrases(docs: list[Doc], speakers: tuple[str, ...], limit: int = 3) -> tuple[list[str], bool]:
    """Top phrases of an episode and whether the top one names an entity.

    No phrase holds an interjection, laughter or a shout ("Hahaha", "NOOO"), chat shorthand
    ("ngl"), a contraction typed without its apostrophe ("Ill"), a link, an acknowledgement
    ("Congrats"), a speaker's name (a greeting: "Morning Maya") or a verb at its edge ("Meet
    Gustav" -> "Gustav"); a lone capitalised word opening a sentence counts as a name only when
    the parser tags it a proper noun."""
    speaker_names = {s.lower() for s in speakers}
    speaker_words = {w for s in speaker_names for w in s.split()}
    scores: dict[str, float] = defaultdict(float)
    surface: dict[str, str] = {}
    named: set[str] = set()

    def clean(tokens: list[Token]) -> list[Token] | None:
        while tokens and (tokens[0].pos_ in _EDGE_POS or tokens[0].is_punct):
            tokens = tokens[1:]
        while tokens and (tokens[-1].pos_ in _EDGE_POS or tokens[-1].is_punct):
            tokens = tokens[:-1]
        if not tokens or any(t.is_punct and t.text != "-" for t in tokens):
            return None  # "RIP Gustav, NOOO, NOOO Gustav": a cry, not a name
        if any(is_noise_word(t.text) or is_bare_contraction(t.text) or t.like_url or t.like_email
               or t.lower_ in speaker_words for t in tokens):
            return None  # "ngl", "Ill" (I'll), a link: nothing the episode is about
        return tokens

    for doc in docs:
        for ent in doc.ents:
            if ent.label_ not in _ENTITY_LABELS:
                continue
            tokens = clean(list(ent))
            if tokens is None or (len(tokens) == 1 and tokens[0].is_sent_start and tokens[0].pos_ != "PROPN"):
                continue
            text = _surface(tokens)
            key = text.lower().strip()
            if key in speaker_names or len(key) < 2:
                continue
            scores[key] += 2.0
            surface.setdefault(key, text.strip())
            named.add(key)
        for chunk in doc.noun_chunks:
            root = chunk.root
            if root.pos_ == "PRON" or root.lemma_.lower() in _STOP_NOUNS or root.is_stop \
                    or root.ent_type_ in _TIME_ENTS:
                continue  # "Thursday", "the evening": when, not what the episode is about
            words = clean([t for t in chunk if t.pos_ in ("NOUN", "PROPN", "ADJ") and not t.is_stop])
            if not words:
                continue
            key = " ".join(t.lemma_.lower() for t in words if t.pos_ != "ADJ" or t.dep_ == "compound")
            key = key or root.lemma_.lower()
            if key in speaker_names or key in _STOP_NOUNS or len(key) < 2:
                continue
            scores[key] += 1.0
            surface.setdefault(key, _surface(words))
    ranked = [k for k, _ in sorted(scores.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))]
    top: list[str] = []
    for k in ranked:  # a phrase once, in one spelling, and never inside another ("manager Ruben", "Ruben")
        mine = set(surface[k].lower().split())
        if not any(mine <= set(surface[t].lower().split()) or set(surface[t].lower().split()) <= mine
                   for t in top):
            top.append(k)
        if len(top) == limit:
            break
    return [surface[k] for k in top], bool(top and top[0] in named)


def _surface(tokens: list[Token]) -> str:
    """The tokens as written: "U-Bahn", not "U - Bahn"; a space where words were left out."""
    out = [a.text + (a.whitespace_ if b.i == a.i + 1 else " ") for a, b in itertools.pairwise(tokens)]
    return "".join(out) + tokens[-1].text


def theme_type(docs: list[Doc], top_is_entity: bool) -> ThemeType:
    dated = any(ent.label_ in ("DATE", "TIME") for doc in docs for ent in doc.ents)
    eventful = sum(1 for doc in docs for t in doc if t.pos_ == "VERB" and t.lemma_ in _EVENT_WORDS
                   and t.tag_ in ("VBD", "VBN"))
    if dated and eventful:
        return ThemeType.EVENT
    if top_is_entity:
        return ThemeType.ENTITY
    return ThemeType.EVENT if eventful >= 2 else ThemeType.TOPIC


def segment_session(conv_id: str, session: Session, vectors: np.ndarray, docs: list[Doc],
                    speakers: tuple[str, ...]) -> list[Episode]:
    """Episodes of one session; ``vectors`` and ``docs`` are aligned with ``session.turns``."""
    turns = list(session.turns)
    episodes = []
    for n, span in enumerate(find_spans(turns, vectors), start=1):
        phrases, top_entity = key_phrases(docs[span.start:span.end], speakers)
        episodes.append(Episode(
            id=f"{conv_id}:S{session.index}:E{n}",
            conv_id=conv_id,
            session=session.index,
            turn_ids=tuple(t.id for t in turns[span.start:span.end]),
            theme=tuple(phrases),
            theme_type=theme_type(docs[span.start:span.end], top_entity),
            boundary_reason=span.reason,
            boundary_score=span.score,
            start_time=session.time,
        ))
    return episodes
