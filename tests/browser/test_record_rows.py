"""Correct / wrong on the Records table's rows, in the browser: a click on a row's ✗ marks that
record wrong (an edit in its history, the row shows the new status), the open record and the
tab stay; ↺ restores it; ✓ confirms another; a click on a row opens it; keys on a focused row."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, goto, shot, wait_ready

pytestmark = pytest.mark.browser
ROW = "table tbody tr"


def _picker_text(page) -> str:
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Open record").first
    return str(box.evaluate("e => (e.querySelector('input') || {}).value || e.innerText"))


def _row(page, record_id: str):
    return page.locator(f'{ROW}[data-id="{record_id}"]')


def test_row_buttons_mark_wrong_restore_confirm_and_open(built_app: str, page) -> None:
    goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
    rows = page.locator(f'{ROW}[data-status="active"]')
    expect(rows.first).to_be_visible(timeout=60_000)
    opened = _picker_text(page)
    page.get_by_role("tab", name="Mark wrong / delete").click()
    wait_ready(page)

    target = str(rows.nth(2).get_attribute("data-id"))
    assert not opened.startswith(target)
    _row(page, target).get_by_role("button", name=re.compile("^Wrong")).click()
    expect(page.get_by_text(f"Marked {target} as wrong.")).to_be_visible(timeout=60_000)
    wait_ready(page)
    expect(_row(page, target)).to_have_attribute("data-status", "wrong")
    expect(_row(page, target).locator("td.mn-status")).to_have_text("wrong")
    assert _picker_text(page) == opened  # the open record did not change
    expect(page.locator('[role="tab"][aria-selected="true"]').first).to_have_text("Mark wrong / delete")
    shot(page, "records-row-wrong")

    _row(page, target).get_by_role("button", name=re.compile("^Restore")).click()
    expect(page.get_by_text(f"Restored {target}.")).to_be_visible(timeout=60_000)
    wait_ready(page)
    expect(_row(page, target)).to_have_attribute("data-status", "active")

    # a click on the row opens the record; its history holds both edits
    _row(page, target).locator("td").nth(1).click()
    wait_ready(page)
    picker = page.get_by_role("combobox", name="Open record")
    expect(picker).to_have_value(re.compile("^" + re.escape(target)))
    shared = re.compile(r"[?&]record=" + re.escape(quote(target, safe="")) + "(&|$)")
    expect(page).to_have_url(shared)  # the open record is in the URL, to share
    page.get_by_role("tab", name="History").click()
    wait_ready(page)
    history = re.compile("marked wrong in browse: table row|restored in browse: table row")
    expect(page.get_by_text(history).first).to_be_visible()

    # keys on a focused row: c confirms it (confidence 1.00)
    other = str(rows.nth(4).get_attribute("data-id"))
    _row(page, other).focus()
    page.keyboard.press("c")
    expect(page.get_by_text(f"Confirmed {other} as correct.")).to_be_visible(timeout=60_000)
    wait_ready(page)
    expect(_row(page, other).locator("td.mn-conf")).to_have_text("1.00")


def test_more_filters_open_apply_and_stay_applied_when_closed(built_app: str, page) -> None:
    goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
    expect(page.locator(ROW).first).to_be_visible(timeout=60_000)
    assert page.locator(ROW).count() == 50
    expect(page.get_by_text("Rows per page", exact=True)).to_have_count(0)  # not drawn while closed
    page.get_by_text("More filters · sort · rows per page").click()
    expect(page.get_by_text("Rows per page", exact=True)).to_be_visible(timeout=60_000)
    wait_ready(page)
    option = page.get_by_role("option", name="25", exact=True)
    for _ in range(10):  # a rerun that lands just after the click (or before the pick) closes the
        # list: open it again and pick again
        page.locator('[data-testid="stSelectbox"]').filter(has_text="Rows per page").click()
        try:
            option.click(timeout=5_000)
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")  # a list left half-open is closed before the next try
            wait_ready(page)
    wait_ready(page)
    expect(page.locator(ROW)).to_have_count(25, timeout=60_000)
    expect(page.get_by_text("Rows per page", exact=True)).to_be_visible()  # the expander stayed open
    page.get_by_text("More filters · sort · rows per page").click()  # closed: still 25 rows
    wait_ready(page)
    expect(page.get_by_text("More filters set: page size")).to_be_visible(timeout=60_000)
    expect(page.locator(ROW)).to_have_count(25)


def test_a_click_on_a_header_sorts_the_records_and_again_the_other_way(built_app: str, page) -> None:
    goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
    expect(page.locator(ROW).first).to_be_visible(timeout=60_000)
    heads = [str(t).strip() for t in page.locator("table thead th").all_inner_texts()]
    col = heads.index("entity")

    def entities() -> list[str]:
        return [str(t).lower() for t in page.locator(f"{ROW} td:nth-child({col + 1})").all_inner_texts()]

    before = entities()
    assert before != sorted(before), "dialogue order is not alphabetical on the sample"
    head = page.locator("table thead th").nth(col)
    head.get_by_role("button").click()
    wait_ready(page)
    expect(head).to_have_attribute("aria-sort", "ascending", timeout=60_000)
    first = entities()
    assert first == sorted(first)
    head.get_by_role("button").click()
    wait_ready(page)
    expect(head).to_have_attribute("aria-sort", "descending", timeout=60_000)
    second = entities()
    assert second == sorted(second, reverse=True) and second[0] >= first[-1]
