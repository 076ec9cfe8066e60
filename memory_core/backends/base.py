"""The backend interface: who does the thinking in each stage.

Two implementations sit behind it: ``offline`` (local embeddings + spaCy + rules, the
default, no network) and ``openai`` (any OpenAI-compatible endpoint). A ``StagedBackend``
can mix them per stage (e.g. offline segmentation + LLM extraction).

    segment(session, info)            -> episodes (every turn in exactly one, in order)
    extract(episode, turns, info)     -> Extraction(records, events), evidence inside the episode
    plan(question, vocabulary)        -> Plan
    answer(question, plan, buffer)    -> Answer (cites buffer turn ids)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from memory_core.models import Answer, BufferTurn, Episode, EventFrame, Plan, Record, Session, Turn

STAGES = ("segment", "extract", "plan", "answer")


@dataclass(frozen=True)
class ConversationInfo:
    """What a stage may know about the conversation besides its own input."""

    conv_id: str
    speakers: tuple[str, ...]
    # canonical entity names already known (earlier sessions), for alias resolution
    known_entities: tuple[str, ...] = ()


@dataclass(frozen=True)
class Extraction:
    records: list[Record] = field(default_factory=list)
    events: list[EventFrame] = field(default_factory=list)


@dataclass(frozen=True)
class Vocabulary:
    """The home's own entity and property vocabulary, for aligning a question's plan."""

    speakers: tuple[str, ...] = ()
    entities: tuple[tuple[str, str], ...] = ()  # (name, type), aliases included as names
    properties: tuple[str, ...] = ()
    question_time: datetime | None = None  # "now" for relative time in the question


@runtime_checkable
class Backend(Protocol):
    name: str

    def segment(self, session: Session, info: ConversationInfo) -> list[Episode]: ...

    def extract(self, episode: Episode, turns: list[Turn], info: ConversationInfo) -> Extraction: ...

    def plan(self, question: str, vocabulary: Vocabulary) -> Plan: ...

    def answer(self, question: str, plan: Plan, buffer: list[BufferTurn]) -> Answer: ...
