"""A small hand-made conversation with episodes and records stored as a build would store them."""

from __future__ import annotations

from datetime import datetime

from memory_core.models import Conversation, Episode, Modality, Record, Session, Turn

CONV = "c1"


def _turns(session: int, when: datetime, lines: list[tuple[str, str]]) -> tuple[Turn, ...]:
    return tuple(
        Turn(id=f"D{session}:{i + 1}", session=session, index=i, speaker=speaker, text=text,
             session_time=when)
        for i, (speaker, text) in enumerate(lines)
    )


S1 = datetime(2023, 5, 8, 13, 56)
S2 = datetime(2023, 6, 1, 9, 0)


def conversation() -> Conversation:
    s1 = _turns(1, S1, [
        ("Ana", "I started painting sunsets last week."),
        ("Ben", "Nice! Do you use oil paint?"),
        ("Ana", "Watercolour, mostly. My friend Mel taught me."),
        ("Ben", "I'm planning a trip to Lisbon in July."),
        ("Ana", "Lisbon is lovely, you will like the trams."),
    ])
    s2 = _turns(2, S2, [
        ("Ben", "Back from Lisbon, it was great."),
        ("Ana", "Melanie came over to paint yesterday."),
        ("Ben", "How is Mel doing?"),
    ])
    return Conversation(
        id=CONV, speakers=("Ana", "Ben"),
        sessions=(Session(index=1, time=S1, time_text="1:56 pm on 8 May, 2023", turns=s1),
                  Session(index=2, time=S2, time_text="9:00 am on 1 June, 2023", turns=s2)),
        source_format="json", source_name="handmade.json",
    )


def episodes() -> dict[int, list[Episode]]:
    return {
        1: [Episode(id=f"{CONV}:S1:E1", conv_id=CONV, session=1, turn_ids=("D1:1", "D1:2", "D1:3"),
                    theme=("painting",), start_time=S1),
            Episode(id=f"{CONV}:S1:E2", conv_id=CONV, session=1, turn_ids=("D1:4", "D1:5"),
                    theme=("Lisbon trip",), start_time=S1)],
        2: [Episode(id=f"{CONV}:S2:E1", conv_id=CONV, session=2, turn_ids=("D2:1", "D2:2", "D2:3"),
                    theme=("catching up",), start_time=S2)],
    }


def _rec(n: int, episode: str, entity: str, etype: str, prop: str, value: str, evidence: tuple[str, ...],
         confidence: float = 0.7, modality: Modality = Modality.OBSERVED, valid_time: str | None = None
         ) -> Record:
    return Record(id=f"{episode}:R{n}", conv_id=CONV, episode_id=episode, entity=entity, entity_type=etype,
                  property=prop, value=value, evidence_turn_ids=evidence, confidence=confidence,
                  modality=modality, valid_time=valid_time, source_speaker="Ana")


def records() -> dict[int, list[Record]]:
    e11, e12, e21 = f"{CONV}:S1:E1", f"{CONV}:S1:E2", f"{CONV}:S2:E1"
    return {
        1: [_rec(1, e11, "Ana", "person", "paints", "sunsets", ("D1:1",), 0.9, valid_time="2023-05"),
            _rec(2, e11, "Ana", "person", "uses_medium", "watercolour", ("D1:3",), 0.6),
            _rec(3, e11, "Mel", "person", "taught", "Ana", ("D1:3",), 0.5),
            _rec(4, e11, "Ana", "person", "friend_of", "Mel", ("D1:3",), 0.8),
            _rec(1, e12, "Ben", "person", "destination", "Lisbon", ("D1:4",), 0.8,
                 Modality.PLANNED, "2023-07"),
            _rec(2, e12, "Lisbon", "place", "has", "trams", ("D1:5",), 0.4)],
        2: [_rec(1, e21, "Ben", "person", "destination", "Lisbon", ("D2:1",), 0.9),
            _rec(2, e21, "Melanie", "person", "paints", "with Ana", ("D2:2",), 0.7)],
    }


def load(store) -> None:
    store.save_conversation(conversation())
    eps, recs = episodes(), records()
    for session in (1, 2):
        store.save_session_memory(CONV, session, eps[session], recs[session], [], backend="offline")




def index_records(services) -> None:
    recs = [r for rs in records().values() for r in rs]
    vectors = services.embedder.embed([r.text() for r in recs])
    services.raw_index().upsert("records", [r.id for r in recs], vectors,
                                [{"conv_id": r.conv_id, "episode_id": r.episode_id, "entity": r.entity,
                                  "property": r.property} for r in recs])
