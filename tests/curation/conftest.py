"""Fixtures for curation tests: a home holding the hand-made conversation."""

from __future__ import annotations

import pytest

from curation.handmade import index_records, load


@pytest.fixture
def built(services):  # type: ignore[no-untyped-def]
    """Services over a home holding the hand-made conversation, its records indexed."""
    load(services.store)
    index_records(services)
    services.curation.refresh_entity_graph("c1")  # the graph a build would have made
    return services
