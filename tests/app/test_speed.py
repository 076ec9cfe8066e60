"""Speed helpers: the question index is warmed in the background after a build and when Ask
opens, so the first question does not build it (timings: benchmarks/ui_render.py)."""

from __future__ import annotations

from components import warmup
from memory_core.query.context import fingerprint
from tests.app.conftest import HOSTILE_ID, SAMPLE_ID, button, no_errors, widget


def test_a_finished_build_warms_the_question_index(open_app, app_services) -> None:
    app_services.queries.index_cache.invalidate(HOSTILE_ID)
    at = open_app("pages/load.py", conv=HOSTILE_ID)
    widget(at.checkbox, "Rebuild sessions that are already built").check().run()
    button(at, "Build and watch (offline backend)").click().run(timeout=600)
    no_errors(at)
    warmup.wait(HOSTILE_ID, timeout=120)
    # the index in the cache is the one of the memory as built now (the first question reuses it)
    entry = app_services.queries.index_cache._entries[HOSTILE_ID]
    assert entry.fingerprint == fingerprint(app_services.raw_store(), HOSTILE_ID)


def test_opening_ask_warms_the_index_once_per_session(open_app, app_services) -> None:
    app_services.queries.index_cache.invalidate(SAMPLE_ID)
    at = open_app("pages/ask.py", conv=SAMPLE_ID)
    no_errors(at)
    assert at.session_state["warmed_convs"] == [SAMPLE_ID]
    warmup.wait(SAMPLE_ID, timeout=120)
    assert SAMPLE_ID in app_services.queries.index_cache._entries
