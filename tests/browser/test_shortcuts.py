"""The review queue's keyboard shortcuts in a real browser: "n" moves to the next record, and a
letter typed into a text field is text, not a shortcut."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, goto, shot, wait_ready

pytestmark = pytest.mark.browser


def _head(page) -> str:
    return str(page.locator('[data-testid="stHeading"] h3').first.inner_text()).strip()


def test_n_moves_the_review_queue_to_the_next_record(built_app: str, page) -> None:
    goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
    page.get_by_role("radio", name="Review queue").click()
    expect(page.get_by_text("records to review", exact=False).first).to_be_visible(timeout=60_000)
    wait_ready(page)
    first = _head(page)
    assert " · " in first and " = " in first, first
    page.locator("h1").first.click()  # focus the page (its title), not a field
    page.keyboard.press("n")
    expect(page.locator('[data-testid="stHeading"] h3').first).not_to_have_text(first, timeout=60_000)
    wait_ready(page)
    second = _head(page)
    assert second != first
    shot(page, "review_queue_after_n")
    field = page.locator('[data-testid="stTextInput"] input, textarea').first
    if field.count():
        field.click()
        page.keyboard.press("n")  # typed into the field: the queue stays where it is
        page.wait_for_timeout(1500)
        wait_ready(page)
        assert _head(page) == second
