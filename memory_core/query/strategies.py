"""Retrieval strategies as declarative configs with named presets.

A strategy is data: which ``Method`` assembles the buffer (with that method's own settings:
``GlongSettings``, ``SeemSettings``), how the per-turn channels are weighted, which boosts
apply, and the evidence budget each reasoning type gets. New presets
are new entries in ``PRESETS``; ``strategy(name)`` looks one up.

    ensimem  requirement-aware: structured record matching (entity x property family) + BM25
             (turns, records) + dense (turns, records), fused; all-matching questions first open
             the evidence turns of the records in the asked family; stopped by coverage
    ensimem-turns  the same without any record channel (the ablation)
    ensimem-fitted the same signals (plus neighbourhood, rank and length features) fused by the
             ranker ``bench fit`` fitted on the tune files, stopped by its fitted budgets
    glong    anchor entities + 1-hop expansion over records/edges, reranked by
             0.5*semantic + 0.3*importance + 0.2*recency
    seem     seed passages -> event frames -> reverse provenance expansion to full episodes
    bm25     BM25 over turns, top 40 (or as many as the budget holds)
    dense    MiniLM cosine over turns, top 40 (or as many as the budget holds)
    full     every turn (the most recent ones when a budget is given)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from memory_core.errors import QueryError
from memory_core.models import ReasoningType, Scope


@dataclass(frozen=True)
class Budget:
    """Evidence budget of one reasoning type (tokens of the buffer)."""

    min_tokens: int  # never stop before this much evidence (unless the budget cap says so)
    max_tokens: int  # never collect more than this
    keep_ratio: float  # keep collecting while a candidate scores >= keep_ratio * best


_DEFAULT_BUDGETS: Mapping[str, Budget] = MappingProxyType(
    {
        ReasoningType.POINT.value: Budget(1400, 3200, 0.80),
        ReasoningType.TEMPORAL.value: Budget(1000, 2600, 0.85),
        ReasoningType.MULTI_HOP.value: Budget(2600, 4600, 0.65),
        ReasoningType.COMPARISON.value: Budget(3000, 5400, 0.60),
        ReasoningType.AGGREGATION.value: Budget(3000, 5400, 0.60),
        ReasoningType.OPEN_DOMAIN.value: Budget(2600, 4600, 0.65),
    }
)


class Method(StrEnum):
    """How a strategy assembles the buffer (``retrieve`` dispatches on it)."""

    ENSIMEM = "ensimem"  # requirement-aware coverage selection
    GLONG = "glong"  # anchor entities + 1-hop expansion, reranked (``GlongSettings``)
    SEEM = "seem"  # seed passages -> event frames -> episodes (``SeemSettings``)
    RANKED = "ranked"  # the top of one ranking (the BM25 / dense baselines)
    FULL = "full"  # every turn


@dataclass(frozen=True)
class GlongSettings:
    anchors: int = 5  # anchor entities taken from the question
    weights: tuple[float, float, float] = (0.5, 0.3, 0.2)  # semantic, importance, recency
    recency_lambda: float = 1e-7  # per second


@dataclass(frozen=True)
class SeemSettings:
    seeds: int = 5  # seed passages the expansion starts from


@dataclass(frozen=True)
class StrategyConfig:
    name: str
    method: Method
    description: str
    # per-turn channel weights (each channel min-max normalised to [0, 1] first)
    w_lexical: float = 0.0
    w_dense: float = 0.0
    w_record_lexical: float = 0.0
    w_record_dense: float = 0.0
    w_structured: float = 0.0
    speaker_boost: float = 0.0  # added to turns spoken by the one person the question is about
    date_boost: float = 0.0  # added to turns of sessions near a date named in the question
    smoothing: float = 0.0  # share of the best neighbour's score a turn inherits
    neighbours: int = 0  # turns on each side added (same episode) around a selected turn
    context_top: int = 0  # the best this-many candidates also bring their +-1 neighbours
    min_candidates: int = 0  # never stop before this many ranked candidates were taken
    top_k: int = 40  # ranked baselines / glong records / seem seeds
    fill_budget: bool = True  # with --budget-tokens, keep adding ranked turns up to the cap
    # records as the address: property families in the structured match, and the share of an
    # all-matching question's evidence budget first spent on the evidence turns of the
    # records that match a requirement's entity and asked family (0 = off)
    families: bool = True
    record_share: float = 0.0
    record_min: float = 0.45  # structured score a record needs to be collected
    budgets: Mapping[str, Budget] = field(default_factory=lambda: _DEFAULT_BUDGETS)
    # "hand": the weights above; "fitted": the ranker fitted by ``bench fit`` (``ranker_file``,
    # default ``memory_core/query/ranker.json``) fuses the signals and its fitted token budget
    # per reasoning type stops the selection (the hand weights when no ranker file exists)
    fusion: str = "hand"
    ranker_file: str | None = None
    glong: GlongSettings = GlongSettings()  # used by Method.GLONG only
    seem: SeemSettings = SeemSettings()  # used by Method.SEEM only

    def budget_for(self, reasoning: ReasoningType, scope: Scope) -> Budget:
        b = self.budgets.get(reasoning.value)
        if b is None:
            b = self.budgets[ReasoningType.POINT.value]
        if scope == Scope.ALL and reasoning == ReasoningType.POINT:
            b = self.budgets[ReasoningType.AGGREGATION.value]
        return b


_ENSIMEM = StrategyConfig(
    name="ensimem",
    method=Method.ENSIMEM,
    description="requirement-aware structured + lexical + dense retrieval, coverage-stopped",
    w_lexical=0.40,
    w_dense=0.40,
    w_record_lexical=0.05,
    w_record_dense=0.05,
    w_structured=0.40,
    speaker_boost=0.25,
    date_boost=0.25,
    smoothing=0.40,
    neighbours=0,
    context_top=5,
    min_candidates=10,
    record_share=0.15,
)

PRESETS: Mapping[str, StrategyConfig] = MappingProxyType(
    {
        "ensimem": _ENSIMEM,
        # the ablation: ensimem with every record channel zeroed (turn text and vectors only)
        "ensimem-turns": dataclasses.replace(
            _ENSIMEM,
            name="ensimem-turns",
            description="ensimem without records: no record channels, families or record collection",
            w_record_lexical=0.0,
            w_record_dense=0.0,
            w_structured=0.0,
            families=False,
            record_share=0.0,
        ),
        # the same signals fused by the ranker fitted on the tune files (``bench fit``), stopped
        # by its fitted token budget per reasoning type
        "ensimem-fitted": dataclasses.replace(
            _ENSIMEM,
            name="ensimem-fitted",
            description="ensimem's signals fused by the fitted ranker, fitted budget per reasoning type",
            fusion="fitted",
        ),
        "glong": StrategyConfig(
            name="glong",
            method=Method.GLONG,
            description="anchor entities + 1-hop expansion, 0.5 semantic + 0.3 importance + 0.2 recency",
            w_lexical=0.5,
            w_dense=0.5,
            top_k=30,
            neighbours=1,
        ),
        "seem": StrategyConfig(
            name="seem",
            method=Method.SEEM,
            description="seed passages -> event frames -> reverse provenance expansion",
            w_lexical=0.5,
            w_dense=0.5,
            seem=SeemSettings(seeds=4),
        ),
        "bm25": StrategyConfig(
            name="bm25", method=Method.RANKED, description="BM25 over turns, top 40", w_lexical=1.0, top_k=40
        ),
        "dense": StrategyConfig(
            name="dense",
            method=Method.RANKED,
            description="MiniLM cosine over turns, top 40",
            w_dense=1.0,
            top_k=40,
        ),
        "full": StrategyConfig(name="full", method=Method.FULL, description="the whole conversation"),
    }
)

DEFAULT_STRATEGY = "ensimem-fitted"


def strategy(name: str | None) -> StrategyConfig:
    key = (name or DEFAULT_STRATEGY).strip().lower()
    try:
        return PRESETS[key]
    except KeyError:
        raise QueryError(f"unknown strategy '{name}' (choose from: {', '.join(PRESETS)})") from None


def strategy_names() -> list[str]:
    return list(PRESETS)
