"""OpenAIBackend stage by stage against the scripted server (real openai client, real socket)."""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any

import pytest

from memory_core.backends import make_backend, make_judge
from memory_core.backends.openai.backend import OpenAIBackend
from memory_core.config import Settings
from memory_core.contracts import ConversationInfo, Vocabulary
from memory_core.errors import ConfigError, LLMError
from memory_core.llm import llm_scope, usage
from memory_core.models import BufferTurn, Plan
from memory_core.store import Store
from tests.llm.conftest import (
    FAKE_KEY,
    Reply,
    ScriptedServer,
    first_user,
    is_repair,
    smart_content,
    stage_of,
    turn_lines,
)


def _info(conv: Any) -> ConversationInfo:
    return ConversationInfo(conv_id=conv.id, speakers=conv.speakers)


def _segment_and_extract(backend: OpenAIBackend, conv: Any) -> tuple[list[Any], list[Any]]:
    info = _info(conv)
    by_id = {t.id: t for t in conv.turns}
    episodes, extractions = [], []
    for session in conv.sessions:
        eps = backend.segment(session, info)
        episodes.extend(eps)
        extractions.extend(backend.extract_many([(e, [by_id[t] for t in e.turn_ids]) for e in eps], info))
    return episodes, extractions


def test_full_sample_through_every_stage_counts_calls_and_tokens(server: ScriptedServer, llm_settings,
                                                                 sample_conversation,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    conv = sample_conversation
    store = Store(":memory:")
    backend = OpenAIBackend(llm_settings, store)
    with caplog.at_level(logging.DEBUG), llm_scope(conv.id, "build:b-1"):
        episodes, extractions = _segment_and_extract(backend, conv)

    # segmentation covers every turn once, in order, per session
    assert [t for e in episodes for t in e.turn_ids] == [t.id for t in conv.turns]
    n_sessions, n_episodes = len(conv.sessions), len(episodes)
    calls = server.stage_calls()
    assert calls == {"segment": n_sessions, "extract": n_episodes}
    records = [r for x in extractions for r in x.records]
    by_episode = {e.id: set(e.turn_ids) for e in episodes}
    assert records and all(set(r.evidence_turn_ids) <= by_episode[r.episode_id] for r in records)
    assert all(r.origin == "openai" and r.entity and r.property for r in records)
    assert backend.stats.snapshot()["extract"] == {"accepted": n_episodes, "repaired": 0, "rejected": 0}

    build = usage(store, "build:b-1")
    assert build["calls"] == n_sessions + n_episodes and build["cached"] == 0
    server_in = sum(sum(len(m["content"]) for m in b["messages"]) // 4 + 1 for b in server.requests)
    assert build["tokens_in"] == server_in and build["tokens_out"] > 0

    # ask: plan + answer on the built records' turns, then judge
    question = conv.qa[0].question
    with llm_scope(conv.id, "trace:t-1"):
        plan = backend.plan(question, Vocabulary(speakers=conv.speakers,
                                                 properties=tuple(sorted({r.property for r in records}))))
        first_ep = episodes[0]
        buffer = [BufferTurn(turn_id=t.id, speaker=t.speaker, text=t.text, session=t.session,
                             episode_id=first_ep.id) for t in conv.turns if t.id in first_ep.turn_ids]
        answer = backend.answer(question, plan, buffer, unmentioned=())
    assert plan.requirements and answer.cited_turn_ids
    assert set(answer.cited_turn_ids) <= set(first_ep.turn_ids)
    judge = make_judge(Settings(llm=llm_settings), store)
    with llm_scope(conv.id, "eval:e-1"):
        verdict = judge(question, conv.qa[0].answer or "", answer.text)
    assert isinstance(verdict, bool)
    assert usage(store, "trace:t-1")["calls"] == 2 and usage(store, "eval:e-1")["calls"] == 1
    assert all(FAKE_KEY not in r.getMessage() for r in caplog.records)
    store.close()


def test_rebuild_from_cache_costs_zero_calls_and_cache_only_replays(server: ScriptedServer, llm_settings,
                                                                    sample_conversation) -> None:
    conv = sample_conversation.model_copy(update={"sessions": sample_conversation.sessions[:2]})
    store = Store(":memory:")
    with llm_scope(conv.id, "build:first"):
        first = _segment_and_extract(OpenAIBackend(llm_settings, store), conv)
    calls = server.calls
    with llm_scope(conv.id, "build:second"):
        second = _segment_and_extract(OpenAIBackend(llm_settings, store), conv)
    assert server.calls == calls and second == first
    rebuilt = usage(store, "build:second")
    assert rebuilt["calls"] == calls and rebuilt["cached"] == calls and rebuilt["cost_usd"] == 0
    assert rebuilt["tokens_in"] == 0

    offline_settings = dataclasses.replace(llm_settings, cache_only=True)  # same endpoint, no calls
    replayed = _segment_and_extract(OpenAIBackend(offline_settings, store), conv)
    assert replayed == first and server.calls == calls
    changed = conv.model_copy(update={"id": "other-id"})
    with pytest.raises(LLMError, match="cache-only"):
        _segment_and_extract(OpenAIBackend(offline_settings, store), changed)
    store.close()


def test_extract_many_runs_in_parallel_and_keeps_order(server: ScriptedServer, llm_settings,
                                                       sample_conversation) -> None:
    conv = sample_conversation
    session = conv.sessions[0]
    backend = OpenAIBackend(dataclasses.replace(llm_settings, workers=3))
    episodes = backend.segment(session, _info(conv))
    seen_threads: set[str] = set()
    original = backend.extract

    def spy(episode, turns, info):
        import threading

        seen_threads.add(threading.current_thread().name)
        return original(episode, turns, info)

    backend.extract = spy  # type: ignore[method-assign]  # a spy around the real method
    by_id = {t.id: t for t in session.turns}
    results = backend.extract_many([(e, [by_id[t] for t in e.turn_ids]) for e in episodes], _info(conv))
    assert len(results) == len(episodes) >= 3
    for episode, extraction in zip(episodes, results, strict=True):
        assert {r.episode_id for r in extraction.records} == {episode.id}
    assert len(seen_threads) > 1 and all(n.startswith("mnemoscope-llm") for n in seen_threads)


def test_extract_many_stops_at_the_first_failure(server: ScriptedServer, llm_settings,
                                                 sample_conversation) -> None:
    conv = sample_conversation
    backend = OpenAIBackend(dataclasses.replace(llm_settings, workers=2, max_retries=1))
    episodes = backend.segment(conv.sessions[0], _info(conv))
    server.script = lambda body, n: Reply(status=500)
    by_id = {t.id: t for t in conv.turns}
    before = server.calls
    with pytest.raises(LLMError, match=r"stage 'extract' failed for episode .*HTTP 500"):
        backend.extract_many([(e, [by_id[t] for t in e.turn_ids]) for e in episodes], _info(conv))
    # at most the two in-flight episodes were tried (2 attempts each), the rest never started
    assert server.calls - before <= 4 < 2 * len(episodes)


# ---------------------------------------------------------------------------- structural faults
def test_segments_not_covering_the_session_get_one_repair_request(server: ScriptedServer, llm_settings,
                                                                   sample_conversation) -> None:
    session = sample_conversation.sessions[0]

    def script(body: dict, n: int) -> Reply:
        if is_repair(body):
            assert "turns in no episode" in body["messages"][-1]["content"]
            return Reply(smart_content(body))
        ids = [t[0] for t in turn_lines(first_user(body))]
        return Reply(json.dumps({"episodes": [{"start": ids[0], "end": ids[1], "theme": "hello"}]}))

    server.script = script
    backend = OpenAIBackend(llm_settings)
    episodes = backend.segment(session, _info(sample_conversation))
    assert [t for e in episodes for t in e.turn_ids] == [t.id for t in session.turns]
    assert len(episodes) > 1 and server.calls == 2
    assert backend.stats.snapshot()["segment"] == {"accepted": 0, "repaired": 1, "rejected": 0}


def test_segments_naming_unknown_turns_twice_are_rejected(server: ScriptedServer, llm_settings,
                                                          sample_conversation) -> None:
    server.script = lambda body, n: Reply('{"episodes": [{"start": "D99:1", "end": "D99:4"}]}')
    backend = OpenAIBackend(llm_settings)
    with pytest.raises(LLMError, match=r"stage 'segment' failed for session 1 of 'demo-maya-jonas'.*D99:1"):
        backend.segment(sample_conversation.sessions[0], _info(sample_conversation))
    assert server.calls == 2 and backend.stats.snapshot()["segment"]["rejected"] == 1


def test_evidence_outside_the_episode_is_repaired_or_dropped(server: ScriptedServer, llm_settings,
                                                             sample_conversation) -> None:
    conv = sample_conversation
    backend = OpenAIBackend(llm_settings)
    episodes = backend.segment(conv.sessions[0], _info(conv))
    episode = episodes[1]
    turns = [t for t in conv.turns if t.id in episode.turn_ids]

    def script(body: dict, n: int) -> Reply:
        if is_repair(body):
            assert "not in this episode" in body["messages"][-1]["content"]
            return Reply(smart_content(body))
        good = json.loads(smart_content(body))
        for record in good["records"]:
            record["evidence"] = ["D1:1"]  # a turn of the session, not of this episode
        return Reply(json.dumps(good))

    server.script = script
    extraction = backend.extract(episode, turns, _info(conv))
    assert extraction.records and all(set(r.evidence_turn_ids) <= set(episode.turn_ids)
                                      for r in extraction.records)
    assert stage_of(server.requests[-1]) == "extract" and is_repair(server.requests[-1])

    # a repair that is still wrong: nothing invalid comes back, every bad record is dropped
    server.script = lambda body, n: Reply(json.dumps({"records": [
        {"entity": "Nobody", "property": "exists", "evidence": ["D1:1"]}]}))
    dropped = backend.extract(episode, turns, _info(conv))
    assert dropped.records == [] and backend.stats.snapshot()["extract"]["repaired"] == 2


def test_plan_missing_requirement_fields_is_repaired_or_rejected(server: ScriptedServer,
                                                                 llm_settings) -> None:
    incomplete = json.dumps({"reasoning_type": "point", "requirements": [{"role": "target"}]})
    server.script = lambda body, n: Reply(smart_content(body) if is_repair(body) else incomplete)
    backend = OpenAIBackend(llm_settings)
    plan = backend.plan("Where does Jonas work?", Vocabulary())
    assert [r.entity for r in plan.requirements] == ["Jonas"]
    assert server.calls == 2 and "no usable requirement" in server.requests[1]["messages"][-1]["content"]

    server.script = lambda body, n: Reply(incomplete)
    with pytest.raises(LLMError, match=r"stage 'plan' failed for question 'Where does Jonas"):
        backend.plan("Where does Jonas work?", Vocabulary())


def test_answer_without_evidence_makes_no_call(server: ScriptedServer, llm_settings) -> None:
    answer = OpenAIBackend(llm_settings).answer("Anything?", Plan(question="Anything?"), [], unmentioned=())
    assert answer.text == "Unknown" and not answer.supported and server.calls == 0


# ---------------------------------------------------------------------------- factory
def test_factory_mixes_backends_per_stage_and_checks_config(server: ScriptedServer, llm_settings) -> None:
    settings = Settings(backend="openai", llm=llm_settings)
    assert isinstance(make_backend(settings), OpenAIBackend)
    with pytest.raises(ConfigError, match="unknown stage 'summarise'"):
        make_backend(settings, stages={"summarise": "openai"})
    with pytest.raises(ConfigError, match="unknown backend 'claude'"):
        make_backend(settings, stages={"plan": "claude"})
    bare = Settings(backend="openai")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        make_backend(bare)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        make_judge(bare)
    replay = Settings(backend="openai", llm=dataclasses.replace(bare.llm, cache_only=True))
    assert isinstance(make_backend(replay), OpenAIBackend)  # replaying needs no key


def test_staged_backend_segments_offline_and_extracts_with_the_llm(server: ScriptedServer, llm_settings,
                                                                   sample_conversation) -> None:
    from memory_core.backends.staged import StagedBackend

    conv = sample_conversation
    store = Store(":memory:")
    backend = make_backend(Settings(backend="offline", llm=llm_settings), store,
                           stages={"extract": "openai"})
    assert isinstance(backend, StagedBackend)
    assert backend.name == "segment=offline+extract=openai+plan=offline+answer=offline"
    info = _info(conv)
    session = conv.sessions[1]
    episodes = backend.segment(session, info)
    assert server.calls == 0 and [t for e in episodes for t in e.turn_ids] == [t.id for t in session.turns]
    by_id = {t.id: t for t in session.turns}
    with backend.accounting(conv.id, "build:staged"):
        extractions = backend.extract_many([(e, [by_id[t] for t in e.turn_ids]) for e in episodes], info)
    assert server.stage_calls() == {"extract": len(episodes)}
    assert all(r.origin == "openai" for x in extractions for r in x.records)
    assert usage(store, "build:staged")["calls"] == len(episodes)
    store.close()
