"""Home's "last build" figures for a build that called a model: calls, tokens and the cost the
LLM accounting wrote (``BuildCost.cost_usd``), read from a ``BuildRun``."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _home_build_cost() -> None:
    from types import SimpleNamespace

    from components import overview
    from memory_core.summaries import BuildCost, BuildRun

    run = BuildRun(id="b1", conv_id="trip", backend="openai", stats={"seconds": 42.3},
                   cost=BuildCost(calls=17, tokens_in=5200, tokens_out=910, cost_usd=0.0371))
    svc = SimpleNamespace(builds=SimpleNamespace(build_history=lambda conv: [run]))
    overview.build_cost(svc, "trip")


def test_an_llm_build_shows_its_calls_tokens_and_cost() -> None:
    at = AppTest.from_function(_home_build_cost, default_timeout=30).run()
    assert not at.exception
    shown = {m.label: m.value for m in at.metric}
    assert shown == {"Build time": "42.3 s", "LLM calls": "17", "Tokens in/out": "5200/910",
                     "Cost": "$0.0371"}
    assert any("did not finish" in c.value for c in at.caption)  # finished_at is None: resumable
