"""LLMClient and structured requests against the scripted server, through the real openai client."""

from __future__ import annotations

import dataclasses
import json
import logging
import socket
import time
from typing import Any

import pytest

from memory_core.backends.openai.prompts import judge as judge_prompt
from memory_core.config import LLMSettings
from memory_core.errors import ConfigError, LLMError
from memory_core.llm import LLMClient, cache_key, llm_scope, request_structured, usage
from memory_core.llm.accounting import estimate_cost, price_for
from memory_core.llm.parsing import Checked, extract_json, inline_refs
from memory_core.store import Store
from tests.llm.conftest import FAKE_KEY, Reply, ScriptedServer

MESSAGES = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "Say hi."}]


def _client(settings: LLMSettings, store: Store | None = None) -> tuple[LLMClient, list[float]]:
    delays: list[float] = []
    return LLMClient(settings, store, sleep=delays.append), delays


def _chat(client: LLMClient, **kw: Any) -> str:
    return client.chat(stage="test", item="item 1", model="test-model", messages=MESSAGES, **kw).text


def test_plain_call_reaches_the_server_with_our_parameters(server: ScriptedServer, llm_settings) -> None:
    server.script = lambda body, n: Reply('{"ok": true}')
    client, _ = _client(llm_settings)
    completion = client.chat(stage="test", item="i", model="m1", messages=MESSAGES, max_tokens=50,
                             response_format={"type": "json_object"})
    assert completion.text == '{"ok": true}' and completion.attempts == 1 and not completion.cached
    assert completion.tokens_in > 0 and completion.tokens_out > 0
    (body,) = server.requests
    assert body["model"] == "m1" and body["temperature"] == 0 and body["seed"] == 0
    assert body["max_tokens"] == 50 and body["response_format"] == {"type": "json_object"}
    assert server.auth == [f"Bearer {FAKE_KEY}"]


def test_429_then_success_backs_off_and_honours_retry_after(server: ScriptedServer, llm_settings) -> None:
    server.script = lambda body, n: (Reply(status=429, headers={"retry-after": "0.25"}) if n == 1
                                     else Reply('{"ok": 1}'))
    client, delays = _client(llm_settings)
    completion = client.chat(stage="t", item="i", model="m", messages=MESSAGES)
    assert completion.attempts == 2 and server.calls == 2 and delays == [0.25]


def test_5xx_retries_are_capped_and_exponential(server: ScriptedServer, llm_settings) -> None:
    server.script = lambda body, n: Reply(status=503)
    client, delays = _client(dataclasses.replace(llm_settings, max_retries=3))
    with pytest.raises(LLMError) as err:
        _chat(client)
    assert server.calls == 4 and len(delays) == 3
    assert delays[0] < delays[1] < delays[2] <= 8.0
    message = str(err.value)
    assert "stage 'test'" in message and "item 1" in message and "HTTP 503" in message
    assert "after 4 attempts" in message and "\n" not in message
    # the endpoint is now considered down: a later call fails without a request
    with pytest.raises(LLMError, match="unavailable"):
        _chat(client)
    assert server.calls == 4


def test_timeout_is_retried_then_reported(server: ScriptedServer, llm_settings) -> None:
    server.script = lambda body, n: Reply('{"late": 1}', delay=1.5)
    client, delays = _client(dataclasses.replace(llm_settings, timeout_s=0.3, max_retries=1))
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"no answer within 0.3s \(timeout\) after 2 attempts"):
        _chat(client)
    assert time.monotonic() - started < 3 and server.calls == 2 and len(delays) == 1


def test_connection_refused_fails_fast_with_one_line(llm_settings) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = dataclasses.replace(llm_settings, base_url=f"http://127.0.0.1:{port}/v1", max_retries=2)
    client, delays = _client(settings)
    started = time.monotonic()
    with pytest.raises(LLMError, match="cannot connect after 3 attempts") as err:
        _chat(client)
    assert time.monotonic() - started < 5 and len(delays) == 2
    assert FAKE_KEY not in str(err.value)


def test_client_errors_are_not_retried_and_never_show_the_key(server: ScriptedServer, llm_settings) -> None:
    server.script = lambda body, n: Reply(status=401, error={"message": f"Incorrect API key {FAKE_KEY}"})
    client, delays = _client(llm_settings)
    with pytest.raises(LLMError, match="refused the API key") as err:
        _chat(client)
    assert server.calls == 1 and delays == [] and FAKE_KEY not in str(err.value)
    server.script = lambda body, n: Reply(status=404, error={"message": f"model gone ({FAKE_KEY})"})
    with pytest.raises(LLMError, match="404") as err:
        _chat(client)
    assert FAKE_KEY not in str(err.value) and "***" in str(err.value)


