"""The Records page's search and filters: words, entity (kept as ``?entity=``), "Memory as of"
(kept as ``?as_of=``), and the "More filters" (type, property, modality, session, status,
minimum confidence, sort, rows per page) whose values outlive their closed expander; a header
click in the table sorts through the same "Sort by" choice.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from components.text import md
from memory_core.record_filter import RecordFacets, RecordFilter

# (table column or None, store field, label ascending, label descending); the first is the default
SORT_FIELDS: tuple[tuple[str | None, str, str, str], ...] = (
    ("episode", "episode", "dialogue order", "dialogue order, latest first"),
    ("entity", "entity", "entity A–Z", "entity Z–A"),
    ("type", "entity_type", "type A–Z", "type Z–A"),
    ("property", "property", "property A–Z", "property Z–A"),
    ("value", "value", "value A–Z", "value Z–A"),
    ("confidence", "confidence", "confidence, low first", "confidence, high first"),
    ("valid time", "valid_time", "valid time, earliest first", "valid time, latest first"),
    (None, "importance", "importance, low first", "importance, high first"),
    ("modality", "modality", "modality A–Z", "modality Z–A"),
    ("status", "status", "status A–Z", "status Z–A"),
)
SORTS = {label: key for _, field, up, down in SORT_FIELDS
         for label, key in ((up, field), (down, f"-{field}"))}
SORT_LABELS = {key: label for label, key in SORTS.items()}
HEADER_SORT = {column: field for column, field, _, _ in SORT_FIELDS if column is not None}
FIRST_DESCENDING = {"confidence", "importance"}  # a first click on these shows the highest first
STATUS_CHOICES = {"active and wrong": None, "active": "active", "wrong": "wrong", "deleted": "deleted",
                  "all": "all"}
PAGE_SIZES = (25, 50, 100, 200)
PAGE_KEY = "records_page"
CHANGED_KEY = "records_filters_changed"  # this run's search or filters differ from the last run's
ENTITY_KEY = "records_entity"
ENTITY_URL_KEY = "records_entity__url"


def _facet(facets: RecordFacets, name: str) -> list[str | int]:
    return [v for v, _ in facets.get(name, []) if v is not None]


def filters_ui(facets: RecordFacets) -> tuple[str, RecordFilter, str, int]:
    """Search box, filters, sort and page size; returns (query, filters, sort, page_size)."""
    top = st.columns([4, 3, 2])  # the date box keeps 'Memory as of' on one line at 1024 px
    query = top[0].text_input("Search records", placeholder="words that must all appear, e.g. paris train",
                              help="Searches entity, property, value, condition, time and the words "
                                   "of the evidence turns (not ids).")
    entities = entity_filter(top[1], facets)
    as_of = as_of_filter(top[2])
    more = more_filters(facets)
    filters: dict[str, Any] = {
        "entity": entities,
        "as_of": as_of,
        **{name: more[name] for name in ("entity_type", "property", "modality", "session")},
    }
    status = STATUS_CHOICES[more["status"]]
    if status is not None:
        filters["status"] = status
    if more["min_confidence"] > 0:
        filters["min_confidence"] = more["min_confidence"]
    sort, page_size = SORTS.get(more["sort"], "episode"), int(more["page_size"])
    filters = {k: v for k, v in filters.items() if v not in (None, [], "")}
    signature = json.dumps([query, filters, sort, page_size], sort_keys=True, default=str)
    before = st.session_state.get("records_signature")
    st.session_state[CHANGED_KEY] = before is not None and before != signature
    if before != signature:
        st.session_state["records_signature"] = signature
        st.session_state[PAGE_KEY] = 1
    return query, RecordFilter.of(filters), sort, page_size


MORE_KEY = "records_more_filters"  # conv -> the secondary filters' values (kept while hidden)
MORE_OPEN_KEY = "records_more_open"
MORE_DEFAULTS: dict[str, Any] = {
    "entity_type": [], "property": [], "modality": [], "session": [], "status": next(iter(STATUS_CHOICES)),
    "min_confidence": 0.0, "sort": next(iter(SORTS)), "page_size": 50}


def more_filters(facets: RecordFacets) -> dict[str, Any]:
    """Entity type, property, modality, session, status, minimum confidence, sort and page size:
    drawn only while their expander is open (eight widgets fewer on every other render), applied
    always. Their values live in ``st.session_state[MORE_KEY]`` per conversation (Streamlit drops
    the state of a widget that is not drawn); the expander's label counts those set."""
    conv = str(st.query_params.get("conv", ""))
    kept = st.session_state.setdefault(MORE_KEY, {}).setdefault(conv, dict(MORE_DEFAULTS))
    lists = {name: _facet(facets, name) for name in ("entity_type", "property", "modality", "session")}
    for name, options in lists.items():  # a value the conversation no longer has is dropped
        kept[name] = [v for v in kept[name] if v in options]
    changed = [name for name, default in MORE_DEFAULTS.items() if kept[name] != default]
    box = st.expander("More filters · sort · rows per page", key=MORE_OPEN_KEY, on_change="rerun")
    if changed and not box.open:
        st.caption(f"More filters set: {', '.join(changed).replace('_', ' ')}")
    drawn = _more_key(conv, "drawn")  # the widgets were drawn in the last run: their state is live
    if not box.open:
        st.session_state[drawn] = False
        return kept

    def key(name: str) -> str:
        return _more_key(conv, name)

    if not st.session_state.get(drawn):
        for name in MORE_DEFAULTS:  # (re)drawn: start from the kept values
            st.session_state[key(name)] = kept[name]
    st.session_state[drawn] = True
    with box:
        cols = st.columns(4)
        for col, (name, title) in zip(cols, (("entity_type", "Entity type"), ("property", "Property"),
                                             ("modality", "Modality"), ("session", "Session")), strict=True):
            col.multiselect(title, lists[name], key=key(name))
        cols = st.columns(4)
        cols[0].selectbox("Status", list(STATUS_CHOICES), key=key("status"))
        cols[1].slider("Minimum confidence", 0.0, 1.0, step=0.05, key=key("min_confidence"))
        cols[2].selectbox("Sort by", list(SORTS), key=key("sort"))
        cols[3].selectbox("Rows per page", PAGE_SIZES, key=key("page_size"))
        if changed:
            st.button("Reset these", key=key("reset"), on_click=_reset_more, args=(conv,))
    kept.update({name: st.session_state[key(name)] for name in MORE_DEFAULTS})
    return kept


