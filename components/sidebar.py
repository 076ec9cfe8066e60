"""The shared sidebar: conversation picker (synced with ``?conv=``) and the backend badge."""

from __future__ import annotations

from typing import Literal

import streamlit as st

from components import icons
from components.state import CONV_KEY, session_settings
from components.text import md
from memory_core.services import MemoryServices

PICKER_KEY = "conv_picker"


def _sync_url() -> None:
    """Another conversation was picked: its id goes to the URL; links into the previous one
    (``trace=``, ``record=``, ``episode=``) no longer apply and are dropped."""
    st.query_params.clear()
    st.query_params["conv"] = st.session_state[PICKER_KEY]


def conversation_picker(svc: MemoryServices) -> str | None:
    """Resolve the current conversation: the URL wins, then the previous choice, then the first.

    Writes the id back to ``?conv=`` (so every page's URL can be shared) and to
    ``st.session_state["conv"]``; returns it, or ``None`` when nothing is imported.
    """
    ids = svc.imports.conversation_ids()
    wanted = st.query_params.get("conv")
    if not ids:
        st.sidebar.info("No conversation imported yet.")
        st.session_state[CONV_KEY] = None
        return None
    if wanted in ids:
        st.session_state[PICKER_KEY] = wanted
    elif st.session_state.get(PICKER_KEY) not in ids:
        st.session_state[PICKER_KEY] = ids[0]
    if wanted and wanted not in ids:
        st.sidebar.warning(f"Unknown conversation {md(wanted)}; showing another one.")
    conv = st.sidebar.selectbox("Conversation", ids, key=PICKER_KEY, on_change=_sync_url)
    if st.query_params.get("conv") != conv:
        st.query_params["conv"] = conv
    st.session_state[CONV_KEY] = conv
    return str(conv)


def backend_badge(svc: MemoryServices) -> None:
    settings = session_settings(svc.settings)
    backend = settings["backend"]
    color: Literal["green", "orange"] = "green" if backend == "offline" else "orange"
    icon = icons.OFFLINE if backend == "offline" else icons.REMOTE
    with st.sidebar:
        st.badge(f"backend: {md(backend)}", icon=icon, color=color)
        if backend != "offline":
            st.caption(f"model {md(settings.get('model') or '-')}")
