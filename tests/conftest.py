"""Shared fixtures: a clean environment, a fresh store, the sample conversation.

API keys are removed from the environment for every test; the embedding model is shared
across the session (loading it is the slow part).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data" / "sample_conversation.json"
HOSTILE = ROOT / "tests" / "fixtures" / "hostile_conversation.json"  # a test fixture, not a sample
BENCH_DIR = ROOT.parent / "shared" / "bench"
BENCH = BENCH_DIR / "locomo_dev.json"

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["ANONYMIZED_TELEMETRY"] = "False"


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
def embedder():  # type: ignore[no-untyped-def]
    from memory_core.embeddings import shared_embedder

    return shared_embedder()


@pytest.fixture
def store() -> Iterator[object]:
    from memory_core.store import Store

    s = Store(":memory:")
    yield s
    s.close()


@pytest.fixture
def settings(tmp_path: Path):  # type: ignore[no-untyped-def]
    from memory_core.config import Settings

    return Settings(home=tmp_path / "home")


@pytest.fixture
def services(settings, embedder):  # type: ignore[no-untyped-def]
    from memory_core.services import Services

    s = Services(settings, embedder=embedder)
    yield s
    s.close()
