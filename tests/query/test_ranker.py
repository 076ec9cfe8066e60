"""The fitted ranker: fitting on synthetic candidates, the parameter file, and retrieval with
it on the hand-made conversation (real store, Chroma and embedder)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from memory_core.backends.offline.planner import plan_question
from memory_core.errors import QueryError
from memory_core.eval.fit import (
    MIN_BUDGET,
    Candidates,
    fit_budgets,
    fit_ranker,
    fit_weights,
    load_candidates,
    save_candidates,
    tokens_needed,
)
from memory_core.query.qembed import embed_question, head_vector
from memory_core.query.ranker import FEATURES, OTHER, Ranker, load_ranker, read_ranker
from memory_core.query.retrieve import retrieve
from memory_core.query.scoring import score_turns
from memory_core.query.strategies import PRESETS, StrategyConfig


def _synthetic(n_questions: int, signal: str, seed: int = 1, key: str = "point") -> list[Candidates]:
    """Questions of 60 turns with one gold turn whose ``signal`` feature is high; noise elsewhere."""
    rng = np.random.default_rng(seed)
    out = []
    col = FEATURES.index(signal)
    for _ in range(n_questions):
        x = rng.random((60, len(FEATURES)))
        gold = np.zeros(60, bool)
        g = int(rng.integers(60))
        gold[g] = True
        x[g, col] = 1.0 + rng.random()
        out.append(Candidates(x, gold, rng.integers(10, 60, size=60), key, "short", "synthetic"))
    return out


def test_the_fit_weights_the_feature_that_marks_the_gold_turns() -> None:
    w, _mean, _std = fit_weights(_synthetic(40, "dense_nb"))
    assert int(np.argmax(w)) == FEATURES.index("dense_nb")
    assert w[FEATURES.index("dense_nb")] > 3 * np.abs(np.delete(w, FEATURES.index("dense_nb"))).max()


def test_tokens_needed_counts_up_to_the_last_gold_turn() -> None:
    order = np.array([2, 0, 1, 3])
    gold = np.array([True, False, False, True])
    tokens = np.array([10, 20, 30, 40])
    assert tokens_needed(order, gold, tokens) == 30 + 10 + 20 + 40
    assert tokens_needed(order, np.array([True, False, False, False]), tokens) == 40
    assert tokens_needed(order, np.zeros(4, bool), tokens) is None


def test_budgets_keep_the_mean_within_the_target_and_pool_rare_types() -> None:
    common = _synthetic(30, "lexical", key="point")
    rare = _synthetic(3, "lexical", seed=2, key="comparison")
    questions = common + rare
    scores = [np.random.default_rng(3).random(60) for _ in questions]  # a poor ranking: budgets matter
    budgets = fit_budgets(questions, scores, {"short": 900})["short"]
    assert set(budgets) == {"point", OTHER}
    assert all(MIN_BUDGET <= b <= 1.5 * 900 for b in budgets.values())
    mean = (30 * budgets["point"] + 3 * budgets[OTHER]) / 33
    assert mean <= 900


def test_a_ranker_survives_its_file_and_the_cache(tmp_path: Path) -> None:
    questions = _synthetic(20, "support")
    ranker = fit_ranker(questions, {"short": 800}, meta={"tune": ["synthetic"]})
    path = tmp_path / "ranker.json"
    path.write_text(json.dumps(ranker.to_json()), encoding="utf-8")
    back = read_ranker(path)
    x = questions[0].features
    assert np.allclose(back.score(x), ranker.score(x), atol=1e-4)
    assert back.budget("short", "point") == ranker.budgets["short"]["point"]
    assert back.budget("short", "temporal") == back.budget("short", "point")  # unseen type
    cache = tmp_path / "c.npz"
    save_candidates(cache, questions)
    again = load_candidates(cache)
    assert again is not None and len(again) == 20
    assert np.array_equal(again[5].features, questions[5].features) and again[5].key == "point"


@pytest.mark.parametrize("text, message", [
    ("{not json", "cannot read the ranker"),
    ('{"features": ["lexical"], "weights": [1, 2], "mean": [0], "std": [1], "budgets": {}}',
     "need 1 values each"),
    ('{"features": ["shoe_size"], "weights": [1], "mean": [0], "std": [1], "budgets": {}}',
     "features: unknown shoe_size"),
    ('{"weights": [1]}', "not a ranker file"),
])
def test_a_bad_ranker_file_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "ranker.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(QueryError) as err:
        read_ranker(path)
    assert str(path) in str(err.value) and message in str(err.value)


def _one_feature_strategy(tmp_path: Path, feature: str, budget: int) -> StrategyConfig:
    """The fitted strategy with a ranker file that weighs ``feature`` alone, at ``budget`` tokens."""
    w = np.zeros(len(FEATURES))
    w[FEATURES.index(feature)] = 1.0
    ranker = Ranker(FEATURES, w, np.zeros(len(FEATURES)), np.ones(len(FEATURES)), {"short": {OTHER: budget}})
    path = tmp_path / "ranker.json"
    path.write_text(json.dumps(ranker.to_json()), encoding="utf-8")
    return replace(PRESETS["ensimem-fitted"], ranker_file=str(path))


def test_fitted_retrieval_ranks_by_the_ranker_and_stops_at_its_budget(built, tmp_path: Path) -> None:
    """A ranker that only weighs the turn's closeness to the question, with a 60-token budget:
    the buffer is the closest turns, within 60 tokens."""
    cfg = _one_feature_strategy(tmp_path, "dense_raw", 60)
    ci = built.queries.conversation_index("conv-test")
    question = "What breed is Biscuit?"
    qvec = embed_question(built.embedder, question)
    plan = plan_question(question, ci.vocabulary(), embedder=built.embedder)
    result = retrieve(ci, plan, qvec, cfg)
    assert result.stop_reason.startswith("fitted budget 60")
    assert 0 < sum(int(ci.turn_tokens[p]) for p in result.positions) <= 60
    closeness = ci.turn_vecs @ qvec
    best = int(np.argmax(closeness))
    assert best in result.positions
    capped = retrieve(ci, plan, qvec, cfg, 30)  # an explicit cap replaces the fitted budget
    assert sum(int(ci.turn_tokens[p]) for p in capped.positions) <= 30
    load_ranker.cache_clear()


def test_without_a_ranker_file_the_fitted_strategy_uses_the_hand_weights(built, tmp_path: Path) -> None:
    cfg = replace(PRESETS["ensimem-fitted"], ranker_file=str(tmp_path / "absent.json"))
    ci = built.queries.conversation_index("conv-test")
    question = "What breed is Biscuit?"
    qvec = embed_question(built.embedder, question)
    plan = plan_question(question, ci.vocabulary(), embedder=built.embedder)
    fitted, hand = retrieve(ci, plan, qvec, cfg), retrieve(ci, plan, qvec, PRESETS["ensimem"])
    assert fitted.positions == hand.positions and not fitted.stop_reason.startswith("fitted")


def test_a_minority_size_class_gets_its_own_weights_near_the_shared_ones() -> None:
    short = _synthetic(60, "lexical")
    long = [replace(q, size="long") for q in _synthetic(20, "dense", seed=4)]
    ranker = fit_ranker(short + long, {"short": 900, "long": 1200})
    assert set(ranker.class_weights) == {"long"}
    own = ranker.class_weights["long"]
    lex, dense = FEATURES.index("lexical"), FEATURES.index("dense")
    assert own[dense] - own[lex] > ranker.weights[dense] - ranker.weights[lex]  # it learnt its own signal
    x = long[0].features
    assert not np.allclose(ranker.score(x, "long"), ranker.score(x, "short"))
    back = Ranker.from_json(json.loads(json.dumps(ranker.to_json())), "ranker.json")
    assert np.allclose(back.class_weights["long"], own, atol=1e-5)


def test_the_category_a_question_names_is_a_ranker_signal(built, tmp_path: Path) -> None:
    """"Which drinks …?" names the answer's category: the turns closest to "drinks" get the
    ``head_dense`` feature; a question naming no category leaves it at zero."""
    cfg = _one_feature_strategy(tmp_path, "head_dense", 60)
    ci = built.queries.conversation_index("conv-test")
    question = "Which drinks does Maya like?"
    hvec = head_vector(built.embedder, question)
    assert hvec is not None and np.allclose(hvec, embed_question(built.embedder, "drinks"))
    assert head_vector(built.embedder, "When did Maya move to Utrecht?") is None
    qvec = embed_question(built.embedder, question)
    plan = plan_question(question, ci.vocabulary(), embedder=built.embedder)
    result = retrieve(ci, plan, qvec, cfg, hvec=hvec)
    assert int(np.argmax(ci.turn_vecs @ hvec)) == result.positions[0]
    col = FEATURES.index("head_dense")
    with_head = score_turns(ci, plan, qvec, cfg, features=True, hvec=hvec).features
    without = score_turns(ci, plan, qvec, cfg, features=True).features
    assert with_head is not None and without is not None
    assert np.allclose(with_head[:, col], ci.turn_vecs @ hvec, atol=1e-5) and not without[:, col].any()
    load_ranker.cache_clear()
