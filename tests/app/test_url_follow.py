"""The URL names what a page shows, both ways: a choice on the page writes ``?episode=`` /
``?record=``, and a link followed inside the same session (the URL changes, the session and its
earlier choice stay) opens what the link names."""

from __future__ import annotations

from tests.app.conftest import SAMPLE_ID, no_errors, widget


def _url(at, name: str) -> str:
    value = at.query_params.get(name)
    return value[0] if isinstance(value, list) else str(value)


def test_episodes_pick_writes_the_url_and_a_followed_link_wins(open_app, app_services) -> None:
    episodes = app_services.builds.episodes(SAMPLE_ID)
    at = open_app("pages/episodes.py", conv=SAMPLE_ID)
    no_errors(at)
    assert _url(at, "episode") == episodes[0].id  # the page names the episode it shows
    widget(at.selectbox, "Episode").set_value(episodes[3].id).run()
    assert _url(at, "episode") == episodes[3].id
    at.query_params["episode"] = episodes[5].id  # a link to another episode, same session
    at.run()
    no_errors(at)
    assert widget(at.selectbox, "Episode").value == episodes[5].id
    at.run()  # and the user's own later choice is not taken back by the URL
    widget(at.selectbox, "Episode").set_value(episodes[1].id).run()
    assert widget(at.selectbox, "Episode").value == episodes[1].id
    assert _url(at, "episode") == episodes[1].id


def test_records_a_followed_link_opens_its_record_in_the_same_session(open_app, app_services) -> None:
    rows = app_services.curation.search_records(SAMPLE_ID, page_size=6).rows
    at = open_app("pages/records.py", conv=SAMPLE_ID)
    widget(at.selectbox, "Open record").set_value(rows[2].id).run()
    assert widget(at.selectbox, "Open record").value == rows[2].id
    at.query_params["record"] = rows[4].id  # e.g. a matched record's link on the Ask page
    at.run()
    no_errors(at)
    assert widget(at.selectbox, "Open record").value == rows[4].id
