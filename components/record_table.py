"""The Records page's table: search, filters, sort, server-side pagination, row selection.

Paging happens in the service (one page of rows per query), so the table stays fast with
tens of thousands of records; the facet lists feed the filter widgets.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import date
from typing import Any

import pandas as pd
import streamlit as st

from components.data import records_frame_rows
from components.state import sync_pick
from components.text import shorten

SORTS = {
    "dialogue order": "episode", "entity": "entity", "property": "property", "value": "value",
    "confidence (high first)": "-confidence", "confidence (low first)": "confidence",
    "valid time": "valid_time", "importance": "-importance", "modality": "modality", "status": "status",
}
STATUS_CHOICES = {"active and wrong": None, "active": "active", "wrong": "wrong", "deleted": "deleted",
                  "all": "all"}
PAGE_SIZES = (25, 50, 100, 200)
PAGE_KEY = "records_page"
ENTITY_KEY = "records_entity"
ENTITY_URL_KEY = "records_entity__url"


def _facet(facets: dict[str, list[tuple[Any, int]]], name: str) -> list[Any]:
    return [v for v, _ in facets.get(name, []) if v is not None]


def filters_ui(facets: dict[str, list[tuple[Any, int]]]) -> tuple[str, dict[str, Any], str, int]:
    """Search box, filters, sort and page size; returns (query, filters, sort, page_size)."""
    top = st.columns([3, 2, 1])
    query = top[0].text_input("Search records", placeholder="words that must all appear, e.g. paris train",
                              help="Searches entity, property, value, condition, time and the words "
                                   "of the evidence turns (not ids).")
    entities = entity_filter(top[1], facets)
    as_of = top[2].date_input("Memory as of", value=None, key="records_as_of", format="YYYY-MM-DD",
                              help="Show the memory as it stood on that day: records said in a later "
                                   "session, or about a later time, are hidden.")
    cols = st.columns(4)
    filters: dict[str, Any] = {
        "entity": entities,
        "as_of": as_of.isoformat() if isinstance(as_of, date) else None,
        "entity_type": cols[0].multiselect("Entity type", _facet(facets, "entity_type")),
        "property": cols[1].multiselect("Property", _facet(facets, "property")),
        "modality": cols[2].multiselect("Modality", _facet(facets, "modality")),
        "session": cols[3].multiselect("Session", _facet(facets, "session")),
    }
    cols = st.columns(4)
    status = STATUS_CHOICES[cols[0].selectbox("Status", list(STATUS_CHOICES))]
    if status is not None:
        filters["status"] = status
    min_conf = cols[1].slider("Minimum confidence", 0.0, 1.0, 0.0, 0.05)
    if min_conf > 0:
        filters["min_confidence"] = min_conf
    sort = SORTS[cols[2].selectbox("Sort by", list(SORTS))]
    page_size = int(cols[3].selectbox("Rows per page", PAGE_SIZES, index=1))
    filters = {k: v for k, v in filters.items() if v not in (None, [], "")}
    signature = json.dumps([query, filters, sort, page_size], sort_keys=True, default=str)
    if st.session_state.get("records_signature") != signature:
        st.session_state["records_signature"] = signature
        st.session_state[PAGE_KEY] = 1
    return query, filters, sort, page_size


def entity_filter(where: Any, facets: dict[str, list[tuple[Any, int]]]) -> list[str]:
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
        "Entity", options, key=ENTITY_KEY, accept_new_options=True,
        placeholder="type a name: Maya, Jonas…",
        format_func=lambda n: f"{n} ({counts[n]})" if n in counts else str(n))]
    if chosen != url:
        st.session_state[ENTITY_URL_KEY] = chosen
        if chosen:
            st.query_params["entity"] = chosen
        else:
            st.query_params.pop("entity", None)
    return chosen


def current_page() -> int:
    return int(st.session_state.get(PAGE_KEY, 1))


def _move(delta: int, pages: int) -> None:
    st.session_state[PAGE_KEY] = min(max(1, current_page() + delta), pages)


def pager(total: int, page_size: int) -> None:
    pages = max(1, -(-total // page_size))
    if current_page() > pages:
        st.session_state[PAGE_KEY] = pages
    cols = st.columns([1, 1, 4])
    cols[0].button("◀ Previous", on_click=_move, args=(-1, pages), disabled=current_page() <= 1)
    cols[1].button("Next ▶", on_click=_move, args=(1, pages), disabled=current_page() >= pages)
    cols[2].caption(f"Page {current_page()} of {pages} · {total} matching records")


def table(rows: Sequence[Any], labels: dict[str, str], *, superseded: dict[str, str] | None = None,
          names: dict[str, Any] | None = None) -> str | None:
    """Draw one page of records; returns the id of the row the user selected, if any.

    ``superseded`` (old id -> newer id) fills the "superseded by" column with the newer record
    as ``entity · property = value`` (``names``: id -> record)."""
    if not rows:
        st.info("No record matches.")
        return None
    superseded, names = superseded or {}, names or {}
    frame = pd.DataFrame(records_frame_rows(rows, labels))
    frame["superseded by"] = [_newer(superseded.get(r.id), names) for r in rows]
    signature = f"{st.session_state.get('records_signature', '')}|{current_page()}"
    key = "records_table_" + hashlib.sha256(signature.encode()).hexdigest()[:12]
    event = st.dataframe(
        frame, hide_index=True, on_select="rerun", selection_mode="single-row", key=key,
        column_order=("entity", "type", "property", "value", "condition", "modality", "valid time",
                      "confidence", "status", "superseded by", "episode", "evidence"),
        column_config={"confidence": st.column_config.ProgressColumn("confidence", min_value=0.0,
                                                                     max_value=1.0, format="%.2f")},
    )
    picked = event.selection.rows if event is not None else []
    return str(rows[picked[0]].id) if picked else None


def _newer(record_id: str | None, names: dict[str, Any]) -> str:
    if record_id is None:
        return ""
    r = names.get(record_id)
    return f"{shorten(r.value, 40)} ({record_id})" if r is not None else record_id


PICK_KEY = "record_pick"


def _picked(widget_key: str) -> None:
    st.session_state[PICK_KEY] = st.session_state[widget_key]


def picker(ids: list[str], by_id: dict[str, Any], picked: str | None, wanted: str | None) -> str:
    """The "Open record" box: follows a table selection, and its labels show the records as they
    are now — after a save the label changes, so the widget is keyed by its labels (the choice
    itself lives in ``st.session_state["record_pick"]`` and carries over)."""
    sync_pick(PICK_KEY, ids, picked, default=wanted)

    def label(i: str) -> str:
        r = by_id.get(i)
        return (f"{i} — {shorten(r.entity, 30)} · {shorten(r.property, 30)} = {shorten(r.value, 40)}"
                if r is not None else i)

    labels = [label(i) for i in ids]
    widget_key = "record_pick_box:" + hashlib.sha256("\n".join(labels).encode()).hexdigest()[:12]
    st.session_state[widget_key] = st.session_state[PICK_KEY]
    return str(st.selectbox("Open record", ids, key=widget_key, format_func=label, on_change=_picked,
                            args=(widget_key,)))
