"""Text that fits its box at 1440x900 and 1024x768 (what a look at every page found cut):
Home's conversations table needs no sideways scroll (its minor counts step aside in a narrow
window), the Records table's headers are whole ("confidence", not "confiden…"), "Memory as
of" stays on one line above a date box wide enough for its date, and the open record's
Correct / Wrong buttons and the pager's Previous / Next show their whole labels."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, goto, wait_ready

pytestmark = pytest.mark.browser
SIZES = [(1440, 900), (1024, 768)]
# [scrollWidth, clientWidth] of an element: wider content than box means text cut or a scrollbar
_WIDTHS = "e => [e.scrollWidth, e.clientWidth]"


@pytest.fixture(params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def sized(request: pytest.FixtureRequest, chromium) -> Iterator[tuple[object, tuple[int, int]]]:
    width, height = request.param
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page, request.param
    context.close()


def test_home_conversations_table_needs_no_sideways_scroll(built_app: str, sized) -> None:
    page, size = sized
    goto(page, f"{built_app}/?conv={SAMPLE_ID}")
    box = page.locator(".mn-table").first
    expect(box).to_be_visible()
    scroll, client = box.evaluate(_WIDTHS)
    assert scroll <= client + 1, f"{size}: the table is {scroll} px wide in a {client} px box"
    headers = [h.strip() for h in box.locator("th").all_inner_texts() if h.strip()]
    assert {"conversation", "sessions", "turns", "episodes", "records", "memory"} <= set(headers), headers
    if size[0] >= 1440:  # room for every column
        assert {"questions", "entities", "events", "format"} <= set(headers), headers


def test_records_headers_and_buttons_are_whole(built_app: str, sized) -> None:
    page, size = sized
    goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
    expect(page.locator(".mn-rows tbody tr").first).to_be_visible()
    for sort in (None, "confidence"):  # a sort adds an arrow to its header
        if sort is not None:
            page.locator(".mn-rows th button.mn-sort", has_text=sort).click()
            wait_ready(page)
            expect(page.locator(".mn-rows th", has_text=sort)).to_contain_text(re.compile("[▲▼]"))
        cut = [(th.inner_text().strip(), *th.evaluate(_WIDTHS)) for th in page.locator(".mn-rows th").all()
               if th.is_visible()]
        cut = [c for c in cut if c[1] > c[2] + 1]
        assert not cut, f"{size}, sorted by {sort or 'default'}: headers cut (text, needs, has): {cut}"
    # "Memory as of" on one line, like its neighbour "Entity"
    labels = page.get_by_test_id("stWidgetLabel")
    as_of = labels.filter(has_text="Memory as of").first.bounding_box()
    entity = labels.filter(has_text="Entity").first.bounding_box()
    assert as_of and entity and as_of["height"] <= entity["height"] + 2, f"{size}: {as_of} vs {entity}"
    date_box = page.get_by_role("textbox", name="Memory as of")
    date_box.fill("2023-03-15")
    scroll, client = date_box.evaluate(_WIDTHS)
    assert scroll <= client + 1, f"{size}: the date needs {scroll} px in a {client} px box"
    date_box.fill("")
    # the open record's quick buttons (the first record opens with the page)
    for name in ("◀ Previous", "Next ▶", "✓ Correct", "✗ Wrong"):
        button = page.get_by_role("button", name=name).first
        expect(button).to_be_visible()
        text = button.locator("p").first
        scroll, client = text.evaluate(_WIDTHS)
        assert scroll <= client + 1, f"{size}: '{text.inner_text()}' needs {scroll} px, has {client}"


def test_the_graph_canvas_keeps_room_on_a_small_screen(built_app: str, sized) -> None:
    """At 1024 px with the sidebar open, the page's wide margins go to the canvas: it stays
    wide enough for a readable graph (it was 330 px), and its top is on screen."""
    page, size = sized
    goto(page, f"{built_app}/graphs?conv={SAMPLE_ID}")
    page.wait_for_function("() => globalThis.mnGraphs && globalThis.mnGraphs.entity"
                           " && globalThis.mnGraphs.entity.stats.drawnMs !== null", timeout=60_000)
    box = page.evaluate("() => { const r = globalThis.mnGraphs.entity.network.body.container"
                        ".getBoundingClientRect(); return [r.width, r.top]; }")
    assert box[0] >= 390, f"{size}: the canvas is {box[0]:.0f} px wide"
    assert box[1] < size[1] * 0.6, f"{size}: the canvas starts {box[1]:.0f} px down a {size[1]} px window"
