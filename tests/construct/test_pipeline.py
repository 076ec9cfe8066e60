"""The streamed build: events, persistence per session, idempotence, vectors, validation."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from memory_core.backends.offline.backend import OfflineBackend
from memory_core.construct.pipeline import build_conversation
from memory_core.contracts import BackendBase, ConversationInfo, Extraction
from memory_core.errors import BuildError
from memory_core.models import Episode, Session, Turn
from memory_core.progress import EpisodeFormed, SessionSkipped, SessionStarted
from memory_core.store import Store
from memory_core.store.vectors import VectorIndex
from tests.construct.dialogues import HIKING, POTTERY, TWO_THEMES, conversation, session


@pytest.fixture
def index(tmp_path: Path) -> VectorIndex:
    return VectorIndex(tmp_path / "chroma")


@pytest.fixture
def backend(embedder) -> OfflineBackend:
    return OfflineBackend(embedder=embedder)


@pytest.fixture
def built(store: Store, index: VectorIndex, embedder, backend: OfflineBackend) -> list[Any]:
    store.save_conversation(conversation("c1", [session(1, TWO_THEMES), session(2, HIKING)]))
    return list(build_conversation(store, index, embedder, "c1", backend))


def kinds(events: list[Any]) -> list[str]:
    return [e.kind for e in events]


def vector_counts(index: VectorIndex, conv_id: str) -> tuple[int, ...]:
    return tuple(index.count(c, where={"conv_id": conv_id}) for c in ("turns", "records", "entities"))


def test_events_stream_in_order_and_everything_is_stored(built: list[Any], store: Store,
                                                        index: VectorIndex) -> None:
    k = kinds(built)
    assert k[0] == "build_started" and k[-1] == "build_done"
    assert k[-3:-1] == ["entities_merged", "graph_updated"]
    assert k.count("session_started") == 2 and k.count("session_done") == 2
    first_session = k.index("session_started")
    assert k.index("episode_formed") > first_session
    assert k.index("records_extracted") > k.index("episode_formed")
    started = [e for e in built if isinstance(e, SessionStarted)]
    assert [t.id for t in started[0].turns] == [f"D1:{i}" for i in range(1, 15)]
    assert built[0].sessions_pending == 2 and built[0].turns_pending == 19
    assert all(str(e) for e in built)  # every event has a one-line description

    assert store.built_sessions("c1") == {1: "offline", 2: "offline"}
    episodes = store.episodes("c1")
    assert [t for e in episodes for t in e.turn_ids] == [t.id for t in store.turns("c1")]
    # no episode crosses a session
    assert all({t.split(":")[0] for t in e.turn_ids} == {f"D{e.session}"} for e in episodes)
    records = store.records("c1")
    assert len(records) >= 19 / 3
    for r in records:
        episode = next(e for e in episodes if e.id == r.episode_id)
        assert set(r.evidence_turn_ids) <= set(episode.turn_ids)
    assert store.entities("c1") and store.events("c1")
    assert 0 < max(r.importance for r in records) <= 1.0
    assert vector_counts(index, "c1") == (19, len(records), len(store.entities("c1")))
    hit = index.query("turns", index.get_vectors("turns", ["c1|D2:2"])["c1|D2:2"], k=1)[0]
    assert hit.id == "c1|D2:2" and hit.metadata["episode_id"].startswith("c1:S2:")
    done = built[-1]
    assert done.stats["sessions_built"] == 2 and done.stats["turns_built"] == 19
    assert {"segment", "extract", "persist", "index"} <= set(done.stats["stages"])
    history = store.builds("c1")
    assert history[0]["finished_at"] is not None and history[0]["stats"]["records"] == len(records)


def test_rerun_skips_and_rebuild_replaces(built: list[Any], store: Store, index: VectorIndex, embedder,
                                         backend: OfflineBackend) -> None:
    records = [r.id for r in store.records("c1")]
    again = list(build_conversation(store, index, embedder, "c1", backend))
    assert kinds(again) == ["build_started", "session_skipped", "session_skipped", "build_done"]
    assert [r.id for r in store.records("c1")] == records
    rebuilt = list(build_conversation(store, index, embedder, "c1", backend, rebuild=True))
    assert kinds(rebuilt).count("session_started") == 2
    assert [r.id for r in store.records("c1")] == records  # deterministic and replaced, not added
    assert vector_counts(index, "c1") == (19, len(records), len(store.entities("c1")))


def test_a_new_session_builds_alone(built: list[Any], store: Store, index: VectorIndex, embedder,
                                    backend: OfflineBackend) -> None:
    before = {r.id: r for r in store.records("c1") if r.episode_id.startswith("c1:S1:")}
    store.add_sessions("c1", [session(3, POTTERY)])
    events = list(build_conversation(store, index, embedder, "c1", backend))
    assert [e.session for e in events if isinstance(e, SessionStarted)] == [3]
    assert [e.session for e in events if isinstance(e, SessionSkipped)] == [1, 2]
    assert set(store.built_sessions("c1")) == {1, 2, 3}
    after = {r.id: r for r in store.records("c1") if r.episode_id.startswith("c1:S1:")}
    assert after.keys() == before.keys()
    assert any(r.episode_id.startswith("c1:S3:") for r in store.records("c1"))
    assert index.count("turns", where={"conv_id": "c1"}) == 23


def test_missing_vectors_are_repaired_on_rerun(built: list[Any], store: Store, index: VectorIndex, embedder,
                                              backend: OfflineBackend) -> None:
    lost = [r.id for r in store.records("c1") if r.episode_id.startswith("c1:S2:")]
    index.delete("records", ids=lost)
    index.delete("turns", ids=["c1|D2:1"])
    events = list(build_conversation(store, index, embedder, "c1", backend))
    skipped = [e for e in events if isinstance(e, SessionSkipped)]
    assert [e.reason for e in skipped] == ["already built", "already built; missing vectors re-indexed"]
    assert vector_counts(index, "c1")[:2] == (19, len(store.records("c1")))


def test_an_interrupted_build_keeps_whole_sessions(store: Store, index: VectorIndex, embedder,
                                                   backend: OfflineBackend) -> None:
    store.save_conversation(conversation("c2", [session(1, TWO_THEMES), session(2, HIKING)]))
    stream = build_conversation(store, index, embedder, "c2", backend)
    assert isinstance(stream, Generator)  # a page closes the stream it leaves
    for event in stream:
        if isinstance(event, EpisodeFormed) and event.episode.session == 2:
            break  # the user closes the page in the middle of session 2
    stream.close()
    assert set(store.built_sessions("c2")) == {1}
    assert not store.episodes("c2", 2)
    events = list(build_conversation(store, index, embedder, "c2", backend))
    assert [e.session for e in events if isinstance(e, SessionStarted)] == [2]


class _Broken(BackendBase):
    """A backend that returns invalid output for session 2 (what a faulty LLM backend might do)."""

    name = "broken"

    def __init__(self, inner: OfflineBackend, fault: str) -> None:
        self.inner, self.fault = inner, fault

    def segment(self, s: Session, info: ConversationInfo) -> list[Episode]:
        episodes = self.inner.segment(s, info)
        if s.index == 2 and self.fault == "drop-turn":
            last = episodes[-1]
            episodes[-1] = last.model_copy(update={"turn_ids": last.turn_ids[:-1]})
        return episodes

    def extract(self, episode: Episode, turns: list[Turn], info: ConversationInfo) -> Extraction:
        out = self.inner.extract(episode, turns, info)
        if episode.session == 2 and self.fault == "outside-evidence" and out.records:
            bad = out.records[0].model_copy(update={"evidence_turn_ids": ("D1:1",)})
            return Extraction(records=[bad, *out.records[1:]], events=out.events)
        if episode.session == 2 and self.fault == "empty-property" and out.records:
            bad = out.records[0].model_copy(update={"property": " "})
            return Extraction(records=[bad, *out.records[1:]], events=out.events)
        return out

    def plan(self, question: str, vocabulary: Any) -> Any:
        raise NotImplementedError

    def answer(self, question: str, plan: Any, buffer: Any, *, unmentioned: Any, records: Any = ()) -> Any:
        raise NotImplementedError


@pytest.mark.parametrize(("fault", "message"), [
    ("drop-turn", "missing turns D2:5"),
    ("outside-evidence", "cites turns outside its episode: D1:1"),
    ("empty-property", "empty entity or property"),
])
def test_invalid_backend_output_is_rejected_and_nothing_is_written(
        store: Store, index: VectorIndex, embedder, backend: OfflineBackend,
        fault: str, message: str) -> None:
    store.save_conversation(conversation("c3", [session(1, TWO_THEMES), session(2, HIKING)]))
    with pytest.raises(BuildError) as caught:
        list(build_conversation(store, index, embedder, "c3", _Broken(backend, fault)))
    text = str(caught.value)
    assert "conversation 'c3', session 2" in text and "'broken'" in text and message in text
    assert "\n" not in text
    assert set(store.built_sessions("c3")) == {1}
    assert not store.episodes("c3", 2)
    assert index.count("turns", where={"$and": [{"conv_id": "c3"}, {"session": 2}]}) == 0
    assert store.builds("c3")[0]["stats"]["error"] == text
