"""The MCP tools' typed inputs and structured results (pydantic: the SDK derives each tool's
input and output JSON schema from them), and the converters from the library's models.

Turns carry what an agent needs to quote them: id, speaker, session date and text. Records
carry entity, property, value, valid time and their source turns. Every ``ask`` and
``search_memory`` result names the trace it was saved as and the app link that opens it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pydantic import BaseModel, Field

from memory_core.models import Record, Trace, Turn
from memory_core.summaries import ConversationSummary


class TurnOut(BaseModel):
    id: str
    session: int
    speaker: str
    date: str | None = Field(None, description="the session's date-time, ISO")
    text: str
    image_caption: str | None = None


class RecordOut(BaseModel):
    id: str
    entity: str
    property: str
    value: str
    condition: str | None = None
    valid_time: str | None = Field(None, description="when it holds: ISO date, month or year")
    valid_time_text: str | None = None
    status: str
    confidence: float
    episode_id: str
    source_turns: list[TurnOut]


class ConversationOut(BaseModel):
    id: str
    speakers: list[str]
    sessions: int
    built_sessions: int
    turns: int
    episodes: int
    records: int
    source_format: str


class ConversationList(BaseModel):
    conversations: list[ConversationOut]


class SearchResult(BaseModel):
    conversation: str
    query: str
    records: list[RecordOut]
    tokens: int = Field(description="tokens of the source turns handed over")
    trace_id: str
    app_link: str


class AskResult(BaseModel):
    conversation: str
    question: str
    answer: str
    support: str = Field(description="supported | weak | unknown: how well the evidence carries the answer")
    cited_turns: list[TurnOut]
    trace_id: str
    app_link: str


class TurnList(BaseModel):
    conversation: str
    turns: list[TurnOut]


class TurnIn(BaseModel):
    speaker: str = Field(min_length=1, max_length=200)
    text: str = Field(min_length=1)


class RememberResult(BaseModel):
    conversation: str
    session: int = Field(description="the session the turns went into")
    new_session: bool
    turn_ids: list[str]
    sessions_built: int
    episodes: int = Field(description="episodes of the conversation after the build")
    records: int = Field(description="active records of the conversation after the build")
    build_seconds: float


def turn_out(t: Turn) -> TurnOut:
    return TurnOut(id=t.id, session=t.session, speaker=t.speaker, text=t.text, image_caption=t.image_caption,
                   date=t.session_time.isoformat(sep=" ", timespec="minutes") if t.session_time else None)


def record_out(r: Record, turns: Mapping[str, Turn]) -> RecordOut:
    return RecordOut(id=r.id, entity=r.entity, property=r.property, value=r.value, condition=r.condition,
                     valid_time=r.valid_time, valid_time_text=r.valid_time_text, status=r.status.value,
                     confidence=r.confidence, episode_id=r.episode_id,
                     source_turns=[turn_out(turns[t]) for t in r.evidence_turn_ids if t in turns])


def conversation_out(row: ConversationSummary) -> ConversationOut:
    return ConversationOut(id=row.id, speakers=list(row.speakers), sessions=row.sessions,
                           built_sessions=row.built_sessions, turns=row.turns, episodes=row.episodes,
                           records=row.records, source_format=row.source_format)


def cited(trace: Trace, turns: Iterable[Turn]) -> list[TurnOut]:
    by_id = {t.id: t for t in turns}
    return [turn_out(by_id[t]) for t in trace.answer.cited_turn_ids if t in by_id]
