"""The Ask page's evidence buffer, short first: the turns the answer cites and the turns that
matched (a matched turn or a matched record's evidence) come first, in
dialogue order; the rest of the buffer is one click away ("Show all N turns").
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from components import data, transcript
from memory_core.models import BufferTurn, Episode, Record, Trace
from memory_core.services import MemoryServices


def key_turns(trace: Trace, records: Sequence[Record] = ()) -> set[str]:
    """Turn ids that explain the answer: cited, matched, or evidence of a matched record."""
    keys = set(trace.answer.cited_turn_ids)
    keys |= {m.turn_id for m in trace.matches if m.turn_id}
    keys |= {t for r in records for t in r.evidence_turn_ids}
    return keys


def split(trace: Trace, records: Sequence[Record] = ()) -> tuple[list[BufferTurn], list[BufferTurn]]:
    """(key buffer turns, the others), each in buffer (dialogue) order."""
    keys = key_turns(trace, records)
    first = [b for b in trace.buffer if b.turn_id in keys]
    return first, [b for b in trace.buffer if b.turn_id not in keys]


def buffer(svc: MemoryServices, trace: Trace, episodes: Sequence[Episode] = ()) -> None:
    """Draw the key turns; the whole buffer behind a toggle (same anchors, so citations work)."""
    if not trace.buffer:
        st.caption("The buffer is empty.")
        return
    matched = list(dict.fromkeys(m.record_id for m in trace.matches if m.record_id))
    first, rest = split(trace, data.records_by_ids(svc, matched) if matched else [])
    show_all = not first or st.toggle(
        f"Show all {len(trace.buffer)} turns of the buffer", key=f"buffer_all:{trace.id}",
        help=f"{len(first)} turns are cited or matched; {len(rest)} more were put in the buffer as context.")
    turns = list(trace.buffer) if show_all else first
    if not show_all:
        st.caption(f"The {len(first)} cited or matched turns of {len(trace.buffer)}.")
    marks = {b.turn_id: [(h.start, h.end, h.label) for h in b.highlights] for b in turns}
    used = {b.episode_id for b in turns}
    transcript.render(turns, [e for e in episodes if e.id in used], highlights=marks,
                      cited=trace.answer.cited_turn_ids)
