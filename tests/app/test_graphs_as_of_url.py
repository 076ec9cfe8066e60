"""The Graphs page's "Memory as of" date lives in the URL (``?as_of=YYYY-MM-DD``): a link with
it opens the graphs as of that day, choosing or clearing a date updates the URL, a value that is
not a date is dropped with one line."""

from __future__ import annotations

from datetime import date

import pytest

from components.url_date import parse_day
from tests.app.conftest import SAMPLE_ID, no_errors, shown, widget
from tests.app.test_graphs import canvas_data


def _second_day(app_services) -> date:
    episodes = app_services.builds.episodes(SAMPLE_ID)
    return sorted(e.start_time for e in episodes if e.start_time is not None)[1].date()


def _param(at, name: str) -> str | None:
    """A query parameter as the app left it (AppTest keeps lists for values the app set)."""
    value = at.query_params.get(name)
    return value[-1] if isinstance(value, list) and value else value or None


def test_a_link_with_as_of_opens_the_graph_as_of_that_day(open_app, app_services) -> None:
    day = _second_day(app_services)
    now = open_app("pages/graphs.py", conv=SAMPLE_ID)
    nodes_now = len(canvas_data(now)["nodes"])
    at = open_app("pages/graphs.py", conv=SAMPLE_ID, as_of=day.isoformat())
    no_errors(at)
    assert widget(at.date_input, "Memory as of").value == day
    assert any(str(c.value).startswith(f"Memory as of {day.isoformat()}: ") for c in at.caption)
    assert len(canvas_data(at)["nodes"]) < nodes_now
    assert _param(at, "as_of") == day.isoformat()
    # another widget's rerun keeps the date (the URL is not re-applied over the user's choice)
    at.segmented_control[0].set_value("event").run()
    assert widget(at.date_input, "Memory as of").value == day


def test_choosing_and_clearing_the_date_updates_the_url(open_app, app_services) -> None:
    day = _second_day(app_services)
    at = open_app("pages/graphs.py", conv=SAMPLE_ID)
    assert _param(at, "as_of") is None
    widget(at.date_input, "Memory as of").set_value(day).run()
    no_errors(at)
    assert _param(at, "as_of") == day.isoformat()
    assert _param(at, "conv") == SAMPLE_ID
    widget(at.date_input, "Memory as of").set_value(None).run()
    no_errors(at)
    assert _param(at, "as_of") is None
    assert not any(str(c.value).startswith("Memory as of") for c in at.caption)


def test_a_bad_as_of_in_the_url_is_dropped_with_one_line(open_app) -> None:
    at = open_app("pages/graphs.py", conv=SAMPLE_ID, as_of="next tuesday")
    assert not at.exception
    assert len(at.warning) == 1
    line = shown(at.warning[0].value)
    assert "?as_of='next tuesday' in the address is not a date (YYYY-MM-DD)" in line and "\n" not in line
    assert widget(at.date_input, "Memory as of").value is None
    assert _param(at, "as_of") is None
    assert not any(str(c.value).startswith("Memory as of") for c in at.caption)


def test_parse_day() -> None:
    assert parse_day(" 2023-05-20 ", "as_of") == date(2023, 5, 20)
    with pytest.raises(ValueError, match=r"\?as_of='2023-13-01'"):
        parse_day("2023-13-01", "as_of")