def _more_key(conv: str, name: str) -> str:
    """The session key of one "More filters" widget of ``conv``."""
    return f"records_f:{conv}:{name}"


def next_sort(current: str, column: str) -> str | None:
    """The sort a click on ``column``'s header asks for: the other direction when the table is
    already sorted by it, else its first direction; ``None`` for a column that does not sort."""
    field = HEADER_SORT.get(column)
    if field is None:
        return None
    if current.lstrip("-") == field:
        return field if current.startswith("-") else f"-{field}"
    return f"-{field}" if field in FIRST_DESCENDING else field


def sort_by_header(conv: str, column: str) -> None:
    """A header click (a widget callback): the "Sort by" choice follows, drawn or not."""
    kept = st.session_state.setdefault(MORE_KEY, {}).setdefault(conv, dict(MORE_DEFAULTS))
    wanted = next_sort(SORTS.get(kept["sort"], "episode"), column)
    if wanted is None:
        return
    kept["sort"] = SORT_LABELS[wanted]
    st.session_state[_more_key(conv, "sort")] = kept["sort"]


def _reset_more(conv: str) -> None:
    st.session_state.setdefault(MORE_KEY, {})[conv] = dict(MORE_DEFAULTS)
    for name, default in MORE_DEFAULTS.items():
        st.session_state[_more_key(conv, name)] = default


AS_OF_KEY = "records_as_of"
AS_OF_PARAM = "as_of"


def as_of_day() -> str | None:
    """The "Memory as of" day (``YYYY-MM-DD``) this run shows, or ``None``; call before drawing
    anything (the page counts the filters' facets for it). A new ``?as_of=`` (a shared link, a
    reload) replaces the typed value; a value that is not a date shows nothing as of (and
    ``as_of_filter`` says why)."""
    url = st.query_params.get(AS_OF_PARAM) or None
    if url != st.session_state.get(f"{AS_OF_KEY}__url"):
        st.session_state[f"{AS_OF_KEY}__url"] = url
        st.session_state[AS_OF_KEY] = url or ""
    try:
        return _day(str(st.session_state.get(AS_OF_KEY) or ""))
    except ValueError:
        return None


def _day(text: str) -> str | None:
    return date.fromisoformat(text.strip()).isoformat() if text.strip() else None


def as_of_filter(where: DeltaGenerator) -> str | None:
    """"Memory as of": a day typed as ``YYYY-MM-DD`` (Enter or leaving the field applies it),
    kept in the URL as ``?as_of=`` like the Graphs page, so the view can be shared."""
    as_of_day()  # the URL's value, when it changed, is the field's
    text = where.text_input("Memory as of", key=AS_OF_KEY, placeholder="YYYY-MM-DD",
                            help="Show the memory as it stood on that day (type it, then Enter): "
                                 "records said in a later session, or about a later time, are hidden.")
    try:
        day = _day(str(text))
    except ValueError:
        st.warning(f"Memory as of: {md(repr(text.strip()))} is not a date (YYYY-MM-DD); "
                   "showing the memory as it is now.")
        day = None
    if day is None:
        st.query_params.pop(AS_OF_PARAM, None)
    elif st.query_params.get(AS_OF_PARAM) != day:
        st.query_params[AS_OF_PARAM] = day
    st.session_state[f"{AS_OF_KEY}__url"] = day
    return day


def entity_filter(where: DeltaGenerator, facets: RecordFacets) -> list[str]:
    """The entity filter (type to get suggestions; any name can be typed), kept in step with
    ``?entity=`` so that a name anywhere in the app links here and the filter can be shared.

    A new ``?entity=`` (a link was followed) replaces the choice; the user's own choice is
    written back to the URL. Names match case-insensitively (as the store's filter does).
    """
    counts = {str(v): n for v, n in facets.get("entity", []) if v is not None}
    by_lower = {name.lower(): name for name in counts}
    url = [by_lower.get(v.lower(), v) for v in st.query_params.get_all("entity") if v.strip()]
    if url != st.session_state.get(ENTITY_URL_KEY):
        st.session_state[ENTITY_URL_KEY] = url
        st.session_state[ENTITY_KEY] = url
    options = list(counts)
    options += [v for v in st.session_state.get(ENTITY_KEY, []) if v not in counts]
    chosen = [str(v) for v in where.multiselect(
        "Entity", options, key=ENTITY_KEY, accept_new_options=True, select_all=False,
        placeholder="type a name: Maya, Jonas…",
        format_func=lambda n: f"{n} ({counts[n]})" if n in counts else str(n))]
    if chosen != url:
        st.session_state[ENTITY_URL_KEY] = chosen
        if chosen:
            st.query_params["entity"] = chosen
        else:
            st.query_params.pop("entity", None)
    return chosen
