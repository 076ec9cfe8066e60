"""One question end to end: plan -> retrieve -> buffer -> answer, kept in a ``Trace``.

The question is embedded once; the conversation's indexes come from the in-memory cache.
The answer comes from ``answerer`` (a backend's ``answer``), or the offline extractive
answer. Timings are per stage in seconds.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memory_core.models import Answer, BufferTurn, Plan, Trace
from memory_core.query.answering import extractive_answer
from memory_core.query.buffer import buffer_tokens, build_buffer
from memory_core.query.context import ConversationIndex
from memory_core.query.planner import plan_question
from memory_core.query.qembed import embed_question
from memory_core.query.retrieve import Retrieval, retrieve
from memory_core.query.strategies import StrategyConfig

if TYPE_CHECKING:
    from memory_core.embeddings import Embedder

Planner = Callable[[str, ConversationIndex], Plan]
Answerer = Callable[[str, Plan, list[BufferTurn]], Answer]


def run_question(
    ci: ConversationIndex,
    question: str,
    cfg: StrategyConfig,
    *,
    embedder: Embedder,
    budget_tokens: int | None = None,
    planner: Planner | None = None,
    answerer: Answerer | None = None,
    backend_name: str = "offline",
) -> tuple[Trace, Retrieval]:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    qvec = embed_question(embedder, question)
    timings["embed"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    if planner is not None:
        plan = planner(question, ci)
    else:
        plan = plan_question(question, ci.vocabulary(), embedder=embedder)
    timings["plan"] = time.perf_counter() - t1
    t2 = time.perf_counter()
    result = retrieve(ci, plan, qvec, cfg, budget_tokens)
    timings["retrieve"] = time.perf_counter() - t2
    t3 = time.perf_counter()
    buffer = build_buffer(ci, result.positions, plan)
    tokens = buffer_tokens(buffer)
    timings["buffer"] = time.perf_counter() - t3
    t4 = time.perf_counter()
    if answerer is not None:
        answer = answerer(question, plan, buffer)
    else:  # the offline answer also weighs how close each buffer turn is to the question
        closeness = {bt.turn_id: float(ci.turn_vecs[ci.pos[bt.turn_id]] @ qvec) for bt in buffer}
        answer = extractive_answer(question, plan, buffer, closeness)
    timings["answer"] = time.perf_counter() - t4
    timings["total"] = time.perf_counter() - t0
    timings["plan_retrieve"] = timings["embed"] + timings["plan"] + timings["retrieve"] + timings["buffer"]
    trace = Trace(
        id=uuid.uuid4().hex[:16],
        conv_id=ci.conv_id,
        question=question,
        strategy=cfg.name,
        backend=backend_name,
        plan=plan,
        matches=tuple(result.matches),
        episodes=tuple(result.episodes),
        buffer=tuple(buffer),
        answer=answer,
        timings={k: round(v, 5) for k, v in timings.items()},
        buffer_tokens=tokens,
        budget_tokens=budget_tokens,
        details=_details(result),
        created_at=datetime.now(UTC).replace(tzinfo=None),
    )
    return trace, result


def _details(result: Retrieval) -> dict[str, object]:
    """How retrieval went: why it stopped, requirements covered, boosts that applied."""
    out: dict[str, object] = {"stop_reason": result.stop_reason, "covered_requirements": list(result.covered)}
    if result.scored is not None:
        out["focus_speaker"] = result.scored.focus_speaker
        out["date_ranges"] = [list(r) for r in result.scored.date_ranges]
    out.update({k: v for k, v in result.extra.items()})
    return out
