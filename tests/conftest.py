"""Shared fixtures: a clean environment, a fresh store, the sample conversation.

API keys are removed from the environment for every test; the embedding model is shared
across the session (loading it is the slow part).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "sample_conversation.json"
HOSTILE = ROOT / "tests" / "fixtures" / "hostile_conversation.json"  # a test fixture, not a sample
BENCH_DIR = ROOT.parent / "shared" / "bench"
BENCH = BENCH_DIR / "locomo_dev.json"

pytest_plugins = ["engines"]  # both store engines: PostgreSQL cluster + Chroma server fixtures

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["ANONYMIZED_TELEMETRY"] = "False"


# the suites whose ``[postgres]`` variant stays in the fast lane: the store engines themselves
ENGINE_LANE = ("test_store.py", "test_engines.py", "test_access.py")


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``[postgres]`` variant of a both-engines test above the store (curation, imports,
    builds, robustness) is ``slow``: the fast lane (``make check``) runs its ``[duckdb]`` twin and
    the PostgreSQL store tests of ``ENGINE_LANE``; ``make test`` runs every variant."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or callspec.params.get("engine") != "postgres":
            continue
        if Path(str(item.path)).resolve().relative_to(ROOT / "tests").as_posix() not in ENGINE_LANE:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "MNEMOSCOPE_")):
            monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def bench() -> Callable[[str], Path]:
    """``bench("score.py")``: a file of the shared bench beside the repository; a test that
    needs it fails (never skips) when it is missing."""

    def need(name: str) -> Path:
        path = BENCH_DIR / name
        if not path.exists():
            pytest.fail(f"{BENCH_DIR} is missing: {name} is needed by this test (the shared bench "
                        "must sit beside the repository, at ../shared/bench)", pytrace=False)
        return path

    return need


@pytest.fixture(scope="session")
def embedder():
    from memory_core.embeddings import shared_embedder

    return shared_embedder()


@pytest.fixture
def store(database_url: str | None) -> Iterator[object]:
    from memory_core.store import Store

    s = Store(database_url or ":memory:")  # a fresh database on either engine (tests/engines.py)
    yield s
    s.close()


@pytest.fixture
def settings(tmp_path: Path, database_url: str | None, chroma_url: str | None):
    from memory_core.config import Settings

    return Settings(home=tmp_path / "home", database_url=database_url, chroma_url=chroma_url)


def filled_home(home: Path, embedder: Any, fill: Callable[[Any], None]) -> Path:
    """A closed embedded home (DuckDB file + Chroma directory) written once by ``fill`` through
    the real services (the session's ``built_home`` of a suite)."""
    from memory_core.config import Settings
    from memory_core.services import Services

    services = Services(Settings(home=home), embedder=embedder)
    try:
        fill(services)
    finally:
        services.close()
    return home


def built_services(request: pytest.FixtureRequest, settings: Any, embedder: Any, *, base: str,
                   fill: Callable[[Any], None]) -> Iterator[Any]:
    """Services over a built home (a suite's ``built`` fixture). On the embedded engine each test
    gets its own copy of the suite's ``built_home``, opened afresh; on PostgreSQL + a Chroma
    server the fixture ``base`` is filled by ``fill`` in this test's databases."""
    from memory_core.services import Services

    if settings.database_url is not None or settings.chroma_url is not None:
        services = request.getfixturevalue(base)
        fill(services)
        yield services
        return
    shutil.copytree(request.getfixturevalue("built_home"), settings.home)
    services = Services(settings, embedder=embedder)
    yield services
    services.close()


@pytest.fixture
def services(settings, embedder):
    from memory_core.services import Services

    s = Services(settings, embedder=embedder)
    yield s
    s.close()
