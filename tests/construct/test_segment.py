"""Segmentation: TextTiling boundaries on real embeddings, and the dialogue rules."""

from __future__ import annotations

import numpy as np
import pytest

from memory_core.backends.offline.backend import OfflineBackend
from memory_core.backends.offline.segment import find_spans, is_acknowledgement, is_greeting
from memory_core.models import ThemeType, Turn
from tests.construct.dialogues import INFO, TWO_THEMES, session


@pytest.fixture(scope="module")
def backend(embedder) -> OfflineBackend:
    return OfflineBackend(embedder=embedder)


def test_two_themes_split_once_at_the_shift(backend: OfflineBackend) -> None:
    s = session(1, TWO_THEMES)
    episodes = backend.segment(s, INFO)
    assert [e.turn_ids[0] for e in episodes] == ["D1:1", "D1:9"]  # pets | work servers
    first, second = episodes
    assert "D1:8" in first.turn_ids  # "Thanks for sharing!" stays with what it thanks for
    assert first.boundary_reason == "session start" and first.boundary_score == 1.0
    assert second.boundary_reason.startswith("depth ") and second.boundary_score > 0.3
    assert [e.id for e in episodes] == ["t:S1:E1", "t:S1:E2"]
    assert any("Rex" in t or "puppy" in t for t in first.theme)
    assert any("server" in t or "cloud" in t or "Python" in t for t in second.theme)
    assert {e.theme_type for e in episodes} <= set(ThemeType)


def _turns(texts: list[str]) -> list[Turn]:
    return [Turn(id=f"D1:{i + 1}", session=1, index=i, speaker="AB"[i % 2], text=t)
            for i, t in enumerate(texts)]


def test_every_turn_in_exactly_one_span_and_no_fragments() -> None:
    rng = np.random.default_rng(7)
    for n in (1, 2, 5, 6, 13, 40, 90):
        vectors = rng.normal(size=(n, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        texts = [f"I talked about topic number {i} with plenty of details today." for i in range(n)]
        spans = find_spans(_turns(texts), vectors)
        covered = [i for s in spans for i in range(s.start, s.end)]
        assert covered == list(range(n))
        if n >= 6:
            assert all(s.end - s.start >= 3 for s in spans)
            assert all(s.end - s.start <= 14 for s in spans)


def test_an_outlier_turn_is_not_its_own_episode() -> None:
    base = np.zeros((9, 384), dtype=np.float32)
    base[:, 0] = 1.0
    base[4] = 0.0
    base[4, 1] = 1.0  # one off-topic turn in the middle: no sustained shift
    texts = [f"We spoke at length about the garden and the roses, part {i}." for i in range(9)]
    spans = find_spans(_turns(texts), base)
    assert all(s.end - s.start >= 3 for s in spans)


def test_greetings_and_acknowledgements() -> None:
    def turn(text: str) -> Turn:
        return Turn(id="x", session=1, index=0, speaker="A", text=text)

    assert is_greeting(turn("Hey Mel! Good to see you! How have you been?"))
    assert not is_greeting(turn("I adopted a dog named Rex."))
    assert is_acknowledgement(turn("Thanks, that's awesome!"))
    assert not is_acknowledgement(turn("Thanks! I moved to Berlin."))


def test_opening_greeting_never_stands_alone() -> None:
    texts = ["Hi! Good to see you!",
             *[f"My sister Lena bought a red bicycle in spring, detail {i}." for i in range(4)],
             *[f"The quarterly tax report for the bakery is due on Friday, item {i}." for i in range(4)]]
    vectors = np.zeros((9, 384), dtype=np.float32)
    vectors[0, 2] = 1.0  # the greeting looks like nothing else
    vectors[1:5, 0] = 1.0
    vectors[5:, 1] = 1.0
    spans = find_spans(_turns(texts), vectors)
    assert spans[0].start == 0 and spans[0].end >= 4
