"""The Episodes page's records table sorts by a click on a column's header, in the browser:
ascending, then descending on a second click (numbers by value, empty cells last), the header
says which (``aria-sort``), the entity links stay, and the order is kept for the next episode."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, choose, goto, shot, wait_ready

pytestmark = pytest.mark.browser


def _table(page):
    return page.locator("table").filter(has=page.locator("th", has_text="valid time")).first


def _column(page, index: int) -> list[str]:
    return [t.strip() for t in _table(page).locator(f"tbody tr td:nth-child({index + 1})").all_inner_texts()]


def _numbers(texts: list[str]) -> list[float]:
    return [float(t) for t in texts if t]


def test_clicking_a_header_sorts_the_episode_records(built_app: str, page) -> None:
    goto(page, f"{built_app}/episodes?conv={SAMPLE_ID}")
    table = _table(page)
    expect(table.locator("tbody tr").first).to_be_visible()
    heads = [t.strip() for t in table.locator("th").all_inner_texts()]
    conf, entity, valid = heads.index("confidence"), heads.index("entity"), heads.index("valid time")
    before = _numbers(_column(page, conf))
    assert len(set(before)) > 2 and before != sorted(before), "the first episode's records come unsorted"

    table.locator("th").nth(conf).click()
    expect(table.locator("th").nth(conf)).to_have_attribute("aria-sort", "ascending")
    assert _numbers(_column(page, conf)) == sorted(before)
    table.locator("th").nth(conf).click()
    expect(table.locator("th").nth(conf)).to_have_attribute("aria-sort", "descending")
    assert _numbers(_column(page, conf)) == sorted(before, reverse=True)
    shot(page, "episodes-records-sorted")

    table.locator("th").nth(entity).click()  # text, case-insensitively; links kept
    names = _column(page, entity)
    assert names == sorted(names, key=str.casefold)
    expect(table.locator("th").nth(conf)).to_have_attribute("aria-sort", "none")
    assert table.locator("tbody a.mn-link").count() == len(names)
    table.locator("th").nth(valid).click()  # empty cells last
    table.locator("th").nth(valid).click()
    times = _column(page, valid)
    filled = [t for t in times if t]
    assert filled and times[:len(filled)] == sorted(filled, reverse=True)

    table.locator("th").nth(conf).click()
    table.locator("th").nth(conf).click()  # descending, then another episode: still descending
    choose(page, "Episode", "S1·E2")
    wait_ready(page)
    expect(table.locator("th").nth(conf)).to_have_attribute("aria-sort", "descending")
    after = _numbers(_column(page, conf))
    assert after == sorted(after, reverse=True)
