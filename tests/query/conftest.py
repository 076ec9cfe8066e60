"""A small hand-made conversation (three sessions, two speakers) for query tests."""

from __future__ import annotations

from datetime import datetime

import pytest

from memory_core.models import Conversation, Session, Turn
from tests.conftest import built_services, filled_home

SESSIONS: list[tuple[datetime, list[tuple[str, ...]]]] = [
    (
        datetime(2023, 5, 8, 13, 56),
        [
            ("Alice", "Hi Bob! Guess what, I adopted a puppy yesterday. His name is Biscuit."),
            ("Bob", "That's wonderful news, Alice! What breed is he?"),
            ("Alice", "He's a golden retriever, very playful and loves chasing balls."),
            ("Bob", "I went hiking on Mount Tam last weekend, the views were stunning."),
            ("Alice", "Sounds lovely. I should take Biscuit hiking some day."),
            ("Bob", "Work has been busy, the bakery opens a second shop next month."),
        ],
    ),
    (
        datetime(2023, 7, 12, 10, 0),
        [
            ("Bob", "Hey Alice, how is the painting class going?"),
            ("Alice", "Great! I finished a watercolor of a lighthouse. I started painting last year."),
            ("Bob", "Impressive. I went hiking again, this time in Yosemite with my brother."),
            ("Alice", "Did you see any bears?"),
            ("Bob", "No bears, but we saw a huge waterfall."),
            ("Alice", "My sister Carol moved to Berlin for a new job in software."),
            ("Bob", "Berlin is a great city, she will love it."),
        ],
    ),
    (
        datetime(2023, 9, 2, 18, 30),
        [
            ("Alice", "Biscuit graduated from obedience school today!", "a dog wearing a graduation cap"),
            ("Bob", "Congrats to Biscuit! I baked sourdough bread for the shop opening."),
            ("Alice", "Your bread is always delicious. Are you still hiking?"),
            ("Bob", "Yes, I hiked the Dipsea trail two weeks ago, my favourite trail so far."),
            ("Alice", "I am thinking about visiting Carol in Berlin next spring."),
            ("Bob", "You should, and bring me back some German pretzels."),
        ],
    ),
]


def make_conversation(conv_id: str = "conv-test") -> Conversation:
    sessions = []
    for s_index, (when, turns) in enumerate(SESSIONS, start=1):
        built = []
        for t_index, item in enumerate(turns):
            speaker, text = item[0], item[1]
            caption = item[2] if len(item) > 2 else None
            built.append(
                Turn(
                    id=f"D{s_index}:{t_index + 1}",
                    session=s_index,
                    index=t_index,
                    speaker=speaker,
                    text=text,
                    image_caption=caption,
                    session_time=when,
                )
            )
        sessions.append(
            Session(
                index=s_index,
                time=when,
                time_text=when.strftime("%-I:%M %p on %-d %B, %Y"),
                turns=tuple(built),
            )
        )
    return Conversation(id=conv_id, speakers=("Alice", "Bob"), sessions=tuple(sessions), source_format="test")


@pytest.fixture
def conversation() -> Conversation:
    return make_conversation()


@pytest.fixture
def home(services, conversation):
    """Services with the conversation imported (not built: retrieval uses fallback windows)."""
    services.raw_store().save_conversation(conversation)
    return services


# --------------------------------------------------------------------------- hand-made memory
# (entity, type, property, value, evidence turn, valid_time)
RECORDS = [
    ("Alice", "person", "adopt", "puppy named Biscuit", "D1:1", "2023-05-07"),
    ("Biscuit", "animal", "breed", "golden retriever", "D1:3", None),
    ("Bob", "person", "hike", "Mount Tam", "D1:4", "2023-05-06"),
    ("Bob", "person", "job", "bakery, second shop", "D1:6", None),
    ("Alice", "person", "painting", "watercolor of a lighthouse", "D2:2", "2022"),
    ("Bob", "person", "hike", "Yosemite with his brother", "D2:3", None),
    ("Carol", "person", "move", "Berlin, software job", "D2:6", None),
    ("Biscuit", "animal", "graduate", "obedience school", "D3:1", "2023-09-02"),
    ("Bob", "person", "bake", "sourdough bread", "D3:2", None),
    ("Bob", "person", "hike", "Dipsea trail, favourite trail", "D3:4", "2023-08"),
    ("Alice", "person", "travel", "visit Carol in Berlin next spring", "D3:5", None),
]


