"""Evaluate with a LongMemEval file (uploaded, detected): the per-question-type table with
abstentions apart, rows that open their trace, and triage of missed evidence and wrong answers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from components.links import href_record
from components.text import esc
from memory_core.eval.longmemeval import ABSTENTION
from memory_core.eval.run import OUTCOMES
from tests.app.conftest import SAMPLE_ID, all_text, button, html_bodies, no_errors, shown, widget


@pytest.fixture(autouse=True)
def _forget_the_haystacks(app_services):
    """The app tests share one home: the haystacks these tests import leave it afterwards."""
    yield
    for conv_id in app_services.raw_store().conversation_ids():
        if conv_id.startswith("app-lme"):
            app_services.imports.forget(conv_id, who="tests", why="test done")

OTHER = ("Could you suggest a weekend hobby?", "Try sketching or a pottery class.",
         "Any tips for watering houseplants?", "Water them when the soil is dry.")


def _item(qid: str, qtype: str, question: str, answer: str, line: str) -> dict[str, Any]:
    """A tiny haystack: two sessions, the answer in one user turn of the second."""
    return {"question_id": qid, "question_type": qtype, "question": question, "answer": answer,
            "question_date": "2023/06/01 (Thu) 10:00", "haystack_session_ids": [f"{qid}-a", f"{qid}-b"],
            "haystack_dates": ["2023/05/20 (Sat) 09:00", "2023/05/25 (Thu) 09:00"],
            "haystack_sessions": [
                [{"role": "user", "content": OTHER[0]}, {"role": "assistant", "content": OTHER[1]}],
                [{"role": "user", "content": OTHER[2]}, {"role": "assistant", "content": OTHER[3]},
                 {"role": "user", "content": line, "has_answer": not qid.endswith("_abs")},
                 {"role": "assistant", "content": "Good to know!"}]],
            "answer_session_ids": [f"{qid}-b"]}


ITEMS = [
    _item("app-lme-1", "single-session-user", "What breed is my dog?", "a beagle",
          "My dog is a beagle called Pepper."),
    _item("app-lme-2", "knowledge-update", "Which city do I live in now?", "Porto",
          "I moved from Lisbon to Porto last month."),
    _item("app-lme-3_abs", "single-session-user", "What is my cat's name?", "unknown",
          "My neighbour has a parrot."),
]


def test_a_longmemeval_upload_runs_per_question_type_and_rows_open_their_trace(open_app, app_services):
    at = open_app("pages/evaluate.py", conv=SAMPLE_ID, timeout=900)
    widget(at.radio, "Questions").set_value("Upload a benchmark file").run()
    at.file_uploader[0].upload("lme_tiny.json", json.dumps(ITEMS).encode(), "application/json")
    at.run()
    no_errors(at)
    assert "LongMemEval layout (detected)" in all_text(at)
    widget(at.selectbox, "Strategy").set_value("bm25").run()
    button(at, "Run evaluation").click().run()
    no_errors(at)
    report = at.session_state["eval_report"]
    assert report.benchmark == "longmemeval" and len(report.rows) == 3
    # the summary table: one line per question type, abstentions apart, overall without them
    summary = next(d.value for d in at.dataframe if "session_recall_all@5" in d.value.columns)
    assert list(summary["category"]) == ["knowledge-update", "single-session-user", ABSTENTION, "overall"]
    assert list(summary["n"]) == [1, 1, 1, 2]
    assert {"full_recall", "session_recall_all@10", "tokens_mean", "answer_f1", "abstained"} <= set(
        summary.columns)
    assert any(m.label == "Questions" and m.value == "2" for m in at.metric)
    assert "Abstention questions" in all_text(at)
    # every row links to its saved trace, and that trace opens on Ask
    table = next(d.value for d in at.dataframe if "outcome" in d.value.columns)
    assert set(table["outcome"]) <= set(OUTCOMES)
    for row, link in zip(report.rows, table["trace"], strict=True):
        assert link == f"ask?conv={row.conv_id}&trace={row.trace_id}"
        assert app_services.queries.trace(row.trace_id).question == row.question
    row = report.rows[1]
    ask = open_app("pages/ask.py", conv=row.conv_id, trace=row.trace_id)
    no_errors(ask)
    assert any(shown(s.value) == row.question for s in ask.subheader)


def test_triage_filters_by_outcome_and_category(open_app, app_services):
    at = open_app("pages/evaluate.py", conv=SAMPLE_ID, timeout=900)
    widget(at.selectbox, "Strategy").set_value("bm25").run()
    button(at, "Run evaluation").click().run()
    no_errors(at)
    table = next(d.value for d in at.dataframe if "outcome" in d.value.columns)
    rows = [r.to_json() for r in at.session_state["eval_report"].rows]
    # the outcome each row gets, recomputed from the row: evidence left out, answer F1 < 0.5 or
    # an answer the evidence does not fully support
    expected = []
    for r in rows:
        missed = bool(r["evidence"]) and not set(r["evidence"]) <= set(r["dia_ids"])
        wrong = r["answer_f1"] < 0.5 or r["support"] in ("weak", "unknown")
        expected.append("both" if missed and wrong else "missed evidence" if missed
                        else "wrong answer" if wrong else "ok")
    assert list(table["outcome"]) == expected
    adversarial = sum(1 for q in app_services.raw_store().qa_items(SAMPLE_ID) if q.category == 5)
    assert adversarial and f"Not scored: {adversarial} adversarial question(s)" in all_text(at)
    assert any(o in ("wrong answer", "both") for o in expected), "the sample has wrong answers"
    # the default filter: every question that is not ok
    pick = next(s for s in at.selectbox if s.label.startswith("Question ("))
    assert len(pick.options) == sum(o != "ok" for o in expected)
    widget(at.multiselect, "Outcome").set_value(["wrong answer"]).run()
    pick = next(s for s in at.selectbox if s.label.startswith("Question ("))
    assert len(pick.options) == expected.count("wrong answer")
    names = list(table["category"])  # the table names its categories ("single-hop", ...)
    category = str(names[expected.index("wrong answer")]) if "wrong answer" in expected else None
    if category is not None:
        widget(at.multiselect, "Category").set_value([category]).run()
        assert not at.exception, [e.value for e in at.exception]
        pick = next(s for s in at.selectbox if s.label.startswith("Question ("))
        assert len(pick.options) == sum(1 for n, o in zip(names, expected, strict=True)
                                        if o == "wrong answer" and str(n) == category)
        no_errors(at)
        text = all_text(at)
        assert "Answer:" in text.replace("**", "") and "Gold:" in text.replace("**", "")
        assert any("Open this question" in p.label for p in at.get("page_link"))
        # the records citing the gold turns are links to them, not bare ids
        shown_row = rows[next(i for i, (n, o) in enumerate(zip(names, expected, strict=True))
                          if o == "wrong answer" and str(n) == category)]
        triaged = app_services.evaluation.triage(shown_row["conv_id"], int(shown_row["qid"]), shown_row)
        for e in triaged.evidence:
            for rid in e.cited_by_records:
                assert f'href="{esc(href_record(SAMPLE_ID, rid))}"' in html_bodies(at)


def test_a_longmemeval_path_with_the_format_chosen_and_a_type_filter(open_app, tmp_path):
    path = tmp_path / "lme_path.json"
    path.write_text(json.dumps(ITEMS), encoding="utf-8")
    at = open_app("pages/evaluate.py", conv=SAMPLE_ID, timeout=900)
    widget(at.radio, "Questions").set_value("A benchmark file on this machine").run()
    widget(at.text_input, "Path of a benchmark file or a BEAM chat directory").input(str(path)).run()
    widget(at.selectbox, "Format").set_value("longmemeval").run()
    no_errors(at)
    assert "LongMemEval layout" in all_text(at) and "(detected)" not in all_text(at)
    widget(at.multiselect, "Question types (none = all)").set_value(["knowledge-update"]).run()
    widget(at.selectbox, "Strategy").set_value("bm25").run()
    button(at, "Run evaluation").click().run()
    no_errors(at)
    assert [r.conv_id for r in at.session_state["eval_report"].rows] == ["app-lme-2"]
    # a file that is no benchmark layout is refused in one line
    other = tmp_path / "chat.txt"
    other.write_text("Ana: hello\nBen: hi there\n", encoding="utf-8")
    widget(at.text_input, "Path of a benchmark file or a BEAM chat directory").input(str(other)).run()
    widget(at.selectbox, "Format").set_value("detect").run()
    assert any("not a benchmark layout" in e.value for e in at.error)


def test_hostile_strings_in_a_longmemeval_upload_stay_text(open_app) -> None:
    from tests.app.test_hostile import assert_inert

    bad = "<script>alert('q')</script> [x](javascript:alert(1))"
    items = [_item("app-lme-hostile", "single-session-user", f"What is my code word? {bad}",
                   f"<img src=x onerror=alert(2)> {bad}", f"My code word is {bad}")]
    at = open_app("pages/evaluate.py", conv=SAMPLE_ID, timeout=900)
    widget(at.radio, "Questions").set_value("Upload a benchmark file").run()
    at.file_uploader[0].upload("<b>evil</b>.json", json.dumps(items).encode(), "application/json")
    at.run()
    widget(at.selectbox, "Strategy").set_value("bm25").run()
    button(at, "Run evaluation").click().run()
    widget(at.multiselect, "Outcome").set_value(list(OUTCOMES)).run()
    no_errors(at)
    assert len(at.session_state["eval_report"].rows) == 1
    assert_inert(at, forbidden=("<script", "](javascript:", "<img"))
