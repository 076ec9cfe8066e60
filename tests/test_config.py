"""Settings are read once, explicitly, from a mapping (the environment by default)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.config import DEFAULT_HOME, ImportLimits, LLMSettings, Settings
from memory_core.errors import ConfigError


def test_defaults_from_an_empty_environment():
    s = Settings.from_env({})
    assert s.home == Path(DEFAULT_HOME)
    assert (s.backend, s.strategy, s.budget_tokens) == ("offline", "ensimem-fitted", None)
    assert s.limits == ImportLimits()
    assert s.limits.max_file_mb >= 40  # a 40 MB file imports with the defaults
    assert s.llm.api_key is None and s.llm.base_url is None


def test_home_precedence_argument_then_environment_then_default():
    env = {"MNEMOSCOPE_HOME": "/tmp/from-env"}
    assert Settings.from_env(env).home == Path("/tmp/from-env")
    assert Settings.from_env(env, home="/tmp/from-arg").home == Path("/tmp/from-arg")
    assert Settings.from_env({}).with_home("/x").home == Path("/x")


def test_environment_overrides():
    env = {
        "MNEMOSCOPE_BACKEND": "openai", "OPENAI_API_KEY": "sk-test-secret", "OPENAI_BASE_URL": "http://127.0.0.1:9",
        "MNEMOSCOPE_MODEL": "m-main", "MNEMOSCOPE_MODEL_PLAN": "m-plan", "MNEMOSCOPE_LLM_TIMEOUT": "5",
        "MNEMOSCOPE_LLM_RETRIES": "1", "MNEMOSCOPE_LLM_WORKERS": "2", "MNEMOSCOPE_MAX_FILE_MB": "8",
        "MNEMOSCOPE_MAX_TURN_CHARS": "1000", "MNEMOSCOPE_MAX_DEPTH": "20", "MNEMOSCOPE_BUDGET_TOKENS": "800",
        "MNEMOSCOPE_STRATEGY": "dense",
    }
    s = Settings.from_env(env)
    assert s.backend == "openai" and s.strategy == "dense" and s.budget_tokens == 800
    assert s.llm.base_url == "http://127.0.0.1:9" and s.llm.api_key == "sk-test-secret"
    assert s.llm.model_for("plan") == "m-plan" and s.llm.model_for("answer") == "m-main"
    assert (s.llm.timeout_s, s.llm.max_retries, s.llm.workers) == (5.0, 1, 2)
    assert s.limits == ImportLimits(max_file_mb=8, max_turn_chars=1000, max_depth=20)
    assert "sk-test-secret" not in repr(s) and "sk-test-secret" not in repr(s.llm)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MNEMOSCOPE_BACKEND": "magic"}, "MNEMOSCOPE_BACKEND: unknown backend 'magic'"),
        ({"MNEMOSCOPE_MAX_FILE_MB": "lots"}, "MNEMOSCOPE_MAX_FILE_MB: expected a number, got 'lots'"),
        ({"MNEMOSCOPE_LLM_TIMEOUT": "soon"}, "MNEMOSCOPE_LLM_TIMEOUT: expected a number"),
    ],
)
def test_bad_values_are_config_errors(env, message):
    with pytest.raises(ConfigError, match=message):
        Settings.from_env(env)


def test_empty_values_mean_default():
    s = Settings.from_env({"MNEMOSCOPE_MAX_FILE_MB": "", "OPENAI_API_KEY": ""})
    assert s.limits.max_file_mb == ImportLimits.max_file_mb and s.llm.api_key is None
    assert LLMSettings().model_for("extract") == LLMSettings.model


def test_reads_os_environ_by_default(monkeypatch):
    monkeypatch.setenv("MNEMOSCOPE_MAX_TURN_CHARS", "1234")
    assert Settings.from_env().limits.max_turn_chars == 1234
