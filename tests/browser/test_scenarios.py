"""End-to-end scenarios in headless Chromium against the running app."""

from __future__ import annotations

import getpass
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import HOSTILE, SAMPLE_ID, choose, goto, shot, wait_ready

pytestmark = pytest.mark.browser


def _graph_nodes(page, kind: str = "entity") -> int:
    """Nodes drawn by vis-network on the graph canvas (a custom component, no iframe)."""
    return int(page.wait_for_function(
        "(k) => { const g = globalThis.mnGraphs && globalThis.mnGraphs[k];"
        " return g && g.stats.drawnMs !== null ? g.nodeIds().length : 0; }", arg=kind,
        timeout=60_000).json_value())


def test_build_live_then_see_episodes_and_records(fresh_app: str, page) -> None:
    goto(page, f"{fresh_app}/load?conv={SAMPLE_ID}")
    page.get_by_text("Rebuild sessions that are already built").click()
    wait_ready(page)
    page.get_by_role("button", name=re.compile("Build and watch")).click()
    # while the build runs: episode bands and record chips appear, the counters move
    expect(page.locator(".mn-episode").first).to_be_visible(timeout=300_000)
    expect(page.locator(".mn-chip").first).to_be_visible(timeout=300_000)
    done = page.get_by_text(re.compile(r"^Built \d+ session"))
    assert done.count() == 0, "bands and records were drawn only after the build ended"
    bands_midway = page.locator(".mn-episode").count()
    expect(done).to_be_visible(timeout=600_000)
    wait_ready(page)
    assert page.locator(".mn-episode").count() >= bands_midway >= 1
    shot(page, "load-build-live")
    goto(page, f"{fresh_app}/episodes?conv={SAMPLE_ID}")
    expect(page.locator(".mn-episode").first).to_be_visible()
    expect(page.locator(".mn-tl .mn-tl-point").first).to_be_visible()  # the timeline
    shot(page, "episodes")
    goto(page, f"{fresh_app}/records?conv={SAMPLE_ID}")
    expect(page.get_by_text(re.compile(r"\d+ matching records"))).to_be_visible()
    expect(page.locator(".mn-evidence").first).to_be_visible()
    shot(page, "records")
    assert page.dialogs == []


def test_ask_and_walk_to_the_highlighted_turn(built_app: str, page) -> None:
    goto(page, f"{built_app}/ask?conv={SAMPLE_ID}")
    page.get_by_label("Question").fill("Where does Maya's sister live?")
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator(".mn-answer")).to_be_visible(timeout=120_000)
    wait_ready(page)
    assert "trace=" in page.url
    # answer -> citation -> the cited turn in the buffer, outlined as the link target
    cite = page.locator("a.mn-cite").first
    expect(cite).to_be_visible()
    target = cite.get_attribute("href")
    assert target and target.startswith("#turn-")
    cite.click()
    page.wait_for_function(f"() => location.hash === '{target}'")
    turn = page.locator(target)
    expect(turn).to_be_in_viewport()
    assert page.evaluate("() => document.querySelector(':target') && document.querySelector(':target').id") \
        == target[1:]
    expect(turn.locator("mark").first).to_be_visible()  # matched words highlighted
    # requirement -> matched records -> a record's episode with its evidence highlighted
    # the story view is the default; the full trace is one toggle away
    page.get_by_test_id("stCheckbox").get_by_text("Full trace", exact=True).click()
    wait_ready(page)
    expect(page.get_by_text("Requirement", exact=True)).to_be_visible()
    follow = page.get_by_text("Follow a matched record to its evidence", exact=True)
    if follow.count():
        expect(page.locator('[id^="rec-"].mn-evidence').first).to_be_visible()
    shot(page, "ask")
    # reopen from the history link in a fresh page
    url = page.url
    goto(page, url)
    expect(page.locator(".mn-answer")).to_be_visible()
    assert page.dialogs == []


