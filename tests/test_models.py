"""Domain models: rendering, textual forms, immutability, strictness."""

from __future__ import annotations

from datetime import datetime

import pytest
from pydantic import ValidationError

from memory_core.models import Conversation, Episode, Modality, Record, RecordStatus, Session, ThemeType, Turn


def _record(**changes: object) -> Record:
    base = Record(id="r1", conv_id="c", episode_id="c:S1:E1", entity="Ana", entity_type="person",
                  property="pet", value="cat named Miso")
    return base.model_copy(update=changes)


def test_turn_render_with_and_without_caption():
    turn = Turn(id="D1:1", session=1, index=0, speaker="Ana", text="Look!")
    assert turn.render() == "Ana: Look!"
    pic = turn.model_copy(update={"image_caption": "a grey cat"})
    assert pic.render() == "Ana: Look! [image: a grey cat]"
    only_pic = Turn(id="D1:2", session=1, index=1, speaker="Ana", image_caption="a grey cat")
    assert only_pic.render() == "Ana: [image: a grey cat]"


def test_record_text_names_every_qualifier():
    assert _record().text() == "Ana pet cat named Miso"
    full = _record(condition="when travelling", modality=Modality.PLANNED, valid_time="2023-05")
    assert full.text() == "Ana pet cat named Miso, if when travelling (planned, 2023-05)"
    assert "(" not in _record(modality=Modality.OBSERVED).text()


def test_models_are_frozen_and_strict():
    turn = Turn(id="D1:1", session=1, index=0, speaker="Ana", text="hi")
    with pytest.raises(ValidationError):
        turn.text = "changed"  # type: ignore[misc]  # the point: frozen at run time
    with pytest.raises(ValidationError):
        Turn(id="D1:1", session=1, index=0, speaker="Ana", colour="red")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        Record(id="r", conv_id="c", episode_id="e", entity="A", entity_type="t", property="p", value="v",
               modality="sometimes")


def test_defaults_and_enum_values():
    record = _record()
    assert (record.status, record.version, record.modality, record.origin) == (
        RecordStatus.ACTIVE, 1, Modality.OBSERVED, "offline")
    episode = Episode(id="c:S1:E1", conv_id="c", session=1, turn_ids=("D1:1",))
    assert episode.theme_type == ThemeType.TOPIC and episode.theme == ()
    assert Modality("negated") is Modality.NEGATED


def test_conversation_turns_follow_session_order():
    t = datetime(2023, 5, 8)
    s1 = Session(index=1, time=t, turns=(Turn(id="D1:1", session=1, index=0, speaker="A", text="a"),))
    s2 = Session(index=2, turns=(Turn(id="D2:1", session=2, index=0, speaker="B", text="b"),
                                 Turn(id="D2:2", session=2, index=1, speaker="A", text="c")))
    conv = Conversation(id="c", sessions=(s1, s2))
    assert [x.id for x in conv.turns] == ["D1:1", "D2:1", "D2:2"]
    assert conv.meta == {} and Conversation(id="d").meta is not conv.meta
