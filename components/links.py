"""Links to the app's objects: every id and every name on a page opens its object.

One URL scheme for the whole app (the same one the pages read):

    records?conv=C&entity=NAME     the records about an entity (the Records page's entity filter)
    records?conv=C&record=ID       one record, opened under the table
    episodes?conv=C&episode=ID     one episode
    ask?conv=C&trace=ID            one answered question (its trace)

``href_*`` give the relative URL (for HTML we build; the pages are served at the root, so a
relative ``records?…`` works from any page), ``*_link`` an escaped ``<a>`` for ``st.html``
and ``page_link_*`` a Streamlit page link (navigates without reloading the app).
Everything user-written is URL-encoded inside the address and HTML-escaped around it, so a
name can neither leave the attribute nor become a ``javascript:`` URL (the address always
starts with our own page name).
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlencode

import streamlit as st

from components import icons
from components.text import esc, md, shorten
from memory_core.models import Record

PAGES = {"records": "pages/records.py", "episodes": "pages/episodes.py", "ask": "pages/ask.py",
         "graphs": "pages/graphs.py", "evaluate": "pages/evaluate.py", "history": "pages/history.py"}


def href(page: str, conv: str, **params: str) -> str:
    if page not in PAGES:
        raise ValueError(f"unknown page {page!r}")
    return f"{page}?{urlencode({'conv': conv, **{k: v for k, v in params.items() if v}})}"


def href_entity(conv: str, name: str) -> str:
    return href("records", conv, entity=name)


def href_record(conv: str, record_id: str) -> str:
    return href("records", conv, record=record_id)


def href_episode(conv: str, episode_id: str) -> str:
    return href("episodes", conv, episode=episode_id)


def href_trace(conv: str, trace_id: str) -> str:
    return href("ask", conv, trace=trace_id)


def anchor(url: str, label: object, *, cls: str = "mn-link", title: object = None) -> str:
    """``<a>`` with escaped address, label and title (opens in the same tab)."""
    tip = f' title="{esc(title)}"' if title else ""
    return f'<a class="{cls}" href="{esc(url)}"{tip}>{esc(label)}</a>'


def entity_link(conv: str, name: str, label: object = None) -> str:
    return anchor(href_entity(conv, name), name if label is None else label,
                  title=f"records about {name}")


def record_link(conv: str, record_id: str, label: object = None) -> str:
    return anchor(href_record(conv, record_id), record_id if label is None else label, title=record_id)


def episode_link(conv: str, episode_id: str, label: object = None) -> str:
    return anchor(href_episode(conv, episode_id), episode_id if label is None else label, title=episode_id)


def trace_link(conv: str, trace_id: str, label: object = None) -> str:
    return anchor(href_trace(conv, trace_id), trace_id if label is None else label, title=trace_id)


def page_link(page: str, conv: str, label: str, *, icon: str | None = None, **params: str) -> None:
    """A Streamlit page link to ``page`` with these query parameters (label shown as typed)."""
    query = {"conv": conv, **{k: v for k, v in params.items() if v}}
    st.page_link(PAGES[page], label=md(shorten(label, 90)), icon=icon, query_params=query)


def page_link_entity(conv: str, name: str, count: int | None = None) -> None:
    suffix = f" ({count})" if count is not None else ""
    page_link("records", conv, f"All records about {name}{suffix}", icon=icons.PAGE["pages/records.py"],
              entity=name)


def ids_html(conv: str, kind: str, ids: Iterable[str], *, limit: int = 12) -> str:
    """A comma-separated list of id links (``kind``: record, episode or trace)."""
    make = {"record": record_link, "episode": episode_link, "trace": trace_link}[kind]
    items = [str(i) for i in ids]
    shown = ", ".join(make(conv, i) for i in items[:limit])
    return shown + (f" … (+{len(items) - limit})" if len(items) > limit else "")


def show(html: str) -> None:
    """Draw a line of links built by this module (``ids_html``, ``*_link``: escaped parts)."""
    st.html(f'<div class="mn-ep-head">{html}</div>')


def record_caption_html(conv: str, record: Record, episode_label: str) -> str:
    """The open record's id line: the record (a shareable link), its state, its episode (a link)."""
    status = str(getattr(record.status, "value", record.status))
    return " · ".join([record_link(conv, record.id), esc(status), f"version {int(record.version)}",
                       f"origin {esc(record.origin)}",
                       "episode " + episode_link(conv, record.episode_id, episode_label)])


def record_caption(conv: str, record: Record, episode_label: str) -> None:
    show(record_caption_html(conv, record, episode_label))
