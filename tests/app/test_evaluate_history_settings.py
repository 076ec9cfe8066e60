"""Evaluate (run with progress, bars, table, triage), History (log, diff, revert, exports,
impact) and Settings (session-only API key)."""

from __future__ import annotations

import pytest

from tests.app.conftest import HOSTILE_ID, SAMPLE_ID, all_text, button, html_bodies, no_errors, widget


def test_evaluate_the_sample_questions(open_app, app_services) -> None:
    at = open_app("pages/evaluate.py", conv=SAMPLE_ID, timeout=900)
    widget(at.selectbox, "Strategy").set_value("bm25").run()
    button(at, "Run evaluation").click().run()
    no_errors(at)
    scored = [q for q in app_services.raw_store().qa_items(SAMPLE_ID) if q.category in (1, 2, 3, 4)]
    assert any(m.label == "Questions" and m.value == str(len(scored)) for m in at.metric)
    assert at.get("plotly_chart")
    table = next(d.value for d in at.dataframe if "evidence found" in d.value.columns)
    assert len(table) == len(scored)
    missed = int((table["evidence found"] == False).sum())  # noqa: E712
    # the same run through the services: the page counts exactly the questions whose gold
    # evidence was not all retrieved, and triages the first of them
    report = app_services.evaluation.evaluate([SAMPLE_ID], strategy="bm25")
    expected = sum(1 for r in report.rows if r.evidence and not set(r.evidence) <= set(r.dia_ids))
    assert missed == expected > 0
    assert f"{missed - int((table['outcome'] == 'both').sum())} missed evidence" in all_text(at)
    assert "Gold evidence turns" in all_text(at)


def test_history_shows_an_edit_its_diff_and_reverts_it(open_app, app_services) -> None:
    record = app_services.curation.search_records(SAMPLE_ID, page_size=12).rows[11]
    app_services.curation.edit_record(record.id, {"value": "value for history"}, who="tester",
            why="history test",
                             expected_version=record.version)
    at = open_app("pages/history.py", conv=SAMPLE_ID)
    no_errors(at)
    log = at.dataframe[0].value
    assert (log["why"] == "history test").any()
    pick = widget(at.selectbox, "Edit")
    # newest first, named as people read it: who, what, entity · property = value
    assert pick.options[0].endswith(f"tester edited {record.entity} · {record.property} = value for history")
    pick.set_value(0).run()
    body = html_bodies(at)
    assert '<td>value</td>' in body and '<ins class="mn-ins">' in body  # coloured diff
    assert "history" in body.split('<ins class="mn-ins">', 1)[1]
    button(at, f"Revert this edit of {record.id}").click().run()
    no_errors(at)
    assert app_services.raw_store().record(record.id).value == "value for history"  # asks first
    assert "Revert “" in all_text(at)
    button(at, f"Yes, revert {record.id}").click().run()
    no_errors(at)
    assert app_services.raw_store().record(record.id).value == record.value
    assert "Reverted: tester edited" in all_text(at)
    labels = [b.label for b in at.get("download_button")]
    assert "Corrected records (JSONL)" in labels and "Graphs (GraphML)" in labels


def test_impact_of_corrections_reruns_saved_questions(open_app, app_services) -> None:
    app_services.queries.ask(SAMPLE_ID, "Which city did Maya move to?")
    at = open_app("pages/history.py", conv=SAMPLE_ID, timeout=600)
    button(at, "Re-run saved questions").click().run()
    no_errors(at)
    assert "questions changed" in all_text(at)
    table = at.dataframe[-1].value if hasattr(at.dataframe[-1].value, "columns") else None
    assert table is not None and "answer after" in table.columns


def test_settings_keep_the_api_key_in_the_session_only(open_app, app_home) -> None:
    secret = "sk-test-session-only-123456"
    at = open_app("pages/settings.py", conv=HOSTILE_ID)
    widget(at.radio, "Backend").set_value("openai")
    widget(at.text_input, "API key").input(secret)
    widget(at.text_input, "Model").input("test-model")
    button(at, "Save for this session").click().run()
    no_errors(at)
    assert at.session_state["api_key"] == secret
    assert "openai" in " ".join(m.value for m in at.sidebar.markdown)
    assert "set for this session" in all_text(at)
    assert secret not in repr(at.session_state["session_settings"])
    for path in app_home.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    button(at, "Forget the API key").click().run()
    assert "api_key" not in at.session_state


@pytest.mark.slow  # the Evaluate page again (an upload + the curve); the fast lane: the test above
def test_evaluate_an_uploaded_file_and_draw_the_curve(open_app, app_services) -> None:
    from tests.app.conftest import SAMPLE

    at = open_app("pages/evaluate.py", conv=SAMPLE_ID, timeout=900)
    widget(at.radio, "Questions").set_value("Upload a benchmark file").run()
    at.file_uploader[0].upload(SAMPLE.name, SAMPLE.read_bytes(), "application/json")
    at.run()
    widget(at.selectbox, "Strategy").set_value("bm25").run()
    button(at, "Run evaluation").click().run()
    no_errors(at)
    scored = [q for q in app_services.raw_store().qa_items(SAMPLE_ID) if q.category in (1, 2, 3, 4)]
    assert any(m.label == "Questions" and m.value == str(len(scored)) for m in at.metric)
    charts = len(at.get("plotly_chart"))
    widget(at.multiselect, "Strategies to compare").set_value(["bm25"]).run()
    button(at, "Compute the curve").click().run()
    no_errors(at)
    assert len(at.get("plotly_chart")) == charts + 1
    curve = at.session_state["eval_curve"]
    assert set(curve) == {"bm25"} and len(curve["bm25"]) >= 3
    assert all(0.0 <= v["full_recall"] <= 1.0 for v in curve["bm25"].values())
