"""The frame and the home page: navigation, ?conv= deep links, conversation counts."""

from __future__ import annotations

from tests.app.conftest import HOSTILE_ID, SAMPLE_ID, all_text, no_errors, widget

PAGES = ["home", "load", "episodes", "records", "graphs", "ask", "evaluate", "history", "settings"]


def test_home_lists_conversations_with_their_counts(open_app, app_services) -> None:
    at = open_app()
    no_errors(at)
    assert at.title[0].value == "Mnemoscope"
    table = at.dataframe[0].value
    rows = {r["conversation"]: r for r in table.to_dict("records")}
    for summary in app_services.imports.list_conversations():
        row = rows[summary["id"]]
        for column in ("sessions", "turns", "episodes", "records", "entities", "events"):
            assert row[column] == summary[column], column
        assert row["memory"] == "built"
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
