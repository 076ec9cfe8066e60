"""The frame and the home page: navigation, ?conv= deep links, conversation counts."""

from __future__ import annotations

import html
import re
from typing import Any

from tests.app.conftest import HOSTILE_ID, SAMPLE_ID, all_text, no_errors, widget


def conversation_rows(at: Any) -> list[dict[str, Any]]:
    """The Home table's rows as the page drew them: cell text by column (numbers as ints) and
    the conversation cell's link."""
    body = next(h.proto.body for h in at.get("html") if 'class="mn-table"' in h.proto.body)
    head = [html.unescape(c) for c in re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", body)]
    rows = []
    for tr in re.findall(r"<tr>(.*?)</tr>", body)[1:]:
        found = re.findall(r"<td(?:\s[^>]*)?>(.*?)</td>", tr)
        cells = [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in found]
        row: dict[str, Any] = {k: int(v) if v.isdigit() else v for k, v in zip(head, cells, strict=True)}
        link = re.search(r'href="([^"]*)"', tr)
        row["link"] = html.unescape(link.group(1)) if link else None
        rows.append(row)
    return rows


PAGES = ["home", "load", "episodes", "records", "graphs", "ask", "evaluate", "history", "settings"]


def test_home_lists_conversations_with_their_counts(open_app, app_services) -> None:
    at = open_app()
    no_errors(at)
    assert at.title[0].value == "Mnemoscope"
    rows = {r["conversation"]: r for r in conversation_rows(at)}
    for summary in app_services.imports.list_conversations():
        row = rows[summary.id]
        for column in ("sessions", "turns", "episodes", "records", "entities", "events"):
            assert row[column] == summary.count(column), column
        assert row["memory"] == "built"
        assert row["link"] == f"?conv={summary.id}"  # the id opens the conversation
    assert rows[SAMPLE_ID]["episodes"] > 0 and rows[SAMPLE_ID]["records"] > 0
    # the build cost of the current conversation is drawn from its build history
    text = all_text(at)
    assert "Build time" in text and "offline" in text


def test_conversation_comes_from_the_url_and_goes_back_into_it(open_app) -> None:
    at = open_app(conv=HOSTILE_ID)
    assert widget(at.sidebar.selectbox, "Conversation").value == HOSTILE_ID
    assert at.query_params["conv"] == HOSTILE_ID
    at.query_params["trace"] = "some-trace-of-the-other-conversation"
    picker = widget(at.sidebar.selectbox, "Conversation")
    picker.select(SAMPLE_ID).run()
    assert at.query_params == {"conv": SAMPLE_ID}
    assert at.session_state["conv"] == SAMPLE_ID


def test_unknown_conversation_in_the_url_is_named_and_another_shown(open_app) -> None:
    at = open_app(conv="no-such-conv")
    assert any("Unknown conversation" in w.value for w in at.sidebar.warning)
    assert widget(at.sidebar.selectbox, "Conversation").value in (SAMPLE_ID, HOSTILE_ID)


def test_every_page_runs_inside_the_frame(open_app) -> None:
    for name in PAGES:
        at = open_app(f"pages/{name}.py", conv=SAMPLE_ID)
        no_errors(at)
        # the frame ran: the sidebar has the conversation picker and the backend badge
        assert widget(at.sidebar.selectbox, "Conversation").value == SAMPLE_ID, name
        assert any("backend" in m.value for m in at.sidebar.markdown), name
        assert at.query_params["conv"] == SAMPLE_ID, name


def test_empty_home_invites_to_load(tmp_path, monkeypatch) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.app.conftest import ROOT

    monkeypatch.setenv("MNEMOSCOPE_HOME", str(tmp_path / "empty"))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30).run()
    no_errors(at)
    assert any("No conversation imported yet" in i.value for i in at.info)
    at.switch_page("pages/records.py").run()
    no_errors(at)
    assert any("Load one first" in i.value for i in at.info)


def test_home_with_many_conversations_pages_and_filters(tmp_path, monkeypatch) -> None:
    """Beyond one page the Home table has a filter on the id and a pager (the front page stays
    usable with hundreds of haystacks)."""
    import json
    import sys
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from components.overview import PAGE_ROWS
    from memory_core.config import Settings
    from memory_core.services import Services

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from many_conversations import sample  # type: ignore[import-not-found]  # on sys.path above

    n = PAGE_ROWS + 12
    data = tmp_path / "many.json"
    data.write_text(json.dumps([sample(i) for i in range(n)]), encoding="utf-8")
    home = tmp_path / "home"
    svc = Services(Settings.from_env(home=str(home)))
    svc.imports.import_file(data)
    svc.close()
    monkeypatch.setenv("MNEMOSCOPE_HOME", str(home))
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=30).run()
    no_errors(at)
    first = [r["conversation"] for r in conversation_rows(at)]
    assert len(first) == PAGE_ROWS and first[0] == "gen-00000"
    assert f"{n} of {n} conversations · page 1 of 2" in [c.value for c in at.caption]
    next(b for b in at.button if b.label == "Next ▶").click().run()
    second = [r["conversation"] for r in conversation_rows(at)]
    assert len(second) == n - PAGE_ROWS and not set(first) & set(second)
    widget(at.text_input, "Find a conversation").input("gen-0005").run()
    found = [r["conversation"] for r in conversation_rows(at)]
    assert found == [f"gen-0005{i}" for i in range(10)]  # back on its only page
    assert f"10 of {n} conversations · page 1 of 1" in [c.value for c in at.caption]
