"""The domain model: one module, pydantic v2, frozen values.

Vocabulary follows docs/architecture.md (and the product design):

    Conversation ▸ Session ▸ Turn            what was said (imported)
    Episode ▸ Record, Entity, EventFrame      what the memory built (per conversation)
    Plan ▸ Requirement, Trace ▸ Match ...     what a question did
    Edit                                      what an annotator changed

All models are immutable; use ``model.model_copy(update={...})`` to derive a changed one.
Ids are strings and stable: turns keep the source's id (``D4:8``) or get ``D<session>:<n>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


@dataclass(frozen=True)
class Source:
    """A file to read: a path (on the machine that reads it) or an upload's bytes (``data``)
    under its name. Every reader takes one — loading, preview, format detection, import,
    evaluation — and ``Source.of`` makes one of a plain path (named as given)."""

    name: str
    path: Path | None = None
    data: bytes | None = None

    @classmethod
    def of(cls, value: Source | str | Path) -> Source:
        return value if isinstance(value, Source) else cls(str(value), path=Path(value))

    @classmethod
    def upload(cls, name: str, data: bytes) -> Source:
        return cls(name, data=data)

    @property
    def is_upload(self) -> bool:
        return self.data is not None

    @property
    def file(self) -> Path:
        """The path (a source without uploaded bytes always has one)."""
        if self.path is None:
            raise ValueError(f"source {self.name!r} has neither a path nor data")
        return self.path


SourceLike = Source | str | Path  # what a reader accepts: a Source, or a path


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------- vocabularies
class ThemeType(StrEnum):
    ENTITY = "entity"
    EVENT = "event"
    TOPIC = "topic"


class Modality(StrEnum):
    OBSERVED = "observed"
    PLANNED = "planned"
    DESIRED = "desired"
    HYPOTHETICAL = "hypothetical"
    NEGATED = "negated"


class RecordStatus(StrEnum):
    ACTIVE = "active"
    WRONG = "wrong"  # marked wrong by an annotator: kept, excluded from retrieval
    DELETED = "deleted"  # soft-deleted: kept for history/revert, excluded everywhere


class ReasoningType(StrEnum):
    POINT = "point"
    TEMPORAL = "temporal"
    AGGREGATION = "aggregation"
    COMPARISON = "comparison"
    MULTI_HOP = "multi-hop"
    OPEN_DOMAIN = "open-domain"


class Scope(StrEnum):
    POINT = "point"
    ALL = "all"  # all matching


class MatchKind(StrEnum):
    STRUCTURED = "structured"
    LEXICAL = "lexical"
    DENSE = "dense"
    GRAPH = "graph"
    EVENT = "event"


# --------------------------------------------------------------------------- conversation
class Turn(_Model):
    id: str  # e.g. "D4:8"
    session: int  # 1-based session index
    index: int  # 0-based position inside the session
    speaker: str
    text: str = ""
    image_caption: str | None = None
    image_url: str | None = None
    session_time: datetime | None = None

    def render(self) -> str:
        """``speaker: text [image: caption]`` — the text counted, embedded and shown."""
        body = self.text
        if self.image_caption:
            body = f"{body} [image: {self.image_caption}]".strip()
        return f"{self.speaker}: {body}"


class Session(_Model):
    index: int  # 1-based
    time: datetime | None = None
    time_text: str = ""  # the date-time as written in the source
    turns: tuple[Turn, ...] = ()


class QAItem(_Model):
    qid: int  # index in the source's full qa list
    question: str
    answer: str | None = None
    evidence: tuple[str, ...] = ()
    category: int | None = None
    adversarial_answer: str | None = None
    question_time: datetime | None = None


class Conversation(_Model):
    id: str
    speakers: tuple[str, ...] = ()
    sessions: tuple[Session, ...] = ()
    qa: tuple[QAItem, ...] = ()
    source_format: str = ""
    source_name: str = ""
    meta: dict[str, Any] = Field(default_factory=dict)  # observations, summaries, ...

    @property
    def turns(self) -> list[Turn]:
        return [t for s in self.sessions for t in s.turns]


# --------------------------------------------------------------------------- memory
class Episode(_Model):
    id: str  # "<conv>:S<session>:E<n>"
    conv_id: str
    session: int
    turn_ids: tuple[str, ...]
    theme: tuple[str, ...] = ()  # key phrases
    theme_type: ThemeType = ThemeType.TOPIC
    boundary_reason: str = ""
    boundary_score: float = 0.0
    start_time: datetime | None = None


class Record(_Model):
    id: str
    conv_id: str
    episode_id: str
    entity: str
    entity_type: str
    property: str
    value: str
    condition: str | None = None
    modality: Modality = Modality.OBSERVED
    valid_time: str | None = None  # ISO date / month / year ("2023-05-06", "2023-05", "2022")
    valid_time_text: str | None = None  # the expression it was normalised from
    evidence_turn_ids: tuple[str, ...] = ()
    confidence: float = 0.5
    source_speaker: str | None = None
    importance: float = 0.0
    status: RecordStatus = RecordStatus.ACTIVE
    version: int = 1
    origin: str = "offline"  # backend that produced it, or "annotator"

    def edited(self) -> bool:
        """Written or corrected by an annotator (not as the build extracted it)."""
        return self.origin == "annotator" or self.version > 1

    def text(self) -> str:
        """The record as one readable line ("Ana adds Little Women to watch list (planned,
        2023-05)"): what the UI shows and the dense/lexical indexes embed."""
        line = f"{self.entity} {self.property.replace('_', ' ')} {self.value}".strip()
        if self.condition:
            line += f", if {self.condition.removeprefix('if ')}"
        notes = [self.modality.value] if self.modality != Modality.OBSERVED else []
        if self.valid_time:
            notes.append(self.valid_time)
        return f"{line} ({', '.join(notes)})" if notes else line


