"""A conversation whose speakers, turns and captions hold <script>, onerror= handlers and
javascript: links renders as text on every page: no raw tag reaches the HTML we build, and no
Markdown sink receives it unescaped."""

from __future__ import annotations

import html
import re

from tests.app.conftest import HOSTILE_ID, full_trace, html_bodies, no_errors, widget

PAGES = ["home", "load", "episodes", "records", "graphs", "ask", "history", "settings"]
RAW_TAGS = re.compile(r"<\s*(script|img|svg|iframe|a)\b", re.I)
OUR_TAGS = ("<a class=\"mn-cite\"", "<a class=\"mn-link\"", "<a class=\"mn-chip\"",
            "<a class=\"mn-chip mn-wrong\"")  # our own links (their addresses are checked below)
OUR_HREFS = ("#", "records?", "episodes?", "ask?", "?conv=")  # ?conv= : Home opening a conversation


def _markdown_sinks(at) -> list[str]:
    values: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "success", "info", "warning",
                 "error"):
        values += [str(e.value) for e in getattr(at, kind)]
    values += [str(e.label) for e in at.expander]
    values += [str(w.label) for w in [*at.selectbox, *at.text_input, *at.button]]
    return values


def assert_inert(at, where: str = "", forbidden: tuple[str, ...] = ("<script", "](javascript:")) -> str:
    """No raw tag but our own links in the HTML we build, no link elsewhere than our pages, and
    no Markdown sink holding a ``forbidden`` string; returns the HTML."""
    body = html_bodies(at)
    stripped = body
    for ours in OUR_TAGS:
        stripped = stripped.replace(ours, "")
    assert not RAW_TAGS.search(stripped), (where, RAW_TAGS.search(stripped))
    hrefs = re.findall(r'href="([^"]*)"', body)
    assert [h for h in hrefs if not h.startswith(OUR_HREFS)] == [], where
    for value in _markdown_sinks(at):
        assert not any(bad in value for bad in forbidden), (where, value)
    return body


def test_hostile_text_is_inert_on_every_page(open_app) -> None:
    for name in PAGES:
        at = open_app(f"pages/{name}.py", conv=HOSTILE_ID)
        no_errors(at)
        body = assert_inert(at, name)
        assert "onerror=alert" not in body.replace("onerror=alert(", "")  # only escaped text remains
        for value in _markdown_sinks(at):
            assert "**Finally**" not in value and "$x^2$" not in value, (name, value)


def test_hostile_turns_show_as_text_in_the_transcript(open_app) -> None:
    at = open_app("pages/episodes.py", conv=HOSTILE_ID)
    widget(at.selectbox, "Session").set_value(0).run()  # all sessions
    body = html_bodies(at)
    # the speaker and the text are there, escaped, so the browser shows them literally
    assert html.escape("Eve <script>alert('x')</script>", quote=True) in body
    assert html.escape("<img src=x onerror=alert(1)>", quote=True) in body
    assert html.escape("[click me](javascript:alert(3))", quote=True) in body
    # a caption with an <svg onload> handler is text too
    assert html.escape("<svg onload=alert(5)>", quote=True) in body
    # an entity written as "&amp;" in the source stays "&amp;" on screen (escaped once more)
    assert "&amp;amp;" in body


def test_hostile_graph_labels_are_escaped(open_app) -> None:
    import json

    at = open_app("pages/graphs.py", conv=HOSTILE_ID)
    no_errors(at)
    at.toggle(key="g:all:entity").set_value(True).run()
    canvas = at.get("bidi_component")
    assert len(canvas) == 1 and not at.get("iframe")
    data = json.loads(canvas[0].proto.json)
    # the speaker "Mallory <img src=x onerror=alert(2)>" is a node: its label travels as data
    # (the component's JSON, never pasted into HTML or script) and is drawn as canvas text
    labels = [n["label"] for n in data["nodes"]]
    assert any(label.startswith("Mallory <img") for label in labels), labels
    assert "Mallory" not in canvas[0].proto.html_content and "Mallory" not in canvas[0].proto.js_content


def test_the_story_view_of_an_answer_from_hostile_turns_is_inert(open_app, app_services) -> None:
    speaker = app_services.raw_store().load_conversation(HOSTILE_ID).speakers[0]
    trace = app_services.queries.ask(HOSTILE_ID, f"What did {speaker} share?")
    at = open_app("pages/ask.py", conv=HOSTILE_ID, trace=trace.id)
    no_errors(at)
    assert widget(at.toggle, "Full trace").value is False  # the story view
    body = assert_inert(at, "ask story")
    assert 'class="mn-answer"' in body and "mn-story" in body


def test_the_full_traces_tables_hold_hostile_records_as_text(open_app, app_services) -> None:
    """The requirement's matches and the chosen episodes are HTML tables: every record written
    from the hostile turns reaches them escaped, as text."""
    from components.html_table import cell_text
    from components.text import esc
    from components.trace_view import match_rows

    speaker = app_services.raw_store().load_conversation(HOSTILE_ID).speakers[0]
    trace = app_services.queries.ask(HOSTILE_ID, f"What did {speaker} share?")
    at = open_app("pages/ask.py", conv=HOSTILE_ID, trace=trace.id)
    full_trace(at)
    body = assert_inert(at, "ask full trace")
    records = {r.id: r for r in app_services.raw_store().records(HOSTILE_ID)}
    rows = match_rows(trace, 0, records, {}) if trace.plan.requirements else []
    shown = [r["record"] for r in rows if r["record"]]
    assert shown, "the question matches records of the hostile conversation"
    assert ">components</span></th>" in body
    for text in shown:
        assert esc(cell_text(text)) in body, text
