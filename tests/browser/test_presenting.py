"""In a real browser, what a presenter saw (issue 25): a citation lands on a turn the page's
header does not cover, and the graph canvas is above the fold at 1440×900."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, goto, shot, wait_ready

pytestmark = pytest.mark.browser

_UNCOVERED = """(sel) => {
  const el = document.querySelector(sel);
  if (!el) return null;  // not drawn yet: the page is still rerunning
  const header = document.querySelector('[data-testid="stHeader"]');
  const top = el.getBoundingClientRect().top;
  return {top, header: header ? header.getBoundingClientRect().bottom : 0, height: innerHeight};
}"""


def _jump(page, cite) -> dict:
    target = cite.get_attribute("href")
    assert target and target.startswith("#turn-")
    cite.click()
    page.wait_for_function(f"() => location.hash === '{target}'")
    try:  # the turn is drawn and the scroll settles (slower on a loaded machine); the assertion
        # below says where it ended
        page.wait_for_function(f"() => {{ const at = ({_UNCOVERED})('{target}'); "
                               "return at !== null && at.header <= at.top && at.top < at.height; }",
                               timeout=10_000)
    except PlaywrightTimeout:
        pass
    at = page.evaluate(_UNCOVERED, target)
    assert at is not None, f"no turn {target} on the page"
    return at


def test_a_citation_lands_on_its_turn_below_the_header(built_app: str, page) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    goto(page, f"{built_app}/ask?conv={SAMPLE_ID}")
    page.get_by_label("Question").fill("Where does Maya's sister live?")
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator(".mn-answer")).to_be_visible(timeout=120_000)
    wait_ready(page)
    # the story view (the default): the records that gave it and the cited turns
    expect(page.locator(".mn-story-records li").first).to_be_visible()
    at = _jump(page, page.locator("a.mn-cite").first)
    assert at["header"] <= at["top"] < at["height"], at  # fully below the header, on screen
    shot(page, "ask-story-citation")
    # the full trace: the same jump into the evidence buffer
    page.get_by_test_id("stCheckbox").get_by_text("Full trace", exact=True).click()
    wait_ready(page)
    expect(page.get_by_text("Requirement", exact=True)).to_be_visible()
    at = _jump(page, page.locator("a.mn-cite").first)
    assert at["header"] <= at["top"] < at["height"], at
    assert page.dialogs == []


def test_the_graph_canvas_is_above_the_fold(built_app: str, page) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    for kind in ("entity", "event"):
        goto(page, f"{built_app}/graphs?conv={SAMPLE_ID}")
        if kind == "event":
            page.get_by_text("Event graph", exact=True).click()
            wait_ready(page)
        page.wait_for_function("(k) => globalThis.mnGraphs && globalThis.mnGraphs[k] "
                               "&& globalThis.mnGraphs[k].stats.drawnMs !== null", arg=kind, timeout=60_000)
        top = page.evaluate(
            "(k) => globalThis.mnGraphs[k].network.body.container.getBoundingClientRect().top", kind)
        assert top < 900 - 300, f"{kind}: the canvas starts {top:.0f} px down a 900 px window"
        shot(page, f"graphs-{kind}-fold")
