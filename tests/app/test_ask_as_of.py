"""Ask: score parts explained in words, requirement names as the page numbers them, and asking
as of a date (the trace says as of when)."""

from __future__ import annotations

import re
from datetime import date

from components.text import md
from components.trace_view import SCORE_PARTS, requirement_names
from tests.app.conftest import SAMPLE_ID, all_text, button, full_trace, no_errors, widget


def test_requirement_names_follow_the_page() -> None:
    assert requirement_names("supports r0, r1 (fused 1.20)") == "supports R1, R2 (fused 1.20)"
    assert requirement_names("supports question (fused 0.40)") == "supports question (fused 0.40)"


def test_every_score_part_of_a_trace_is_explained(open_app, app_services) -> None:
    at = open_app("pages/ask.py", conv=SAMPLE_ID, timeout=120)
    widget(at.text_input, "Question").input("What did Maya do last week?")
    button(at, "Ask").click().run()
    full_trace(at)
    trace = app_services.queries.trace(at.query_params["trace"])
    legend = next(e for e in at.expander if e.label == "What the scores mean")
    text = "\n".join(m.value for m in legend.markdown)
    parts = {k for m in trace.matches for k in m.components} | {"fused"}
    assert parts <= set(SCORE_PARTS), f"unexplained score parts: {parts - set(SCORE_PARTS)}"
    for part in parts | {"speaker boost", "date boost"}:
        assert f"**{part}**" in text
    speaker = trace.details.get("focus_speaker")
    assert ("applied to" in text) == bool(speaker)
    assert any(m.label == "Time" and m.help and "not counted" in m.help for m in at.metric)
    assert "Asked as of the conversation's last session" in all_text(at)
    # the strategy is named in words (a metric cut its name short on a narrow screen)
    assert "Strategy" not in {m.label for m in at.metric}
    assert any(f"**{md(trace.strategy)}** retrieval strategy" in c.value for c in at.caption)
    # no "r0"-style requirement names reach the episodes table
    tables = [h.proto.body for h in at.get("html") if "mn-table" in h.proto.body]
    episodes = next((t for t in tables if ">why</th>" in t), None)
    assert (episodes is not None) == bool(trace.episodes)
    if episodes is not None:
        assert not re.search(r"\br\d+\b", episodes)


def test_ask_as_of_a_date_anchors_relative_dates(open_app, app_services) -> None:
    at = open_app("pages/ask.py", conv=SAMPLE_ID, timeout=120)
    widget(at.text_input, "Question").input("What happened last week?")
    widget(at.date_input, "Ask as of").set_value(date(2023, 3, 15))
    button(at, "Ask").click().run()
    no_errors(at)
    assert "Asked as of 2023-03-15 00:00" in all_text(at)  # the story view says it too
    full_trace(at)
    trace = app_services.queries.trace(at.query_params["trace"])
    assert trace.details["asked_at"] == "2023-03-15 00:00"
    assert "Asked as of 2023-03-15 00:00" in all_text(at)
    # "last week" counts back from that day, not from the conversation's last session
    # (Wednesday 15 March 2023: last week is Monday 6 to Sunday 12 March)
    assert trace.details["date_ranges"] == [["2023-03-06", "2023-03-12", "last week"]]
    assert "applied (last week → 2023-03-06 to 2023-03-12)" in "\n".join(
        m.value for m in next(e for e in at.expander if e.label == "What the scores mean").markdown)
    # comparing re-asks as of the same day
    widget(at.multiselect, "Strategies").set_value(["bm25"]).run()
    button(at, "Compare").click().run()
    no_errors(at)
    (other,) = [app_services.queries.trace(i) for i in at.session_state["compare"]["ids"]]
    assert other.details["asked_at"] == "2023-03-15 00:00"