def build_memory(services, conv_id: str = "conv-test") -> None:
    """Episodes, records, event frames, entities and vectors, written through the real store/index."""
    from memory_core.models import Entity, Episode, EventFrame, GraphEdge, Record, ThemeType

    store, index, embedder = services.raw_store(), services.raw_index(), services.embedder
    conv = store.load_conversation(conv_id)
    for session in conv.sessions:
        ids = [t.id for t in session.turns]
        half = len(ids) // 2
        episodes = [
            Episode(
                id=f"{conv_id}:S{session.index}:E{n + 1}",
                conv_id=conv_id,
                session=session.index,
                turn_ids=tuple(part),
                theme_type=ThemeType.TOPIC,
                start_time=session.time,
            )
            for n, part in enumerate((ids[:half], ids[half:]))
        ]
        records, events = [], []
        for k, (ent, etype, prop, value, turn, when) in enumerate(RECORDS):
            if not turn.startswith(f"D{session.index}:"):
                continue
            ep = next(e for e in episodes if turn in e.turn_ids)
            records.append(
                Record(
                    id=f"{conv_id}:r{k}",
                    conv_id=conv_id,
                    episode_id=ep.id,
                    entity=ent,
                    entity_type=etype,
                    property=prop,
                    value=value,
                    valid_time=when,
                    evidence_turn_ids=(turn,),
                    importance=0.5 + 0.04 * k,
                    source_speaker=next(t.speaker for t in session.turns if t.id == turn),
                )
            )
            events.append(
                EventFrame(
                    id=f"{conv_id}:v{k}",
                    conv_id=conv_id,
                    episode_id=ep.id,
                    action=prop,
                    participants=(ent,),
                    source_turn_ids=(turn,),
                )
            )
        store.save_session_memory(conv_id, session.index, episodes, records, events, backend="offline")
    records = store.records(conv_id)
    names = sorted({r.entity for r in records})
    entities = [
        Entity(id=f"{conv_id}:n{i}", conv_id=conv_id, name=n, type="person") for i, n in enumerate(names)
    ]
    by_name = {e.name: e.id for e in entities}
    edges = [
        GraphEdge(
            conv_id=conv_id,
            source=by_name["Alice"],
            target=by_name["Biscuit"],
            property="adopt",
            record_ids=(f"{conv_id}:r0",),
        )
    ]
    store.save_graph(conv_id, entities, [], edges, [])
    turns = conv.turns
    index.upsert(
        "turns",
        [f"{conv_id}|{t.id}" for t in turns],
        embedder.embed([t.render() for t in turns]),
        [{"conv_id": conv_id, "session": t.session, "turn_id": t.id} for t in turns],
    )
    index.upsert(
        "records",
        [r.id for r in records],
        embedder.embed([r.text() for r in records]),
        [{"conv_id": conv_id, "episode_id": r.episode_id} for r in records],
    )
    index.upsert(
        "entities",
        [e.id for e in entities],
        embedder.embed([e.name for e in entities]),
        [{"conv_id": conv_id} for e in entities],
    )


def _conversation_and_memory(services) -> None:
    services.raw_store().save_conversation(make_conversation())
    build_memory(services)


@pytest.fixture(scope="session")
def built_home(tmp_path_factory: pytest.TempPathFactory, embedder):
    """A closed home (DuckDB file + Chroma directory) holding the conversation and its built
    memory, written once per session through the real services."""
    return filled_home(tmp_path_factory.mktemp("query-built") / "home", embedder, _conversation_and_memory)


@pytest.fixture
def built(request, settings, embedder):
    """Services over a home holding the conversation and its built memory (a copy of
    ``built_home`` per test on the embedded engine; on a server engine the memory is written
    into this test's databases, over the ``home`` fixture)."""
    yield from built_services(request, settings, embedder, base="home", fill=build_memory)


@pytest.fixture
def memory_builder():
    return build_memory
