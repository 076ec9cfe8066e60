"""Forget a conversation: a Delete action with a typed confirmation (the id, typed in full)."""

from __future__ import annotations

import streamlit as st

from components.text import md
from memory_core.errors import MnemoscopeError
from memory_core.services import MemoryServices

ANNOTATOR = "app"


def delete_panel(svc: MemoryServices, conv: str) -> None:
    """Delete ``conv`` and everything derived from it once its id is typed; one audit line stays."""
    with st.expander(f"Delete {md(conv)} and everything derived from it"):
        st.caption("Turns, episodes, records, entities, graphs, events, vectors, traces, cached model "
                   "calls and the contents of edits are erased; the history keeps one line saying a "
                   "conversation was deleted, without its text. This cannot be undone.")
        typed = st.text_input("Type the conversation id to confirm", key=f"forget_confirm_{conv}")
        why = st.text_input("Reason (kept in the audit line)", key=f"forget_why_{conv}")
        if st.button("Delete for good", type="primary", disabled=typed.strip() != conv,
                     key=f"forget_go_{conv}"):
            try:
                done = svc.imports.forget(conv, who=ANNOTATOR, why=why.strip())
            except MnemoscopeError as exc:
                st.error(md(exc))
                return
            svc.queries.invalidate(conv)
            parts = ", ".join(f"{n} {what}" for what, n in done.items() if isinstance(n, int) and n)
            st.session_state["load_flash"] = [f"Deleted {conv} ({parts or 'nothing derived yet'})."]
            st.query_params.clear()
            st.rerun()
