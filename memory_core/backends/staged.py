"""A backend that mixes implementations per stage (e.g. offline segmentation, LLM extraction)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from memory_core.contracts import STAGES, Backend, BackendBase, ConversationInfo, Extraction, Vocabulary
from memory_core.errors import ConfigError
from memory_core.llm.accounting import Scope, llm_scope
from memory_core.models import Answer, BufferTurn, Episode, Plan, Record, Session, Turn


class StagedBackend(BackendBase):
    """Routes each stage to the backend chosen for it; ``name`` says which went where."""

    def __init__(self, backends: Mapping[str, Backend]) -> None:
        missing = [stage for stage in STAGES if stage not in backends]
        if missing:
            raise ConfigError(f"staged backend: no backend chosen for stage(s) {', '.join(missing)}")
        self.backends = dict(backends)
        self.name = "+".join(f"{stage}={self.backends[stage].name}" for stage in STAGES)

    def prepare(self) -> None:
        """Load what the member backends load up front (e.g. the offline models)."""
        for backend in {id(b): b for b in self.backends.values()}.values():
            backend.prepare()

    @property
    def warms(self) -> bool:
        return any(b.warms for b in self.backends.values())

    def warm(self, sessions: list[Session]) -> None:
        for backend in {id(b): b for b in self.backends.values()}.values():
            backend.warm(sessions)

    def accounting(self, conv_id: str | None, scope: str) -> AbstractContextManager[Scope]:
        return llm_scope(conv_id, scope)

    def usage(self, scope_prefix: str) -> dict[str, Any]:
        """The LLM stages' calls and tokens under ``scope_prefix`` (empty when all are offline)."""
        for backend in self.backends.values():
            if backend.name == "openai":
                return backend.usage(scope_prefix)
        return {}

    def segment(self, session: Session, info: ConversationInfo) -> list[Episode]:
        return self.backends["segment"].segment(session, info)

    def extract(self, episode: Episode, turns: list[Turn], info: ConversationInfo) -> Extraction:
        return self.backends["extract"].extract(episode, turns, info)

    def extract_many(self, items: Sequence[tuple[Episode, list[Turn]]],
                     info: ConversationInfo) -> list[Extraction]:
        return self.backends["extract"].extract_many(items, info)

    def plan(self, question: str, vocabulary: Vocabulary) -> Plan:
        return self.backends["plan"].plan(question, vocabulary)

    def answer(self, question: str, plan: Plan, buffer: list[BufferTurn], *,
               unmentioned: tuple[str, ...], records: Sequence[Record] = ()) -> Answer:
        return self.backends["answer"].answer(question, plan, buffer, unmentioned=unmentioned,
                                              records=records)