def test_edit_a_record_and_see_it_in_history(built_app: str, page) -> None:
    goto(page, f"{built_app}/records?conv={SAMPLE_ID}")
    me = getpass.getuser()  # the embedded home on loopback runs as the local user: no name box
    expect(page.get_by_text(f"Changes are recorded as {me}.")).to_be_visible()
    assert page.get_by_label("Your name (recorded with each change)").count() == 0
    form = page.locator('[data-testid="stForm"]').first
    form.get_by_label("Value", exact=True).fill("edited from the browser")
    form.get_by_label("Why", exact=True).fill("browser test")
    form.get_by_role("button", name="Save changes").click()
    expect(page.get_by_text(re.compile(r"^Saved value of"))).to_be_visible(timeout=60_000)
    shot(page, "records-after-edit")
    # to History through the sidebar: the same browser session (a reload would start a new one)
    page.locator('[data-testid="stSidebar"]').get_by_role("link", name="History").click()
    page.wait_for_url(f"**/history?conv={SAMPLE_ID}")
    wait_ready(page)
    shot(page, "history")
    expect(page.get_by_text(re.compile(r"Edit log \(\d+\)"))).to_be_visible()
    expect(page.get_by_text("why: browser test")).to_be_visible()
    shown = page.get_by_role("combobox", name="Edit", exact=True).input_value()
    assert f"{me} edited" in shown and "edited from the browser" in shown, shown


def test_both_graphs_draw_nodes(built_app: str, page) -> None:
    goto(page, f"{built_app}/graphs?conv={SAMPLE_ID}")
    assert _graph_nodes(page) > 0
    page.wait_for_timeout(1500)  # let the layout settle for the screenshot
    shot(page, "graphs-entity")
    page.get_by_role("radio", name="Event graph").click()
    wait_ready(page)
    assert _graph_nodes(page, "event") > 0
    page.wait_for_timeout(1500)
    shot(page, "graphs-event")


def test_other_pages_render(built_app: str, page) -> None:
    for path, name in (("", "home"), ("evaluate", "evaluate"), ("settings", "settings"), ("load", "load")):
        goto(page, f"{built_app}/{path}?conv={SAMPLE_ID}")
        expect(page.locator('[data-testid="stException"]')).to_have_count(0)
        shot(page, name)


def test_hostile_conversation_runs_nothing(fresh_app: str, page) -> None:
    goto(page, f"{fresh_app}/load")
    page.get_by_text("Upload a file", exact=True).click()  # a test fixture, not offered as a sample
    wait_ready(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(HOSTILE))
    wait_ready(page)
    checkbox = page.get_by_text("Replace conversations that are already imported")
    checkbox.click()
    wait_ready(page)
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.get_by_text("Imported hostile-demo.")).to_be_visible(timeout=60_000)
    page.get_by_role("button", name=re.compile("Build and watch")).click()
    expect(page.get_by_text(re.compile(r"^Built \d+ session"))).to_be_visible(timeout=300_000)
    # the script text shows as text
    expect(page.get_by_text("<script>alert(document.cookie)</script>", exact=False).first).to_be_visible()
    for path in ("", "load", "episodes", "records", "graphs", "ask", "history", "settings"):
        goto(page, f"{fresh_app}/{path}?conv=hostile-demo")
        main = page.locator('[data-testid="stMain"]')
        assert main.locator("script").count() == 0, path
        assert main.locator('img[src="x"], svg[onload], iframe[src^="javascript"]').count() == 0, path
        if path == "episodes":
            expect(page.get_by_text("Mallory <img src=x onerror=alert(2)>").first).to_be_visible()
            shot(page, "hostile-episodes")
        if path == "graphs":
            assert _graph_nodes(page) > 0
    page.wait_for_timeout(1000)
    assert page.dialogs == [], page.dialogs


def test_evaluate_runs_with_progress_and_draws_results(built_app: str, page) -> None:
    goto(page, f"{built_app}/evaluate?conv={SAMPLE_ID}")
    choose(page, "Strategy", "bm25")
    page.get_by_role("button", name="Run evaluation").click()
    expect(page.get_by_role("heading", name=re.compile("Results"))).to_be_visible(timeout=600_000)
    wait_ready(page)
    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_be_visible()
    expect(page.get_by_role("heading", name="Triage")).to_be_visible()
    expect(page.get_by_text(re.compile(r"\d+ missed evidence · \d+ wrong answer"))).to_be_visible()
    shot(page, "evaluate-results")
    assert page.dialogs == []
