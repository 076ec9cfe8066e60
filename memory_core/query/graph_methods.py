"""Retrieval methods that walk the memory's graphs (the baselines beside ``ensimem``).

* ``glong``: anchor entities (named persons + the entities nearest the question), 1-hop
  expansion to their records and graph edges, rerank 0.5*semantic + 0.3*importance +
  0.2*recency, evidence turns of the top records; with no graph yet, the named speakers' turns.
* ``seem``: seed passages, their event frames, reverse provenance expansion to every source
  turn of those frames and to the episodes holding them.
"""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np

from memory_core.models import Match, MatchKind, Plan
from memory_core.query.context import ConversationIndex
from memory_core.query.scoring import Scored, minmax
from memory_core.query.selection import Picker, Retrieval, episode_choices, fill, window
from memory_core.query.strategies import StrategyConfig


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
    picker = Picker(ci, budget_tokens)
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
        fill(picker, np.argsort(-scored.fused, kind="stable"))
    return Retrieval(
        positions=list(picker.chosen),
        why=dict(picker.chosen),
        episodes=episode_choices(ci, picker.chosen, scored.fused, scored.support),
        matches=matches + scored.matches,
        stop_reason="top records taken",
        scored=scored,
        extra={"anchors": float(len(anchors)), "candidates": float(len(candidates))},
    )


def select_seem(
    ci: ConversationIndex, plan: Plan, scored: Scored, cfg: StrategyConfig, budget_tokens: int | None
) -> Retrieval:
    """Seed passages -> event frames citing them -> all their source turns -> their episodes."""
    picker = Picker(ci, budget_tokens)
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
        fill(picker, np.array(order))
    return Retrieval(
        positions=list(picker.chosen),
        why=dict(picker.chosen),
        episodes=episode_choices(ci, picker.chosen, scored.fused, scored.support),
        matches=matches + scored.matches,
        stop_reason="seed episodes expanded",
        scored=scored,
        extra={"frames": float(len(frames))},
    )
