"""The light HTML table (Home's conversations, Load's preview): every cell escaped, links built
from escaped addresses, numbers right-aligned, no rows a caption."""

from __future__ import annotations

import re

from components.html_table import Cell, table_html
from components.text import esc

HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", '" onmouseover="alert(3)',
           "[x](javascript:alert(4))", "\u202eevil"]


def test_every_cell_is_escaped_and_links_are_data() -> None:
    rows: list[dict[str, Cell]] = [{"id": h, "entity": h, "value": h, "confidence": 0.5} for h in HOSTILE]
    html = table_html(("entity", "value", "confidence"), rows, link_column="entity",
                      href=lambda row: f"/records?record={row['id']}")
    assert "<script" not in html and "<img" not in html and 'onmouseover="' not in html
    assert "\u202e" not in html
    assert html.count("<tr>") == 1 + len(HOSTILE)
    assert html.count('<a class="mn-link" href=') == len(HOSTILE)
    assert "0.50" in html


def test_the_table_takes_its_colours_from_the_text_colour() -> None:
    """st.html gets none of the --st-* theme properties: no fixed grey that is dark on dark."""
    html = table_html(("entity",), [{"entity": "x"}])
    assert "currentColor" in html
    for fixed in ("#495057", "#dee2e6", "#f1f3f5"):
        assert fixed not in html


def test_header_hints_are_escaped_tooltips_and_long_cells_may_break_inside_a_word() -> None:
    hostile = '"><script>alert(5)</script>'
    html = table_html(("record", "turn"), [{"record": "x" * 200, "turn": "D1:14"}],
                      hints={"record": hostile}, long=("record",))
    assert "<script" not in html and f'title="{esc(hostile)}"' in html
    cells = {text: style for style, text in re.findall(r'<td style="([^"]*)">([^<]*)</td>', html)}
    assert "overflow-wrap:anywhere" in cells["x" * 200]  # a long run of letters cannot widen the table
    assert "overflow-wrap:break-word" in cells["D1:14"]  # a short code keeps its characters together
