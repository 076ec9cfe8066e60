"""The question's premise against the retrieved buffer: names it uses that no retrieved turn says.

"How many nurses does Lena train in her new post as Ward Nursing Director?" when the
conversation only ever says "Head Ward Nurse" rests on something nobody said; the
honest answer is "Unknown", whichever backend answers. This is a property of the buffer, not
of an answerer, so the query pipeline checks it once after retrieval (``unmentioned``) and
hands the result to the backend's ``answer``: the offline answer and the LLM answer both
return ``unmentioned_answer`` then (the LLM one without a model call).

A name is a run of capitalised words after the question's first word (``question_names``); a
turn says it when every word appears, in order, at most ``NAME_GAP`` words apart, plural or
singular; a speaker's name counts as said. Questions that reason past the text ("Would Lena
likely enjoy a Puccini opera?") are not checked.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from memory_core import timeexpr
from memory_core.models import Answer, BufferTurn, SupportLevel
from memory_core.query.question_form import is_hypothetical
from memory_core.query.text import SPELLING, STOPWORDS, stem, word_spans, words

UNKNOWN = "Unknown"
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "st", "prof"})
# a word whose capital comes after a small letter is a name wherever it stands ("iPad", "eBay")
_CAMEL_RE = re.compile(r"[a-z]+[A-Z][A-Za-z]*")
NAME_GAP = 4  # words a name's parts may be apart in a turn ("Lumix G9 mirrorless camera")


def unmentioned(question: str, buffer: list[BufferTurn]) -> tuple[str, ...]:
    """The question's names that no buffer turn says, or () when the question asks for an
    inference (a modal or a hedge: "would", "likely", ...)."""
    if is_hypothetical(" ".join(question.split())):  # "would she likely enjoy Puccini?"
        return ()
    return tuple(unmentioned_names(question, buffer))


def unmentioned_answer(names: tuple[str, ...]) -> Answer:
    """"Unknown", citing nothing, with the names no retrieved turn says."""
    return Answer(text=UNKNOWN, cited_turn_ids=(), supported=False, support=SupportLevel.UNKNOWN,
                  unmentioned=names)


def question_names(question: str) -> list[list[str]]:
    """The names a question uses: runs of capitalised words, a sentence's first word left out
    ("my post as Ward Nursing Director" -> [ward, nursing, director]) unless its capital follows a
    small letter ("iPad" is a name anywhere), split into words as turns are
    ("Jean-Luc" -> [jean, luc]); months, weekdays, titles, "I" and question words are no names;
    punctuation or a possessive ends a run ("Oscar Melanie's" -> one, "Paris, Rome" -> two)."""
    names: list[list[str]] = []
    run: list[str] = []
    end = 0
    for k, m in enumerate(word_spans(question)):
        start, stop, w = m
        if question[end:start].strip(" -"):  # punctuation between: a new name
            if run:
                names.append(run)
            run = []
        end = stop
        tok = question[start:stop]
        opens = k == 0 or question[:start].rstrip()[-1:] in ".!?:"  # a sentence's first word
        capital = (not opens and tok[:1].isupper()) or _CAMEL_RE.fullmatch(tok) is not None
        if capital and tok != "I" and w not in STOPWORDS and w not in _TITLES \
                and w not in timeexpr.MONTHS and w not in timeexpr.WEEKDAYS:
            run.append(w)
            if "'" not in tok and "’" not in tok:
                continue
        if run:
            names.append(run)
        run = []
    if run:
        names.append(run)
    return names


def unmentioned_names(question: str, buffer: list[BufferTurn]) -> list[str]:
    """The question's names that no buffer turn says (or speaks: a speaker's name counts): every
    word, in order, at most ``NAME_GAP`` words apart, plural or singular (stemmed)."""
    said = [[stem(w) for w in words(f"{t.speaker}: {t.text} {t.image_caption or ''}")] for t in buffer]
    speakers = {w for t in buffer for w in words(t.speaker)[:1]}
    missing = []
    for name in question_names(question):
        wanted = [stem(w) for w in name]
        if len(name) == 1 and any(fuzz.ratio(name[0], s) >= SPELLING for s in speakers):
            continue  # a speaker's name spelled another way ("Katia" for "Katja")
        if not any(_says(turn, wanted) for turn in said):
            missing.append(" ".join(name))
    return missing


def _says(turn: list[str], wanted: list[str]) -> bool:
    """``wanted`` in ``turn`` in order, each part at most ``NAME_GAP`` words after the last."""
    for start in (i for i, w in enumerate(turn) if w == wanted[0]):
        pos = start
        for part in wanted[1:]:
            window = turn[pos + 1:pos + 2 + NAME_GAP]
            if part not in window:
                break
            pos += 1 + window.index(part)
        else:
            return True
    return False
