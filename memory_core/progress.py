"""Typed progress events of a memory build, in the order a build yields them.

``build_conversation(...)`` is a generator of these events; the CLI draws a progress bar from
them and the app draws the memory forming turn by turn::

    ConversationQueued                   cluster builds only: the conversation went to a worker
    BuildStarted                         once: conversation, sessions total/pending, backend
    ├── SessionSkipped                   a session already built (no ``--rebuild``)
    └── SessionStarted                   the session's turns, in order, with its date-time
         ├── EpisodeFormed               one per episode, as soon as segmentation made it
         ├── RecordsExtracted            one per episode: its records and event frames
         └── SessionDone                 the session is committed (DuckDB + vectors)
    EntitiesMerged                       canonical entities: every alias merge of the conversation
    GraphUpdated                         entity graph + event graph recomputed (counts)
    BuildDone                            stats: turns/s, seconds per stage, counts

Every event is a frozen dataclass with a ``conv_id``, a one-line ``str()`` and ``to_dict()``
(JSON-ready, models dumped). Consumers tell them apart by class (``isinstance`` / ``match``);
the ``kind`` string (``"session_started"`` ...) only labels an event in JSON and test output.
This module sits on the bottom floor (value types) so the services, the CLI and the app's
components all take the same classes.

Every other long-running service call (import, evaluation, curve, ranker fit, impact report)
reports through one callback type, ``OnProgress = Callable[[Step], None]``: a ``Step`` names its
``stage`` ("checked", "saved", "import", "build", "question", "curve", "impact"), how many of
``total`` are ``done`` (``total`` 0: not known ahead), the conversation it is about and a
stage-specific ``detail`` (the imported ids, a build event's line, a question id, a
``CurvePoint``, an impact row).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from memory_core.models import Entity, EntityMerge, Episode, EventFrame, Record, Turn


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, datetime):
        return value.isoformat()
    return value


@dataclass(frozen=True)
class _Event:
    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class ConversationQueued(_Event):
    """A cluster build sent the conversation to a worker; its ``BuildStarted`` ... ``BuildDone``
    follow when the worker's result is committed."""

    conv_id: str
    sessions_pending: int
    turns_pending: int
    kind: str = field(default="conversation_queued", init=False)

    def __str__(self) -> str:
        return (f"{self.conv_id}: queued on the cluster: {self.sessions_pending} sessions, "
                f"{self.turns_pending} turns")


@dataclass(frozen=True)
class BuildStarted(_Event):
    conv_id: str
    sessions_total: int
    backend: str
    sessions_pending: int = 0  # sessions this run will build (the others are skipped)
    turns_pending: int = 0
    rebuild: bool = False
    kind: str = field(default="build_started", init=False)

    def __str__(self) -> str:
        mode = "rebuild" if self.rebuild else "build"
        return (f"{self.conv_id}: {mode} with backend '{self.backend}': "
                f"{self.sessions_pending}/{self.sessions_total} sessions, {self.turns_pending} turns")


@dataclass(frozen=True)
class SessionSkipped(_Event):
    conv_id: str
    session: int
    reason: str = "already built"
    kind: str = field(default="session_skipped", init=False)

    def __str__(self) -> str:
        return f"{self.conv_id}: session {self.session} skipped ({self.reason})"


@dataclass(frozen=True)
class SessionStarted(_Event):
    conv_id: str
    session: int
    turns: list[Turn]
    time: datetime | None = None
    kind: str = field(default="session_started", init=False)

    def __str__(self) -> str:
        when = f" ({self.time:%Y-%m-%d %H:%M})" if self.time else ""
        return f"{self.conv_id}: session {self.session}{when}: {len(self.turns)} turns"


@dataclass(frozen=True)
class EpisodeFormed(_Event):
    conv_id: str
    episode: Episode
    kind: str = field(default="episode_formed", init=False)

    def __str__(self) -> str:
        e = self.episode
        span = f"{e.turn_ids[0]}..{e.turn_ids[-1]}" if e.turn_ids else "empty"
        theme = ", ".join(e.theme[:3]) or "-"
        return (f"{self.conv_id}: episode {e.id} [{span}, {len(e.turn_ids)} turns] "
                f"{e.theme_type.value}: {theme} ({e.boundary_reason})")


@dataclass(frozen=True)
class RecordsExtracted(_Event):
    conv_id: str
    episode_id: str
    records: list[Record]
    events: list[EventFrame] = field(default_factory=list)
    kind: str = field(default="records_extracted", init=False)

    def __str__(self) -> str:
        return (f"{self.conv_id}: episode {self.episode_id}: {len(self.records)} records, "
                f"{len(self.events)} event frames")


@dataclass(frozen=True)
class SessionDone(_Event):
    conv_id: str
    session: int
    episodes: int
    records: int
    seconds: float
    events: int = 0
    turns: int = 0
    kind: str = field(default="session_done", init=False)

    def __str__(self) -> str:
        return (f"{self.conv_id}: session {self.session} done: {self.episodes} episodes, "
                f"{self.records} records, {self.events} events in {self.seconds:.2f}s")


@dataclass(frozen=True)
class EntitiesMerged(_Event):
    conv_id: str
    merges: list[EntityMerge]
    entities: list[Entity] = field(default_factory=list)
    kind: str = field(default="entities_merged", init=False)

    def __str__(self) -> str:
        return (f"{self.conv_id}: {len(self.entities)} canonical entities, "
                f"{len(self.merges)} alias merges")


@dataclass(frozen=True)
class GraphUpdated(_Event):
    conv_id: str
    entities: int
    edges: int
    events: int
    links: int
    kind: str = field(default="graph_updated", init=False)

    def __str__(self) -> str:
        return (f"{self.conv_id}: graph: {self.entities} entities, {self.edges} edges, "
                f"{self.events} events, {self.links} event links")


@dataclass(frozen=True)
class BuildDone(_Event):
    conv_id: str
    stats: dict[str, Any]
    kind: str = field(default="build_done", init=False)

    def __str__(self) -> str:
        s = self.stats
        return (f"{self.conv_id}: built {s.get('sessions_built', 0)} sessions "
                f"({s.get('turns_built', 0)} turns) in {s.get('seconds', 0.0):.1f}s, "
                f"{s.get('turns_per_s', 0.0):.1f} turns/s; {s.get('episodes', 0)} episodes, "
                f"{s.get('records', 0)} records, {s.get('entities', 0)} entities")


BuildEvent = (ConversationQueued | BuildStarted | SessionSkipped | SessionStarted | EpisodeFormed
              | RecordsExtracted | SessionDone | EntitiesMerged | GraphUpdated | BuildDone)



@dataclass(frozen=True)
class Step:
    """One progress report of a long-running service call (see the module docstring)."""

    stage: str
    done: int = 0
    total: int = 0  # 0: not known ahead (a streamed file)
    conv_id: str = ""
    detail: object | None = None


@dataclass(frozen=True)
class CurvePoint:
    """The ``detail`` of a "curve" step: one strategy's full recall at one budget."""

    strategy: str
    budget: int
    full_recall: float


OnProgress = Callable[[Step], None]

__all__ = [
    "BuildDone",
    "BuildEvent",
    "BuildStarted",
    "ConversationQueued",
    "CurvePoint",
    "EntitiesMerged",
    "EpisodeFormed",
    "GraphUpdated",
    "OnProgress",
    "RecordsExtracted",
    "SessionDone",
    "SessionSkipped",
    "SessionStarted",
    "Step",
]
