"""The Records page's table: search, filters, sort, server-side pagination, row selection.

Paging happens in the service (one page of rows per query), so the table stays fast with
tens of thousands of records; the facet lists feed the filter widgets.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import date
from functools import cache, partial
from pathlib import Path
from typing import Any

import streamlit as st

from components import pager, review
from components.data import records_frame_rows
from components.state import sync_pick, write_url
from components.text import shorten

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
ENTITY_KEY = "records_entity"
ENTITY_URL_KEY = "records_entity__url"
PICK_KEY = "record_pick"


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
    more = more_filters(facets)
    filters: dict[str, Any] = {
        "entity": entities,
        "as_of": as_of.isoformat() if isinstance(as_of, date) else None,
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
    if st.session_state.get("records_signature") != signature:
        st.session_state["records_signature"] = signature
        st.session_state[PAGE_KEY] = 1
    return query, filters, sort, page_size


MORE_KEY = "records_more_filters"  # conv -> the secondary filters' values (kept while hidden)
MORE_OPEN_KEY = "records_more_open"
MORE_DEFAULTS: dict[str, Any] = {
    "entity_type": [], "property": [], "modality": [], "session": [], "status": next(iter(STATUS_CHOICES)),
    "min_confidence": 0.0, "sort": next(iter(SORTS)), "page_size": 50}


def more_filters(facets: dict[str, list[tuple[Any, int]]]) -> dict[str, Any]:
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


def current_page() -> int:
    return pager.current(PAGE_KEY)


def pager_row(total: int, page_size: int) -> None:
    pager.draw(PAGE_KEY, total, page_size, lambda p, n: f"Page {p} of {n} · {total} matching records")


ROWS_KEY = "records_rows"
# (column, css classes): mn-p3 columns hide when the table is under 1100 px wide, mn-p2 ones
# under 800 px (the open record below shows every field), so the table never needs a sideways
# scroll (1440 x 900: 980 px; 1024 x 768: 560 px); mn-w* fix a column's width, the rest share
COLUMNS = (("entity", "mn-name"), ("type", "mn-dim mn-p3 mn-w5"), ("property", "mn-name"),
           ("value", "mn-long"), ("condition", "mn-long mn-p3"), ("modality", "mn-dim mn-p2 mn-w6"),
           ("valid time", "mn-dim mn-p2 mn-w6"), ("confidence", "mn-conf mn-w4"),
           ("status", "mn-status mn-p2 mn-w5"), ("superseded by", "mn-long mn-p3"),
           ("episode", "mn-dim mn-w5"), ("evidence", "mn-dim mn-p3 mn-w5"))
_CSS = """
.mn-rows {
  --mn-fg: var(--st-text-color, #31333f);
  --mn-bg: var(--st-background-color, #ffffff);
  --mn-head: var(--st-secondary-background-color, #f0f2f6);
  --mn-line: var(--st-border-color, rgba(49, 51, 63, 0.2));
  --mn-accent: var(--st-primary-color, #ff4b4b);
  max-height: 560px; overflow: auto; border: 1px solid var(--mn-line); border-radius: 6px;
  container-type: inline-size; container-name: mn-rows;
  color: var(--mn-fg); background: var(--mn-bg);
  font-family: var(--st-font, sans-serif); font-size: 0.85rem; }
.mn-rows table { border-collapse: collapse; width: 100%; table-layout: fixed; }
.mn-rows th.mn-w4 { width: 3.8rem; } .mn-rows th.mn-w5 { width: 4.2rem; } .mn-rows th.mn-w6 { width: 5.2rem; }
.mn-rows th.mn-verdict { width: 4.9rem; } .mn-rows th.mn-name { width: 10%; }
@container mn-rows (max-width: 1100px) { .mn-rows .mn-p3 { display: none; } .mn-rows th.mn-name { width: 12%; } }
@container mn-rows (max-width: 800px) { .mn-rows .mn-p2 { display: none; } .mn-rows th.mn-name { width: 14%; } }
.mn-rows th { position: sticky; top: 0; background: var(--mn-head); text-align: left; font-weight: 600;
  color: color-mix(in srgb, var(--mn-fg) 80%, transparent); padding: 6px 8px;
  border-bottom: 1px solid var(--mn-line); z-index: 1; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
.mn-rows td { padding: 4px 8px; border-bottom: 1px solid color-mix(in srgb, var(--mn-line) 40%, transparent);
  vertical-align: top; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.mn-rows tbody tr { cursor: pointer; }
.mn-rows tbody tr:hover { background: color-mix(in srgb, var(--mn-fg) 6%, transparent); }
.mn-rows tbody tr:focus { outline: 2px solid var(--mn-accent); outline-offset: -2px; }
.mn-rows tr.mn-selected { background: color-mix(in srgb, var(--mn-accent) 12%, transparent); }
.mn-rows tr.mn-busy { opacity: 0.5; }
.mn-rows tr[data-status="wrong"] td:not(.mn-verdict), .mn-rows tr[data-status="deleted"] td:not(.mn-verdict) {
  color: color-mix(in srgb, var(--mn-fg) 50%, transparent); text-decoration: line-through; }
.mn-rows .mn-dim { color: color-mix(in srgb, var(--mn-fg) 70%, transparent); }
.mn-rows .mn-verdict { white-space: nowrap; }
.mn-rows .mn-conf { position: relative; }
.mn-rows .mn-bar { position: absolute; left: 0; top: 20%; height: 60%;
  background: color-mix(in srgb, var(--mn-accent) 20%, transparent); z-index: 0; }
.mn-rows th button.mn-sort { font: inherit; color: inherit; background: none; border: 0; padding: 0;
  cursor: pointer; text-align: left; }
.mn-rows th button.mn-sort:hover { text-decoration: underline; }
.mn-rows th button.mn-sort:focus-visible { outline: 2px solid var(--mn-accent); outline-offset: 2px; }
.mn-b { font: inherit; min-width: 1.9rem; padding: 1px 6px; margin-right: 3px; border-radius: 5px;
  border: 1px solid var(--mn-line); background: var(--mn-bg); color: var(--mn-fg); cursor: pointer; }
.mn-b:disabled { opacity: 0.35; cursor: default; }
.mn-correct:not(:disabled):hover { background: var(--st-green-background-color, rgba(33, 195, 84, 0.1));
  border-color: var(--st-green-color, #21a366); }
.mn-wrong:not(:disabled):hover { background: var(--st-red-background-color, rgba(255, 43, 43, 0.09));
  border-color: var(--st-red-color, #d33); }
.mn-restore:not(:disabled):hover { background: var(--st-blue-background-color, rgba(28, 131, 225, 0.1));
  border-color: var(--st-blue-color, #3a6bd8); }
"""


@cache
def _component() -> Any:
    """Registered on first use (inside a script run), once per process."""
    js = (Path(__file__).resolve().parent / "assets" / "record_rows.js").read_text(encoding="utf-8")
    return st.components.v2.component("mnemoscope.record_rows", html='<div class="mn-rows"></div>',
                                      css=_CSS, js=js)


def row_payload(rows: Sequence[Any], labels: dict[str, str], superseded: dict[str, str],
                names: dict[str, Any], selected: str | None, sort: str = "episode") -> dict[str, Any]:
    """The component's data: plain values only (the browser writes them as text)."""
    out = []
    for r, plain in zip(rows, records_frame_rows(rows, labels), strict=True):
        cells = {name: str(plain.get(name, "")) for name, _ in COLUMNS}
        cells["confidence"] = f"{float(r.confidence):.2f}"
        cells["superseded by"] = _newer(superseded.get(r.id), names)
        out.append({"id": str(r.id), "version": int(r.version), "status": str(r.status.value),
                    "confidence": float(r.confidence), "cells": cells})
    sorted_by = next((c for c, f in HEADER_SORT.items() if f == sort.lstrip("-")), None)
    return {"rows": out, "selected": selected, "columns": [list(c) for c in COLUMNS],
            "sortable": list(HEADER_SORT),
            "sort": {"column": sorted_by, "descending": sort.startswith("-")} if sorted_by else None}


def _row_action(svc: Any, conv: str) -> None:
    """A click in the table (a widget callback, before the rerun): open the row's record, or
    confirm / mark wrong / restore it through the same curation calls as the review buttons."""
    state: Any = st.session_state.get(ROWS_KEY)
    value = state.get("action") if state is not None and hasattr(state, "get") else None
    if isinstance(value, dict) and value.get("kind") == "sort":
        sort_by_header(conv, str(value.get("column", "")))
        return
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        return
    record_id, kind = value["id"], value.get("kind")
    if kind == "open":
        _open(record_id)
    elif kind in ("correct", "wrong", "restore"):
        review.act(svc, conv, record_id, str(kind), int(value.get("version") or 0))


def table(rows: Sequence[Any], labels: dict[str, str], *, svc: Any, conv: str,
          superseded: dict[str, str] | None = None, names: dict[str, Any] | None = None,
          sort: str = "episode") -> None:
    """Draw one page of records with ✓ / ✗ (↺ for a wrong or deleted record) on every row;
    a click on a row opens it in the "Open record" box below (``st.session_state["record_pick"]``);
    a click on a column's header sorts by it (again: the other way), through the "Sort by" choice.

    ``superseded`` (old id -> newer id) fills the "superseded by" column with the newer record
    as ``value (id)`` (``names``: id -> record)."""
    if not rows:
        st.info("No record matches.")
        return
    data = row_payload(rows, labels, superseded or {}, names or {}, st.session_state.get(PICK_KEY), sort)
    _component()(key=ROWS_KEY, data=data, default={"action": None},
                 on_action_change=partial(_row_action, svc, conv))


def _newer(record_id: str | None, names: dict[str, Any]) -> str:
    if record_id is None:
        return ""
    r = names.get(record_id)
    return f"{shorten(r.value, 40)} ({record_id})" if r is not None else record_id



def _open(record_id: str) -> None:
    """Open a record: the "Open record" box follows, and the URL (``?record=``) names it so the
    link can be shared or bookmarked."""
    st.session_state[PICK_KEY] = record_id
    write_url(PICK_KEY, "record", record_id)


def _picked(widget_key: str) -> None:
    _open(str(st.session_state[widget_key]))


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
