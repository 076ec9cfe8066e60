"""What a retrieval method selects, and the tools every method selects with.

    Retrieval              chosen turn positions (each with why), their episodes, the matches
                           behind them, how the selection stopped
    Picker(ci, cap)        adds turns in a given order while a token cap holds
    window(ci, p, radius)  a turn and its short neighbours inside its episode, nearest first
    episode_choices(...)   the chosen turns grouped by episode: score, reason, requirements covered
    fill(picker, order)    the rest of a token cap filled with the next ranked turns
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memory_core.models import EpisodeChoice, Match
from memory_core.query.context import ConversationIndex
from memory_core.query.scoring import Scored

SUPPORTED = 0.6  # a requirement counts as supported by a turn at or above this support


@dataclass
class Retrieval:
    positions: list[int]
    why: dict[int, str]
    episodes: list[EpisodeChoice]
    matches: list[Match]
    stop_reason: str
    scored: Scored | None = None
    covered: tuple[int, ...] = ()
    extra: dict[str, float] = field(default_factory=dict)


class Picker:
    """Adds turns to the selection while respecting a token cap."""

    def __init__(self, ci: ConversationIndex, cap: int | None) -> None:
        self.ci = ci
        self.cap = cap
        self.chosen: dict[int, str] = {}
        self.tokens = 0

    def cost(self, positions: list[int]) -> int:
        return int(sum(int(self.ci.turn_tokens[p]) for p in positions if p not in self.chosen))

    def add(self, positions: list[int], reason: str) -> list[int]:
        """Add what fits (in the given order); returns the positions actually added."""
        added = []
        for p in positions:
            if p in self.chosen:
                continue
            t = int(self.ci.turn_tokens[p])
            if self.cap is not None and self.tokens + t > self.cap:
                continue
            self.chosen[p] = reason
            self.tokens += t
            added.append(p)
        return added

    def full(self) -> bool:
        return self.cap is not None and self.tokens >= self.cap


CONTEXT_TOKENS = 200  # a neighbour longer than this is no context but a document of its own


def window(ci: ConversationIndex, p: int, radius: int) -> list[int]:
    """``p`` first, then neighbours inside the same episode, nearest first; a long neighbour (an
    assistant's page of advice beside the user's one-line fact) is left to its own rank."""
    out = [p]
    if radius <= 0:
        return out
    e = ci.turn_episode[p]
    for d in range(1, radius + 1):
        for q in (p - d, p + d):
            if 0 <= q < len(ci.turns) and ci.turn_episode[q] == e and ci.turn_tokens[q] <= CONTEXT_TOKENS:
                out.append(q)
    return out


def episode_choices(
    ci: ConversationIndex, chosen: dict[int, str], fused: np.ndarray | None, support: np.ndarray | None
) -> list[EpisodeChoice]:
    by_episode: dict[int, list[int]] = {}
    for p in chosen:
        by_episode.setdefault(int(ci.turn_episode[p]), []).append(p)
    out = []
    for e, positions in by_episode.items():
        score = float(max(fused[p] for p in positions)) if fused is not None else 0.0
        covers: tuple[int, ...] = ()
        if support is not None and support.size:
            covers = tuple(
                int(i) for i in range(support.shape[0]) if any(support[i, p] >= SUPPORTED for p in positions)
            )
        first = min(positions, key=lambda p: -fused[p]) if fused is not None else min(positions)
        plural = "s" if len(positions) > 1 else ""
        reason = f"{len(positions)} turn{plural}; best {ci.turns[first].id}: {chosen[first]}"
        out.append(
            EpisodeChoice(
                episode_id=ci.episodes[e].id if 0 <= e < len(ci.episodes) else f"turn:{e}",
                score=round(score, 4),
                reason=reason,
                covers=covers,
            )
        )
    out.sort(key=lambda c: -c.score)
    return out


def fill(picker: Picker, order: np.ndarray) -> None:
    for p in order:
        if picker.full():
            break
        picker.add([int(p)], "budget fill (next ranked turn)")
