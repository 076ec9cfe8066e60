"""Rebuild guard: annotators' corrections are not silently replaced."""

from __future__ import annotations

import pytest


def test_rebuild_of_a_corrected_conversation_needs_discard_edits(tmp_path, embedder) -> None:
    """A rebuild would silently replace annotators' corrections: it is refused unless asked."""
    from memory_core.config import Settings
    from memory_core.errors import BuildError
    from memory_core.models import Conversation, Session, Turn
    from memory_core.services import Services

    services = Services(Settings(home=tmp_path / "home"), embedder=embedder)
    turns = (Turn(id="D1:1", session=1, index=0, speaker="Ann", text="I adopted a cat named Miso."),
             Turn(id="D1:2", session=1, index=1, speaker="Bo", text="Lovely! What colour is Miso?"),
             Turn(id="D1:3", session=1, index=2, speaker="Ann", text="She is grey and very shy."))
    services.raw_store().save_conversation(Conversation(id="c", speakers=("Ann", "Bo"),
                                                  sessions=(Session(index=1, turns=turns),)))
    list(services.builds.build("c"))
    record = services.raw_store().records("c")[0]
    services.curation.edit_record(record.id, {"value": "corrected"}, who="ann", why="typo",
                         expected_version=record.version)
    with pytest.raises(BuildError, match="annotator edit"):
        list(services.builds.build("c", rebuild=True))
    assert services.raw_store().record(record.id).value == "corrected"
    list(services.builds.build("c", rebuild=True, discard_edits=True))
    services.close()
