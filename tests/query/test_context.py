"""The retrieval index's record addresses (``query/context.py``)."""

from __future__ import annotations

from datetime import datetime

import numpy as np

from memory_core.models import Record, Turn
from memory_core.query.context import ConversationIndex
from memory_core.query.lexical import LexicalIndex

WHEN = datetime(2023, 5, 8, 13, 56)
TURNS = [  # (id, speaker, text, image caption)
    ("D1:1", "Mel", "By the way, take a look at this.", "a photo of a painting of a sunset over a lake"),
    ("D1:2", "Cat", "Wow, the colours are gorgeous!", None),
    ("D1:3", "Mel", "Thanks! I painted that lake sunrise last year.", None),
    ("D1:4", "Cat", "Here is mine.", "a photo of a vase"),
    ("D1:5", "Mel", "I also made a bowl in my pottery class.", None),
    ("D2:1", "Cat", "Look at this!", "a photo of a dog"),
    ("D2:2", "Mel", "I adopted a cat last week.", None),
]


def _index(records: list[tuple[str, str, str]]) -> ConversationIndex:
    turns = [
        Turn(
            id=i,
            session=int(i[1]),
            index=int(i.split(":")[1]) - 1,
            speaker=s,
            text=t,
            image_caption=c,
            session_time=WHEN,
        )
        for i, s, t, c in TURNS
    ]
    recs = [
        Record(
            id=f"c:r{k}",
            conv_id="c",
            episode_id="c:E1",
            entity=e,
            entity_type="person",
            property=p,
            value="x",
            evidence_turn_ids=(turn,),
            source_speaker=e,
        )
        for k, (e, p, turn) in enumerate(records)
    ]
    empty = np.zeros((0, 384), dtype=np.float32)
    return ConversationIndex(
        conv_id="c",
        fingerprint=(),
        speakers=("Mel", "Cat"),
        turns=turns,
        session_times={1: WHEN, 2: WHEN},
        episodes=[],
        episodes_built=False,
        records=recs,
        entities=[],
        events=[],
        event_links=[],
        edges=[],
        turn_lex=LexicalIndex([t.render() for t in turns]),
        record_lex=LexicalIndex([r.text() for r in recs]),
        turn_vecs=empty,
        record_vecs=empty,
        entity_vecs=empty,
    )


def test_a_record_opens_the_photo_its_speaker_showed_just_before() -> None:
    ci = _index([("Mel", "paints", "D1:3")])
    assert sorted(ci.record_turns[0]) == [0, 2]  # D1:1 (Mel's photo) joins D1:3


def test_only_an_uncited_photo_of_the_same_speaker_in_the_same_session_joins() -> None:
    ci = _index([("Mel", "makes", "D1:5"), ("Mel", "adopts", "D2:2")])
    assert ci.record_turns[0] == [4]  # D1:4 is Cat's photo; Mel's is four turns back
    assert ci.record_turns[1] == [6]  # D2:1 is Cat's
    cited = _index([("Mel", "paints", "D1:3"), ("Mel", "shows", "D1:1")])
    assert cited.record_turns[0] == [2]  # the photo has a record of its own
