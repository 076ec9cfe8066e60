"""When: the DATE/TIME spans of a sentence given to the records of the clause they belong to,
normalised against the session date (``memory_core.timeexpr``); plans, wishes and what is said in
the present read a bare date forwards (``clauses.looks_ahead``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from memory_core import timeexpr
from memory_core.backends.offline import clauses
from memory_core.backends.offline.drafts import Draft, ExtractState
from memory_core.models import Modality, Turn

if TYPE_CHECKING:
    from spacy.tokens import Span

AHEAD = frozenset({"looks_forward_to", "plans"})  # properties about the future


def attach_times(state: ExtractState, sent: Span, turn: Turn, first_of_turn: int,
                  carried: list[Span]) -> list[Span]:
    """Give each DATE/TIME span of the sentence to the records of the clause it belongs to.

    A span in a sentence that gave no record is carried to the next sentence of the turn when
    that one has none of its own; the spans to carry on are returned."""
    # a time word inside a noun phrase ("the warm summer breeze", "summer break") is no time
    own = [e for e in sent.ents if e.label_ in ("DATE", "TIME") and not clauses.is_noun_modifier(e.root)]
    mine = [d for d in state.drafts[first_of_turn:] if d.pred is not None and d.pred.sent == sent]
    if not own and carried and mine:
        for d in mine:
            if d.time is None:
                d.time = normalise(carried[0], d, turn)
        return []
    if not own:
        return []
    if not mine:
        return own
    for ent in own:
        owner = clauses.owning_clause(ent.root)
        at = owner.i if owner is not None else -1
        targets = [d for d in mine if d.pred is not None and (
            d.pred.i == at or (d.pred.head.i == at and d.pred.dep_ in ("xcomp", "conj")))]
        for d in targets or mine[:1]:
            if d.time is None:
                d.time = normalise(ent, d, turn)
    return []


def normalise(ent: Span, d: Draft, turn: Turn) -> timeexpr.TimeValue | None:
    # plans, wishes and what is said in the present ("the studio is having a show in August")
    ahead = d.modality in (Modality.PLANNED, Modality.DESIRED) or d.prop in AHEAD or clauses.looks_ahead(ent)
    prefer: Literal["past", "future"] = "future" if ahead else "past"
    before = ent.doc[ent.start - 1].lower_ if ent.start > 0 else ""
    return timeexpr.normalise(ent.text, turn.session_time, prefer=prefer, preceded_by=before)
