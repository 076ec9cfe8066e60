"""Text that fits its box at 1440x900 and 1024x768 (what a look at every page found cut):
Home's conversations table needs no sideways scroll (its minor counts step aside in a narrow
window), the Records table's headers are whole ("confidence", not "confiden…"), "Memory as
of" stays on one line above a date box wide enough for its date, and the open record's
Correct / Wrong buttons and the pager's Previous / Next show their whole labels. A long record
value wraps in the Records table (three lines at most, the open row's in full) instead of
ending in "…", and Ask's full trace lists a requirement's matches and the chosen episodes in
tables that fit the main column, long cells wrapped."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, goto, shot, wait_ready

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


# a cell's text box: the wrapping <div> where there is one, else the cell itself
_TEXT_BOX = "td => td.querySelector('.mn-text') || td"
_LINES = ("e => { const s = getComputedStyle(e); return [e.scrollWidth, e.clientWidth, e.scrollHeight,"
          " e.clientHeight, parseFloat(s.lineHeight) || 1.2 * parseFloat(s.fontSize)]; }")
_VALUE = ".mn-rows tbody tr td:nth-child(5)"  # ✓/✗, entity, type (hidden when narrow), property, value


def test_a_long_record_value_wraps_instead_of_being_cut(built_app: str, sized) -> None:
    """No value in the table is cut sideways: each wraps onto at most three lines, and the open
    row (a click on it) shows its value whole — the longest one on the page included."""
    page, size = sized
    goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
    expect(page.locator(".mn-rows tbody tr").first).to_be_visible()
    table = page.locator(".mn-rows")
    scroll, client = table.evaluate(_WIDTHS)
    assert scroll <= client + 1, f"{size}: the table is {scroll} px wide in a {client} px box"
    values = page.locator(_VALUE)
    texts = [t.strip() for t in values.all_inner_texts()]
    for i, text in enumerate(texts):
        wide, box, tall, high, line = values.nth(i).evaluate(f"td => ({_LINES})(({_TEXT_BOX})(td))")
        assert wide <= box + 1, f"{size}: '{text}' is cut sideways ({wide} px in {box})"
        assert high <= 3 * line + 2, f"{size}: '{text}' takes {high / line:.1f} lines"
    longest = max(range(len(texts)), key=lambda i: len(texts[i]))
    row = page.locator(".mn-rows tbody tr").nth(longest)
    record_id = row.get_attribute("data-id")
    values.nth(longest).click()  # opens the record: its row is selected
    wait_ready(page)
    opened = page.locator(f'.mn-rows tbody tr.mn-selected[data-id="{record_id}"] td:nth-child(5)')
    expect(opened).to_be_visible()
    wide, box, tall, high, line = opened.evaluate(f"td => ({_LINES})(({_TEXT_BOX})(td))")
    assert wide <= box + 1 and tall <= high + 1, f"{size}: the open '{texts[longest]}' is cut"
    assert high > 1.5 * line, f"{size}: the longest value ('{texts[longest]}') fits one line: no test"
    assert opened.inner_text().strip() == texts[longest]


# the trace's tables: our HTML tables, or a data grid's scroller (st.dataframe, drawn late)
_TABLES = "[data-testid=\"stMain\"] .mn-table, [data-testid=\"stDataFrame\"] .dvn-scroller"


def test_the_full_traces_tables_need_no_sideways_scroll(built_app: str, sized) -> None:
    """Ask's full trace: a requirement's matches (how, score, components, record, turn,
    episode) and the episodes chosen fit the main column, their headers say what they mean."""
    page, size = sized
    goto(page, f"{built_app}/ask?conv={SAMPLE_ID}")
    page.get_by_label("Question").fill("Where did Jonas adopt Pepper from?")  # long matched records
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator(".mn-answer")).to_be_visible(timeout=120_000)
    wait_ready(page)
    page.get_by_test_id("stCheckbox").get_by_text("Full trace", exact=True).click()
    wait_ready(page)
    expect(page.get_by_text("Episodes chosen", exact=True)).to_be_visible()
    page.wait_for_function(f"() => document.querySelectorAll('{_TABLES}').length >= 2")
    boxes = page.locator(_TABLES).evaluate_all("es => es.map(e => [e.scrollWidth, e.clientWidth])")
    wide = [b for b in boxes if b[0] > b[1] + 1]
    assert not wide, f"{size}: tables wider than their box (needs, has): {wide}"
    matches = page.locator(".mn-table").filter(has=page.locator("th", has_text="components"))
    expect(matches).to_be_visible()
    headers = [h.strip() for h in matches.locator("th").all_inner_texts()]
    assert headers == ["how", "score", "components", "record", "turn", "episode"], headers
    assert "matched by words" in (matches.locator("th", has_text="how").get_attribute("title") or "")
    records = [t.strip() for t in matches.locator("td:nth-child(4)").all_inner_texts() if t.strip()]
    assert any(" · " in r and " = " in r for r in records), records  # entity · property = value
    main = page.get_by_test_id("stMain").evaluate(_WIDTHS)
    assert main[0] <= main[1] + 1, f"{size}: the page scrolls sideways {main}"
    shot(page, f"ask-full-trace-{size[0]}x{size[1]}")
