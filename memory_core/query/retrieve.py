"""Assemble the evidence for one question: score turns, choose evidence, explain why.

``retrieve(ci, plan, qvec, cfg, budget_tokens)`` returns a ``Retrieval``
(``memory_core.query.selection``): the chosen turn positions (each with the reason it was
taken), the episodes they belong to (score, reason, requirements covered), the matches behind
them and how the selection stopped.

Methods:

* ``ensimem``: candidates in fused-score order, each taken with its episode context; a
  point question stops once every requirement is supported and the remaining candidates are
  clearly weaker than the best; an all-matching question keeps collecting while candidates
  stay strong (new supporting episodes keep appearing). Each reasoning type has its own
  minimum/maximum evidence budget. A ``budget_tokens`` cap is never exceeded; with
  ``fill_budget`` the rest of the cap is filled with the next ranked turns.
* ``glong`` and ``seem``: walks over the entity graph and the event frames
  (``memory_core.query.graph_methods``).
* ``fitted`` (any method whose strategy has ``fusion="fitted"`` and a ranker file): turns in
  the fitted ranker's order until the token budget fitted for the question's reasoning type
  and the conversation's size class (``memory_core.query.ranker``); a ``budget_tokens`` cap
  replaces that budget. In a user/assistant chat the user's two standing instructions closest
  to the question ("Always ... when I ask about ...") come first, on top of the fitted budget
  (``memory_core.query.standing``).
* ``ranked``: top-k turns of one channel (the bm25 and dense baselines).
* ``full``: every turn (the most recent ones that fit a budget).
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from memory_core.models import Plan, ReasoningType, Scope
from memory_core.query.context import ConversationIndex
from memory_core.query.graph_methods import select_glong, select_seem
from memory_core.query.ranker import Ranker, load_ranker, size_class
from memory_core.query.scoring import Scored, score_turns
from memory_core.query.selection import SUPPORTED, Picker, Retrieval, episode_choices, fill, window
from memory_core.query.standing import standing_for
from memory_core.query.strategies import Method, StrategyConfig

PARTIAL = 0.3  # an all-matching question keeps taking new episodes supported at least this much
PATIENCE = 3  # ... until this many candidates in a row bring no such episode


def record_order(plan: Plan, scored: Scored, minimum: float) -> list[tuple[float, int, int]]:
    """(score, requirement, record) of the records matching a target requirement, best first.

    A record's score is its structured match (entity x family/property/value/keywords);
    ties (many records of one family) are broken by the record's closeness to the question.
    Bridge requirements ("Melanie's family") only lead to the answer; their records are not
    collected.
    """
    if scored.structured is None or not scored.structured.size:
        return []
    targets = [i for i, r in enumerate(plan.requirements) if r.role != "bridge"]
    if not targets:
        return []
    structured = scored.structured[targets]
    dense = scored.record_scores.get("dense")
    out = []
    req_of = np.array(targets)[np.argmax(structured, axis=0)]
    best = structured.max(axis=0)
    for r in np.where(best >= minimum)[0]:
        bonus = 0.2 * float(dense[r]) if dense is not None and dense.size else 0.0
        out.append((float(best[r]) + bonus, int(req_of[r]), int(r)))
    out.sort(key=lambda x: (-x[0], x[2]))
    return out


def _collect_records(
    ci: ConversationIndex, plan: Plan, scored: Scored, cfg: StrategyConfig, picker: Picker, share: int
) -> list[int]:
    """Open the evidence turns of the records matching a requirement until ``share`` tokens."""
    added: list[int] = []
    start = picker.tokens
    for score, i, r in record_order(plan, scored, cfg.record_min):
        if picker.tokens - start >= share or picker.full():
            break
        rec = ci.records[r]
        reason = f"record r{i}: {rec.entity} · {rec.property} = {rec.value} ({score:.2f})"
        added += picker.add(sorted(ci.record_turns[r]), reason)
    return added


def select_coverage(
    ci: ConversationIndex, plan: Plan, scored: Scored, cfg: StrategyConfig, budget_tokens: int | None
) -> Retrieval:
    fused = scored.fused
    budget = cfg.budget_for(plan.reasoning_type, plan.scope)
    cap = budget_tokens if budget_tokens is not None else budget.max_tokens
    picker = Picker(ci, cap)
    order = np.argsort(-fused, kind="stable")
    best = float(fused[order[0]]) if len(order) else 0.0
    n_req = scored.support.shape[0]
    covered = np.zeros(n_req, dtype=bool)
    episodes_seen: set[int] = set()
    idle = 0
    rank = 0
    context_top = cfg.context_top
    if budget_tokens is not None:  # a tight cap is better spent on more candidates than on context
        context_top = min(context_top, max(0, budget_tokens // 500 - 1))
    stop = "every turn considered"
    collect = plan.scope == Scope.ALL and cfg.record_share > 0
    for p in order:
        p = int(p)
        s = float(fused[p])
        if collect and rank >= context_top:
            collect = False
            for q in _collect_records(ci, plan, scored, cfg, picker, int(cfg.record_share * cap)):
                covered |= scored.support[:, q] >= SUPPORTED
                episodes_seen.add(int(ci.turn_episode[q]))
        if picker.full():
            stop = "token cap reached"
            break
        if budget_tokens is None:
            may_stop = picker.tokens >= budget.min_tokens and rank >= cfg.min_candidates
        else:
            may_stop = not cfg.fill_budget and picker.tokens >= min(budget.min_tokens, budget_tokens)
        if may_stop:
            strong = s >= budget.keep_ratio * best
            if plan.scope == Scope.POINT and covered.all() and not strong:
                stop = "every requirement supported; remaining candidates weaker"
                break
            if plan.scope == Scope.ALL and not strong:
                e = int(ci.turn_episode[p])
                if e not in episodes_seen and float(scored.support[:, p].max(initial=0.0)) >= PARTIAL:
                    idle = 0  # a new episode that still supports a requirement: keep collecting
                else:
                    idle += 1
                    if idle >= PATIENCE:
                        stop = "no new supporting episodes"
                        break
                    continue
        reqs = [i for i in range(n_req) if scored.support[i, p] >= SUPPORTED]
        label = ", ".join(f"r{i}" for i in reqs) if reqs else "question"
        reason = f"supports {label} (fused {s:.2f})"
        radius = max(cfg.neighbours, 1) if rank < context_top else cfg.neighbours
        rank += 1
        if p in picker.chosen:  # already in as context of a stronger candidate
            covered[reqs] = True
            continue
        added = picker.add(window(ci, p, radius), reason)
        for q in added:
            covered |= scored.support[:, q] >= SUPPORTED
            episodes_seen.add(int(ci.turn_episode[q]))
    if budget_tokens is not None and cfg.fill_budget and not picker.full():
        fill(picker, order)
    return Retrieval(
        positions=list(picker.chosen),
        why=dict(picker.chosen),
        episodes=episode_choices(ci, picker.chosen, fused, scored.support),
        matches=scored.matches,
        stop_reason=stop,
        scored=scored,
        covered=tuple(int(i) for i in np.where(covered)[0]),
    )


def budget_key(plan: Plan) -> str:
    """The reasoning type whose fitted budget a question gets (an all-matching point question
    is an aggregation)."""
    if plan.scope == Scope.ALL and plan.reasoning_type == ReasoningType.POINT:
        return ReasoningType.AGGREGATION.value
    return plan.reasoning_type.value


def fitted_budget(ci: ConversationIndex, plan: Plan, ranker: Ranker) -> int:
    return ranker.budget(size_class(int(ci.turn_tokens.sum())), budget_key(plan))


def select_fitted(
    ci: ConversationIndex, plan: Plan, scored: Scored, ranker: Ranker, budget_tokens: int | None,
    qvec: np.ndarray | None = None,
) -> Retrieval:
    """Turns in fitted-score order until the fitted budget (or the ``budget_tokens`` cap); in a
    user/assistant chat the user's standing instructions closest to the question come first, on
    top of the fitted budget (``memory_core.query.standing``)."""
    fitted = fitted_budget(ci, plan, ranker)
    cap = budget_tokens if budget_tokens is not None else fitted
    # the user's rules closest to the question hold for its answer: they come first, on top of
    # the fitted budget (which was fitted without them); a cap asked for is never exceeded
    rules = standing_for(ci, qvec) if qvec is not None else []
    picker = Picker(ci, cap)
    if budget_tokens is None:
        picker.cap = cap + picker.cost([p for p, _ in rules])
    for p, cosine in rules:
        picker.add([p], f"standing instruction of {ci.turns[p].speaker} (cosine {cosine:.2f})")
    order = np.argsort(-scored.fused, kind="stable")
    for rank, p in enumerate(order):
        if picker.full():
            break
        picker.add([int(p)], f"rank {rank + 1} (fitted {float(scored.fused[p]):.2f})")
    covered = np.zeros(scored.support.shape[0], dtype=bool)
    for q in picker.chosen:
        covered |= scored.support[:, q] >= SUPPORTED
    source = "budget cap" if budget_tokens is not None else f"fitted budget {fitted} ({budget_key(plan)})"
    return Retrieval(
        positions=list(picker.chosen),
        why=dict(picker.chosen),
        episodes=episode_choices(ci, picker.chosen, scored.fused, scored.support),
        matches=scored.matches,
        stop_reason=f"{source} reached",
        scored=scored,
        covered=tuple(int(i) for i in np.where(covered)[0]),
        extra={"fitted_budget": float(fitted)},
    )


def select_ranked(
    ci: ConversationIndex, plan: Plan, scored: Scored, cfg: StrategyConfig, budget_tokens: int | None
) -> Retrieval:
    picker = Picker(ci, budget_tokens)
    order = np.argsort(-scored.fused, kind="stable")
    limit = len(order) if budget_tokens is not None else cfg.top_k
    taken = 0
    for p in order:
        if taken >= limit or picker.full():
            break
        if scored.fused[p] <= 0 and budget_tokens is None:
            break
        if picker.add([int(p)], f"rank {taken + 1} ({cfg.name} {float(scored.fused[p]):.3f})"):
            taken += 1
    stop = "token cap reached" if picker.full() else f"top {cfg.top_k}"
    return Retrieval(
        positions=list(picker.chosen),
        why=dict(picker.chosen),
        episodes=episode_choices(ci, picker.chosen, scored.fused, None),
        matches=scored.matches,
        stop_reason=stop,
        scored=scored,
    )


def select_full(ci: ConversationIndex, budget_tokens: int | None) -> Retrieval:
    picker = Picker(ci, budget_tokens)
    for p in range(len(ci.turns) - 1, -1, -1):  # most recent first when a cap applies
        if picker.full():
            break
        picker.add([p], "whole conversation")
    return Retrieval(
        positions=list(picker.chosen),
        why=dict(picker.chosen),
        episodes=episode_choices(ci, picker.chosen, None, None),
        matches=[],
        stop_reason="token cap reached" if picker.full() else "whole conversation",
    )



def retrieve(
    ci: ConversationIndex,
    plan: Plan,
    qvec: np.ndarray,
    cfg: StrategyConfig,
    budget_tokens: int | None = None,
    *,
    now: datetime | None = None,
    hvec: np.ndarray | None = None,
) -> Retrieval:
    """``now``: when the question is asked (default: the conversation's last session);
    ``hvec``: the vector of the category it names (``qembed.head_vector``)."""
    if cfg.method is Method.FULL:
        return select_full(ci, budget_tokens)
    scored = score_turns(ci, plan, qvec, cfg, now, hvec=hvec)
    ranker = load_ranker(cfg.ranker_file) if cfg.fusion == "fitted" else None
    if ranker is not None:
        return select_fitted(ci, plan, scored, ranker, budget_tokens, qvec)
    match cfg.method:
        case Method.RANKED:
            return select_ranked(ci, plan, scored, cfg, budget_tokens)
        case Method.GLONG:
            return select_glong(ci, plan, qvec, scored, cfg, budget_tokens, now=now)
        case Method.SEEM:
            return select_seem(ci, plan, scored, cfg, budget_tokens)
    return select_coverage(ci, plan, scored, cfg, budget_tokens)
