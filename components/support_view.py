"""How well the evidence carries an answer, as a badge beside it, with the level said in words."""

from __future__ import annotations

import streamlit as st

from memory_core.models import SupportLevel, Trace

LEVELS: dict[SupportLevel, tuple[str, str, str]] = {  # badge colour, label, what it means
    SupportLevel.SUPPORTED: ("green", "supported", "every part of the question is covered by the "
                             "retrieved evidence and the answer is found in it"),
    SupportLevel.WEAK: ("orange", "weakly supported", "only part of the question is covered, or the "
                        "answer is only loosely found in the evidence: check the cited turns"),
    SupportLevel.UNKNOWN: ("gray", "not supported", "the evidence does not carry an answer: treat "
                           "it as a guess"),
}


def level(trace: Trace) -> SupportLevel:
    """The graded level when the answerer gave one, else from the yes/no ``supported`` flag."""
    if trace.answer.support is not None:
        return trace.answer.support
    return SupportLevel.SUPPORTED if trace.answer.supported else SupportLevel.UNKNOWN


def badge(trace: Trace) -> None:
    color, label, meaning = LEVELS[level(trace)]
    st.badge(f"Answer {label}", color=color)  # type: ignore[arg-type]
    st.caption(f"Support: {meaning}.")
