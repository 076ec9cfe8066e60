"""Retrieval on a small hand-made conversation: coverage stopping, budgets, strategies,
traces, highlights and the extractive answer, all on the real store, Chroma and embedder."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memory_core.backends.offline.planner import plan_question
from memory_core.models import MatchKind, ReasoningType, Scope, Trace
from memory_core.query.buffer import highlight_terms
from memory_core.query.qembed import embed_question
from memory_core.query.retrieve import retrieve
from memory_core.query.strategies import PRESETS, Budget
from memory_core.query.text import fold, stem
from memory_core.tokens import count_tokens

ALL_TYPES = [r.value for r in ReasoningType]


def _tight(**changes):
    """ensimem with no minimum budget, so stopping is decided by coverage alone."""
    budgets = {t: Budget(0, 10_000, 0.8) for t in ALL_TYPES}
    return replace(PRESETS["ensimem"], budgets=budgets, **{"min_candidates": 0, **changes})


def _retrieve(services, question, cfg, budget=None):
    ci = services.queries.conversation_index("conv-test")
    plan = plan_question(question, ci.vocabulary(), embedder=services.embedder)
    result = retrieve(ci, plan, embed_question(services.embedder, question), cfg, budget)
    return ci, plan, result


def test_point_question_stops_once_its_requirement_is_supported(built) -> None:
    ci, plan, result = _retrieve(built, "What breed is Biscuit?", _tight())
    assert plan.scope == Scope.POINT
    ids = {ci.turns[p].id for p in result.positions}
    assert "D1:3" in ids
    assert result.stop_reason.startswith("every requirement supported")
    assert len(ids) < len(ci.turns) // 2


def test_a_point_question_takes_at_least_min_candidates(built) -> None:
    """Coverage alone would stop after a turn or two; a floor of candidates keeps going (long
    turns fill a token minimum with a handful of turns)."""
    _ci, _plan, stopped = _retrieve(built, "What breed is Biscuit?", _tight())
    _ci, _plan, floored = _retrieve(built, "What breed is Biscuit?", _tight(min_candidates=8))
    assert len(stopped.positions) < 8 <= len(floored.positions)
    assert set(stopped.positions) <= set(floored.positions)


def test_the_asking_day_anchors_relative_dates(built) -> None:
    from datetime import datetime

    question = "Where did Bob go hiking last week?"
    plain = built.queries.ask("conv-test", question)
    assert plain.details["date_ranges"] == [] and "asked_at" not in plain.details
    asked = built.queries.ask("conv-test", question, now=datetime(2023, 7, 19, 9, 0))
    assert asked.details["asked_at"] == "2023-07-19 09:00"
    assert asked.details["date_ranges"] == [["2023-07-10", "2023-07-16", "last week"]]
    assert any(b.turn_id == "D2:3" for b in asked.buffer)  # the Yosemite hike of session 2


def test_all_matching_question_keeps_collecting_supporting_episodes(built) -> None:
    ci, plan, result = _retrieve(built, "Which trails and mountains has Bob hiked?", _tight())
    assert plan.scope == Scope.ALL
    ids = {ci.turns[p].id for p in result.positions}
    assert {"D1:4", "D2:3", "D3:4"} <= ids
    assert result.stop_reason == "no new supporting episodes"
    hiking_episodes = {e.episode_id for e in result.episodes if e.covers}
    assert len(hiking_episodes) >= 3


@pytest.mark.parametrize("name", list(PRESETS))
def test_budget_cap_is_respected_and_counted_like_the_scorer(home, name) -> None:
    trace = home.queries.ask("conv-test", "Where did Bob go hiking?", strategy=name, budget_tokens=120)
    assert 0 < trace.buffer_tokens <= 120
    turns = {t.id: t for t in home.raw_store().turns("conv-test")}
    assert trace.buffer_tokens == sum(count_tokens(turns[b.turn_id].render()) for b in trace.buffer)
    order = [list(turns).index(b.turn_id) for b in trace.buffer]
    assert order == sorted(order)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_strategy_returns_a_valid_persisted_trace(built, name) -> None:
    trace = built.queries.ask("conv-test", "When did Alice adopt her puppy?", strategy=name)
    assert isinstance(trace, Trace) and trace.strategy == name and trace.backend == "offline"
    assert built.queries.trace(trace.id) == trace
    assert trace.id in [row.id for row in built.queries.traces("conv-test")]
    assert trace.plan.requirements and trace.buffer
    buffer_ids = [b.turn_id for b in trace.buffer]
    assert "D1:1" in buffer_ids
    assert set(trace.answer.cited_turn_ids) <= set(buffer_ids)
    assert {"embed", "plan", "retrieve", "buffer", "answer", "total"} <= set(trace.timings)
    episodes = {e.id for e in built.raw_store().episodes("conv-test")}
    assert {e.episode_id for e in trace.episodes} <= episodes
    records = {r.id for r in built.raw_store().records("conv-test")}
    assert {m.record_id for m in trace.matches if m.record_id} <= records


def test_structured_matching_finds_the_record_of_the_requirement(built) -> None:
    trace = built.queries.ask("conv-test", "What breed is Biscuit?")
    structured = [m for m in trace.matches if m.kind == MatchKind.STRUCTURED]
    assert structured and structured[0].record_id == "conv-test:r1" and structured[0].requirement == 0
    assert structured[0].components["entity"] == 1.0
    assert any(e.covers == (0,) for e in trace.episodes)


def test_glong_reranks_anchor_records(built) -> None:
    trace = built.queries.ask("conv-test", "What did Alice adopt?", strategy="glong")
    graph = [m for m in trace.matches if m.kind == MatchKind.GRAPH]
    assert graph
    for m in graph:
        c = m.components
        assert m.score == pytest.approx(
            0.5 * c["semantic"] + 0.3 * c["importance"] + 0.2 * c["recency"], abs=2e-4
        )
    assert "conv-test:r0" in [m.record_id for m in graph[:3]]


def test_seem_expands_seeds_to_their_whole_episodes(built) -> None:
    trace = built.queries.ask("conv-test", "What did Bob bake for the shop opening?", strategy="seem")
    buffer = {b.turn_id for b in trace.buffer}
    assert "D3:2" in buffer
    episode = next(e for e in built.raw_store().episodes("conv-test") if "D3:2" in e.turn_ids)
    assert set(episode.turn_ids) <= buffer
    assert any(m.kind == MatchKind.EVENT for m in trace.matches)


def test_highlight_spans_point_at_the_matched_words(built) -> None:
    trace = built.queries.ask("conv-test", "Where did Alice's sister Carol move?")
    labels = highlight_terms(trace.plan)
    spans = [(b, h) for b in trace.buffer for h in b.highlights]
    assert spans
    for b, h in spans:
        word = b.text[h.start : h.end]
        assert word and word == word.strip()
        assert labels[stem(fold(word))] == h.label
    carol_turn = next(b for b in trace.buffer if b.turn_id == "D2:6")
    marked = {carol_turn.text[h.start : h.end] for h in carol_turn.highlights}
    assert {"sister", "Carol", "moved"} <= marked


def test_temporal_answer_is_resolved_against_the_session_date(built) -> None:
    trace = built.queries.ask("conv-test", "When did Alice adopt her puppy?")
    assert trace.answer.text == "7 May 2023 [D1:1]"
    assert trace.answer.cited_turn_ids == ("D1:1",)
    painting = built.queries.ask("conv-test", "When did Alice start painting?")
    assert painting.answer.text == "2022 [D2:2]"


def test_unsupported_question_answers_unknown(built) -> None:
    trace = built.queries.ask("conv-test", "What is the capital of Mars?")
    assert trace.answer.text == "Unknown" and not trace.answer.supported
    assert trace.answer.cited_turn_ids == ()


def test_without_built_memory_episodes_are_fixed_windows(home) -> None:
    trace = home.queries.ask("conv-test", "What did Bob bake?")
    assert trace.episodes and all(":W" in e.episode_id for e in trace.episodes)
    assert not any(m.kind == MatchKind.STRUCTURED for m in trace.matches)


def test_index_cache_picks_up_a_build(home, memory_builder) -> None:
    home.queries.index_cache.recheck_s = 0.0
    before = home.queries.ask("conv-test", "What breed is Biscuit?")
    memory_builder(home)
    after = home.queries.ask("conv-test", "What breed is Biscuit?")
    assert all(":W" in e.episode_id for e in before.episodes)
    assert all(":E" in e.episode_id for e in after.episodes)


def test_bad_requests_are_one_line_errors(home) -> None:
    from memory_core.errors import MnemoscopeError

    with pytest.raises(MnemoscopeError, match="unknown strategy"):
        home.queries.ask("conv-test", "anything?", strategy="nope")
    with pytest.raises(MnemoscopeError, match="empty"):
        home.queries.ask("conv-test", "   ")
    with pytest.raises(MnemoscopeError, match="unknown conversation"):
        home.queries.ask("conv-none", "anything?")
    with pytest.raises(MnemoscopeError, match="positive"):
        home.queries.ask("conv-test", "anything?", budget_tokens=0)


def test_the_index_cache_keeps_only_the_most_recently_used(home) -> None:
    from tests.query.conftest import make_conversation

    for conv_id in ("conv-b", "conv-c"):
        home.raw_store().save_conversation(make_conversation(conv_id))
    cache = home.queries.index_cache
    cache.max_entries = 2
    first = home.queries.conversation_index("conv-test")
    home.queries.conversation_index("conv-b")
    assert home.queries.conversation_index("conv-test") is first  # used again: most recent now
    home.queries.conversation_index("conv-c")  # evicts conv-b, the least recently used
    assert len(cache) == 2
    assert home.queries.conversation_index("conv-test") is first
    assert home.queries.ask("conv-b", "What breed is Biscuit?").answer.text  # rebuilt on demand
    assert len(cache) == 2


def test_context_neighbours_are_short_turns_only() -> None:
    """A candidate brings its neighbours in as context, but a long neighbour (an assistant's page
    of advice beside the user's one-line fact) would spend the budget: it keeps its own rank."""
    from types import SimpleNamespace
    from typing import cast

    import numpy as np

    from memory_core.query.context import ConversationIndex
    from memory_core.query.selection import CONTEXT_TOKENS, window

    tokens = np.array([20, 30, CONTEXT_TOKENS + 400, 25, 40, 10])
    ci = cast(ConversationIndex, SimpleNamespace(  # the three fields window reads
        turns=list(range(6)), turn_episode=np.array([0, 0, 0, 0, 0, 1]), turn_tokens=tokens))
    assert window(ci, 1, 1) == [1, 0]  # turn 2 is long: left out
    assert window(ci, 3, 1) == [3, 4]
    assert window(ci, 4, 1) == [4, 3]  # turn 5 is in another episode
    assert window(ci, 2, 1) == [2, 1, 3]  # a long candidate itself is always taken
