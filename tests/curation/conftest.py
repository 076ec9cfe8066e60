"""Fixtures for curation tests: a home holding the hand-made conversation."""

from __future__ import annotations

import shutil

import pytest

from curation.handmade import index_records, load


def fill(services) -> None:  # type: ignore[no-untyped-def]
    """The hand-made conversation, its records indexed, and the graph a build would have made."""
    load(services.store)
    index_records(services)
    services.curation.refresh_entity_graph("c1")


@pytest.fixture(scope="session")
def built_home(tmp_path_factory: pytest.TempPathFactory, embedder):  # type: ignore[no-untyped-def]
    """A closed embedded home (DuckDB file + Chroma directory) filled once per session."""
    from memory_core.config import Settings
    from memory_core.services import Services

    home = tmp_path_factory.mktemp("curation-built") / "home"
    services = Services(Settings(home=home), embedder=embedder)
    try:
        fill(services)
    finally:
        services.close()
    return home


@pytest.fixture
def built(request, settings, embedder):  # type: ignore[no-untyped-def]
    """Services over a home holding the hand-made conversation, its records indexed. On the
    embedded engine each test gets its own copy of ``built_home`` (a real DuckDB file and Chroma
    store, opened afresh); on PostgreSQL + a Chroma server it is written into this test's
    databases."""
    from memory_core.services import Services

    if settings.database_url is not None or settings.chroma_url is not None:
        services = request.getfixturevalue("services")
        fill(services)
        yield services
        return
    shutil.copytree(request.getfixturevalue("built_home"), settings.home)
    services = Services(settings, embedder=embedder)
    yield services
    services.close()
