"""The Episodes timeline (an inline-SVG custom component): a click on a dot selects that
episode (heading, picker and highlighted dot follow), hovering shows the episode's text, dots
are coloured by theme type and sized by turns."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, goto, shot, wait_ready

pytestmark = pytest.mark.browser


def test_clicking_a_timeline_dot_selects_its_episode(built_app: str, page) -> None:
    goto(page, f"{built_app}/episodes?conv={SAMPLE_ID}")
    dots = page.locator(".mn-tl .mn-tl-point")
    expect(dots.first).to_be_visible()
    count = dots.count()
    assert count > 3
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 0  # no plotly.js to load
    first_id = page.locator(".mn-tl .mn-tl-selected").get_attribute("data-id")
    assert first_id == dots.first.get_attribute("data-id")  # the first episode is chosen at first
    # dot sizes follow the turns and colours the theme types (at least two distinct sizes)
    sizes = {dots.nth(i).get_attribute("r") for i in range(count)}
    assert len(sizes) > 1
    legend = page.locator(".mn-tl .mn-tl-legend").inner_text()
    assert "(" in legend
    target = dots.nth(count - 1)
    wanted = target.get_attribute("data-id")
    target.hover()
    tip = page.locator(".mn-tl .mn-tl-tip")
    expect(tip).to_be_visible()
    assert "turns" in tip.inner_text()
    tip_label = tip.inner_text().split(" · ")[0]  # the hovered episode's label, e.g. S10·E4
    heading = page.locator("h3").first
    before = heading.inner_text()
    target.click()
    page.wait_for_timeout(300)
    wait_ready(page)
    expect(page.locator(".mn-tl .mn-tl-selected")).to_have_attribute("data-id", wanted or "")
    assert heading.inner_text() != before
    assert heading.inner_text().startswith(f"{tip_label}:"), (tip_label, heading.inner_text())
    shot(page, "episodes-timeline-click")


_FOCUSED_DOT = """() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a && a.classList && a.classList.contains("mn-tl-point") ? a.dataset.id : null;
}"""


def test_the_timeline_works_by_keyboard(built_app: str, page) -> None:
    """Tab reaches the chosen episode's dot (one tab stop), Left/Right move between dots, Enter
    and Space select as a click does; the dots are named buttons and the chosen one is pressed."""
    goto(page, f"{built_app}/episodes?conv={SAMPLE_ID}")
    dots = page.locator(".mn-tl .mn-tl-point")
    expect(dots.first).to_be_visible()
    ids = [dots.nth(i).get_attribute("data-id") for i in range(4)]
    page.get_by_role("heading", name="Episodes").first.click()  # the tab order starts above the timeline
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate(_FOCUSED_DOT):
            break
    assert page.evaluate(_FOCUSED_DOT) == ids[0], "Tab reaches the chosen episode's dot"
    first = dots.first
    assert first.get_attribute("role") == "button"
    assert first.get_attribute("aria-pressed") == "true"
    label = str(first.get_attribute("aria-label"))
    assert label.startswith("S1·E1, 2023-"), label  # the episode and its date
    ring = page.locator(".mn-tl .mn-tl-ring").first
    expect(ring).to_be_visible()  # the focus ring
    assert ring.evaluate("e => getComputedStyle(e).stroke") not in ("none", "")

    page.keyboard.press("ArrowRight")
    assert page.evaluate(_FOCUSED_DOT) == ids[1]
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(_FOCUSED_DOT) == ids[0]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(_FOCUSED_DOT) == ids[2]
    heading = page.locator("h3").first
    before = heading.inner_text()
    target_label = str(dots.nth(2).get_attribute("aria-label")).split(",")[0]
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    wait_ready(page)
    expect(page.locator(".mn-tl .mn-tl-selected")).to_have_attribute("data-id", ids[2] or "")
    assert heading.inner_text() != before
    assert heading.inner_text().startswith(f"{target_label}:"), (target_label, heading.inner_text())
    expect(page.locator(f'.mn-tl .mn-tl-point[data-id="{ids[2]}"]')).to_have_attribute("aria-pressed", "true")
    expect(dots.first).to_have_attribute("aria-pressed", "false")
    assert page.evaluate(_FOCUSED_DOT) == ids[2], "focus stays on the dot after the rerun"

    page.keyboard.press("ArrowRight")
    page.keyboard.press(" ")  # Space selects too
    page.wait_for_timeout(300)
    wait_ready(page)
    expect(page.locator(".mn-tl .mn-tl-selected")).to_have_attribute("data-id", ids[3] or "")
    shot(page, "episodes-timeline-keyboard")
