"""The Load page shows the latest cluster build per conversation (queued / building stage /
done / failed with its one-line error) and follows the table as workers update it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from memory_core.store import Store
from tests.app.conftest import all_text, shown
from tests.robustness.test_forget import sample

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def small_home(tmp_path: Path, embedder: Any) -> Path:
    """Two tiny conversations imported (not built) and a cluster run under way."""
    from memory_core.config import Settings
    from memory_core.services import Services

    data = tmp_path / "two.json"
    data.write_text(json.dumps([sample("p-a", "Miso"), sample("p-b", "Pixel"), sample("p-c", "Toast")]))
    home = tmp_path / "home"
    svc = Services(Settings(home=home), embedder=embedder)
    try:
        svc.imports.import_file(data)
        svc.raw_store().set_build_status("p-a", "run-page", "building", stage="session 1 (2 to build)",
                                   worker="tcp://127.0.0.1:4001")
        svc.raw_store().set_build_status("p-b", "run-page", "queued", stage="waiting for a worker",
                                         worker="client")
        svc.raw_store().set_build_status("p-c", "run-page", "failed",
                                   error="conversation 'p-c': episodes <b>miss</b> turn p-c:s2:t2")
    finally:
        svc.close()
    return home.resolve()


@pytest.fixture
def load_page(small_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], AppTest]]:
    monkeypatch.setenv("MNEMOSCOPE_HOME", str(small_home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def make() -> AppTest:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.run()
        at.switch_page("pages/load.py").run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    yield make


def _table(at: AppTest) -> list[dict[str, Any]]:
    [frame] = [d for d in at.dataframe if "state" in d.value.columns]
    return list(frame.value[["conversation", "state", "stage", "error"]].to_dict("records"))


def test_the_load_page_shows_each_conversation_and_follows_the_run(
        load_page, small_home: Path) -> None:
    from components.services import _open

    at = load_page()
    assert [s.value for s in at.subheader if s.value == "Cluster build"] == ["Cluster build"]
    assert _table(at) == [
        {"conversation": "p-a", "state": "building", "stage": "session 1 (2 to build)", "error": ""},
        {"conversation": "p-b", "state": "queued", "stage": "waiting for a worker", "error": ""},
        {"conversation": "p-c", "state": "failed", "stage": "",
         "error": "conversation 'p-c': episodes <b>miss</b> turn p-c:s2:t2"}]
    text = all_text(at)
    assert "0 done, 1 building, 1 queued, 1 failed (updating)" in text
    [error] = [e.value for e in at.error]
    assert "<b>" not in error  # the error line is escaped, not rendered as markup
    assert shown(error) == "p-c: conversation 'p-c': episodes <b>miss</b> turn p-c:s2:t2"
    # a worker moves on (the app's own services read the same store the workers write)
    svc = _open(str(small_home))
    svc.raw_store().set_build_status("p-a", "run-page", "done", worker="tcp://127.0.0.1:4001")
    svc.raw_store().set_build_status("p-b", "run-page", "building", stage="graph", worker="tcp://127.0.0.1:4002")
    at.run()
    assert [(r["conversation"], r["state"], r["stage"]) for r in _table(at)][:2] == [
        ("p-a", "done", ""), ("p-b", "building", "graph")]
    assert "1 done, 1 building, 0 queued, 1 failed (updating)" in all_text(at)
    svc.raw_store().set_build_status("p-b", "run-page", "done", worker="tcp://127.0.0.1:4002")
    at.run()
    assert "2 done, 0 building, 0 queued, 1 failed" in all_text(at)
    assert "(updating)" not in all_text(at)
    assert not at.exception


def test_no_cluster_run_no_section(load_page, small_home: Path) -> None:
    from components.services import _open

    svc = _open(str(small_home))
    for conv in ("p-a", "p-b", "p-c"):
        svc.imports.forget(conv, who="test")
    at = load_page()
    assert "Cluster build" not in [s.value for s in at.subheader]


def test_a_run_whose_builder_died_is_not_polled_forever(load_page, small_home: Path) -> None:
    from components.services import _open

    svc = _open(str(small_home))
    long_ago = datetime.now(UTC).replace(tzinfo=None) - timedelta(hours=2)
    store = svc.raw_store()
    assert isinstance(store, Store)  # the SQL store, written to directly
    for conv in ("p-a", "p-b"):  # still "building"/"queued", but nobody wrote for two hours
        store.execute("UPDATE build_status SET updated_at = ? WHERE conv_id = ?", [long_ago, conv])
    at = load_page()
    text = all_text(at)
    assert "0 done, 1 building, 1 queued, 1 failed" in text and "(updating)" not in text
    [warning] = [shown(w.value) for w in at.warning]
    assert warning.startswith("2 conversation(s) had no update for 30 minutes")
