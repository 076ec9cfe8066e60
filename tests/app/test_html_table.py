"""The light HTML table (Episodes' records, Load's preview): every cell escaped, links built
from escaped addresses, numbers right-aligned, no rows a caption."""

from __future__ import annotations

from components.html_table import table_html
from tests.app.conftest import HOSTILE_ID, html_bodies, no_errors

HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", '" onmouseover="alert(3)',
           "[x](javascript:alert(4))", "\u202eevil"]


def test_every_cell_is_escaped_and_links_are_data() -> None:
    rows = [{"id": h, "entity": h, "value": h, "confidence": 0.5} for h in HOSTILE]
    html = table_html(("entity", "value", "confidence"), rows, link_column="entity",
                      href=lambda row: f"/records?record={row['id']}")
    assert "<script" not in html and "<img" not in html and 'onmouseover="' not in html
    assert "\u202e" not in html
    assert html.count("<tr>") == 1 + len(HOSTILE)
    assert html.count('<a class="mn-link" href=') == len(HOSTILE)
    assert "0.50" in html


def test_hostile_episode_records_show_as_text(open_app) -> None:
    at = open_app("pages/episodes.py", conv=HOSTILE_ID)
    no_errors(at)
    body = html_bodies(at)
    assert 'class="mn-table"' in body or "No records in this episode." in [c.value for c in at.caption]
    table = next((h.proto.body for h in at.get("html") if 'class="mn-table"' in h.proto.body), "")
    assert "<script" not in table and "<img" not in table
