"""The Episodes timeline is a light custom component (inline SVG), not Plotly: one point per
episode with its colour by theme type, its size by turns and its hover text, the chosen
episode highlighted; conversation text travels as data and is drawn as text."""

from __future__ import annotations

import json

from components import timeline
from tests.app.conftest import HOSTILE_ID, SAMPLE_ID, no_errors, widget


def _timeline(at) -> dict:
    found = [c for c in at.get("bidi_component") if "mnemoscope.episode_timeline" in c.proto.component_name]
    assert len(found) == 1, "one timeline on the page"
    return json.loads(found[0].proto.json)


def test_the_timeline_draws_every_episode_and_follows_the_picker(open_app, app_services) -> None:
    at = open_app("pages/episodes.py", conv=SAMPLE_ID)
    no_errors(at)
    assert not at.get("plotly_chart"), "no Plotly figure on the Episodes page (plotly.js is big)"
    episodes = app_services.builds.episodes(SAMPLE_ID)
    sessions = app_services.imports.conversation(SAMPLE_ID).sessions
    dates = {s.index: s.time.date().isoformat() for s in sessions}
    data = _timeline(at)
    points = {p["id"]: p for p in data["points"]}
    assert list(points) == [e.id for e in episodes]
    for ep in episodes:
        p = points[ep.id]
        assert p["color"] == timeline.THEME_COLORS[ep.theme_type.value]
        assert f"{len(ep.turn_ids)} turns" in p["tip"]
        assert p["label"].startswith(f"{p['tip'].split(' · ')[0]}, {dates[ep.session]}: ")  # its name
    most = max(episodes, key=lambda e: len(e.turn_ids))
    least = min(episodes, key=lambda e: len(e.turn_ids))
    assert points[most.id]["size"] == 30 and points[least.id]["size"] < points[most.id]["size"]
    assert data["dated"] and data["xTitle"] == "session date"
    assert sum(item["count"] for item in data["legend"]) == len(episodes)
    assert data["selected"] == episodes[0].id
    widget(at.selectbox, "Episode").set_value(episodes[2].id).run()
    assert _timeline(at)["selected"] == episodes[2].id  # the highlighted dot follows the picker


def test_a_click_event_selects_its_episode() -> None:
    ids = ["ep-1", "ep-2"]
    assert timeline.clicked({"clicked": "ep-2"}, ids) == "ep-2"
    assert timeline.clicked({"clicked": "ep-9"}, ids) is None  # not an episode on the page
    assert timeline.clicked({"clicked": None}, ids) is None
    assert timeline.clicked(None, ids) is None


def test_hostile_episode_text_travels_as_data(open_app) -> None:
    at = open_app("pages/episodes.py", conv=HOSTILE_ID)
    no_errors(at)
    data = _timeline(at)
    text = json.dumps(data)
    assert json.loads(text) == data
    js = timeline._JS.read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in js, f"the timeline script uses {sink}"
    assert "textContent" in js
    assert all("\u202e" not in p["tip"] + p["label"] for p in data["points"])  # bidi shown, not acting
