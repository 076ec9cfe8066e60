"""The one services object per data directory, opened once per process and cached.

``services()`` reads ``Settings.from_env()`` (the edge where the environment is read) and
returns the cached ``Services`` for that home, typed as the front ends' protocol
(``memory_core.services.api.MemoryServices``: a page test may hand the frame a fake by
replacing ``_open``). Session state never holds it: it holds ids and filters only.
Project errors from opening the home are shown as one line and stop the page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

import streamlit as st

from components.frame import ensure_frame
from components.text import md
from memory_core import heap
from memory_core.config import Settings
from memory_core.errors import MnemoscopeError
from memory_core.services import MemoryServices, Services

P = ParamSpec("P")
T = TypeVar("T")

@st.cache_resource(show_spinner="Opening the memory store…")
def _open(home: str) -> Services:
    svc = Services.open(Settings.from_env().with_home(home))
    heap.settle("the app's services")  # Streamlit, pandas, DuckDB, Chroma: loaded for good
    return svc


def env_settings() -> Settings:
    try:
        return Settings.from_env()
    except MnemoscopeError as exc:
        st.error(md(exc))
        st.stop()
        raise  # unreachable: st.stop() raises


def base_services() -> MemoryServices:
    """The cached services facade for the configured home, before any login (the frame
    uses it to find out who is there; pages call ``services``)."""
    ensure_frame()
    home = str(env_settings().home.resolve())
    try:
        return _open(home)
    except MnemoscopeError as exc:
        st.error(md(exc))
        st.stop()
        raise


def services() -> MemoryServices:
    """The services as this browser session's principal sees them (every page calls this
    first): the login page and a stop when nobody is logged in where a login is needed."""
    from components import auth

    base = base_services()
    principal = auth.current(base)
    auth.gate(base, principal)
    assert principal is not None  # the gate stopped the run otherwise
    return base.for_principal(principal, "app")


def call(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Call a service; a project error becomes one red line and stops the page."""
    try:
        return fn(*args, **kwargs)
    except MnemoscopeError as exc:
        st.error(md(exc))
        st.stop()
        raise  # unreachable: st.stop() raises


def session_services() -> MemoryServices:
    """The services as this browser session configured them on the Settings page.

    With the defaults this is the shared object. When the session chose another backend,
    endpoint, model or gave an API key, it is a short-lived view sharing the same store, vector
    index and embedder but carrying the session's settings — built per script run, never cached
    and never written anywhere, so the key stays in ``st.session_state`` only.
    """
    from dataclasses import replace

    from components.state import session_api_key, session_settings

    svc = services()
    base = svc.settings
    chosen = session_settings(base)
    key = session_api_key()
    llm = replace(base.llm, base_url=chosen.get("base_url") or base.llm.base_url,
                  model=chosen.get("model") or base.llm.model, api_key=key or base.llm.api_key)
    settings = replace(base, backend=chosen.get("backend") or base.backend,
                       strategy=chosen.get("strategy") or base.strategy,
                       budget_tokens=chosen.get("budget_tokens"), llm=llm)
    return svc.with_settings(settings)
