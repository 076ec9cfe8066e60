"""One pager for paged lists (the Records table, Home's conversations): ◀ Previous / Next ▶ and a
caption; the page number lives in ``st.session_state[key]``, starting at 1."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st


def page_count(total: int, page_size: int) -> int:
    return max(1, -(-total // page_size))


def current(key: str, pages: int | None = None) -> int:
    """The page stored under ``key`` (1 when none), clamped to ``pages`` when given."""
    page = max(int(st.session_state.get(key, 1)), 1)
    if pages is not None and page > pages:
        page = pages
        st.session_state[key] = page
    return page


def _move(key: str, delta: int, pages: int) -> None:
    st.session_state[key] = min(max(1, current(key) + delta), pages)


def draw(key: str, total: int, page_size: int, caption: Callable[[int, int], str]) -> int:
    """The buttons and ``caption(page, pages)``; returns the (clamped) current page."""
    pages = page_count(total, page_size)
    page = current(key, pages)
    row = st.container(horizontal=True, vertical_alignment="center")  # buttons as wide as their labels
    row.button("◀ Previous", key=f"{key}:prev", on_click=_move, args=(key, -1, pages), disabled=page <= 1)
    row.button("Next ▶", key=f"{key}:next", on_click=_move, args=(key, 1, pages), disabled=page >= pages)
    row.caption(caption(page, pages))
    return page