def test_missing_key_without_local_endpoint_is_a_config_error() -> None:
    client = LLMClient(LLMSettings(api_key=None, base_url=None))
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        _chat(client)


# ---------------------------------------------------------------------------- cache + accounting
def test_cache_replays_only_kept_answers_and_cache_only_errors_on_a_miss(server: ScriptedServer,
                                                                         llm_settings) -> None:
    store = Store(":memory:")
    server.script = lambda body, n: Reply(json.dumps({"n": n}))
    client, _ = _client(llm_settings, store)
    first = client.chat(stage="t", item="i", model="m", messages=MESSAGES)
    again = client.chat(stage="t", item="i", model="m", messages=MESSAGES)
    assert (first.text, again.text, server.calls) == ('{"n": 1}', '{"n": 2}', 2)  # not kept: asked again
    client.keep(again)
    hit = client.chat(stage="t", item="i", model="m", messages=MESSAGES)
    assert hit.cached and hit.text == '{"n": 2}' and server.calls == 2
    other = client.chat(stage="t", item="i", model="m2", messages=MESSAGES)  # model is part of the key
    assert not other.cached and server.calls == 3

    replay, _ = _client(dataclasses.replace(llm_settings, cache_only=True), store)
    assert replay.chat(stage="t", item="i", model="m", messages=MESSAGES).cached
    with pytest.raises(LLMError, match="cache-only"):
        replay.chat(stage="t", item="episode X", model="m", messages=[{"role": "user", "content": "new"}])
    assert server.calls == 3
    store.close()


def test_cache_key_covers_endpoint_model_messages_and_parameters() -> None:
    base = cache_key("http://a/v1", "m", MESSAGES, {"temperature": 0})
    assert base == cache_key("http://a/v1/", "m", [dict(m) for m in MESSAGES], {"temperature": 0})
    assert len({base, cache_key("http://b/v1", "m", MESSAGES, {"temperature": 0}),
                cache_key("http://a/v1", "n", MESSAGES, {"temperature": 0}),
                cache_key("http://a/v1", "m", MESSAGES[:1], {"temperature": 0}),
                cache_key("http://a/v1", "m", MESSAGES, {"temperature": 0, "seed": 1})}) == 5


def test_accounting_rows_per_scope_and_price_table(server: ScriptedServer, llm_settings) -> None:
    store = Store(":memory:")
    server.script = lambda body, n: Reply('{"ok": 1}')
    client, _ = _client(llm_settings, store)
    with llm_scope("conv-1", "build:b1"):
        completion = client.chat(stage="extract", item="i", model="gpt-4o-mini", messages=MESSAGES)
        client.keep(completion)
        client.chat(stage="extract", item="i", model="gpt-4o-mini", messages=MESSAGES)  # cached
    client.chat(stage="plan", item="q", model="local-llama", messages=MESSAGES)
    build = usage(store, "build:b1", ("gpt-4o-mini", "local-llama"))
    assert build["calls"] == 2 and build["cached"] == 1
    assert build["tokens_in"] == completion.tokens_in and build["tokens_out"] == completion.tokens_out
    expected = (completion.tokens_in * 0.15 + completion.tokens_out * 0.60) / 1e6
    assert build["cost_usd"] == pytest.approx(expected) and build["unpriced_models"] == ["local-llama"]
    assert set(build["stages"]) == {"extract"}
    adhoc = usage(store, "adhoc")
    assert adhoc["calls"] == 1 and adhoc["cost_usd"] == 0
    assert price_for("gpt-4o-mini-2024-07-18") == price_for("gpt-4o-mini") and price_for("llama3") is None
    assert estimate_cost("unknown", 10**6, 10**6) == 0
    store.close()


# ---------------------------------------------------------------------------- structured requests
def _label_check(reply: judge_prompt.JudgeReply) -> Checked[bool]:
    return judge_prompt.to_verdict(reply)


