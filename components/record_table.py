"""The Records page's table: one page of records (server-side pagination) with correct / wrong
on every row, a header click to sort, row selection, and the "Open record" box.

Paging happens in the service (one page of rows per query), so the table stays fast with
tens of thousands of records; the filters above it live in ``components.record_filters``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache, partial
from pathlib import Path
from typing import Any

import streamlit as st

from components import pager, review
from components.data import records_frame_rows
from components.record_filters import CHANGED_KEY, HEADER_SORT, PAGE_KEY, sort_by_header
from components.state import query_param, sync_pick, write_url
from components.text import shorten
from memory_core.models import Record
from memory_core.services import MemoryServices

PICK_KEY = "record_pick"

def current_page() -> int:
    return pager.current(PAGE_KEY)


def pager_row(total: int, page_size: int) -> None:
    pager.draw(PAGE_KEY, total, page_size, lambda p, n: f"Page {p} of {n} · {total} matching records")


ROWS_KEY = "records_rows"
# (column, css classes): mn-p3 columns hide when the table is under 1100 px wide, mn-p2 ones
# under 800 px (the open record below shows every field), so the table never needs a sideways
# scroll (1440 x 900: 980 px; 1024 x 768: 560 px); mn-w* fix a column's width, the rest share;
# names (mn-name) and free text (mn-long) wrap onto up to three lines, the open row's in full
COLUMNS = (("entity", "mn-name"), ("type", "mn-dim mn-p3 mn-w5"), ("property", "mn-name"),
           ("value", "mn-long"), ("condition", "mn-long mn-p3"), ("modality", "mn-dim mn-p2 mn-w6"),
           ("valid time", "mn-dim mn-p2 mn-w6"), ("confidence", "mn-conf mn-w7"),
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
.mn-rows th.mn-w5 { width: 4.2rem; } .mn-rows th.mn-w6 { width: 5.2rem; }
.mn-rows th.mn-w7 { width: 6rem; }
.mn-rows th.mn-verdict { width: 4.9rem; } .mn-rows th.mn-name { width: 10%; }
@container mn-rows (max-width: 1100px) {
  .mn-rows .mn-p3 { display: none; } .mn-rows th.mn-name { width: 12%; } }
@container mn-rows (max-width: 800px) {
  .mn-rows .mn-p2 { display: none; } .mn-rows th.mn-name { width: 12%; } }
.mn-rows th { position: sticky; top: 0; background: var(--mn-head); text-align: left; font-weight: 600;
  color: color-mix(in srgb, var(--mn-fg) 80%, transparent); padding: 6px 8px;
  border-bottom: 1px solid var(--mn-line); z-index: 1; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
.mn-rows td { padding: 4px 8px; border-bottom: 1px solid color-mix(in srgb, var(--mn-line) 40%, transparent);
  vertical-align: top; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.mn-rows td.mn-name, .mn-rows td.mn-long { white-space: normal; }
.mn-rows .mn-text { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 3;
  line-clamp: 3; overflow: hidden; overflow-wrap: anywhere; }
.mn-rows tr.mn-selected .mn-text { display: block; -webkit-line-clamp: none; line-clamp: none; }
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
.mn-rows .mn-bar { position: absolute; left: 0; top: 5px; height: 1.1rem;
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


def row_payload(rows: Sequence[Record], labels: dict[str, str], superseded: dict[str, str],
                names: dict[str, Record], selected: str | None, sort: str = "episode") -> dict[str, Any]:
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


def _row_action(svc: MemoryServices, conv: str) -> None:
    """A click in the table (a widget callback, before the rerun): open the row's record, or
    confirm / mark wrong / restore it through the same curation calls as the review buttons."""
    state: object = st.session_state.get(ROWS_KEY)
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
        review.act(svc, conv, record_id, str(kind), int(value.get("version") or 0), review.VIA_TABLE)


def table(rows: Sequence[Record], labels: dict[str, str], *, svc: MemoryServices, conv: str,
          superseded: dict[str, str] | None = None, names: dict[str, Record] | None = None,
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


def _newer(record_id: str | None, names: dict[str, Record]) -> str:
    if record_id is None:
        return ""
    r = names.get(record_id)
    return f"{shorten(r.value, 40)} ({record_id})" if r is not None else record_id



def _open(record_id: str) -> None:
    """Open a record: the "Open record" box follows, and the URL (``?record=``) names it so the
    link can be shared or bookmarked."""
    st.session_state[PICK_KEY] = record_id
    write_url(PICK_KEY, "record", record_id)


PIN_KEY = review.PIN_KEY


def open_ids(listed: list[str]) -> tuple[list[str], str | None]:
    """The records the "Open record" box may show — those listed in the table — and the one
    pinned, if any: a record named by a link (``?record=``) or opened from the review queue
    that the current results do not list stays open, pinned (the page says so), until the
    search or filters change or it is unpinned. Nothing else outside the results is shown:
    the box moves to a listed record and the URL follows."""
    wanted = query_param("record")
    changed = bool(st.session_state.get(CHANGED_KEY))
    followed = wanted != st.session_state.get(f"{PICK_KEY}__url")  # a link, not our own write
    kept = followed or st.session_state.get(PIN_KEY) == wanted
    pinned = wanted if wanted and wanted not in listed and not changed and kept else None
    st.session_state[PIN_KEY] = pinned
    if wanted and wanted not in listed and pinned is None:
        st.query_params.pop("record", None)
        st.session_state[f"{PICK_KEY}__url"] = None
    return ([pinned] if pinned else []) + listed, pinned


def unpin(record_id: str) -> None:
    """Close a pinned record (a widget callback): the box goes back to the listed records."""
    if st.session_state.get(PIN_KEY) == record_id:
        st.session_state[PIN_KEY] = None
    if st.query_params.get("record") == record_id:
        st.query_params.pop("record", None)
    st.session_state[f"{PICK_KEY}__url"] = None
    st.session_state.pop(PICK_KEY, None)


def pinned_note(record_id: str) -> None:
    """Say plainly that the open record is not one of the listed results, with a way out."""
    c = st.columns([5, 1])
    c[0].info(f"Pinned: {record_id} is not among the records listed above (a link or the review "
              "queue opened it); the buttons below act on it.", icon=":material/push_pin:")
    c[1].button(f"Unpin {record_id}", key=f"unpin:{record_id}", on_click=unpin, args=(record_id,))


def _picked(widget_key: str) -> None:
    _open(str(st.session_state[widget_key]))


def picker(ids: list[str], by_id: dict[str, Record], picked: str | None, wanted: str | None) -> str:
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
