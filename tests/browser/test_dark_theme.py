"""Streamlit's dark theme (the app served with ``--theme.base dark``): the custom components
take their colours from the theme, so the Records table, the Episodes timeline and the
episode's records are dark with light text, not white blocks. Screenshots of both pages are
saved for a human to look at."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, goto, shot

pytestmark = pytest.mark.browser

# Any CSS colour (rgb(), color(srgb …), a color-mix() result) as [r, g, b, a] (0–255), read
# back from a one-pixel canvas.
_RGBA = """(css) => {
  const ctx = Object.assign(document.createElement("canvas"), { width: 1, height: 1 }).getContext("2d");
  ctx.clearRect(0, 0, 1, 1);
  ctx.fillStyle = css;
  ctx.fillRect(0, 0, 1, 1);
  return [...ctx.getImageData(0, 0, 1, 1).data];
}"""
# The colour an element shows behind it: its own background, else the first one further out
# that is mostly opaque (crossing shadow roots).
_SEEN_BACKGROUND = f"""(el) => {{
  const rgba = {_RGBA};
  for (let e = el; e; e = e.parentElement || (e.getRootNode() && e.getRootNode().host) || null) {{
    const c = rgba(getComputedStyle(e).backgroundColor);
    if (c[3] > 128) return c.slice(0, 3);
  }}
  return [255, 255, 255];
}}"""
_COLOR = f"(el) => ({_RGBA})(getComputedStyle(el).color).slice(0, 3)"
_FILL = f"(el) => ({_RGBA})(getComputedStyle(el).fill).slice(0, 3)"


def _luminance(rgb: list[float]) -> float:
    r, g, b = (c / 255 for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _dark(locator) -> bool:
    return _luminance(locator.evaluate(_SEEN_BACKGROUND)) < 0.3


def _light_text(locator) -> bool:
    return _luminance(locator.evaluate(_COLOR)) > 0.6


def test_records_table_follows_the_dark_theme(dark_app: str, page) -> None:
    goto(page, f"{dark_app}/records?conv={SAMPLE_ID}")
    app = page.locator('[data-testid="stApp"]')
    assert _dark(app), "the app runs in the dark theme"
    rows = page.locator(".mn-rows tbody tr")
    expect(rows.first).to_be_visible(timeout=60_000)
    header = page.locator(".mn-rows th").first
    assert _dark(header), "the table's header is dark (not the fixed #f8f9fb)"
    assert _light_text(header)
    cell = rows.nth(1).locator("td").nth(1)
    assert _dark(cell) and _light_text(cell), "rows are dark with light text"
    button = rows.first.locator("button").first
    assert _dark(button) and _light_text(button), "the ✓ / ✗ buttons are dark (not the fixed #fff)"
    rows.nth(2).hover()
    assert _dark(rows.nth(2).locator("td").nth(1)), "a hovered row stays dark (not the fixed #f0f2f6)"
    path = shot(page, "dark-records")
    assert path.stat().st_size > 10_000


def test_episodes_page_follows_the_dark_theme(dark_app: str, page) -> None:
    goto(page, f"{dark_app}/episodes?conv={SAMPLE_ID}")
    dot = page.locator(".mn-tl .mn-tl-point").first
    expect(dot).to_be_visible()
    label = page.locator(".mn-tl-svg text").first
    assert _luminance(label.evaluate(_FILL)) > 0.4, "axis labels are light on the dark page"
    legend = page.locator(".mn-tl-legend")
    assert _light_text(legend), "the legend is light text on the dark page"
    dot.hover()
    tip = page.locator(".mn-tl-tip")
    expect(tip).to_be_visible()
    assert _dark(tip) and _light_text(tip), "the hover tip is dark (not the fixed #fff)"
    table = page.locator("table").filter(has=page.locator("th", has_text="valid time")).first
    head = table.locator("th").first
    assert _dark(head) and _light_text(head), "the episode's records table follows the theme"
    line = table.locator("td").first.evaluate("e => getComputedStyle(e).borderBottomColor")
    assert line not in ("rgb(241, 243, 245)",), "row lines are not the fixed light grey"
    path = shot(page, "dark-episodes")
    assert path.stat().st_size > 10_000


def test_home_html_table_follows_the_dark_theme(dark_app: str, page) -> None:
    """``st.html`` content gets no ``--st-*`` properties: the light table takes its colours from
    the text colour the page gives it (``currentColor``)."""
    goto(page, f"{dark_app}/?conv={SAMPLE_ID}")
    table = page.locator(".mn-table table").first
    expect(table).to_be_visible()
    head = table.locator("th").first
    assert _dark(head) and _light_text(head), "the header text is light (not the fixed #495057)"
    rule = head.evaluate(f"e => ({_RGBA})(getComputedStyle(e).borderBottomColor)")
    assert _luminance(rule[:3]) > 0.5 and rule[3] < 200, "the rule: a tint of the text, not a fixed #dee2e6"
