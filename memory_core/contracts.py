"""The contracts every floor above relies on: the backend, the relational store and the
vector index, and the small value types they exchange. Implementations live above
(``backends/``, ``store/``); callers depend on these protocols only.

The backend interface: who does the thinking in each stage.

Two implementations sit behind it: ``offline`` (local embeddings + spaCy + rules, the
default, no network) and ``openai`` (any OpenAI-compatible endpoint). A ``StagedBackend``
can mix them per stage (e.g. offline segmentation + LLM extraction).

    segment(session, info)            -> episodes (every turn in exactly one, in order)
    extract(episode, turns, info)     -> Extraction(records, events), evidence inside the episode
    plan(question, vocabulary)        -> Plan
    answer(question, plan, buffer, unmentioned=names)
                                      -> Answer (cites buffer turn ids); ``unmentioned`` are
                                         the question's names no buffer turn says (checked
                                         once by the query pipeline, ``query/premise.py``):
                                         then "Unknown" with them, whichever backend
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np

from memory_core.models import (
    Answer,
    BufferTurn,
    Conversation,
    Edit,
    Entity,
    EntityMerge,
    Episode,
    EventFrame,
    EventLink,
    GraphEdge,
    Plan,
    QAItem,
    Record,
    Session,
    Trace,
    Turn,
)
from memory_core.record_filter import RecordFacets, RecordFilter

STAGES = ("segment", "extract", "plan", "answer")


# a chat with an assistant names its speakers by role (LongMemEval, ChatGPT exports)
USER_ROLES = ("user", "human")
ASSISTANT_ROLES = ("assistant", "ai", "bot", "chatgpt")


@dataclass(frozen=True)
class ConversationInfo:
    """What a stage may know about the conversation besides its own input."""

    conv_id: str
    speakers: tuple[str, ...]
    # canonical entity names already known (earlier sessions), for alias resolution
    known_entities: tuple[str, ...] = ()
    # words the conversation writes in lower case and never capitalises inside a sentence: after
    # a list marker or a label one is an instruction's verb, not part of a name ("- Use Kiln Planner")
    common_words: frozenset[str] = frozenset()
    # every word the conversation writes in lower case somewhere ("items" of "personal items"),
    # capitalised elsewhere or not: what is left of a title after its first word names no one
    lower_words: frozenset[str] = frozenset()


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
    """Everything the build and the query pipeline call on a backend (no optional methods:
    ``BackendBase`` gives the defaults a backend without batching or accounting needs)."""

    name: str

    @property
    def warms(self) -> bool:  # whether ``warm`` does anything (the build threads it only then)
        ...

    def prepare(self) -> None: ...

    def warm(self, sessions: list[Session]) -> None: ...

    def segment(self, session: Session, info: ConversationInfo) -> list[Episode]: ...

    def extract(self, episode: Episode, turns: list[Turn], info: ConversationInfo) -> Extraction: ...

    def extract_many(self, items: Sequence[tuple[Episode, list[Turn]]],
                     info: ConversationInfo) -> list[Extraction]: ...

    def plan(self, question: str, vocabulary: Vocabulary) -> Plan: ...

    def answer(self, question: str, plan: Plan, buffer: list[BufferTurn], *,
               unmentioned: tuple[str, ...], records: Sequence[Record] = ()) -> Answer: ...

    def accounting(self, conv_id: str | None, scope: str) -> AbstractContextManager[Any]: ...

    def usage(self, scope_prefix: str) -> dict[str, Any]: ...


class BackendBase:
    """Defaults for the non-thinking parts of ``Backend``: nothing to load up front, episodes
    extracted one by one, no LLM accounting."""

    @property
    def warms(self) -> bool:
        return False

    def prepare(self) -> None:
        return None

    def warm(self, sessions: list[Session]) -> None:
        return None

    def extract(self, episode: Episode, turns: list[Turn], info: ConversationInfo) -> Extraction:
        raise NotImplementedError  # every backend defines its own

    def extract_many(self, items: Sequence[tuple[Episode, list[Turn]]],
                     info: ConversationInfo) -> list[Extraction]:
        return [self.extract(episode, turns, info) for episode, turns in items]

    def accounting(self, conv_id: str | None, scope: str) -> AbstractContextManager[Any]:
        return nullcontext()

    def usage(self, scope_prefix: str) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class Hit:
    """One vector-index match."""

    id: str
    score: float  # cosine similarity, higher is better
    metadata: dict[str, Any]


class AccessRepository(Protocol):
    """Accounts, login sessions, API tokens, audit trail (``store/access.py``); hashes only."""

    def add_account(self, name: str, role: str, password_hash: str) -> None: ...

    def account(self, name: str) -> dict[str, Any] | None: ...

    def accounts(self) -> list[dict[str, Any]]: ...

    def update_account(self, name: str, **fields: Any) -> None: ...

    def count_admins(self) -> int: ...

    def add_login_session(self, id_hash: str, account: str, expires_at: datetime) -> None: ...

    def login_session(self, id_hash: str) -> dict[str, Any] | None: ...

    def end_login_sessions(self, *, id_hash: str | None = None, account: str | None = None) -> int: ...

    def add_token(self, token_id: str, token_hash: str, label: str, role: str, conv_id: str | None,
                  created_by: str) -> None: ...

    def token_by_hash(self, token_hash: str) -> dict[str, Any] | None: ...

    def tokens(self) -> list[dict[str, Any]]: ...

    def revoke_token(self, token_id: str) -> int: ...

    def touch_token(self, token_id: str) -> None: ...

    def add_audit(self, entry_id: str, who: str, frontend: str, action: str, conv_id: str | None,
                  detail: str, at: datetime | None = None) -> None: ...

    def audit(self, *, who: str | None = None, action: str | None = None, conv_id: str | None = None,
              frontend: str | None = None, since: datetime | None = None,
              limit: int = 500) -> list[dict[str, Any]]: ...


@runtime_checkable
class RelationalStore(AccessRepository, Protocol):
    """The relational repository every service talks to (DuckDB today; any engine that keeps
    this surface plugs in)."""

    def add_edit(self, edit: Edit) -> None: ...

    def add_sessions(self, conv_id: str, sessions: tuple[Session, ...] | list[Session]) -> None: ...

    def atomic(self) -> AbstractContextManager[None]: ...

    def in_transaction(self) -> bool: ...

    def memory_capped(self, megabytes: int) -> AbstractContextManager[None]: ...

    def builds(self, conv_id: str) -> list[dict[str, Any]]: ...

    def build_status(self, run_id: str | None = None) -> list[dict[str, Any]]: ...

    def built_sessions(self, conv_id: str) -> dict[int, str]: ...

    def cache_response(self, key: str, endpoint: str, model: str, response: str,
                       tokens_in: int, tokens_out: int, conv_id: str | None = None) -> None: ...

    def cached_response(self, key: str) -> tuple[str, int, int] | None: ...

    def clear_session_memory(self, conv_id: str, session: int) -> None: ...

    def close(self) -> None: ...

    def conversation_ids(self) -> list[str]: ...

    def conversation_speakers(self, conv_id: str) -> list[str]: ...

    def conversation_summaries(self) -> list[dict[str, Any]]: ...

    def delete_conversation(self, conv_id: str) -> None: ...

    def edges(self, conv_id: str) -> list[GraphEdge]: ...

    def forget_conversation(self, conv_id: str, *, who: str, why: str = "") -> dict[str, int]: ...

    def forget_session(self, conv_id: str, session: int, *, who: str, why: str = "") -> dict[str, Any]: ...

    def edit(self, edit_id: str) -> Edit: ...

    def edits(self, conv_id: str | None = None, target_id: str | None = None) -> list[Edit]: ...

    def entities(self, conv_id: str) -> list[Entity]: ...

    def entity_merges(self, conv_id: str) -> list[EntityMerge]: ...

    def entity_names(self, conv_id: str) -> dict[str, int]: ...

    def episode_times(self, conv_id: str) -> dict[str, Any]: ...

    def episodes(self, conv_id: str, session: int | None = None) -> list[Episode]: ...

    def event_links(self, conv_id: str) -> list[EventLink]: ...

    def events(self, conv_id: str) -> list[EventFrame]: ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def finish_build(self, build_id: str, stats: dict[str, Any], cost: dict[str, Any]) -> None: ...

    def has_conversation(self, conv_id: str) -> bool: ...

    def grow_conversation(self, conv_id: str, *, extend: Session | None = None,
                          sessions: Sequence[Session] = (), speakers: Sequence[str] = (),
                          qa: Sequence[QAItem] = ()) -> None: ...

    def insert_record(self, record: Record) -> None: ...

    def insert_rows(self, table: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def llm_usage(self, scope_prefix: str) -> list[dict[str, Any]]: ...

    def load_conversation(self, conv_id: str, *, with_qa: bool = True) -> Conversation: ...

    def log_llm_call(self, *, conv_id: str | None, scope: str, stage: str, model: str,
                     tokens_in: int, tokens_out: int, latency_s: float, cost_usd: float,
                     cached: bool, at: datetime | None = None) -> None: ...

    def memory_fingerprint(self, conv_id: str) -> tuple[Any, ...]: ...

    def patch_graph(self, conv_id: str, *, delete_entity_ids: Sequence[str], entities: Sequence[Entity],
                    delete_edge_sources: Sequence[str], edges: Sequence[GraphEdge],
                    merges_reason: str, merges: Sequence[EntityMerge]) -> None: ...

    def qa_items(self, conv_id: str) -> list[QAItem]: ...

    def record(self, record_id: str) -> Record: ...

    def record_facets(self, conv_id: str, *, top_entities: int = 200,
                      as_of: str | None = None) -> RecordFacets: ...

    def records(self, conv_id: str, *, include_inactive: bool = False,
                episode_id: str | None = None) -> list[Record]: ...

    def records_naming(self, conv_id: str, names: Sequence[str], *, as_value: bool = True,
                       active_only: bool = False) -> list[Record]: ...

    def require_conversation(self, conv_id: str) -> None: ...

    def save_conversation(self, conv: Conversation, *, replace: bool = False) -> None: ...

    def save_graph(
        self,
        conv_id: str,
        entities: Sequence[Entity],
        merges: Sequence[EntityMerge],
        edges: Sequence[GraphEdge],
        links: Sequence[EventLink],
        record_importance: dict[str, float] | None = None,
        event_importance: dict[str, float] | None = None,
        record_types: dict[str, str] | None = None,
    ) -> None: ...

    def save_session_memory(
        self,
        conv_id: str,
        session: int,
        episodes: Sequence[Episode],
        records: Sequence[Record],
        events: Sequence[EventFrame],
        *,
        backend: str,
        stats: dict[str, Any] | None = None,
    ) -> None: ...

    def save_trace(self, trace: Trace) -> None: ...

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

    def search_records(
        self,
        conv_id: str,
        *,
        query: str = "",
        filters: RecordFilter | None = None,
        sort: str = "episode",
        page: int = 1,
        page_size: int = 50,
    ) -> tuple[list[Record], int]: ...

    def sessions(self, conv_id: str) -> list[Session]: ...

    def set_build_status(self, conv_id: str, run_id: str, state: str, *, stage: str = "",
                         error: str = "", worker: str = "") -> None: ...

    def start_build(self, build_id: str, conv_id: str, backend: str) -> None: ...

    def stats(self, conv_id: str | None = None) -> dict[str, int]: ...

    def touch_edges(self, conv_id: str, record_ids: Sequence[str]) -> None: ...

    def trace(self, trace_id: str) -> Trace: ...

    def traces(self, conv_id: str, limit: int = 200, *,
               agents: bool | None = None) -> list[dict[str, Any]]: ...

    def turns(self, conv_id: str, ids: list[str] | None = None) -> list[Turn]: ...

    def update_record(self, record: Record, *, expected_version: int) -> Record: ...


@runtime_checkable
class VectorStore(Protocol):
    """The vector index: our own embeddings in, ids and similarities out."""

    def compact(self) -> dict[str, int]: ...

    def count(self, collection: str, where: dict[str, Any] | None = None) -> int: ...

    def delete(self, collection: str, *, ids: Sequence[str] | None = None,
               where: dict[str, Any] | None = None) -> None: ...

    def delete_conversation(self, conv_id: str) -> None: ...

    def get_vectors(self, collection: str, ids: Sequence[str]) -> dict[str, np.ndarray]: ...

    def query(self, collection: str, vector: np.ndarray, *, k: int = 20,
              where: dict[str, Any] | None = None) -> list[Hit]: ...

    def upsert(self, collection: str, ids: Sequence[str], vectors: np.ndarray,
               metadatas: Sequence[dict[str, Any]]) -> None: ...

