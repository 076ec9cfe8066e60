"""The ``openai`` backend: every stage asks a chat model on an OpenAI-compatible endpoint.

Each stage is three steps — build messages (pure, ``prompts/<stage>.py``), one structured
request (``memory_core.llm.parsing.request_structured``: JSON mode, tolerant parsing, one
repair), convert and validate (pure). Invalid output is repaired or rejected, never
returned; ``stats`` counts per stage how many outputs were accepted as they came, repaired
(fixed by the converter or after a repair request) or rejected (``LLMError``).

``extract_many`` extracts several episodes in parallel on a bounded worker pool
(``LLMSettings.workers``); the first failure cancels the rest and is raised.

Accounting: wrap work in ``with backend.accounting(conv_id, "build:<id>"):`` (or use
``memory_core.llm.llm_scope`` directly) so every call is logged under that scope.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import AbstractContextManager
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel

from memory_core.backends.openai.prompts import answer as answer_prompt
from memory_core.backends.openai.prompts import extract as extract_prompt
from memory_core.backends.openai.prompts import judge as judge_prompt
from memory_core.backends.openai.prompts import plan as plan_prompt
from memory_core.backends.openai.prompts import segment as segment_prompt
from memory_core.config import LLMSettings
from memory_core.contracts import BackendBase, ConversationInfo, Extraction, RelationalStore, Vocabulary
from memory_core.errors import LLMError
from memory_core.llm.accounting import Scope, llm_scope, usage
from memory_core.llm.client import LLMClient, Message
from memory_core.llm.parsing import Checked, request_structured
from memory_core.models import Answer, BufferTurn, Episode, Plan, Record, Session, Turn
from memory_core.query.premise import unmentioned_answer

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

STAGE_NAMES = ("segment", "extract", "plan", "answer", "judge")


class ValidationStats:
    """Per-stage counts of outputs accepted, repaired and rejected (thread-safe)."""

    OUTCOMES = ("accepted", "repaired", "rejected")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: dict[str, dict[str, int]] = {s: dict.fromkeys(self.OUTCOMES, 0) for s in STAGE_NAMES}
        self.problems: dict[str, list[str]] = {s: [] for s in STAGE_NAMES}

    def add(self, stage: str, outcome: str, problems: Sequence[str] = ()) -> None:
        with self._lock:
            self.counts.setdefault(stage, dict.fromkeys(self.OUTCOMES, 0))[outcome] += 1
            kept = self.problems.setdefault(stage, [])
            kept.extend(p for p in problems if len(kept) < 200)

    def snapshot(self) -> dict[str, dict[str, int]]:
        with self._lock:
            return {stage: dict(c) for stage, c in self.counts.items()}


class OpenAIBackend(BackendBase):
    """Segment, extract, plan, answer and judge with a chat model."""

    name = "openai"
    # completion budgets per stage (tokens); small models may be given less
    MAX_TOKENS: ClassVar[dict[str, int]] = {"segment": 2000, "extract": 3000, "plan": 800,
                                            "answer": 300, "judge": 20}

    def __init__(self, settings: LLMSettings, store: RelationalStore | None = None, *,
                 client: LLMClient | None = None) -> None:
        self.settings = settings
        self.store = store
        self.client = client if client is not None else LLMClient(settings, store)
        self.stats = ValidationStats()
        self.max_tokens = dict(self.MAX_TOKENS)

    # ------------------------------------------------------------------ accounting
    def accounting(self, conv_id: str | None, scope: str) -> AbstractContextManager[Scope]:
        """Tag every call made in the block (and in pools it starts) with ``conv_id``/``scope``."""
        return llm_scope(conv_id, scope)

    def usage(self, scope_prefix: str) -> dict[str, Any]:
        """Tokens, latency and cost per stage for scopes starting with ``scope_prefix``."""
        if self.store is None:
            return {}
        models = tuple(self.settings.model_for(stage) for stage in STAGE_NAMES)
        return usage(self.store, scope_prefix, models)

    # ------------------------------------------------------------------ stages
    def segment(self, session: Session, info: ConversationInfo) -> list[Episode]:
        if not session.turns:
            return []
        return self._run(
            "segment", f"session {session.index} of '{info.conv_id}'",
            segment_prompt.build_messages(session, info), segment_prompt.SegmentReply,
            lambda reply: segment_prompt.to_episodes(reply, session, info))

    def extract(self, episode: Episode, turns: list[Turn], info: ConversationInfo) -> Extraction:
        if not turns:
            return Extraction()
        return self._run(
            "extract", f"episode '{episode.id}'",
            extract_prompt.build_messages(episode, turns, info), extract_prompt.ExtractReply,
            lambda reply: extract_prompt.to_extraction(reply, episode, turns, info, origin=self.name))

    def extract_many(self, items: Sequence[tuple[Episode, list[Turn]]],
                     info: ConversationInfo) -> list[Extraction]:
        """``extract`` for several episodes on at most ``settings.workers`` threads, in order."""
        workers = min(max(1, self.settings.workers), len(items))
        if workers <= 1 or _in_transaction(self.store):
            # inside a store transaction the store lock belongs to this thread: stay on it
            return [self.extract(episode, turns, info) for episode, turns in items]
        results: list[Extraction | None] = [None] * len(items)
        self.client.cancelled.clear()
        try:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mnemoscope-llm") as pool:
                futures: dict[Future[Extraction], int] = {}
                for index, (episode, turns) in enumerate(items):
                    context = contextvars.copy_context()  # carries the accounting scope
                    futures[pool.submit(context.run, self.extract, episode, turns, info)] = index
                try:
                    for future in as_completed(futures):
                        results[futures[future]] = future.result()
                except BaseException:
                    self.client.cancelled.set()
                    for future in futures:
                        future.cancel()
                    raise
        finally:
            self.client.cancelled.clear()
        return [r if r is not None else Extraction() for r in results]

    def plan(self, question: str, vocabulary: Vocabulary) -> Plan:
        return self._run(
            "plan", _question_item(question), plan_prompt.build_messages(question, vocabulary),
            plan_prompt.PlanReply, lambda reply: plan_prompt.to_plan(reply, question))

    def answer(self, question: str, plan: Plan, buffer: list[BufferTurn], *,
               unmentioned: tuple[str, ...], records: Sequence[Record] = ()) -> Answer:
        if not buffer:  # nothing retrieved: nothing to ground an answer on, no call
            return Answer(text=answer_prompt.UNKNOWN, cited_turn_ids=(), supported=False)
        if unmentioned:  # the question names what no retrieved turn says: "Unknown", no call
            return unmentioned_answer(unmentioned)
        return self._run(
            "answer", _question_item(question), answer_prompt.build_messages(question, plan, buffer, records),
            answer_prompt.AnswerReply, lambda reply: answer_prompt.to_answer(reply, buffer, plan, records))

    def judge(self, question: str, gold: str, answer: str) -> bool:
        """LoCoMo-style binary grade: True for CORRECT, False for WRONG."""
        return self._run(
            "judge", _question_item(question), judge_prompt.build_messages(question, gold, answer),
            judge_prompt.JudgeReply, judge_prompt.to_verdict, fallback=judge_prompt.plain_verdict)

    # ------------------------------------------------------------------ plumbing
    def _run(self, stage: str, item: str, messages: list[dict[str, str]], schema: type[M],
             check: Callable[[M], Checked[T]], *, fallback: Callable[[str], M | None] | None = None) -> T:
        typed: list[Message] = list(messages)
        try:
            outcome = request_structured(
                self.client, stage=stage, item=item, model=self.settings.model_for(stage),
                messages=typed, schema=schema, check=check, max_tokens=self.max_tokens.get(stage),
                fallback=fallback)
        except LLMError:
            self.stats.add(stage, "rejected")
            raise
        self.stats.add(stage, outcome.status, outcome.problems)
        if outcome.problems:
            log.info("llm %s %s: %s (%d problem(s) fixed): %s", stage, item, outcome.status,
                     len(outcome.problems), "; ".join(outcome.problems)[:300])
        return outcome.value


def _question_item(question: str) -> str:
    short = " ".join(question.split())
    return f"question '{short[:60]}{'...' if len(short) > 60 else ''}'"


def _in_transaction(store: RelationalStore | None) -> bool:
    # while the caller holds a transaction, other threads would wait on the store lock for as
    # long as the pool runs (a deadlock)
    return store is not None and store.in_transaction()
