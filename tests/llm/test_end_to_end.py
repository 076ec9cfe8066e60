"""Build + ask + judged eval of the sample through the services, with the openai backend.

Everything is real (DuckDB file, Chroma, the embedding model, the openai client) except the
model, which is the scripted server on 127.0.0.1.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any

import pytest

from memory_core.backends import make_judge
from memory_core.config import Settings
from memory_core.errors import LLMError
from memory_core.llm import usage
from tests.llm.conftest import FAKE_KEY, SAMPLE, Reply, ScriptedServer


@pytest.fixture
def llm_services(server: ScriptedServer, llm_settings, tmp_path: Path, embedder):
    from memory_core.services import Services

    settings = Settings(home=tmp_path / "home", llm=llm_settings, backend="openai")
    services = Services(settings, embedder=embedder)
    services.imports.import_file(SAMPLE)
    yield services
    services.close()


@pytest.fixture
def small_services(server: ScriptedServer, llm_settings, tmp_path: Path, embedder):
    """The first two sessions of the sample only: enough for rebuilds and faults, and quick."""
    from memory_core.services import Services
    from tests.llm.conftest import load_conversation

    conv = load_conversation(SAMPLE)
    small = conv.model_copy(update={"sessions": conv.sessions[:2], "qa": ()})
    services = Services(Settings(home=tmp_path / "home", llm=llm_settings, backend="openai"),
                        embedder=embedder)
    services.raw_store().save_conversation(small)
    yield services
    services.close()


def _conv_id(services: Any) -> str:
    return str(services.imports.list_conversations()[0].id)


def _build(services: Any, conv_id: str, **kw: Any) -> list[Any]:
    return list(services.builds.build(conv_id, **kw))  # the services' backend: openai


def _memory(services: Any, conv_id: str) -> dict[str, Any]:
    """Everything a build writes for a conversation, to compare before and after."""
    store = services.raw_store()
    return {"stats": services.imports.stats(conv_id), "built": store.built_sessions(conv_id),
            "episodes": store.episodes(conv_id), "records": store.records(conv_id, include_inactive=True)}


@pytest.mark.slow  # a whole build of the sample through the scripted endpoint, then a judged eval
def test_full_build_ask_and_judged_eval_of_the_sample(server: ScriptedServer, llm_services, llm_settings,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    services = llm_services
    conv_id = _conv_id(services)
    conv = services.imports.conversation(conv_id)
    with caplog.at_level(logging.DEBUG):
        events = _build(services, conv_id)
        episodes = services.raw_store().episodes(conv_id)
        calls = server.stage_calls()
        assert calls == {"segment": len(conv.sessions), "extract": len(episodes)}
        build = services.builds.build_history(conv_id)[0]
        assert build.backend == "openai" and build.finished_at is not None
        assert build.cost.calls == server.calls and build.cost.cached == 0
        assert build.cost.tokens_in > 0 and build.cost.unpriced_models == ("test-model",)
        records = services.raw_store().records(conv_id)
        assert records and all(r.origin == "openai" for r in records)
        assert type(events[-1]).__name__ == "BuildDone"

        asked_before = server.stage_calls()
        trace = services.queries.ask(conv_id, conv.qa[0].question)
        assert trace.backend == "openai" and trace.answer.text
        assert set(trace.answer.cited_turn_ids) <= {b.turn_id for b in trace.buffer}
        asked_after = server.stage_calls()
        assert asked_after.get("plan", 0) - asked_before.get("plan", 0) == 1  # the LLM planned it
        llm_calls = sum(asked_after.values()) - sum(asked_before.values())
        assert trace.cost["calls"] == llm_calls and trace.cost["tokens_in"] > 0  # accounted per trace
        assert services.queries.trace(trace.id).cost == trace.cost

        judge = make_judge(services.settings, services.raw_store())
        before = server.stage_calls()
        report = services.evaluation.evaluate(SAMPLE, backend="openai", judge=judge)
        asked = len(report.rows)
        after = server.stage_calls()
        assert asked > 0 and after.get("judge", 0) - before.get("judge", 0) == asked
        assert after.get("answer", 0) - before.get("answer", 0) <= asked  # empty buffers cost no call
        assert report.summary["overall"].judge_accuracy is not None

    print(f"\nsample build against the scripted server: {calls} calls, "
          f"tokens in/out {build.cost.tokens_in:.0f}/{build.cost.tokens_out:.0f}; "
          f"eval: {asked} questions, judged accuracy {report.summary['overall'].judge_accuracy:.2f}")
    services.raw_store().execute("CHECKPOINT")  # everything on disk before the bytes are searched
    home = services.settings.home
    leaked = [p for p in home.rglob("*") if p.is_file() and FAKE_KEY.encode() in p.read_bytes()]
    assert leaked == [] and all(FAKE_KEY not in r.getMessage() for r in caplog.records)
    assert any(p.is_dir() for p in home.iterdir())  # the Chroma directory was searched too


def test_rebuild_is_served_by_the_cache(server: ScriptedServer, small_services) -> None:
    services = small_services
    conv_id = _conv_id(services)
    _build(services, conv_id)
    first = _memory(services, conv_id)
    calls = server.calls
    _build(services, conv_id, rebuild=True)
    assert server.calls == calls
    rebuilt = services.builds.build_history(conv_id)[0]
    assert rebuilt.cost.calls == rebuilt.cost.cached == calls and rebuilt.cost.cost_usd == 0
    again = _memory(services, conv_id)
    assert again["episodes"] == first["episodes"] and again["stats"] == first["stats"]

    # --cache-only: a fresh build of the same conversation replays with no network at all
    services = services.with_settings(dataclasses.replace(
        services.settings, llm=dataclasses.replace(services.settings.llm, cache_only=True)))
    _build(services, conv_id, rebuild=True)
    assert server.calls == calls


@pytest.mark.parametrize("fault", ["http500", "garbage", "refused", "timeout"])
def test_a_failing_build_writes_nothing_and_stops_fast(fault: str, server: ScriptedServer, small_services,
                                                       llm_settings) -> None:
    services = small_services
    conv_id = _conv_id(services)
    before = _memory(services, conv_id)
    good_calls = 0

    def script(body: dict, n: int) -> Reply:
        nonlocal good_calls
        # the first session's segmentation succeeds; everything after it fails
        if n == 1:
            good_calls += 1
            from tests.llm.conftest import smart_content

            return Reply(smart_content(body))
        if fault == "http500":
            return Reply(status=500)
        if fault == "timeout":
            return Reply('{"episodes": []}', delay=1.0)
        return Reply("Sure, here are the records you asked for: none.")

    server.script = script
    if fault == "refused":
        server.close()
    if fault == "timeout":
        services = services.with_settings(dataclasses.replace(
            services.settings, llm=dataclasses.replace(llm_settings, timeout_s=0.3)))
    with pytest.raises(LLMError) as err:
        _build(services, conv_id)
    message = str(err.value)
    assert "\n" not in message and FAKE_KEY not in message
    assert "LLM stage '" in message and f"'{conv_id}" in message
    # bounded: (retries + 1) attempts per in-flight call, at most `workers` calls in flight
    per_call = llm_settings.max_retries + 1
    assert server.calls <= 1 + per_call * llm_settings.workers
    assert _memory(services, conv_id) == before
    history = services.builds.build_history(conv_id)[0]
    assert "error" in history.stats
    assert usage(services.raw_store(), "build:")["calls"] >= good_calls
