"""Evaluate rows open their trace: run a small evaluation on the sample in the Evaluate page, click
the "open trace" link of a row of the question table (a link cell drawn on the data grid's
canvas, found the way a user finds it: the pointer turns into a hand over it) and land on the
Ask page with that question's trace shown."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE, SAMPLE_ID, choose, goto, shot, wait_ready

pytestmark = pytest.mark.browser

ROW_HEIGHT = 35  # Streamlit's data grid: header and rows


def _sample_questions() -> set[str]:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    return {str(q["question"]).strip() for conv in data for q in conv.get("qa", [])}


def _question_grid(page):
    """The per-question table: the data grid with "question" and "gold" columns (the grid only
    names the columns on screen: "trace", the last, appears once it is scrolled to)."""
    grids = page.locator('[data-testid="stDataFrame"]')
    for i in range(grids.count()):
        grid = grids.nth(i)
        grid.scroll_into_view_if_needed()
        for _ in range(20):  # the grid writes its accessible table once drawn
            headers = {h.strip() for h in grid.locator('[role="columnheader"]').all_text_contents()}
            if headers:
                break
            page.wait_for_timeout(250)
        if {"question", "gold"} <= headers:
            return grid
    raise AssertionError("no per-question table")


def _find_link(page, grid) -> tuple[float, float]:
    """Scroll the grid to its last column and move the mouse along the first row until the pointer
    is a hand (over the link text); returns that point."""
    grid.scroll_into_view_if_needed()
    grid.hover()
    grid.evaluate("g => { const s = g.querySelector('.dvn-scroller'); if (s) s.scrollLeft = s.scrollWidth; }")
    page.wait_for_timeout(500)
    headers = [h.strip() for h in grid.locator('[role="columnheader"]').all_text_contents()]
    assert headers and headers[-1] == "trace", headers
    canvas = grid.locator('[data-testid="data-grid-canvas"]')
    box = canvas.bounding_box()
    assert box is not None
    y = box["y"] + ROW_HEIGHT + ROW_HEIGHT / 2  # the first row, under the header
    x = box["x"] + box["width"] - 4
    while x > box["x"]:
        page.mouse.move(x, y)
        page.wait_for_timeout(15)
        if canvas.evaluate("c => getComputedStyle(c).cursor") == "pointer":
            return x, y
        x -= 6
    raise AssertionError("no link under the pointer in the first row")


def test_an_evaluation_row_opens_its_trace_on_ask(built_app: str, page) -> None:
    page.set_viewport_size({"width": 1500, "height": 1100})
    goto(page, f"{built_app}/evaluate?conv={SAMPLE_ID}")
    choose(page, "Strategy", "bm25")
    page.get_by_role("button", name="Run evaluation").click()
    expect(page.get_by_role("heading", name=re.compile("Results"))).to_be_visible(timeout=600_000)
    wait_ready(page)
    grid = _question_grid(page)
    headers = [h.strip() for h in grid.locator('[role="columnheader"]').all_text_contents()]
    column = headers.index("question") + 1  # aria-colindex counts from 1
    first_question = (grid.locator(f'[role="gridcell"][aria-colindex="{column}"]').first.text_content()
                      or "").strip()
    shot(page, "evaluate-trace-table")
    x, y = _find_link(page, grid)  # (after the screenshot, which resizes the page)
    with page.context.expect_page() as opened:
        page.mouse.click(x, y)
    ask = opened.value
    ask.set_default_timeout(60_000)
    ask.wait_for_load_state()
    wait_ready(ask)
    assert re.search(r"/ask\?conv=demo-maya-jonas&trace=[0-9a-f]+", ask.url), ask.url
    heading = ask.locator('[data-testid="stMain"] h3').first
    expect(heading).to_be_visible()
    shown = heading.inner_text().strip()
    assert shown in _sample_questions(), shown
    assert shown == first_question  # the trace of the row clicked
    ask.get_by_test_id("stCheckbox").get_by_text("Full trace").click()  # the story view hides the strategy
    wait_ready(ask)
    expect(ask.get_by_text(re.compile(r"Evidence chosen by the bm25 retrieval strategy"))).to_be_visible()
    expect(ask.get_by_text(re.compile("Asked as of"))).to_be_visible()
    shot(ask, "evaluate-trace-landed")
    assert page.dialogs == []
