"""A small table whose columns sort by a click on their header (in the browser, no rerun): a
Streamlit custom component (v2) for short lists a reader wants to reorder, such as an
episode's records.

It is the light alternative to ``st.dataframe`` (whose data grid is about 1.3 MB of script and a
canvas) where ``components.html_table`` (``st.html``, no script allowed) cannot sort. The rows
travel as JSON data; components/assets/sort_table.js writes every cell with ``textContent`` and
sets only relative links, so conversation text cannot become markup. Cells are bidi-defused here.

Sorting: a click on a header sorts by that column ascending, a second click descending (numbers
by value, text case-insensitively, empty cells last); the header's ``aria-sort`` says which.
The order is kept while the component stays on the page (another episode keeps its sort).
Colours follow Streamlit's theme (the ``--st-*`` custom properties a v2 component receives).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import streamlit as st

from components.html_table import Cell, Href, Row, cell_text, is_number
from components.text import defuse_bidi

_JS = Path(__file__).resolve().parent / "assets" / "sort_table.js"
_CSS = """
.mn-st {
  --mn-fg: var(--st-text-color, #31333f);
  --mn-head: var(--st-background-color, #ffffff);
  --mn-line: var(--st-border-color, rgba(49, 51, 63, 0.2));
  --mn-accent: var(--st-primary-color, #3b5bdb);
  overflow: auto; color: var(--mn-fg); font-family: var(--st-font, sans-serif); }
.mn-st table { width: 100%; border-collapse: collapse; font-size: 0.85rem; line-height: 1.35; }
.mn-st th { position: sticky; top: 0; background: var(--mn-head); text-align: left; padding: 0;
  border-bottom: 2px solid var(--mn-line); z-index: 1; }
.mn-st th button { all: unset; box-sizing: border-box; display: block; width: 100%; padding: 3px 6px;
  cursor: pointer; font-weight: 600; color: color-mix(in srgb, var(--mn-fg) 80%, transparent); }
.mn-st th button:hover { color: var(--mn-fg); }
.mn-st th button:focus-visible { outline: 2px solid var(--mn-accent); outline-offset: -2px; }
.mn-st th .mn-arrow { display: inline-block; width: 1em; color: var(--mn-accent); }
.mn-st td { border-bottom: 1px solid color-mix(in srgb, var(--mn-line) 40%, transparent); padding: 3px 6px;
  vertical-align: top; overflow-wrap: break-word; }
.mn-st td.mn-num { text-align: right; white-space: nowrap; }
.mn-st a { color: inherit; text-decoration: none;
  border-bottom: 1px dotted color-mix(in srgb, var(--mn-fg) 50%, transparent); }
.mn-st a:hover { color: var(--mn-accent); border-bottom-color: var(--mn-accent); }
"""


@cache
def _component() -> Any:
    """Registered on first use (inside a script run), once per process."""
    return st.components.v2.component("mnemoscope.sort_table", html='<div class="mn-st"></div>',
                                      css=_CSS, js=_JS.read_text(encoding="utf-8"))


def payload(columns: Sequence[str], rows: Sequence[Row], *, link_column: str | None = None,
            href: Href | None = None, max_height: int = 420) -> dict[str, Any]:
    """Plain JSON data: each row's cells as text, its sort keys (numbers stay numbers) and the
    address of its ``link_column`` cell (``href(row)``)."""
    out = []
    for row in rows:
        cells = [defuse_bidi(cell_text(row.get(c))) for c in columns]
        keys: list[Cell] = [row[c] if is_number(row.get(c)) else text.casefold()
                for c, text in zip(columns, cells, strict=True)]
        link = href(row) if link_column is not None and href is not None else None
        out.append({"cells": cells, "keys": keys, "href": link})
    numeric = [bool(rows) and all(is_number(r.get(c)) or r.get(c) is None for r in rows) for c in columns]
    return {"columns": list(columns), "numeric": numeric, "rows": out, "maxHeight": int(max_height),
            "link": list(columns).index(link_column) if link_column is not None and link_column in columns
            else None}


def render(columns: Sequence[str], rows: Sequence[Row], *, key: str, empty: str = "Nothing to show.",
           link_column: str | None = None, href: Href | None = None, max_height: int = 420) -> None:
    """Draw the table (see ``payload`` for ``link_column``, ``href``, ``max_height``); no rows
    shows ``empty`` as a caption."""
    if not rows:
        st.caption(empty)
        return
    _component()(key=key, data=payload(columns, rows, link_column=link_column, href=href,
                                       max_height=max_height))
