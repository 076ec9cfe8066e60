"""AppTest fixtures: one home with the sample and the hostile conversation imported and built
through the real services (offline backend), shared by the page tests.

Every test runs the real ``app.py`` (the frame) with ``MNEMOSCOPE_HOME`` pointing at that home,
then switches to its page. Tests that change data (edits) only assert on what they changed.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "sample_conversation.json"
HOSTILE = ROOT / "tests" / "fixtures" / "hostile_conversation.json"  # a test fixture, not a sample
SAMPLE_ID = "demo-maya-jonas"
HOSTILE_ID = "hostile-demo"
HOSTILE_BITS = ("<script>", "onerror=", "javascript:")


@pytest.fixture(scope="session")
def app_home(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    from memory_core.config import Settings
    from memory_core.services import Services

    home = tmp_path_factory.mktemp("app") / "home"
    svc = Services(Settings(home=home), embedder=embedder)
    try:
        svc.imports.import_file(SAMPLE)
        svc.imports.import_file(HOSTILE)
        for conv in (SAMPLE_ID, HOSTILE_ID):
            for _event in svc.builds.build(conv):
                pass
    finally:
        svc.close()
    return home.resolve()


@pytest.fixture
def app_services(app_home: Path) -> Any:
    """The very services object the app uses for ``app_home`` (cached once per process)."""
    from components.services import _open

    return _open(str(app_home))


@pytest.fixture
def open_app(app_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., AppTest]]:
    """``open_app("pages/records.py", conv=...)`` -> an AppTest that ran the frame and that page."""
    monkeypatch.setenv("MNEMOSCOPE_HOME", str(app_home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def make(page: str | None = None, timeout: float = 30, **query: str) -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
        at.query_params.update(query)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        if page is not None:
            at.switch_page(page).run()
            assert not at.exception, [e.value for e in at.exception]
        return at

    yield make


def widget(items: Any, label: str, form: str | None = None) -> Any:
    """The one widget of ``items`` (e.g. ``at.selectbox``) with this label (in forms whose id
    starts with ``form``, when given)."""
    found = [w for w in items if w.label == label
             and (form is None or str(getattr(w, "form_id", "")).startswith(form))]
    assert len(found) == 1, f"{len(found)} widgets labelled {label!r}: {[w.label for w in items]}"
    return found[0]


def button(at: AppTest, label: str) -> Any:
    found = [b for b in [*at.button, *at.form_submit_button] if b.label == label]
    assert found, f"no button {label!r}: {[b.label for b in at.button]}"
    return found[0]


def record_rows(at: AppTest) -> Any:
    """The Records page's table (the ``mnemoscope.record_rows`` component) as a DataFrame: the
    data the browser draws, one row per record (``id``, ``status``, ``version`` and every column)."""
    import json

    import pandas as pd

    found = [c for c in at.get("bidi_component") if c.proto.component_name == "mnemoscope.record_rows"]
    assert len(found) == 1, f"{len(found)} records tables"
    data = json.loads(found[0].proto.json)
    return pd.DataFrame([{"id": r["id"], "status": r["status"], "version": r["version"], **r["cells"]}
                         for r in data["rows"]])


def html_bodies(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.get("html"))


def shown(value: object) -> str:
    """Markdown text as the user reads it (our ``md()`` escapes punctuation as references)."""
    return html.unescape(str(value))


def all_text(at: AppTest) -> str:
    """Every piece of text the page drew, as read (markdown, captions, alerts, metrics) + its HTML."""
    parts: list[str] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "success", "info", "warning",
                 "error"):
        parts += [shown(e.value) for e in getattr(at, kind)]
    parts += [f"{shown(m.label)} {shown(m.value)}" for m in at.metric]
    return "\n".join(parts) + "\n" + html_bodies(at)


def full_trace(at: AppTest) -> AppTest:
    """Switch the Ask page from its story view to the full trace (kept for the session)."""
    widget(at.toggle, "Full trace").set_value(True).run()
    no_errors(at)
    return at


def no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
