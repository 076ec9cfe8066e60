"""The services facade: explicit parts, lazy heavy pieces, views, and the offline backend on the
question path giving exactly what the rule planner and the extractive answer give."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from memory_core.backends.offline.answering import extractive_answer
from memory_core.backends.offline.backend import OfflineBackend
from memory_core.backends.offline.planner import plan_question
from memory_core.backends.openai.backend import OpenAIBackend
from memory_core.config import Settings
from memory_core.errors import ConfigError
from memory_core.query.buffer import build_buffer
from memory_core.query.pipeline import matched_records
from memory_core.query.premise import unmentioned
from memory_core.query.qembed import embed_question
from memory_core.query.retrieve import retrieve
from memory_core.query.strategies import strategy
from memory_core.services import Services
from memory_core.store.vectors import VectorIndex

QUESTIONS = [
    "What breed is Biscuit?",
    "Where did Bob go hiking?",
    "When did Biscuit graduate from obedience school?",
    "What does Bob bake?",
    "Who moved to Berlin?",
    "What did Alice paint in 2022?",
]


def test_opening_a_home_opens_no_vector_index(tmp_path: Path) -> None:
    services = Services.open(Settings(home=tmp_path / "home"))
    try:
        assert services.imports.list_conversations() == []
        index = services.raw_index()
        assert isinstance(index, VectorIndex)
        assert index.is_open is False  # Chroma starts on first use, not for list/stats
        assert not (tmp_path / "home" / "chroma").exists()
        assert isinstance(services.backend, OfflineBackend)
        assert services.backend.embedder is services.embedder  # handed down, not looked up
    finally:
        services.close()


def test_views_share_the_home_and_get_their_own_backend_only_when_it_differs(home) -> None:
    assert home.with_settings(home.settings) is home
    other_strategy = home.with_settings(dataclasses.replace(home.settings, strategy="bm25"))
    assert other_strategy.queries.settings.strategy == "bm25"
    assert (other_strategy.raw_store(), other_strategy.raw_index(), other_strategy.embedder,
            other_strategy.backend) == (home.raw_store(), home.raw_index(), home.embedder, home.backend)
    assert other_strategy.queries.index_cache is home.queries.index_cache
    llm = dataclasses.replace(home.settings.llm, base_url="http://127.0.0.1:9/v1")
    openai = home.with_settings(dataclasses.replace(home.settings, backend="openai", llm=llm))
    assert isinstance(openai.backend, OpenAIBackend) and openai.backend is not home.backend
    assert openai.builds.backend is openai.backend and openai.queries.backend is openai.backend
    assert openai.raw_store() is home.raw_store() and openai.queries.index_cache is home.queries.index_cache
    with pytest.raises(ConfigError, match="same home"):
        home.with_settings(dataclasses.replace(home.settings, home=home.settings.home / "elsewhere"))


def test_the_offline_backend_plans_and_answers_like_the_rules(built) -> None:
    """The question path always goes through the backend; offline, that is exactly the rule
    planner and the extractive answer over the same retrieval."""
    ci = built.queries.conversation_index("conv-test")
    cfg = strategy("ensimem")
    for question in QUESTIONS:
        trace = built.queries.ask("conv-test", question)
        plan = plan_question(question, ci.vocabulary(), embedder=built.embedder)
        qvec = embed_question(built.embedder, question)
        result = retrieve(ci, plan, qvec, cfg, None)
        buffer = [bt.model_copy(update={"closeness": float(ci.turn_vecs[ci.pos[bt.turn_id]] @ qvec)})
                  for bt in build_buffer(ci, result.positions, plan)]
        answer = extractive_answer(question, plan, buffer, unmentioned=unmentioned(question, buffer),
                                   records=matched_records(ci, result), parse=built.queries.backend.parse,
                                   embed=built.embedder.embed)
        assert trace.backend == "offline"
        assert trace.plan == plan
        assert trace.answer == answer
