"""Per-turn evidence scores for one question: channels, fusion, requirement support.

Channels (each min-max normalised over the conversation so "higher is better" and
comparable before fusion):

    lexical         BM25 of the question's terms over turn text
    dense           cosine of the question vector and the turn vectors
    record_lexical  BM25 over record text, carried to the records' evidence turns
    record_dense    cosine with record vectors, carried to evidence turns
    structured      requirement <-> record match (entity, property, value), carried to turns

Fusion is a weighted sum plus a speaker boost (turns by the one person the question is
about), a date boost (sessions near a date the question names) and neighbour smoothing
(a turn inherits part of its best neighbour's score: answers often sit next to the turn
that matches the question's words).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

import numpy as np
from rapidfuzz import fuzz

from memory_core.models import Match, MatchKind, Plan, Requirement
from memory_core.query.context import ConversationIndex
from memory_core.query.families import question_families
from memory_core.query.ranker import fitted_scores, load_ranker, size_class, turn_features
from memory_core.query.strategies import Method, StrategyConfig
from memory_core.query.text import STOPWORDS, WEAK_WORDS, fold, stem, terms, words
from memory_core.timeexpr import question_dates, session_near

TOP_MATCHES = 8


@dataclass
class Scored:
    fused: np.ndarray
    channels: dict[str, np.ndarray]
    support: np.ndarray  # (requirements, turns) in [0, 1]
    record_scores: dict[str, np.ndarray] = field(default_factory=dict)
    structured: np.ndarray | None = None  # (requirements, records)
    matches: list[Match] = field(default_factory=list)
    focus_speaker: str | None = None
    date_ranges: list[tuple[str, str, str]] = field(default_factory=list)
    features: np.ndarray | None = None  # (turns, ranker.FEATURES) when asked for or fitted fusion
    hand: np.ndarray | None = None  # the hand-weighted fusion (``fused`` unless fitted)


def minmax(x: np.ndarray) -> np.ndarray:
    if x.size == 0:
        return x.astype(np.float32)
    lo, hi = float(x.min()), float(x.max())
    if hi - lo < 1e-9:
        return np.zeros_like(x, dtype=np.float32)
    return ((x - lo) / (hi - lo)).astype(np.float32)


def query_terms(plan: Plan) -> list[str]:
    return terms(plan.question)


def requirement_terms(req: Requirement) -> set[str]:
    text = " ".join(x for x in (req.property, req.value) if x)
    out = {stem(w) for w in words(text) if w not in STOPWORDS and w not in WEAK_WORDS}
    if req.entity:
        out -= {stem(w) for w in words(req.entity)}
    return out


@lru_cache(maxsize=16384)
def _entity_words(name: str | None) -> frozenset[str]:
    return frozenset(stem(w) for w in words(name or "") if w not in STOPWORDS)


def records_to_turns(ci: ConversationIndex, per_record: np.ndarray) -> np.ndarray:
    out = np.zeros(len(ci.turns), dtype=np.float32)
    for r, positions in enumerate(ci.record_turns):
        if positions and per_record[r] > 0:
            for p in positions:
                if per_record[r] > out[p]:
                    out[p] = per_record[r]
    return out


@lru_cache(maxsize=65536)
def entity_match(req_entity: str | None, record_entity: str, speaker: str | None) -> float:
    if not req_entity:
        return 0.5
    a, b = fold(req_entity).lower(), fold(record_entity).lower()
    if a == b or (speaker and fold(speaker).lower() == a and b in ("i", "me", "speaker")):
        return 1.0
    aw, bw = _entity_words(req_entity), _entity_words(record_entity)
    if aw and bw and (aw <= bw or bw <= aw):
        return 0.9
    if fuzz.ratio(a, b, score_cutoff=85.0):  # edit similarity of the names, 0 below the cutoff
        return 0.8
    return 0.0


def requirement_families(plan: Plan, req: Requirement) -> frozenset[str]:
    """The property families a requirement asks about (a bridge asks for relations)."""
    if req.role == "bridge":
        return frozenset({"relations"})
    return question_families([*plan.keywords, *words(req.property or "")], plan.answer_target)


def structured_scores(
    ci: ConversationIndex, plan: Plan, keyword_stems: set[str], *, families: bool = True
) -> np.ndarray:
    """(requirements, records) structured match scores in [0, 1].

    entity match x (0.5 property + 0.2 value + 0.3 question keywords); the property part is
    the best of: word overlap with the asked property, the same property name, the record's
    property family among the asked families (1.0) or its value's words in them (0.5).
    """
    out = np.zeros((len(plan.requirements), len(ci.records)), dtype=np.float32)
    if not ci.records:
        return out
    for i, req in enumerate(plan.requirements):
        prop = {stem(w) for w in words(req.property or "") if w not in STOPWORDS}
        value = {stem(w) for w in words(req.value or "") if w not in STOPWORDS}
        req_prop = fold(req.property).lower() if req.property else None
        asked = requirement_families(plan, req) if families else frozenset()
        for r, rec in enumerate(ci.records):
            ent = entity_match(req.entity, rec.entity, rec.source_speaker)
            if ent == 0.0:
                continue
            rec_all = ci.record_stems[r]
            p = len(prop & rec_all) / len(prop) if prop else 0.0
            if req_prop is not None and req_prop == ci.record_props[r]:
                p = 1.0
            if asked and p < 1.0:
                if asked & ci.record_pfam[r]:
                    p = 1.0
                elif asked & ci.record_vfam[r]:
                    p = max(p, 0.5)
            v = len(value & rec_all) / len(value) if value else 0.0
            k = len(keyword_stems & rec_all) / len(keyword_stems) if keyword_stems else 0.0
            score = ent * (0.5 * p + 0.2 * v + 0.3 * k)
            if score >= 0.15:
                out[i, r] = score
    return out


def support_matrix(
    ci: ConversationIndex, plan: Plan, structured_turns: np.ndarray, dense: np.ndarray
) -> np.ndarray:
    n = len(ci.turns)
    sup = np.zeros((len(plan.requirements), n), dtype=np.float32)
    speakers_lower = [t.speaker.lower() for t in ci.turns]
    keyword_stems = {stem(fold(w)) for w in plan.keywords if w not in WEAK_WORDS}
    for i, req in enumerate(plan.requirements):
        ent = _entity_words(req.entity) if req.entity else frozenset()
        rterms = requirement_terms(req)
        if req.role != "bridge":  # the question's own words count even when the property was aligned
            rterms = rterms | (keyword_stems - ent)
        ent_name = fold(req.entity.split("'")[0]).lower() if req.entity else ""
        for t in range(n):
            doc = ci.turn_lex.doc_terms[t]
            # half of the requirement's words suffice: questions name the answer's category
            # ("which trails") in words the evidence need not repeat
            frac = min(1.0, len(rterms & doc) / max(1, -(-len(rterms) // 2))) if rterms else 0.5
            ent_ok = 1.0 if not req.entity or speakers_lower[t] == ent_name or ent <= doc else 0.5
            # a matching record already checked the entity; close meaning alone is only partial
            lexical = ent_ok * max(frac, 0.5 if dense[t] >= 0.55 else 0.0)
            sup[i, t] = max(lexical, float(structured_turns[i, t]))
    return sup


def score_turns(ci: ConversationIndex, plan: Plan, qvec: np.ndarray, cfg: StrategyConfig,
                now: datetime | None = None, *, features: bool = False,
                hvec: np.ndarray | None = None) -> Scored:
    """``now`` is when the question is asked (relative dates count back from it); by default
    the conversation's last session. ``hvec``: the vector of the category the question names
    (``qembed.head_vector``), the ``head_dense`` channel. With ``cfg.fusion == "fitted"`` (and
    a ranker file) the fused score is the fitted ranker's, min-max scaled; ``features`` keeps
    the feature matrix even for the hand fusion (what ``bench fit`` learns from)."""
    n = len(ci.turns)
    qterms = query_terms(plan)
    raw_lex = ci.turn_lex.scores(qterms)
    raw_dense = ci.turn_vecs @ qvec if n else np.zeros(0, dtype=np.float32)
    channels: dict[str, np.ndarray] = {"lexical": minmax(raw_lex), "dense": minmax(raw_dense)}
    if hvec is not None and n:
        channels["head_dense"] = (ci.turn_vecs @ hvec).astype(np.float64)
    record_scores: dict[str, np.ndarray] = {}
    keyword_stems = {stem(w) for w in plan.keywords}
    structured = np.zeros((len(plan.requirements), len(ci.records)), dtype=np.float32)
    structured_turns = np.zeros((len(plan.requirements), n), dtype=np.float32)
    if ci.records:
        rec_lex = minmax(ci.record_lex.scores(qterms))
        rec_dense_raw = ci.record_vecs @ qvec
        rec_dense = minmax(rec_dense_raw)
        record_scores = {"lexical": rec_lex, "dense": rec_dense, "dense_raw": rec_dense_raw}
        channels["record_lexical"] = records_to_turns(ci, rec_lex)
        channels["record_dense"] = records_to_turns(ci, rec_dense)
        if cfg.w_structured > 0 or cfg.method in (Method.ENSIMEM, Method.GLONG):
            structured = structured_scores(ci, plan, keyword_stems, families=cfg.families)
            for i in range(len(plan.requirements)):
                structured_turns[i] = records_to_turns(ci, structured[i])
        channels["structured"] = structured_turns.max(axis=0) if len(plan.requirements) else np.zeros(n)
    fused = (cfg.w_lexical * channels["lexical"] + cfg.w_dense * channels["dense"]).astype(np.float32)
    if ci.records:
        fused += (
            cfg.w_record_lexical * channels["record_lexical"]
            + cfg.w_record_dense * channels["record_dense"]
            + cfg.w_structured * channels["structured"]
        )
    focus = _focus_speaker(ci, plan)
    if cfg.speaker_boost and focus is not None:
        channels["speaker"] = np.array([t.speaker == focus for t in ci.turns], dtype=np.float32)
        fused += cfg.speaker_boost * channels["speaker"]
    date_ranges: list[tuple[str, str, str]] = []
    if cfg.date_boost:
        ranges = question_dates(plan.question, now or ci.last_time, now=now)
        if ranges:
            near = np.zeros(n, dtype=np.float32)
            for session, when in ci.session_times.items():
                if when is None:
                    continue
                value = max(session_near(when.date(), a, b) for a, b, _ in ranges)
                near[ci.turn_session == session] = value
            channels["date"] = near
            fused += cfg.date_boost * near
            date_ranges = [(a.isoformat(), b.isoformat(), text) for a, b, text in ranges]
    if cfg.smoothing:
        fused = smooth(ci, fused, cfg.smoothing)
    support = support_matrix(ci, plan, structured_turns, raw_dense)
    hand = fused
    ranker = load_ranker(cfg.ranker_file) if cfg.fusion == "fitted" else None
    x = None
    if features or ranker is not None:
        x = turn_features(ci, channels, support, raw_dense, hand, qterms)
    if ranker is not None and x is not None:
        fused = minmax(fitted_scores(ranker, x, size_class(int(ci.turn_tokens.sum()))))
    scored = Scored(
        features=x,
        hand=hand,
        fused=fused,
        channels=channels,
        support=support,
        record_scores=record_scores,
        structured=structured,
        focus_speaker=focus,
        date_ranges=date_ranges,
    )
    scored.matches = collect_matches(ci, plan, scored, raw_lex, raw_dense)
    return scored


def smooth(ci: ConversationIndex, s: np.ndarray, share: float) -> np.ndarray:
    if s.size < 2:
        return s
    same_prev = np.r_[False, ci.turn_session[1:] == ci.turn_session[:-1]]
    same_next = np.r_[ci.turn_session[1:] == ci.turn_session[:-1], False]
    prev = np.where(same_prev, np.r_[0.0, s[:-1]], 0.0)
    nxt = np.where(same_next, np.r_[s[1:], 0.0], 0.0)
    return (s + share * np.maximum(prev, nxt)).astype(np.float32)


def _focus_speaker(ci: ConversationIndex, plan: Plan) -> str | None:
    named = {fold(r.entity.split("'")[0]).lower() for r in plan.requirements if r.entity}
    hits = [s for s in ci.speakers if s.lower() in named]
    return hits[0] if len(hits) == 1 else None


def collect_matches(
    ci: ConversationIndex, plan: Plan, scored: Scored, raw_lex: np.ndarray, raw_dense: np.ndarray
) -> list[Match]:
    """The strongest matches per channel (and per requirement for structured ones)."""
    out: list[Match] = []

    def episode_of(pos: int) -> str | None:
        e = int(ci.turn_episode[pos])
        return ci.episodes[e].id if 0 <= e < len(ci.episodes) else None

    for kind, raw, norm in (
        (MatchKind.LEXICAL, raw_lex, scored.channels["lexical"]),
        (MatchKind.DENSE, raw_dense, scored.channels["dense"]),
    ):
        for p in np.argsort(-norm, kind="stable")[:TOP_MATCHES]:
            if raw[p] <= 0:
                continue
            out.append(
                Match(
                    requirement=-1,
                    kind=kind,
                    score=round(float(norm[p]), 4),
                    components={"raw": round(float(raw[p]), 4), "normalised": round(float(norm[p]), 4)},
                    turn_id=ci.turns[p].id,
                    episode_id=episode_of(int(p)),
                )
            )
    if ci.records:
        for kind, key in ((MatchKind.LEXICAL, "lexical"), (MatchKind.DENSE, "dense")):
            rs = scored.record_scores[key]
            for r in np.argsort(-rs, kind="stable")[: TOP_MATCHES // 2]:
                if rs[r] <= 0:
                    continue
                rec = ci.records[int(r)]
                out.append(
                    Match(
                        requirement=-1,
                        kind=kind,
                        score=round(float(rs[r]), 4),
                        components={"normalised": round(float(rs[r]), 4), "on": 1.0},
                        record_id=rec.id,
                        episode_id=rec.episode_id,
                    )
                )
        if scored.structured is not None:
            for i in range(scored.structured.shape[0]):
                row = scored.structured[i]
                for r in np.argsort(-row, kind="stable")[:TOP_MATCHES]:
                    if row[r] <= 0:
                        break
                    rec = ci.records[int(r)]
                    req = plan.requirements[i]
                    out.append(
                        Match(
                            requirement=i,
                            kind=MatchKind.STRUCTURED,
                            score=round(float(row[r]), 4),
                            components={
                                "entity": entity_match(req.entity, rec.entity, rec.source_speaker),
                                "dense": round(float(scored.record_scores["dense_raw"][r]), 4),
                            },
                            record_id=rec.id,
                            episode_id=rec.episode_id,
                        )
                    )
    # per requirement: the turns that support it best
    for i in range(scored.support.shape[0]):
        row = scored.support[i] * (0.5 + 0.5 * scored.fused / (float(scored.fused.max()) or 1.0))
        for p in np.argsort(-row, kind="stable")[:3]:
            if scored.support[i, p] <= 0:
                break
            out.append(
                Match(
                    requirement=i,
                    kind=MatchKind.LEXICAL,
                    score=round(float(scored.support[i, p]), 4),
                    components={
                        "support": round(float(scored.support[i, p]), 4),
                        "fused": round(float(scored.fused[p]), 4),
                    },
                    turn_id=ci.turns[p].id,
                    episode_id=episode_of(int(p)),
                )
            )
    return out
