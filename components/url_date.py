"""A date widget kept in the URL (``?as_of=YYYY-MM-DD``), so a view "as of" a day can be shared
and survives a reload.

``read(param, key)`` runs before the widget is drawn: a date in the URL that the page has not
applied yet (a shared link, a reload, the browser's back button) becomes the widget's value; a
value that is not a date is dropped with one line saying so. ``write(param, key, day)`` runs
after the widget: the URL follows the user's choice (no date: no parameter).
"""

from __future__ import annotations

from datetime import date

import streamlit as st

from components.text import md


def parse_day(text: str, param: str) -> date:
    """``YYYY-MM-DD`` as a date; anything else a ``ValueError`` naming the parameter."""
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"?{param}={text!r} in the address is not a date (YYYY-MM-DD): "
                         "showing the memory as it is now.") from None


def _applied(key: str) -> str:
    return f"{key}__url"  # the URL value last applied to / written from the widget ``key``


def read(param: str, key: str) -> None:
    """Before the widget ``key`` is drawn: apply a new ``?param=`` value from the URL to it."""
    wanted = st.query_params.get(param) or None
    if wanted == st.session_state.get(_applied(key)):
        return
    st.session_state[_applied(key)] = wanted
    if wanted is None:
        st.session_state[key] = None
        return
    try:
        st.session_state[key] = parse_day(wanted, param)
    except ValueError as exc:
        st.warning(md(exc))
        st.session_state[key] = None
        st.query_params.pop(param, None)
        st.session_state[_applied(key)] = None


def write(param: str, key: str, day: date | None) -> None:
    """After the widget: the URL carries its value (``YYYY-MM-DD``), or nothing without a date."""
    value = day.isoformat() if isinstance(day, date) else None
    if value is None:
        st.query_params.pop(param, None)
    elif st.query_params.get(param) != value:
        st.query_params[param] = value
    st.session_state[_applied(key)] = value
