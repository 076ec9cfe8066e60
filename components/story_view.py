"""The Ask page's story view: a question's answer told to someone who never saw the query
layer, built only from what the trace already holds — no scores, no plan internals:

    the answer (its citations jump to the turns below) and its support level in words →
    the one or few records that gave it (entity · property · value, said by whom, when) →
    the source turns, with the matched words highlighted.

It is the default view; ``mode()`` draws the one toggle that opens the full trace instead
(``trace_view.full``), remembered for the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import streamlit as st

from components import links, plain_words, support_view, trace_view, transcript
from components.text import esc, md
from memory_core.models import BufferTurn, Episode, Record, Trace
from memory_core.services import MemoryServices

FULL_KEY = "ask_full_trace"
MAX_TURNS = 6  # source turns shown when the answer cites none (the best matched ones)


def mode() -> bool:
    """The view toggle: ``True`` for the full trace, ``False`` (the default) for the story."""
    return bool(st.toggle("Full trace", key=FULL_KEY,
                          help="Off: the answer, the records that gave it and the turns they come from. "
                               "On: how it was found — the plan, every match with its score, the "
                               "episodes chosen and the whole evidence buffer."))


def source_turns(trace: Trace, records: Sequence[Record] = ()) -> list[BufferTurn]:
    """The buffer turns the answer cites, else the closest ones (in dialogue order): the turns
    the listed ``records`` come from and the matched turns that say one of the question's own
    words (not only a name); the best matched turns only when there are none of those."""
    cited = set(trace.answer.cited_turn_ids)
    chosen = [b for b in trace.buffer if b.turn_id in cited]
    if chosen:
        return chosen
    best: dict[str, float] = {}
    for m in trace.matches:
        if m.turn_id:
            best[m.turn_id] = max(best.get(m.turn_id, float("-inf")), m.score)
    in_buffer = {b.turn_id for b in trace.buffer}
    sourced = [t for r in records for t in r.evidence_turn_ids if t in in_buffer]
    worded = {b.turn_id for b in trace.buffer if any(h.label != "entity" for h in b.highlights)}
    ranked = sorted(best, key=lambda t: (-best[t], t))
    reasons = [*sourced, *(t for t in ranked if t in worded)]
    top = set(list(dict.fromkeys(reasons or ranked))[:MAX_TURNS])
    return [b for b in trace.buffer if b.turn_id in top]


def records_html(conv: str, records: Sequence[Record], trace: Trace, episodes: Sequence[Episode]) -> str:
    turn_time: dict[str, datetime | None] = {b.turn_id: b.session_time for b in trace.buffer}
    episode_time = {e.id: e.start_time for e in episodes}
    items = []
    for r in records:
        said = plain_words.said_by(r, turn_time, episode_time)
        items.append(f"<li>{links.record_link(conv, r.id, plain_words.record_line(r))}"
                     + (f' <span class="mn-said">— {esc(said)}</span>' if said else "") + "</li>")
    return f'<ul class="mn-story-records">{"".join(items)}</ul>'


def render(svc: MemoryServices, conv: str, trace: Trace, episodes: Sequence[Episode]) -> None:
    st.html(trace_view.answer_html(trace))
    color, label, _ = support_view.shown(trace)
    st.badge(f"Answer {label}", color=color)  # type: ignore[arg-type]
    st.caption(support_view.sentence(trace))
    if trace.details.get("asked_at"):  # relative dates in the question counted back from that day
        st.caption(md(trace_view.asked_at_text(trace)))

    records = svc.queries.key_records(conv, trace)
    cited = set(trace.answer.cited_turn_ids)
    from_cited = [r for r in records if cited & set(r.evidence_turn_ids)]
    st.markdown("**Where it comes from**" if from_cited else "**Closest records in the memory**")
    listed = from_cited or records
    if listed:
        st.html(records_html(conv, listed, trace, episodes))
    else:
        st.caption("No stored record matched this question: the answer comes from the turns below.")

    turns = source_turns(trace, listed)
    if trace.answer.cited_turn_ids:
        st.markdown("**What was said**")
    else:  # nothing was taken as the answer: say so, not "what was said"
        st.markdown("**Closest turns**")
        st.caption("The answer cites no turn. These matched the question best; none of them was "
                   "taken as its answer.")
    if not turns:
        st.caption("No turn of the conversation was found for this question.")
        return
    marks = {b.turn_id: [(h.start, h.end, h.label) for h in b.highlights] for b in trace.buffer}
    # the turns only, full width (no record chips beside them: the records are listed above)
    st.html('<div class="mn-story">' + transcript.transcript_html(
        turns, highlights=marks, cited=trace.answer.cited_turn_ids, conv=conv) + "</div>")
    st.caption("Turn on *Full trace* to see how the answer was found: the plan, every match with "
               f"its score and all {len(trace.buffer)} turns of the evidence.")
