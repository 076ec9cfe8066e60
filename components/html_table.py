"""A small static table drawn as escaped HTML: for short lists (an episode's records, a file
preview's conversations) where ``st.dataframe`` would make the browser load and run its data
grid (about 1.3 MB of script and a canvas) on every visit to the page.

Every cell is escaped (``components.text.esc``); the only literal markup is our own tags and
constant inline styles. ``render`` passes the result to ``st.html`` (sanitised once more by
DOMPurify, no scripts).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import date, datetime

import streamlit as st

from components.text import esc

_TABLE = "width:100%;border-collapse:collapse;font-size:0.85rem;line-height:1.35"
# Colours from the text colour the page gives the table (st.html content gets none of the
# --st-* properties a v2 component has), so the table reads in the light and the dark theme.
_HEAD = ("text-align:left;font-weight:600;color:color-mix(in srgb,currentColor 80%,transparent);"
         "border-bottom:2px solid color-mix(in srgb,currentColor 20%,transparent);padding:3px 6px")
_CELL = ("border-bottom:1px solid color-mix(in srgb,currentColor 8%,transparent);padding:3px 6px;"
         "vertical-align:top;overflow-wrap:break-word")
_NUM = _CELL + ";text-align:right;white-space:nowrap"
# a cell of long text: it may break inside a word, so an unbroken run of letters (an address, an
# id) cannot widen the table; the other cells keep their words whole (``D1:14``, not ``D1:1 4``)
_LONG = _CELL.replace("break-word", "anywhere")
NARROW_PX = 640  # under this width a table drops its ``narrow`` columns (the @container rule in theme.CSS)
_HEAD_NUM = _HEAD.replace("text-align:left", "text-align:right")  # over a column of numbers
_HINTED = "cursor:help;border-bottom:1px dotted color-mix(in srgb,currentColor 50%,transparent)"

_SPACES = re.compile(r"[^\S\u00a0]+")  # a run of white space, a no-break space aside

Cell = str | int | float | bool | date | datetime | None
"""What a table cell holds (here and in ``sort_table``): text, a number, a flag, a day or a time."""
Row = Mapping[str, Cell]
Href = Callable[[Row], str]  # a row's link address


def is_number(value: Cell) -> bool:
    """A number that sorts and aligns as one (a flag is not)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def cell_text(value: Cell) -> str:
    """A cell as one line of text (floats with two decimals); a no-break space stays one, so a
    cell can keep a name with its figure (``dense\u00a00.47``) when it wraps."""
    if isinstance(value, float):
        return f"{value:.2f}"
    return "" if value is None else _SPACES.sub(" ", str(value)).strip(" ")


def _head(column: str, numeric: bool, hide: str, hint: str | None) -> str:
    style = _HEAD_NUM if numeric else _HEAD
    if hint is None:
        return f'<th{hide} style="{style}">{esc(column)}</th>'
    return (f'<th{hide} style="{style}" title="{esc(hint)}"><span style="{_HINTED}">{esc(column)}</span>'
            "</th>")


def table_html(columns: Sequence[str], rows: Sequence[Row], *, link_column: str | None = None,
               href: Href | None = None, max_height: int = 420, narrow: Collection[str] = (),
               hints: Mapping[str, str] | None = None, long: Collection[str] = ()) -> str:
    """``rows`` (dicts) as a table of ``columns``; with ``link_column`` and ``href`` that column's
    cells are links (``href(row)``). Scrolls beyond ``max_height`` pixels. Cells wrap at spaces;
    the ``long`` columns' cells (free text) also break inside a word when they must, so the table
    fits its column whatever their text. The ``narrow`` columns hide while the table is under
    ``NARROW_PX`` wide (``theme.CSS``), so a narrow window gets no sideways scroll. ``hints``
    (column -> text) are the headers' tooltips, their names dotted-underlined."""
    numeric = {c for c in columns if rows and all(is_number(r.get(c)) for r in rows)}
    hide = {c: ' class="mn-wide"' if c in narrow else "" for c in columns}
    head = "".join(_head(c, c in numeric, hide[c], (hints or {}).get(c)) for c in columns)
    body = []
    for row in rows:
        cells = []
        for c in columns:
            value = row.get(c)
            style = _NUM if is_number(value) else _LONG if c in long else _CELL
            text = esc(cell_text(value))
            if c == link_column and href is not None:
                text = f'<a class="mn-link" href="{esc(href(row))}">{text}</a>'
            cells.append(f'<td{hide[c]} style="{style}">{text}</td>')
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<div class="mn-table" style="max-height:{int(max_height)}px;overflow:auto">'
            f'<table style="{_TABLE}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def render(columns: Sequence[str], rows: Sequence[Row], *, empty: str = "Nothing to show.",
           link_column: str | None = None, href: Href | None = None, max_height: int = 420,
           narrow: Collection[str] = (), hints: Mapping[str, str] | None = None,
           long: Collection[str] = ()) -> None:
    """Draw the table (see ``table_html``); no rows shows ``empty`` as a caption."""
    if not rows:
        st.caption(empty)
        return
    st.html(table_html(columns, rows, link_column=link_column, href=href, max_height=max_height,
                       narrow=narrow, hints=hints, long=long))
