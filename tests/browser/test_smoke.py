"""Open the running app in headless Chromium and see the sample conversation listed."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, shot, wait_ready

pytestmark = pytest.mark.browser


def test_home_lists_the_sample(fresh_app: str, page) -> None:
    page.goto(fresh_app)
    wait_ready(page)
    expect(page.get_by_role("heading", name="Mnemoscope")).to_be_visible()
    expect(page.get_by_text(SAMPLE_ID).first).to_be_visible()
    # the conversation table is drawn, its id a link that opens the conversation, and the URL
    # carries the conversation
    expect(page.locator(".mn-table a.mn-link", has_text=SAMPLE_ID).first).to_be_visible()
    page.wait_for_url(f"**/?conv={SAMPLE_ID}")
    shot(page, "home")
    assert page.dialogs == []
