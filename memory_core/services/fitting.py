"""Candidates for fitting the retrieval ranker: every turn of every gold question, with features.

``candidates(evaluation, path, limit=None, convs=None, on_progress=None)`` reads a benchmark file (LoCoMo
layout or LongMemEval), imports and builds what the home lacks (as ``eval`` does), then for each
scored question plans it with the offline backend, scores the turns with the hand strategy
keeping the feature matrix, and yields a ``memory_core.eval.fit.Candidates`` (gold flags from
the question's evidence). Retrieval only: no answer is composed, nothing is saved.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path

import numpy as np

from memory_core.eval import longmemeval as lme
from memory_core.eval.fit import Candidates
from memory_core.eval.locomo import matches
from memory_core.ingest import Loaded
from memory_core.progress import OnProgress
from memory_core.query.qembed import embed_question, head_vector
from memory_core.query.ranker import size_class
from memory_core.query.retrieve import budget_key
from memory_core.query.scoring import score_turns
from memory_core.query.strategies import StrategyConfig
from memory_core.query.strategies import strategy as get_strategy
from memory_core.services.evaluating import EvalService

HAND = "ensimem"  # the strategy whose signals (and hand fusion) the features are


def _one(evaluation: EvalService, cfg: StrategyConfig, conv_id: str, question: str,
         evidence: tuple[str, ...], now: datetime | None, group: str) -> Candidates:
    queries = evaluation.queries
    ci = queries.conversation_index(conv_id)
    qvec = embed_question(queries.embedder, question)
    vocabulary = ci.vocabulary()
    if now is not None:
        vocabulary = dataclasses.replace(vocabulary, question_time=now)
    plan = evaluation._backend("offline").plan(question, vocabulary)
    hvec = head_vector(queries.embedder, question)
    scored = score_turns(ci, plan, qvec, cfg, now, features=True, hvec=hvec)
    assert scored.features is not None
    wanted = set(evidence)
    gold = np.array([t.id in wanted for t in ci.turns], dtype=bool)
    return Candidates(features=scored.features, gold=gold, tokens=ci.turn_tokens.copy(),
                      key=budget_key(plan), size=size_class(int(ci.turn_tokens.sum())), group=group)


def candidates(evaluation: EvalService, path: str | Path, *, limit: int | None = None,
               convs: Sequence[str] | None = None,
               on_progress: OnProgress | None = None) -> Iterator[Candidates]:
    """``convs``: only these conversations of a LoCoMo-layout file (those it holds; none: all)."""
    cfg = get_strategy(HAND)
    name = Path(path).name
    if evaluation.benchmark_format(path) == "longmemeval":
        for conv, q in lme.read_questions(path, limits=evaluation.settings.limits, limit=limit):
            evaluation._import_missing(str(path), Loaded(format="longmemeval", conversations=[conv]),
                                       on_progress)
            evaluation._build_if_needed(conv.id, on_progress)
            if q.evidence:
                yield _one(evaluation, cfg, conv.id, q.question, q.evidence, q.question_time, name)
            evaluation.queries.invalidate(conv.id)  # one haystack in memory at a time
        return
    wanted = None
    if convs:
        _, loaded = evaluation._read(path)
        wanted = [c.id for c in loaded.conversations if matches(c.id, convs)]
        if not wanted:
            return
    for g in evaluation.gold_questions(path, wanted, on_progress=on_progress):
        for gq in g.scored():
            if gq.evidence:
                yield _one(evaluation, cfg, gq.conv_id, gq.question, gq.evidence, None, name)
        evaluation.queries.invalidate(g.conv_id)