def test_json_schema_rejected_falls_back_to_json_object_then_text(server: ScriptedServer,
                                                                  llm_settings) -> None:
    def script(body: dict, n: int) -> Reply:
        kind = (body.get("response_format") or {}).get("type")
        if kind in ("json_schema", "json_object"):
            return Reply(status=400, error={"message": f"response_format {kind} is not supported"})
        return Reply('Sure! ```json\n{"label": "CORRECT"}\n``` hope that helps')

    server.script = script
    client, _ = _client(llm_settings)
    outcome = request_structured(client, stage="judge", item="q", model="m",
                                 messages=judge_prompt.build_messages("q", "a", "a"),
                                 schema=judge_prompt.JudgeReply, check=_label_check)
    assert outcome.value is True and outcome.status == "accepted"
    formats = [b.get("response_format") or {} for b in server.requests]
    assert [f.get("type") for f in formats] == ["json_schema", "json_object", "json_object", None]
    assert "schema" in formats[1] and "schema" not in formats[2]
    schema = formats[0]["json_schema"]
    assert schema["name"] == "mnemoscope_judge" and "label" in schema["schema"]["properties"]
    # the working mode is remembered for the model
    request_structured(client, stage="judge", item="q2", model="m",
                       messages=judge_prompt.build_messages("q2", "a", "b"),
                       schema=judge_prompt.JudgeReply, check=_label_check)
    assert "response_format" not in server.requests[-1] and server.calls == 5


def test_llama_cpp_style_500_on_json_schema_uses_the_schema_in_json_object(server: ScriptedServer,
                                                                           llm_settings) -> None:
    # llama-cpp-python's server answers an unknown response_format type with HTTP 500
    def script(body: dict, n: int) -> Reply:
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            return Reply(status=500, error={"message": "('body', 'response_format', 'type'): Input "
                                                       "should be 'text' or 'json_object'"})
        assert fmt.get("type") == "json_object" and fmt["schema"]["properties"]["label"]
        return Reply('{"label": "WRONG"}')

    server.script = script
    client, delays = _client(llm_settings)
    outcome = request_structured(client, stage="judge", item="q", model="m",
                                 messages=judge_prompt.build_messages("q", "a", "b"),
                                 schema=judge_prompt.JudgeReply, check=_label_check)
    assert outcome.value is False and server.calls == 2 and delays == []  # no retry of the 500


def test_malformed_then_repaired(server: ScriptedServer, llm_settings) -> None:
    server.script = lambda body, n: Reply('{"label": "CORR' if n == 1 else '{"label": "WRONG"}')
    client, _ = _client(llm_settings)
    outcome = request_structured(client, stage="judge", item="question 'x'", model="m",
                                 messages=judge_prompt.build_messages("x", "a", "b"),
                                 schema=judge_prompt.JudgeReply, check=_label_check)
    assert outcome.value is False and outcome.status == "repaired" and outcome.calls == 2
    repair = server.requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"label": "CORR'}
    assert "cut off" in repair[-1]["content"]


def test_malformed_twice_raises_naming_stage_and_item(server: ScriptedServer, llm_settings) -> None:
    server.script = lambda body, n: Reply("I would rather not answer in JSON today.")
    client, _ = _client(llm_settings)
    with pytest.raises(LLMError) as err:
        request_structured(client, stage="extract", item="episode 'c:S1:E2'", model="m",
                           messages=MESSAGES, schema=judge_prompt.JudgeReply, check=_label_check)
    assert str(err.value).startswith("LLM stage 'extract' failed for episode 'c:S1:E2': unusable reply")
    assert err.value.stage == "extract" and server.calls == 2


