"""The sortable table (an episode's records): rows travel as JSON data with their sort keys,
numbers stay numbers, text is bidi-defused, links are relative addresses, and the browser
script writes cells as text only."""

from __future__ import annotations

import json

from components import sort_table
from components.html_table import Cell
from tests.app.conftest import HOSTILE_ID, SAMPLE_ID, no_errors

HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", '" onmouseover="alert(3)',
           "[x](javascript:alert(4))", "\u202eevil"]


def _tables(at) -> list[dict]:
    return [json.loads(c.proto.json) for c in at.get("bidi_component")
            if "mnemoscope.sort_table" in c.proto.component_name]


def test_payload_keeps_numbers_and_text_apart() -> None:
    rows: list[dict[str, Cell]] = [{"id": "r1", "entity": "Maya", "confidence": 0.9, "valid time": None},
            {"id": "r2", "entity": "jonas", "confidence": 0.4, "valid time": "2023-02-28"}]
    data = sort_table.payload(("entity", "valid time", "confidence"), rows, link_column="entity",
                              href=lambda row: f"records?record={row['id']}")
    assert data["numeric"] == [False, False, True]
    assert data["link"] == 0
    assert [r["cells"] for r in data["rows"]] == [["Maya", "", "0.90"], ["jonas", "2023-02-28", "0.40"]]
    assert [r["keys"] for r in data["rows"]] == [["maya", "", 0.9], ["jonas", "2023-02-28", 0.4]]
    assert [r["href"] for r in data["rows"]] == ["records?record=r1", "records?record=r2"]


def test_hostile_text_is_data_and_the_script_writes_text_only() -> None:
    rows = [{"entity": h, "value": h} for h in HOSTILE]
    data = sort_table.payload(("entity", "value"), rows)
    assert json.loads(json.dumps(data)) == data
    assert all("\u202e" not in cell for r in data["rows"] for cell in r["cells"])
    js = sort_table._JS.read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in js, f"the table script uses {sink}"
    assert "textContent" in js and "SAFE_HREF.test(row.href)" in js


def test_episodes_draw_their_records_in_the_sortable_table(open_app) -> None:
    at = open_app("pages/episodes.py", conv=SAMPLE_ID)
    no_errors(at)
    (data,) = _tables(at)
    assert data["columns"] == ["entity", "property", "value", "modality", "valid time", "confidence"]
    assert data["rows"] and data["numeric"][-1] is True
    assert all(r["href"].startswith("records?") for r in data["rows"])
    assert not [h for h in at.get("html") if 'class="mn-table"' in h.proto.body]  # no st.html copy


def test_hostile_episode_records_travel_as_data(open_app) -> None:
    at = open_app("pages/episodes.py", conv=HOSTILE_ID)
    no_errors(at)
    tables = _tables(at)
    if not tables:
        assert "No records in this episode." in [c.value for c in at.caption]
        return
    for r in tables[0]["rows"]:
        assert r["href"].startswith("records?")
        assert all("\u202e" not in cell for cell in r["cells"])
