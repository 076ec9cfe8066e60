"""Assemble the evidence for one question: score turns, choose evidence, explain why.

``retrieve(ci, plan, qvec, cfg, budget_tokens)`` returns a ``Retrieval``: the chosen turn
positions (each with the reason it was taken), the episodes they belong to (score, reason,
requirements covered), the matches behind them and how the selection stopped.

Methods:

* ``ensimem``: candidates in fused-score order, each taken with its episode context; a
  point question stops once every requirement is supported and the remaining candidates are
  clearly weaker than the best; an all-matching question keeps collecting while candidates
  stay strong (new supporting episodes keep appearing). Each reasoning type has its own
  minimum/maximum evidence budget. A ``budget_tokens`` cap is never exceeded; with
  ``fill_budget`` the rest of the cap is filled with the next ranked turns.
* ``glong``: anchor entities (named persons + the entities nearest the question), 1-hop
  expansion to their records and graph edges, rerank 0.5*semantic + 0.3*importance +
  0.2*recency, evidence turns of the top records.
* ``seem``: seed passages, their event frames, reverse provenance expansion to every source
  turn of those frames and to the episodes holding them.
* ``fitted`` (any method whose strategy has ``fusion="fitted"`` and a ranker file): turns in
  the fitted ranker's order until the token budget fitted for the question's reasoning type
  and the conversation's size class (``memory_core.query.ranker``); a ``budget_tokens`` cap
  replaces that budget.
* ``ranked``: top-k turns of one channel (the bm25 and dense baselines).
* ``full``: every turn (the most recent ones that fit a budget).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from memory_core.models import EpisodeChoice, Match, MatchKind, Plan, ReasoningType, Scope
from memory_core.query.context import ConversationIndex
from memory_core.query.ranker import Ranker, load_ranker, size_class
from memory_core.query.scoring import Scored, minmax, score_turns
from memory_core.query.strategies import Method, StrategyConfig

SUPPORTED = 0.6  # a requirement counts as supported by a turn at or above this support
PARTIAL = 0.3  # an all-matching question keeps taking new episodes supported at least this much
PATIENCE = 3  # ... until this many candidates in a row bring no such episode


@dataclass
class Retrieval:
    positions: list[int]
    why: dict[int, str]
    episodes: list[EpisodeChoice]
    matches: list[Match]
    stop_reason: str
    scored: Scored | None = None
    covered: tuple[int, ...] = ()
    extra: dict[str, float] = field(default_factory=dict)


class _Picker:
    """Adds turns to the selection while respecting a token cap."""

    def __init__(self, ci: ConversationIndex, cap: int | None) -> None:
        self.ci = ci
        self.cap = cap
        self.chosen: dict[int, str] = {}
        self.tokens = 0

    def cost(self, positions: list[int]) -> int:
        return int(sum(int(self.ci.turn_tokens[p]) for p in positions if p not in self.chosen))

    def add(self, positions: list[int], reason: str) -> list[int]:
        """Add what fits (in the given order); returns the positions actually added."""
        added = []
        for p in positions:
            if p in self.chosen:
                continue
            t = int(self.ci.turn_tokens[p])
            if self.cap is not None and self.tokens + t > self.cap:
                continue
            self.chosen[p] = reason
            self.tokens += t
            added.append(p)
        return added

    def full(self) -> bool:
        return self.cap is not None and self.tokens >= self.cap


CONTEXT_TOKENS = 200  # a neighbour longer than this is no context but a document of its own


def window(ci: ConversationIndex, p: int, radius: int) -> list[int]:
    """``p`` first, then neighbours inside the same episode, nearest first; a long neighbour (an
    assistant's page of advice beside the user's one-line fact) is left to its own rank."""
    out = [p]
    if radius <= 0:
        return out
    e = ci.turn_episode[p]
    for d in range(1, radius + 1):
        for q in (p - d, p + d):
            if 0 <= q < len(ci.turns) and ci.turn_episode[q] == e and ci.turn_tokens[q] <= CONTEXT_TOKENS:
                out.append(q)
    return out


def _episode_choices(
    ci: ConversationIndex, chosen: dict[int, str], fused: np.ndarray | None, support: np.ndarray | None
) -> list[EpisodeChoice]:
    by_episode: dict[int, list[int]] = {}
    for p in chosen:
        by_episode.setdefault(int(ci.turn_episode[p]), []).append(p)
    out = []
    for e, positions in by_episode.items():
        score = float(max(fused[p] for p in positions)) if fused is not None else 0.0
        covers: tuple[int, ...] = ()
        if support is not None and support.size:
            covers = tuple(
                int(i) for i in range(support.shape[0]) if any(support[i, p] >= SUPPORTED for p in positions)
            )
        first = min(positions, key=lambda p: -fused[p]) if fused is not None else min(positions)
        plural = "s" if len(positions) > 1 else ""
        reason = f"{len(positions)} turn{plural}; best {ci.turns[first].id}: {chosen[first]}"
        out.append(
            EpisodeChoice(
                episode_id=ci.episodes[e].id if 0 <= e < len(ci.episodes) else f"turn:{e}",
                score=round(score, 4),
                reason=reason,
                covers=covers,
            )
        )
    out.sort(key=lambda c: -c.score)
    return out


def _fill(picker: _Picker, order: np.ndarray) -> None:
    for p in order:
        if picker.full():
            break
        picker.add([int(p)], "budget fill (next ranked turn)")


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
    ci: ConversationIndex, plan: Plan, scored: Scored, cfg: StrategyConfig, picker: _Picker, share: int
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
    picker = _Picker(ci, cap)
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
        _fill(picker, order)
    return Retrieval(
        positions=list(picker.chosen),
        why=dict(picker.chosen),
        episodes=_episode_choices(ci, picker.chosen, fused, scored.support),
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
    ci: ConversationIndex, plan: Plan, scored: Scored, ranker: Ranker, budget_tokens: int | None
) -> Retrieval:
    """Turns in fitted-score order until the fitted budget (or the ``budget_tokens`` cap)."""
    fitted = fitted_budget(ci, plan, ranker)
    cap = budget_tokens if budget_tokens is not None else fitted
    picker = _Picker(ci, cap)
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
        episodes=_episode_choices(ci, picker.chosen, scored.fused, scored.support),
        matches=scored.matches,
        stop_reason=f"{source} reached",
        scored=scored,
        covered=tuple(int(i) for i in np.where(covered)[0]),
        extra={"fitted_budget": float(fitted)},
    )


def select_ranked(
    ci: ConversationIndex, plan: Plan, scored: Scored, cfg: StrategyConfig, budget_tokens: int | None
) -> Retrieval:
    picker = _Picker(ci, budget_tokens)
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
        episodes=_episode_choices(ci, picker.chosen, scored.fused, None),
        matches=scored.matches,
        stop_reason=stop,
        scored=scored,
    )


def select_full(ci: ConversationIndex, budget_tokens: int | None) -> Retrieval:
    picker = _Picker(ci, budget_tokens)
    for p in range(len(ci.turns) - 1, -1, -1):  # most recent first when a cap applies
        if picker.full():
            break
        picker.add([p], "whole conversation")
    return Retrieval(
        positions=list(picker.chosen),
        why=dict(picker.chosen),
        episodes=_episode_choices(ci, picker.chosen, None, None),
        matches=[],
        stop_reason="token cap reached" if picker.full() else "whole conversation",
    )


def _recency(now: datetime | None, when: datetime | None, lam: float) -> float:
    if when is None or now is None:
        return 0.0
    return math.exp(-lam * max(0.0, (now - when).total_seconds()))


def select_glong(
    ci: ConversationIndex,
    plan: Plan,
    qvec: np.ndarray,
    scored: Scored,
    cfg: StrategyConfig,
    budget_tokens: int | None,
    *,
    now: datetime | None = None,
) -> Retrieval:
    """Anchor entities -> 1-hop records -> 0.5 semantic + 0.3 importance + 0.2 recency."""
    w_sem, w_imp, w_rec = cfg.glong.weights
    named = {(r.entity or "").split("'")[0].lower() for r in plan.requirements if r.entity}
    anchors: dict[str, float] = {n: 1.0 for n in named if n}
    if ci.entities and ci.entity_vecs.shape[0]:
        sims = ci.entity_vecs @ qvec
        for k in np.argsort(-sims)[: cfg.glong.anchors]:
            e = ci.entities[int(k)]
            for name in (e.name, *e.aliases):
                anchors.setdefault(name.lower(), float(sims[k]))
    anchor_ids = {e.id for e in ci.entities if e.name.lower() in anchors}
    candidates: set[int] = set()
    for r, rec in enumerate(ci.records):
        if rec.entity.lower() in anchors or (rec.source_speaker or "").lower() in anchors:
            candidates.add(r)
    one_hop = {
        rid for g in ci.edges if g.source in anchor_ids or g.target in anchor_ids for rid in g.record_ids
    }
    rec_index = {rec.id: r for r, rec in enumerate(ci.records)}
    candidates |= {rec_index[rid] for rid in one_hop if rid in rec_index}
    matches: list[Match] = []
    picker = _Picker(ci, budget_tokens)
    units: list[tuple[float, list[int], str]] = []
    if candidates:
        idx = sorted(candidates)
        sem = minmax(ci.record_vecs[idx] @ qvec)
        imp = np.array([ci.records[r].importance for r in idx], dtype=np.float32)
        imp = imp / (float(imp.max()) or 1.0)
        rec_t = np.array(
            [
                _recency(
                    now or ci.last_time,
                    ci.episodes[ci.record_episode[r]].start_time if ci.record_episode[r] >= 0 else None,
                    cfg.glong.recency_lambda,
                )
                for r in idx
            ]
        )
        final = w_sem * sem + w_imp * imp + w_rec * rec_t
        for j in np.argsort(-final)[: cfg.top_k]:
            r = idx[int(j)]
            rec = ci.records[r]
            matches.append(
                Match(
                    requirement=-1,
                    kind=MatchKind.GRAPH,
                    score=round(float(final[j]), 4),
                    components={
                        "semantic": round(float(sem[j]), 4),
                        "importance": round(float(imp[j]), 4),
                        "recency": round(float(rec_t[j]), 4),
                    },
                    record_id=rec.id,
                    episode_id=rec.episode_id,
                )
            )
            turns = [q for p in ci.record_turns[r] for q in window(ci, p, cfg.neighbours)]
            units.append((float(final[j]), turns, f"anchor record {rec.entity} / {rec.property}"))
    else:  # no graph yet: the anchors are the named speakers, their turns the 1-hop neighbourhood
        sem = minmax(ci.turn_vecs @ qvec)
        when = now or ci.last_time
        rec_t = np.array([_recency(when, t.session_time, cfg.glong.recency_lambda) for t in ci.turns])
        mask = (
            np.array([t.speaker.lower() in anchors for t in ci.turns])
            if anchors
            else np.ones(len(ci.turns), bool)
        )
        final = np.where(mask, w_sem * sem + w_rec * rec_t, -1.0)
        for p in np.argsort(-final)[: cfg.top_k]:
            if final[p] < 0:
                break
            units.append((float(final[p]), window(ci, int(p), cfg.neighbours), "anchor speaker turn"))
    for _score, turns, reason in units:
        if picker.full():
            break
        picker.add(turns, reason)
    if budget_tokens is not None and cfg.fill_budget and not picker.full():
        _fill(picker, np.argsort(-scored.fused, kind="stable"))
    return Retrieval(
        positions=list(picker.chosen),
        why=dict(picker.chosen),
        episodes=_episode_choices(ci, picker.chosen, scored.fused, scored.support),
        matches=matches + scored.matches,
        stop_reason="top records taken",
        scored=scored,
        extra={"anchors": float(len(anchors)), "candidates": float(len(candidates))},
    )


def select_seem(
    ci: ConversationIndex, plan: Plan, scored: Scored, cfg: StrategyConfig, budget_tokens: int | None
) -> Retrieval:
    """Seed passages -> event frames citing them -> all their source turns -> their episodes."""
    picker = _Picker(ci, budget_tokens)
    order = [int(p) for p in np.argsort(-scored.fused, kind="stable")]
    seeds = order[: cfg.seem.seeds]
    matches: list[Match] = []
    seed_ids = {ci.turns[p].id for p in seeds}
    frames = [v for v in ci.events if seed_ids & set(v.source_turn_ids)]
    linked = {k.target for k in ci.event_links for v in frames if k.source == v.id and k.kind == "episode"}
    frames += [v for v in ci.events if v.id in linked and v not in frames]
    for p in seeds:
        ep = int(ci.turn_episode[p])
        picker.add([p], "seed passage")
        cited = [v for v in frames if ci.turns[p].id in v.source_turn_ids]
        provenance = [ci.pos[t] for v in cited for t in v.source_turn_ids if t in ci.pos]
        for v in cited:
            matches.append(
                Match(
                    requirement=-1,
                    kind=MatchKind.EVENT,
                    score=round(float(scored.fused[p]), 4),
                    components={"seed": float(scored.fused[p])},
                    episode_id=v.episode_id,
                    turn_id=ci.turns[p].id,
                )
            )
        picker.add(sorted(set(provenance)), "reverse provenance (event frame source turns)")
        picker.add(ci.episode_turns(ep) if ep >= 0 else [], "reverse provenance (episode context)")
    if budget_tokens is not None and cfg.fill_budget and not picker.full():
        _fill(picker, np.array(order))
    return Retrieval(
        positions=list(picker.chosen),
        why=dict(picker.chosen),
        episodes=_episode_choices(ci, picker.chosen, scored.fused, scored.support),
        matches=matches + scored.matches,
        stop_reason="seed episodes expanded",
        scored=scored,
        extra={"frames": float(len(frames))},
    )


def retrieve(
    ci: ConversationIndex,
    plan: Plan,
    qvec: np.ndarray,
    cfg: StrategyConfig,
    budget_tokens: int | None = None,
    *,
    now: datetime | None = None,
) -> Retrieval:
    """``now``: when the question is asked (default: the conversation's last session)."""
    if cfg.method is Method.FULL:
        return select_full(ci, budget_tokens)
    scored = score_turns(ci, plan, qvec, cfg, now)
    ranker = load_ranker(cfg.ranker_file) if cfg.fusion == "fitted" else None
    if ranker is not None:
        return select_fitted(ci, plan, scored, ranker, budget_tokens)
    match cfg.method:
        case Method.RANKED:
            return select_ranked(ci, plan, scored, cfg, budget_tokens)
        case Method.GLONG:
            return select_glong(ci, plan, qvec, scored, cfg, budget_tokens, now=now)
        case Method.SEEM:
            return select_seem(ci, plan, scored, cfg, budget_tokens)
    return select_coverage(ci, plan, scored, cfg, budget_tokens)
