"""Deep links on a fresh server: the first request for /records must go through the frame
(Streamlit's legacy pages/ discovery would otherwise run the page file on its own)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import HOSTILE, cli, goto, serve

pytestmark = pytest.mark.browser
HOSTILE_ID = "hostile-demo"
PATHS = {"records": "Records", "ask": "Ask", "episodes": "Episodes", "graphs": "Graphs",
         "load": "Load & build", "evaluate": "Evaluate", "history": "History", "settings": "Settings",
         "": "Mnemoscope"}


@pytest.fixture(scope="module")
def nav_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("nav") / "home"
    cli(home, "import", str(HOSTILE))
    with serve(home, tmp_path_factory.mktemp("logs") / "nav.log") as url:
        yield url


def test_first_request_deep_link_goes_through_the_frame(nav_app: str, page) -> None:
    goto(page, f"{nav_app}/records?conv={HOSTILE_ID}")
    expect(page.get_by_role("heading", name="Records", exact=True)).to_be_visible()
    sidebar = page.locator('[data-testid="stSidebar"]')
    # the frame's navigation (our titles), not the legacy file-name list
    expect(sidebar.get_by_text("Load & build")).to_be_visible()
    expect(sidebar.get_by_text("app", exact=True)).to_have_count(0)
    expect(sidebar.get_by_text("Conversation", exact=True)).to_be_visible()
    assert page.url.endswith(f"/records?conv={HOSTILE_ID}")


def test_every_url_path_opens_its_page(nav_app: str, page) -> None:
    for path, title in PATHS.items():
        goto(page, f"{nav_app}/{path}?conv={HOSTILE_ID}")
        expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible()
        assert f"conv={HOSTILE_ID}" in page.url, path
    assert page.dialogs == []