def test_tolerant_json_extraction() -> None:
    assert extract_json('noise {"a": [1, {"b": 2}]} trailing {"c": 3}') == {"a": [1, {"b": 2}]}
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json("prefix {broken} then [1, 2]") == [1, 2]
    with pytest.raises(ValueError, match="cut off"):
        extract_json('{"a": [{"b": 1}, {"c": 2')
    with pytest.raises(ValueError):
        extract_json("no json at all {")
    schema = {"$defs": {"X": {"type": "object", "properties": {"v": {"type": "string"}}}},
              "type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}}
    assert inline_refs(schema) == {"type": "object", "properties": {
        "x": {"type": "object", "properties": {"v": {"type": "string"}}}}}
    assert json.dumps(inline_refs(schema)).count("$ref") == 0


def test_one_info_line_per_call_without_the_key(server: ScriptedServer, llm_settings,
                                                caplog: pytest.LogCaptureFixture) -> None:
    server.script = lambda body, n: Reply('{"ok": 1}')
    client, _ = _client(llm_settings)
    with caplog.at_level(logging.DEBUG):
        _chat(client)
        _chat(client)
    ours = [r for r in caplog.records if r.name == "memory_core.llm.client" and r.levelno == logging.INFO]
    assert len(ours) == 2 and "tokens=" in ours[0].getMessage() and "latency=" in ours[0].getMessage()
    assert all(FAKE_KEY not in r.getMessage() for r in caplog.records)


def test_an_endpoint_that_is_not_a_chat_api_fails_at_once(server: ScriptedServer, llm_settings) -> None:
    server.script = lambda body, n: Reply(status=200, raw=b"<html>gateway says hello</html>")
    client, delays = _client(llm_settings)
    with pytest.raises(LLMError, match=r"did not answer with a chat completion.*gateway says hello"):
        _chat(client)
    server.script = lambda body, n: Reply(status=200, raw=b'{"object": "list", "data": []}')
    with pytest.raises(LLMError, match="did not answer with a chat completion"):
        _chat(client)
    assert server.calls == 2 and delays == []


def test_a_reply_cut_off_at_the_token_limit_keeps_its_complete_part() -> None:
    from memory_core.llm.parsing import salvage_truncated

    cut = ('{"records": [{"entity": "A", "value": "x}]"}, {"entity": "B", "evidence": ["D1:2"]}, '
           '{"entity": "C", "val')
    assert salvage_truncated(cut) == {"records": [{"entity": "A", "value": "x}]"},
                                                  {"entity": "B", "evidence": ["D1:2"]}]}
    assert salvage_truncated('{"a": 1}') is None and salvage_truncated("no object") is None
    assert salvage_truncated('{"a": [1, 2}') is None


def test_truncated_reply_is_used_without_a_second_call(server: ScriptedServer, llm_settings) -> None:
    from memory_core.backends.openai.prompts import plan as plan_prompt

    full = json.dumps({"requirements": [{"entity": "Ana", "property": "likes"},
                                        {"entity": "Bo", "property": "owns"}], "keywords": ["x"]})
    server.script = lambda body, n: Reply(full[: full.index('{"entity": "Bo"') + 20])
    client, _ = _client(llm_settings)
    outcome = request_structured(client, stage="plan", item="q", model="m", messages=MESSAGES,
                                 schema=plan_prompt.PlanReply,
                                 check=lambda r: plan_prompt.to_plan(r, "What does Ana like?"))
    assert [r.entity for r in outcome.value.requirements] == ["Ana"]
    assert outcome.status == "repaired" and "cut off" in outcome.problems[0] and server.calls == 1


def test_parameters_a_reasoning_model_refuses_are_adapted_once(server: ScriptedServer, llm_settings) -> None:
    def script(body: dict, n: int) -> Reply:
        if "max_tokens" in body:
            text = ("Unsupported parameter: 'max_tokens' is not supported with this model. "
                    "Use 'max_completion_tokens' instead.")
            return Reply(status=400, error={"message": text})
        if "temperature" in body:
            text = ("Unsupported value: 'temperature' does not support 0 with this model. "
                    "Only the default (1) value is supported.")
            return Reply(status=400, error={"message": text})
        return Reply('{"ok": 1}')

    server.script = script
    store = Store(":memory:")
    client, _ = _client(llm_settings, store)
    first = client.chat(stage="t", item="i", model="o-model", messages=MESSAGES, max_tokens=40)
    assert first.text == '{"ok": 1}' and server.calls == 3
    sent = server.requests[-1]
    assert sent["max_completion_tokens"] == 40 and "temperature" not in sent and sent["seed"] == 0
    client.chat(stage="t", item="i2", model="o-model", messages=MESSAGES[:1], max_tokens=40)
    assert server.calls == 4  # remembered for the model
    client.keep(first)  # the cache key is that of the canonical request
    assert client.chat(stage="t", item="i", model="o-model", messages=MESSAGES, max_tokens=40).cached
    store.close()


def test_the_schema_sent_requires_every_key_and_lists_fixed_vocabularies() -> None:
    from memory_core.backends.openai.prompts import plan as plan_prompt
    from memory_core.llm.parsing import endpoint_schema

    schema = endpoint_schema(plan_prompt.PlanReply)
    assert set(schema["required"]) == set(plan_prompt.PlanReply.model_fields)
    item = schema["properties"]["requirements"]["items"]
    assert set(item["required"]) == set(plan_prompt.RequirementItem.model_fields)
    assert item["properties"]["role"]["enum"] == ["target", "constraint", "bridge"]
    assert "multi-hop" in schema["properties"]["reasoning_type"]["enum"]
    # validation itself stays tolerant: a value outside the enum is mapped by the converter
    reply = plan_prompt.PlanReply.model_validate({"reasoning_type": "multi_hop",
                                                  "requirements": [{"entity": "Ana", "role": "x"}]})
    plan = plan_prompt.to_plan(reply, "q").value
    assert plan is not None and plan.requirements[0].role == "target"
