"""Standing instructions: what a user told the assistant to do from then on.

In a chat between a user and an assistant, the user sets rules that hold for every later
answer — "Always show the units when I ask about conversions", "Never use tables", "I'd
prefer short answers with one example". Such a turn rarely shares words with the later
question it governs ("How many grams is a cup of flour?"), so ranking by likeness alone leaves
it out of the evidence. Retrieval therefore gives every question of such a chat the few standing
turns of the user closest to it (``standing_for``), before the ranked turns.

A standing turn is a short turn (not a pasted document) with a sentence that opens with
"always", "never" or "from now on" (an imperative rule), or that says "I prefer" / "I'd rather"
(a stated preference).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np

from memory_core.contracts import USER_ROLES
from memory_core.query.selection import CONTEXT_TOKENS

if TYPE_CHECKING:
    from memory_core.query.context import ConversationIndex

STANDING_RE = re.compile(
    r"(?:^|[.!?:;]\s+|\n\s*)(?:please\s+|and\s+)?(?:always|never(?!\s+mind)|from\s+now\s+on)\b"
    r"|\bI(?:['’]d|\s+would)?\s+(?:really\s+|much\s+|generally\s+|usually\s+)?prefer\b"
    r"|\bI(?:['’]d|\s+would)\s+rather\b",
    re.IGNORECASE,
)
STANDING_TURNS = 2  # the standing turns closest to the question that are given to it
RULE_TOKENS = CONTEXT_TOKENS  # a longer turn is a document (pasted code, a draft), not a rule


def is_standing(text: str) -> bool:
    """The text states a rule or a preference that holds from then on."""
    return STANDING_RE.search(text.strip()) is not None


# where the rule's clause ends: a sentence's end (not a version's dot, "5.3"), a line break, or a
# comma before a question or another statement of what the user is doing ("…, how can I …")
_RULE_END_RE = re.compile(
    r"[.!?](?=\s|$)|\n|,\s+(?=(?:how|what|which|where|when|why|can|could|would|should|will|do|does|is|are|"
    r"but|so|and\s+(?:how|what|can|could|I))\b)", re.IGNORECASE)


def rule_clause(text: str) -> str | None:
    """The clause of ``text`` that states its rule or preference, from the rule's first word to
    the end of its clause: "I'm building a budget app, so I prefer few dependencies, how do I
    start?" -> "I prefer few dependencies". None when the text states no rule, or the clause
    says nothing after its verb ("… the way I prefer, but …")."""
    text = text.strip()
    m = STANDING_RE.search(text)
    if m is None:
        return None
    start = m.start() + len(m.group(0)) - len(m.group(0).lstrip(" .!?:;\n\t"))
    end = _RULE_END_RE.search(text, m.end())
    stop = len(text) if end is None else end.end() if end.group(0) in ".!?" else end.start()
    clause = text[start:stop].strip().rstrip(",;:")
    if len(clause.rstrip(".!?").split()) <= 2:
        return None  # "… like I prefer, but …": nothing is preferred
    return clause[:1].upper() + clause[1:]


def standing_for(ci: ConversationIndex, qvec: np.ndarray, k: int = STANDING_TURNS) -> list[tuple[int, float]]:
    """(position, cosine) of the ``k`` standing turns of the user closest in meaning to the
    question, closest first — in a chat between a user and an assistant (speakers named by
    role), where every question is the user's; none in a chat between named people."""
    speaker = next((s for s in ci.speakers if s.lower() in USER_ROLES), None)
    if speaker is None or k <= 0:
        return []
    found = [p for p, t in enumerate(ci.turns) if t.speaker == speaker and ci.turn_tokens[p] <= RULE_TOKENS
             and is_standing(t.text)]
    if not found:
        return []
    sims = ci.turn_vecs[found] @ qvec
    order = np.argsort(-sims, kind="stable")[:k]
    return [(found[i], float(sims[i])) for i in order]
