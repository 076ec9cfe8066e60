"""Annotating in the browser: the record picker's label shows the saved value right after
"Save", and the tab the annotator is in survives an action."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, goto, wait_ready

pytestmark = pytest.mark.browser


def _picker_text(page) -> str:
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Open record").first
    return str(box.evaluate("e => (e.querySelector('input') || {}).value || e.innerText"))


def test_save_refreshes_the_picker_and_the_tab_survives_actions(built_app: str, page) -> None:
    goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
    form = page.locator('[data-testid="stForm"]').first
    for value in ("first saved value", "second saved value"):  # the second save is the one that went stale
        form.get_by_label("Value", exact=True).fill(value)
        form.get_by_role("button", name="Save changes").click()
        expect(page.get_by_text(re.compile(r"^Saved value of"))).to_be_visible(timeout=60_000)
        wait_ready(page)
        # the first save's message is still up while the second save's rerun starts: wait for the
        # label instead of reading it at once (it must change within the timeout, or the test fails)
        deadline = time.monotonic() + 30
        while not _picker_text(page).endswith(f"= {value}") and time.monotonic() < deadline:
            page.wait_for_timeout(250)
        assert _picker_text(page).endswith(f"= {value}"), _picker_text(page)
    page.get_by_role("tab", name="Mark wrong / delete").click()
    page.get_by_label("Reason").fill("browser tab test")
    page.get_by_role("button", name=re.compile(r"^Mark \S+ as wrong$")).click()
    expect(page.get_by_text(re.compile(r"^Marked .* as wrong"))).to_be_visible(timeout=60_000)
    wait_ready(page)
    expect(page.locator('[role="tab"][aria-selected="true"]').first).to_have_text("Mark wrong / delete")
