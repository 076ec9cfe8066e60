"""Nothing leaves the machine: every request the browser makes while a user walks through all
pages (graphs drawn, a question asked) goes to the app's own host.

Page icons and the favicon are emoji (Streamlit draws an emoji favicon as an inline ``data:``
SVG); a ``:material/…:`` page icon would make the browser fetch the favicon from
``fonts.gstatic.com``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, goto, shot, wait_ready

pytestmark = pytest.mark.browser
PAGES = ["", "load", "episodes", "records", "graphs", "ask", "evaluate", "history", "settings"]
LOCAL_SCHEMES = ("data", "blob", "about", "chrome-extension")


def test_a_walk_through_every_page_stays_on_the_apps_host(built_app: str, page) -> None:
    own = urlsplit(built_app).netloc
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url))
    for path in PAGES:
        goto(page, f"{built_app}/{path}?conv={SAMPLE_ID}")
    # the graph page draws inside an iframe/component: wait for its canvas so its scripts ran
    goto(page, f"{built_app}/graphs?conv={SAMPLE_ID}")
    expect(page.locator("canvas").first).to_be_visible(timeout=60_000)
    goto(page, f"{built_app}/ask?conv={SAMPLE_ID}")
    page.get_by_label("Question").fill("Where does Maya's sister live?")
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator(".mn-answer")).to_be_visible(timeout=120_000)
    wait_ready(page)
    shot(page, "offline-walk-ask")
    favicon = page.evaluate("() => document.querySelector(\"link[rel='shortcut icon']\")?.href || ''")
    assert favicon.startswith(("data:", built_app)), favicon
    foreign = sorted({u for u in seen if urlsplit(u).scheme not in LOCAL_SCHEMES
                      and urlsplit(u).netloc != own})
    assert foreign == [], f"requests left the machine: {foreign[:10]}"
    assert len(seen) > 20  # the listener saw the walk


def test_config_turns_the_file_watcher_off() -> None:
    import tomllib
    from pathlib import Path

    config = tomllib.loads((Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none"
