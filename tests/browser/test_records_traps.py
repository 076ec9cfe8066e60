"""Records-page traps, in the browser: the table fits the window (no sideways scroll for
confidence and episode at 1440x900 and 1024x768), "Jon" + Enter in the entity filter picks one
name (not every match), "Memory as of" applies on Enter and goes into the URL, and "Edit" (e)
in the review queue brings the editor into view."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SAMPLE_ID, SHOTS, goto, shot, wait_ready

pytestmark = pytest.mark.browser
ROW = "table tbody tr"


def _query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def _total(page) -> int:
    text = page.get_by_text(re.compile(r"\d+ matching records")).first.inner_text()
    match = re.search(r"(\d+) matching records", text)
    assert match is not None, text
    return int(match.group(1))


@pytest.mark.parametrize("size", [(1440, 900), (1024, 768)])
def test_the_records_table_fits_the_window(built_app: str, chromium, size) -> None:
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
        expect(page.locator(ROW).first).to_be_visible()
        box = page.locator(".mn-rows").first
        scroll, client = box.evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert scroll <= client + 1, f"{size}: the table is {scroll} px wide in a {client} px box"
        right = box.evaluate("e => e.getBoundingClientRect().right")
        for name in ("confidence", "episode"):
            head = page.locator("table thead th").filter(has_text=re.compile(f"^{name}"))
            expect(head).to_be_visible()
            edge = head.evaluate("e => e.getBoundingClientRect().right")
            assert edge <= right + 1, f"{size}: the {name} column ends at {edge}, past the table's {right}"
        shot(page, f"records-fit-{size[0]}x{size[1]}")
    finally:
        context.close()


def test_jon_and_enter_picks_one_name_not_every_match(built_app: str, page) -> None:
    goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
    expect(page.locator(ROW).first).to_be_visible(timeout=60_000)
    box = page.get_by_role("combobox", name="Entity")
    box.click()
    page.keyboard.type("Jon")
    expect(page.get_by_role("option").filter(has_text="Jonas's mom")).to_be_visible()  # both match
    page.keyboard.press("Enter")
    page.wait_for_timeout(500)
    wait_ready(page)
    expect(page).to_have_url(re.compile(r"[?&]entity="))
    assert _query(page)["entity"] == ["Jonas"]
    assert {t.strip() for t in page.locator(f"{ROW} td:nth-child(2)").all_inner_texts()} == {"Jonas"}
    shot(page, "records-entity-jon-enter")


def test_memory_as_of_applies_on_enter_and_is_in_the_url(built_app: str, page) -> None:
    goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
    expect(page.locator(ROW).first).to_be_visible(timeout=60_000)
    before = _total(page)
    field = page.get_by_role("textbox", name="Memory as of")
    field.click()
    page.keyboard.type("2023-04-01")  # after the second session
    page.keyboard.press("Enter")  # no click elsewhere: Enter alone applies it
    expect(page).to_have_url(re.compile(r"[?&]as_of=2023-04-01(&|$)"), timeout=30_000)
    wait_ready(page)
    then = _total(page)
    assert 0 < then < before
    # a reload of that URL shows the same memory, the day in the field
    goto(page, page.url)
    expect(page.get_by_role("textbox", name="Memory as of")).to_have_value("2023-04-01")
    assert _total(page) == then
    shot(page, "records-as-of-enter")


def test_edit_from_the_review_queue_brings_the_editor_into_view(built_app: str, page) -> None:
    goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
    page.get_by_role("radio", name="Review queue").click()
    wait_ready(page)
    head = page.get_by_role("button", name=re.compile(r"^✎ Edit .+ \(e\)$"))
    expect(head).to_be_visible(timeout=60_000)
    record_id = str(head.inner_text()).removeprefix("✎ Edit ").removesuffix(" (e)").strip()
    page.locator("h1").first.click()  # focus outside any text field
    page.keyboard.press("e")
    save = page.get_by_role("button", name=f"Save changes to {record_id}")
    expect(save).to_be_attached(timeout=60_000)
    wait_ready(page)
    page.wait_for_timeout(2500)  # the scroll repeats while the table above settles
    form = page.locator('[data-testid="stForm"]').filter(has=save)
    top, bottom, height = form.evaluate(
        "e => [e.getBoundingClientRect().top, e.getBoundingClientRect().bottom, window.innerHeight]")
    assert 0 <= top < height * 0.5, f"the editor's top is at {top} px in a {height} px window"
    assert bottom > 0
    picker = page.get_by_role("combobox", name="Open record")
    expect(picker).to_have_value(re.compile("^" + re.escape(record_id)))
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "records-review-edit-in-view.png"))  # the window as the user sees it
