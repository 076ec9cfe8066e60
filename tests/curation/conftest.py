"""Fixtures for curation tests: a home holding the hand-made conversation."""

from __future__ import annotations

import pytest

from tests.conftest import built_services, filled_home
from tests.curation.handmade import index_records, load


def fill(services) -> None:
    """The hand-made conversation, its records indexed, and the graph a build would have made."""
    load(services.raw_store())
    index_records(services)
    services.curation.refresh_entity_graph("c1")


@pytest.fixture(scope="session")
def built_home(tmp_path_factory: pytest.TempPathFactory, embedder):
    """A closed embedded home (DuckDB file + Chroma directory) filled once per session."""
    return filled_home(tmp_path_factory.mktemp("curation-built") / "home", embedder, fill)


@pytest.fixture
def built(request, settings, embedder):
    """Services over a home holding the hand-made conversation, its records indexed (a copy of
    ``built_home`` per test on the embedded engine; written into the test's databases on
    PostgreSQL + a Chroma server)."""
    yield from built_services(request, settings, embedder, base="services", fill=fill)
