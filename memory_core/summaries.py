"""What a home holds, summarised for the front ends: the typed rows the import and build services
return (the Home page's table, the Load page's preview and cluster progress, the MCP server's
conversation list, the CLI's lines).

    ConversationSummary.of(row)   one conversation with its counts (store: conversation_summaries)
    ImportPreview                 what importing a file would bring in (nothing written)
    BuildRun.of(row)              one build of a conversation: backend, times, stats, LLM cost
    BuildState.of(row)            one conversation's state in a cluster build run

``of`` reads a store row (a plain dict of column values); the counts are ints, the JSON columns
are decoded. Frozen: a front end reads them, never changes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from memory_core.json_value import JSONObject


def _speakers(value: object) -> tuple[str, ...]:
    """The speakers column: a JSON list in the store, a list once decoded."""
    items = json.loads(value) if isinstance(value, str) else value
    return tuple(str(s) for s in items) if isinstance(items, list | tuple) else ()


@dataclass(frozen=True)
class ConversationSummary:
    id: str
    source_format: str = ""
    source_name: str = ""
    speakers: tuple[str, ...] = ()
    imported_at: datetime | None = None
    sessions: int = 0
    turns: int = 0
    questions: int = 0
    episodes: int = 0
    records: int = 0
    entities: int = 0
    events: int = 0
    built_sessions: int = 0

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> ConversationSummary:
        counts = ("sessions", "turns", "questions", "episodes", "records", "entities", "events",
                  "built_sessions")
        return cls(id=str(row["id"]), source_format=str(row.get("source_format") or ""),
                   source_name=str(row.get("source_name") or ""), speakers=_speakers(row.get("speakers")),
                   imported_at=row.get("imported_at"), **{c: int(row.get(c) or 0) for c in counts})

    @property
    def conv_id(self) -> str:
        """The id under the name every per-conversation row has (what a scoped token's listing
        is cut down by: ``services.guard``)."""
        return self.id

    def count(self, name: str) -> int:
        """One of the counts by its column name (``sessions``, ``turns``, ... ``built_sessions``)."""
        value = getattr(self, name)
        if not isinstance(value, int):
            raise KeyError(name)
        return value


# ------------------------------------------------------------------ a file's preview
@dataclass(frozen=True)
class PreviewTurn:
    id: str
    session: int
    speaker: str
    text: str
    image_caption: str | None = None
    session_time: str | None = None  # ISO

    def to_json(self) -> JSONObject:
        return {"id": self.id, "session": self.session, "speaker": self.speaker, "text": self.text,
                "image_caption": self.image_caption, "session_time": self.session_time}


@dataclass(frozen=True)
class PreviewConversation:
    id: str
    exists: bool  # already imported into this home
    speakers: tuple[str, ...]
    sessions: int
    turns: int
    questions: int
    first_turns: tuple[PreviewTurn, ...] = ()


@dataclass(frozen=True)
class ImportPreview:
    format: str
    warnings: tuple[str, ...] = ()
    conversations: tuple[PreviewConversation, ...] = ()

    def with_known(self, known: Iterable[str]) -> ImportPreview:
        """The same preview, ``exists`` read again against these conversation ids."""
        ids = set(known)
        return replace(self, conversations=tuple(replace(c, exists=c.id in ids) for c in self.conversations))


# ------------------------------------------------------------------ builds
@dataclass(frozen=True)
class BuildCost:
    """What a build's LLM calls cost (``llm.accounting``); zeros for an offline build."""
    calls: int = 0
    cached: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0
    unpriced_models: tuple[str, ...] = ()

    @classmethod
    def of(cls, raw: Mapping[str, Any] | None) -> BuildCost:
        raw = raw or {}
        return cls(calls=int(raw.get("calls") or 0), cached=int(raw.get("cached") or 0),
                   tokens_in=int(raw.get("tokens_in") or 0), tokens_out=int(raw.get("tokens_out") or 0),
                   latency_s=float(raw.get("latency_s") or 0.0), cost_usd=float(raw.get("cost_usd") or 0.0),
                   unpriced_models=tuple(str(m) for m in raw.get("unpriced_models") or ()))


@dataclass(frozen=True)
class BuildRun:
    """One row of the ``builds`` table. ``stats``: the build's figures as written (timings per
    stage, counts; ``error`` for a build that failed); unfinished: ``finished_at`` is None."""
    id: str
    conv_id: str
    backend: str
    started_at: datetime | None = None
    finished_at: datetime | None = None
    stats: JSONObject = field(default_factory=dict)
    cost: BuildCost = BuildCost()

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> BuildRun:
        stats = row.get("stats")
        return cls(id=str(row["id"]), conv_id=str(row.get("conv_id") or ""),
                   backend=str(row.get("backend") or ""), started_at=row.get("started_at"),
                   finished_at=row.get("finished_at"),
                   stats=dict(stats) if isinstance(stats, Mapping) else {},
                   cost=BuildCost.of(row.get("cost")))

    @property
    def seconds(self) -> float:
        """How long the build took (0.0 when not written)."""
        value = self.stats.get("seconds")
        return float(value) if isinstance(value, int | float) else 0.0


@dataclass(frozen=True)
class BuildState:
    """One conversation in a cluster build run: ``queued``, ``building`` (at ``stage``), ``done``
    or ``failed`` (with the one-line ``error``), as ``worker`` wrote it last."""
    conv_id: str
    run_id: str
    state: str
    stage: str = ""
    error: str = ""
    worker: str = ""
    updated_at: datetime | None = None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> BuildState:
        return cls(conv_id=str(row["conv_id"]), run_id=str(row["run_id"]), state=str(row["state"]),
                   stage=str(row.get("stage") or ""), error=str(row.get("error") or ""),
                   worker=str(row.get("worker") or ""), updated_at=row.get("updated_at"))
