"""How well the evidence carries an answer, as a badge beside it, with the level said in words."""

from __future__ import annotations

import streamlit as st

from components import plain_words
from memory_core.models import SupportLevel, Trace

LEVELS: dict[SupportLevel, tuple[str, str, str]] = {  # badge colour, label, what it means
    SupportLevel.SUPPORTED: ("green", "supported", "every part of the question is covered by the "
                             "retrieved evidence and the answer is found in it"),
    SupportLevel.WEAK: ("orange", "weakly supported", "only part of the question is covered, or the "
                        "answer is only loosely found in the evidence: check the cited turns"),
    SupportLevel.UNKNOWN: ("gray", "not supported", "the evidence does not carry an answer: treat "
                           "it as a guess"),
}


# an unsure answer still given: its words are in the turns it cites, nothing shows they answer
GUESS: tuple[str, str, str] = ("gray", "is a guess", "its words are in the cited turns, but the evidence "
                               "does not show they answer the question: read the turns")


def is_guess(trace: Trace) -> bool:
    """An answer graded ``unknown`` that still quotes words from the turns it cites (the
    answerer was unsure which piece answers): a guess, not an answer the evidence lacks."""
    answer = trace.answer
    return (level(trace) == SupportLevel.UNKNOWN and bool(answer.cited_turn_ids) and not answer.unmentioned
            and answer.text.strip().rstrip(".").casefold() != "unknown")


def shown(trace: Trace) -> tuple[str, str, str]:
    """The badge colour, label and meaning the trace's answer is shown with."""
    return GUESS if is_guess(trace) else LEVELS[level(trace)]


def sentence(trace: Trace) -> str:
    """The answer's support said in a plain sentence (a guess has its own)."""
    return plain_words.GUESS_WORDS if is_guess(trace) else plain_words.SUPPORT_WORDS[level(trace)]


def level(trace: Trace) -> SupportLevel:
    """The graded level when the answerer gave one, else from the yes/no ``supported`` flag."""
    if trace.answer.support is not None:
        return trace.answer.support
    return SupportLevel.SUPPORTED if trace.answer.supported else SupportLevel.UNKNOWN


def badge(trace: Trace) -> None:
    color, label, meaning = shown(trace)
    st.badge(f"Answer {label}", color=color)  # type: ignore[arg-type]
    st.caption(f"Support: {meaning}.")
