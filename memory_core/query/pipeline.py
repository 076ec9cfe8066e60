"""One question end to end: plan -> retrieve -> buffer -> premise -> answer, kept in a ``Trace``.

The question is embedded once; the conversation's indexes come from the in-memory cache.
The plan and the answer come from ``backend`` (offline: the rule planner and the extractive
answer; openai: the chat model) — retrieval is the same for every backend, and so is the
premise check on its buffer: the question's names no buffer turn says (``premise.unmentioned``)
go to the backend's answer, which answers "Unknown" with them (``Answer.unmentioned``).
Timings are per stage in seconds.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from memory_core.contracts import Backend
from memory_core.models import Match, Plan, Record, Trace
from memory_core.query import premise
from memory_core.query.buffer import buffer_tokens, build_buffer
from memory_core.query.context import ConversationIndex
from memory_core.query.families import property_families
from memory_core.query.qembed import embed_question, head_vector
from memory_core.query.retrieve import Retrieval, retrieve
from memory_core.query.strategies import StrategyConfig

if TYPE_CHECKING:
    from memory_core.embeddings import Embedder


def run_question(
    ci: ConversationIndex,
    question: str,
    cfg: StrategyConfig,
    *,
    embedder: Embedder,
    backend: Backend,
    budget_tokens: int | None = None,
    now: datetime | None = None,
) -> tuple[Trace, Retrieval]:
    """``now``: when the question is asked — "last week", "two months ago" count back from it
    (default: the time of the conversation's last session)."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    qvec = embed_question(embedder, question)
    timings["embed"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    vocabulary = ci.vocabulary()
    if now is not None:
        vocabulary = dataclasses.replace(vocabulary, question_time=now)
    plan = backend.plan(question, vocabulary)
    timings["plan"] = time.perf_counter() - t1
    t2 = time.perf_counter()
    result = retrieve(ci, plan, qvec, cfg, budget_tokens, now=now, hvec=head_vector(embedder, question))
    timings["retrieve"] = time.perf_counter() - t2
    t3 = time.perf_counter()
    buffer = [  # each turn's closeness to the question goes with it (the offline answer weighs it)
        bt.model_copy(update={"closeness": float(ci.turn_vecs[ci.pos[bt.turn_id]] @ qvec)})
        for bt in build_buffer(ci, result.positions, plan)
    ]
    tokens = buffer_tokens(buffer)
    unmentioned = premise.unmentioned(question, buffer)  # a property of the buffer, not of a backend
    timings["buffer"] = time.perf_counter() - t3
    t4 = time.perf_counter()
    records = with_kinds(ci, matched_records(ci, result))
    answer = backend.answer(question, plan, buffer, unmentioned=unmentioned, records=records)
    timings["answer"] = time.perf_counter() - t4
    timings["total"] = time.perf_counter() - t0
    timings["plan_retrieve"] = timings["embed"] + timings["plan"] + timings["retrieve"] + timings["buffer"]
    trace = Trace(
        id=uuid.uuid4().hex[:16],
        conv_id=ci.conv_id,
        question=question,
        strategy=cfg.name,
        backend=backend.name,
        plan=plan,
        matches=tuple(result.matches),
        episodes=tuple(result.episodes),
        buffer=tuple(buffer),
        answer=answer,
        timings={k: round(v, 5) for k, v in timings.items()},
        buffer_tokens=tokens,
        budget_tokens=budget_tokens,
        details=_details(result, now),
        created_at=datetime.now(UTC).replace(tzinfo=None),
    )
    return trace, result


def matched_records(ci: ConversationIndex, result: Retrieval) -> tuple[Record, ...]:
    """The active records retrieval matched, best match first, each once."""
    by_id = {r.id: r for r in ci.records}
    ordered = sorted((m for m in result.matches if m.record_id), key=lambda m: -m.score)
    ids = dict.fromkeys(m.record_id for m in ordered if m.record_id in by_id)
    return tuple(by_id[i] for i in ids if i is not None)


def requirement_fit(plan: Plan, record: Record) -> int:
    """How well the record is what a target requirement asks for: 2 — about its entity (first
    names folded: "Jonas" and "Jonas Weber" meet; "Jonas's mom" is someone else) with its very
    property; 1 — with a property of the same family ("bakes" asked, ``Jonas · cooks · buns``
    stored); 0 — neither."""
    def first(name: str) -> str:
        folded = name.replace("’", "'").casefold().strip()
        if "'s " in f"{folded} ":  # a possessive phrase names its own entity
            return " ".join(folded.split())
        head = folded.split()
        return head[0] if head else ""

    fit = 0
    for req in plan.requirements:
        if req.role == "bridge" or not req.entity or not req.property:
            continue
        if first(req.entity) != first(record.entity):
            continue
        if req.property.casefold() == record.property.casefold():
            return 2
        if property_families(req.property) & property_families(record.property):
            fit = 1
    return fit


def key_records(plan: Plan, matches: Sequence[Match], records: Mapping[str, Record], cited: Sequence[str],
                limit: int = 3) -> list[Record]:
    """The few records behind an answer, for a person reading it: matched records whose
    evidence the answer cites first, then those that are what the plan asks for
    (``requirement_fit``, the closer fit first), then the best-matched others; each once, at
    most ``limit``."""
    best: dict[str, float] = {}
    for m in matches:
        if m.record_id is not None and m.record_id in records:
            best[m.record_id] = max(best.get(m.record_id, float("-inf")), float(m.score))
    cited_set = set(cited)
    order = sorted(best, key=lambda rid: (not cited_set & set(records[rid].evidence_turn_ids),
                                          -requirement_fit(plan, records[rid]), -best[rid], rid))
    return [records[rid] for rid in order[:limit]]


KIND_PROPERTIES = ("species", "is_a")  # what a thing is


def with_kinds(ci: ConversationIndex, records: tuple[Record, ...]) -> tuple[Record, ...]:
    """The records, then the active records saying what the things they name are ("Oscar ·
    species · guinea pig" after "Caroline · pet · Oscar"), so that an answer naming a thing can
    say what it is."""
    named = {r.value.strip().lower() for r in records}
    have = {r.id for r in records}
    kinds = [r for r in ci.records
             if r.property in KIND_PROPERTIES and r.entity.strip().lower() in named and r.id not in have]
    return records + tuple(kinds)


def _details(result: Retrieval, now: datetime | None) -> dict[str, object]:
    """How retrieval went: why it stopped, requirements covered, boosts that applied."""
    out: dict[str, object] = {"stop_reason": result.stop_reason, "covered_requirements": list(result.covered)}
    if now is not None:
        out["asked_at"] = now.isoformat(sep=" ", timespec="minutes")
    if result.scored is not None:
        out["focus_speaker"] = result.scored.focus_speaker
        out["date_ranges"] = [list(r) for r in result.scored.date_ranges]
    out.update({k: v for k, v in result.extra.items()})
    return out