class Entity(_Model):
    id: str
    conv_id: str
    name: str  # canonical name
    type: str
    aliases: tuple[str, ...] = ()
    importance: float = 0.0
    attributes: dict[str, list[str]] = Field(default_factory=dict)  # aspect records


class EntityMerge(_Model):
    conv_id: str
    canonical_id: str
    alias: str
    reason: str  # "normalised name" | "embedding 0.91" | "annotator"
    score: float = 1.0


class GraphEdge(_Model):
    conv_id: str
    source: str  # entity id
    target: str  # entity id
    property: str
    record_ids: tuple[str, ...] = ()
    importance: float = 0.0
    first_mentioned: datetime | None = None
    last_mentioned: datetime | None = None
    last_accessed: datetime | None = None


class EventFrame(_Model):
    id: str
    conv_id: str
    episode_id: str
    action: str
    participants: tuple[str, ...] = ()
    time: str | None = None
    time_text: str | None = None
    place: str | None = None
    cause: str | None = None
    manner: str | None = None
    source_turn_ids: tuple[str, ...] = ()
    importance: float = 0.0


class EventLink(_Model):
    conv_id: str
    source: str  # event id
    target: str  # event id
    kind: str  # "participant" | "succession" | "episode"
    label: str = ""


# --------------------------------------------------------------------------- questions
class Requirement(_Model):
    entity: str | None = None
    entity_type: str | None = None
    property: str | None = None
    value: str | None = None
    condition: str | None = None  # e.g. relative time kept from the question
    role: str = "target"  # "target" | "constraint" | "bridge" (needs another hop's answer)
    depends_on: int | None = None  # index of the requirement whose answer this one needs


class Plan(_Model):
    question: str
    answer_target: str = ""
    reasoning_type: ReasoningType = ReasoningType.POINT
    scope: Scope = Scope.POINT
    requirements: tuple[Requirement, ...] = ()
    hops: int = 1
    time_condition: str | None = None
    keywords: tuple[str, ...] = ()


