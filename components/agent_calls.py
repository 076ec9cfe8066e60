"""Agent calls on the Ask page: the ``ask`` and ``search_memory`` calls MCP clients made on
this conversation (each saved as a trace tagged with the client's name), listed beside
people's questions; and, on an open agent trace, exactly what the agent was handed — the
records (a search) or the answer and cited turns (a question), then the buffer in order
with its token count. The usual trace view below it drills down to records and highlighted
turns.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from components import links
from components.text import md, shorten
from memory_core.models import Trace, TraceRow
from memory_core.services import MemoryServices

SHOWN = 30
KIND = {"ask": "asked", "search": "searched"}


def label(row: TraceRow) -> str:
    """One list line: when, who, what they did, their words."""
    when = row.created_at
    stamp = when.strftime("%Y-%m-%d %H:%M") if when is not None else ""
    verb = KIND.get(row.kind or "ask", row.kind)
    return f"{stamp} · {row.client or 'agent'} {verb}: {shorten(row.question, 80)}"


def render(conv: str, rows: Sequence[TraceRow]) -> None:
    """The agent calls (newest first), each opening its trace."""
    with st.expander(f"Agent calls ({len(rows)})", expanded=False):
        if not rows:
            st.caption("No agent has asked or searched this conversation yet "
                       "(`python -m memory_core mcp` serves it to MCP clients).")
        for row in rows[:SHOWN]:
            st.page_link("pages/ask.py", label=md(label(row)),
                         query_params={"conv": conv, "trace": row.id})
        if len(rows) > SHOWN:
            st.caption(f"… and {len(rows) - SHOWN} older calls.")


def buffer_text(trace: Trace) -> str:
    """The buffer as the lines handed over, in order, under their session headers."""
    lines: list[str] = []
    session = None
    for bt in trace.buffer:
        if bt.session != session:
            session = bt.session
            when = bt.session_time.isoformat(sep=" ", timespec="minutes") if bt.session_time else "no date"
            lines.append(f"--- session {bt.session} ({when})")
        body = f"{bt.text} [image: {bt.image_caption}]" if bt.image_caption else bt.text
        lines.append(f"[{bt.turn_id}] {bt.speaker}: {body}")
    return "\n".join(lines)


def handed(svc: MemoryServices, conv: str, trace: Trace) -> None:
    """For an agent's trace: who called, and what it was handed (nothing for a person's)."""
    if not trace.client:
        return
    verb = KIND.get(trace.kind, trace.kind)
    st.info(f"Agent call: **{md(trace.client)}** {verb} over MCP on {trace.created_at:%Y-%m-%d %H:%M}.")
    with st.expander(f"What the agent was handed: {len(trace.buffer)} turns, {trace.buffer_tokens} tokens",
                     expanded=True):
        if trace.kind == "search":
            ids = [str(i) for i in trace.details.get("records", [])]
            st.markdown(f"**{len(ids)} records**, best first, each with its source turns:")
            if ids:
                links.show(links.ids_html(conv, "record", ids, limit=50))
        else:
            st.markdown(f"**Answer:** {md(trace.answer.text)}  \n**Cited turns:** "
                        f"{md(', '.join(trace.answer.cited_turn_ids) or 'none')}")
        st.caption("The buffer, in the order handed over:")
        st.code(buffer_text(trace) or "(empty)", language=None)
