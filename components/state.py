"""Plain session values shared by the pages: the current conversation and the session settings.

The current conversation lives in the URL (``?conv=<id>``) so links can be shared; the frame
(``app.py``) resolves it once per run through ``components.sidebar`` and stores the id in
``st.session_state["conv"]``. Session settings are a plain dict (``SessionChoice``); the API key lives only in
``st.session_state["api_key"]`` and is never written anywhere.
"""

from __future__ import annotations

from typing import TypedDict

import streamlit as st

from components import icons
from memory_core.config import Settings

CONV_KEY = "conv"
SETTINGS_KEY = "session_settings"
API_KEY = "api_key"


class SessionChoice(TypedDict):
    """What the Settings page chose for this browser session (never the API key)."""
    backend: str
    base_url: str
    model: str
    strategy: str
    budget_tokens: int | None


def current_conv() -> str | None:
    value = st.session_state.get(CONV_KEY)
    return value if isinstance(value, str) else None


def require_conv() -> str:
    """The current conversation id, or a hint to load one and stop the page."""
    conv = current_conv()
    if conv is None:
        st.info("No conversation yet. Load one first.")
        st.page_link("pages/load.py", label="Load a conversation", icon=icons.PAGE["pages/load.py"])
        st.stop()
    assert conv is not None
    return conv


def query_param(name: str) -> str | None:
    value = st.query_params.get(name)
    return value if value else None


def session_settings(defaults: Settings) -> SessionChoice:
    """Backend, endpoint, model, strategy and budget for this browser session (plain values)."""
    if SETTINGS_KEY not in st.session_state:
        st.session_state[SETTINGS_KEY] = SessionChoice(
            backend=defaults.backend, base_url=defaults.llm.base_url or "", model=defaults.llm.model,
            strategy=defaults.strategy, budget_tokens=defaults.budget_tokens)
    chosen: SessionChoice = st.session_state[SETTINGS_KEY]
    return chosen.copy()


def save_session_settings(values: SessionChoice) -> None:
    """Keep ``values`` for this session (a TypedDict: the API key has no field here)."""
    st.session_state[SETTINGS_KEY] = values.copy()


def session_api_key() -> str | None:
    value = st.session_state.get(API_KEY)
    return value if isinstance(value, str) and value else None


def sync_pick(key: str, ids: list[str], picked: str | None, default: str | None = None) -> None:
    """Keep a selectbox (``key``) in step with a chart/table selection event.

    A new selection event moves the selectbox; a selection that has not changed since the last
    run leaves the user's own later choice alone. Call before drawing the selectbox.
    """
    marker = f"{key}__last_event"
    if picked and picked != st.session_state.get(marker) and picked in ids:
        st.session_state[key] = picked
    st.session_state[marker] = picked
    if st.session_state.get(key) not in ids and ids:
        st.session_state[key] = default if default in ids else ids[0]


def follow_url(key: str, param: str, ids: list[str]) -> None:
    """Keep the choice ``st.session_state[key]`` and the URL's ``?param=`` naming the same object.

    A URL value that changed since the last run (a link followed inside the session, a shared
    URL opened) wins; otherwise the user's own later choice stays. Call before drawing the widget.
    """
    wanted = query_param(param)
    seen = f"{key}__url"
    if wanted in ids and wanted != st.session_state.get(seen):
        st.session_state[key] = wanted
    st.session_state[seen] = wanted
    if st.session_state.get(key) not in ids and ids:
        st.session_state[key] = wanted if wanted in ids else ids[0]


def write_url(key: str, param: str, value: str) -> None:
    """Name ``value`` in the URL (``?param=``) so the view can be shared; ``follow_url`` then
    knows the value as its own."""
    if st.query_params.get(param) != value:
        st.query_params[param] = value
    st.session_state[f"{key}__url"] = value