class Match(_Model):
    requirement: int  # index into plan.requirements; -1 for question-level matches
    kind: MatchKind
    score: float
    components: dict[str, float] = Field(default_factory=dict)
    record_id: str | None = None
    turn_id: str | None = None
    episode_id: str | None = None


class EpisodeChoice(_Model):
    episode_id: str
    score: float
    reason: str
    covers: tuple[int, ...] = ()  # requirement indexes supported


class Highlight(_Model):
    start: int
    end: int
    label: str = ""  # what matched: entity / value / keyword


class BufferTurn(_Model):
    turn_id: str
    speaker: str
    text: str
    session: int
    session_time: datetime | None = None
    image_caption: str | None = None
    episode_id: str | None = None
    highlights: tuple[Highlight, ...] = ()
    closeness: float | None = None  # cosine of the turn and the question, set by retrieval


class SupportLevel(StrEnum):
    """How well the evidence carries an answer (requirement coverage x answer support)."""

    SUPPORTED = "supported"
    WEAK = "weak"
    UNKNOWN = "unknown"


class Answer(_Model):
    text: str
    cited_turn_ids: tuple[str, ...] = ()
    supported: bool = True
    support: SupportLevel | None = None  # graded support, when the answerer assessed it
    updates: str | None = None  # current-state answers: the earlier statement superseded, "D9:5 (3 May 2023)"
    unmentioned: tuple[str, ...] = ()  # names the question uses that no retrieved turn says ("Unknown" then)
    quote: str | None = None  # the evidence sentence the answer rests on, with speaker and date
    record_ids: tuple[str, ...] = ()  # the records whose values the answer gives
    confidence: float | None = None  # the answerer's probability that the answer is right


class Trace(_Model):
    id: str
    conv_id: str
    question: str
    strategy: str
    backend: str
    plan: Plan
    matches: tuple[Match, ...] = ()
    episodes: tuple[EpisodeChoice, ...] = ()
    buffer: tuple[BufferTurn, ...] = ()
    answer: Answer
    timings: dict[str, float] = Field(default_factory=dict)  # seconds per stage
    buffer_tokens: int = 0
    budget_tokens: int | None = None
    cost: dict[str, float] = Field(default_factory=dict)  # tokens_in/out, usd
    created_at: datetime
    # how retrieval went: stop reason, requirements covered, boosts applied (query helper)
    details: dict[str, Any] = Field(default_factory=dict)
    client: str = ""  # who asked: "" a person (app, CLI, evaluation), else the MCP client's name
    kind: str = "ask"  # "ask" (answered) | "search" (records handed over, no answer)


@dataclass(frozen=True)
class TraceRow:
    """One saved trace as the lists of past questions and agent calls show it (the trace itself
    is ``Trace``): newest first from ``QueryService.traces``."""

    id: str
    question: str
    strategy: str
    backend: str
    created_at: datetime | None
    client: str = ""  # "" a person, else the MCP client's name
    kind: str = "ask"  # "ask" | "search"
    by_evaluation: bool = False  # an evaluation run asked it

    @classmethod
    def of(cls, row: dict[str, Any]) -> TraceRow:
        """From the store's row (``RelationalStore.traces``)."""
        return cls(id=str(row["id"]), question=str(row["question"]), strategy=str(row.get("strategy") or ""),
                   backend=str(row.get("backend") or ""), created_at=row.get("created_at"),
                   client=str(row.get("client") or ""), kind=str(row.get("kind") or "ask"),
                   by_evaluation=bool(row.get("by_evaluation")))


class Edit(_Model):
    id: str
    conv_id: str
    target_kind: str  # "record" | "entity"
    target_id: str
    action: str  # "update" | "create" | "delete" | "mark_wrong" | "merge" | "revert"
    who: str
    at: datetime
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    why: str = ""
    reverts: str | None = None  # id of the edit this one reverts
    via: str = ""  # where it was made: "browse", "review queue", "edit form", "history" ("": not said)
