"""Settings: one explicit object, read once at the edge (CLI entry, app start).

Nothing in the library reads the environment at import time; ``Settings.from_env`` is
called by the CLI and the app and the result is passed in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

from memory_core.errors import ConfigError

DEFAULT_HOME = "./data"
EMBED_PRECISIONS = ("auto", "fp32", "bf16")  # see memory_core.embeddings


@dataclass(frozen=True)
class ImportLimits:
    """Import size limits (MNEMOSCOPE_MAX_FILE_MB, _MAX_TURN_CHARS, _MAX_DEPTH, _MAX_TURNS)."""

    max_file_mb: float = 64.0  # files larger than this are refused
    max_turn_chars: int = 20_000  # longer turns are truncated with a named warning
    max_depth: int = 64  # JSON nesting deeper than this is refused
    max_turns: int = 200_000


@dataclass(frozen=True)
class LLMSettings:
    """OpenAI-compatible endpoint settings. The API key is never stored on disk."""

    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    model: str = "gpt-4.1-mini"
    stage_models: Mapping[str, str] = field(default_factory=dict)  # segment/extract/plan/answer/judge
    timeout_s: float = 30.0
    max_retries: int = 3
    workers: int = 4
    cache_only: bool = False

    def model_for(self, stage: str) -> str:
        return self.stage_models.get(stage, self.model)


@dataclass(frozen=True)
class AccessSettings:
    """Login rules (MNEMOSCOPE_REQUIRE_LOGIN, _SESSION_MINUTES, _LOCKOUT_FAILURES, _LOCKOUT_MINUTES)."""

    require_login: bool = False  # also on loopback (e.g. behind a reverse proxy on this machine)

    session_minutes: float = 480.0  # an app login lasts this long, then asks again
    lockout_failures: int = 5  # this many wrong passwords in a row lock the account ...
    lockout_minutes: float = 15.0  # ... for this long


@dataclass(frozen=True)
class Settings:
    home: Path = Path(DEFAULT_HOME)
    backend: str = "offline"
    strategy: str = "ensimem-fitted"
    budget_tokens: int | None = None
    limits: ImportLimits = field(default_factory=ImportLimits)
    llm: LLMSettings = field(default_factory=LLMSettings)
    # team mode: the relational store on PostgreSQL (MNEMOSCOPE_DATABASE_URL, --database) and
    # the vector index on a Chroma server (MNEMOSCOPE_CHROMA_URL); None = embedded in ``home``
    database_url: str | None = field(default=None, repr=False)
    chroma_url: str | None = None
    # MNEMOSCOPE_EMBED_PRECISION: "auto" runs large embedding batches in bfloat16 where the
    # CPU computes it natively, "fp32" never, "bf16" always
    embed_precision: str = "auto"
    access: AccessSettings = field(default_factory=AccessSettings)
    # which front end the calls come from, for the audit trail (the CLI sets "cli")
    frontend: str = "library"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, home: str | None = None) -> Settings:
        env = os.environ if environ is None else environ
        home_dir = Path(home or env.get("MNEMOSCOPE_HOME") or DEFAULT_HOME)
        backend = env.get("MNEMOSCOPE_BACKEND", "offline")
        if backend not in ("offline", "openai"):
            raise ConfigError(f"MNEMOSCOPE_BACKEND: unknown backend '{backend}' (offline, openai)")
        stage_models = {
            stage: env[f"MNEMOSCOPE_MODEL_{stage.upper()}"]
            for stage in ("segment", "extract", "plan", "answer", "judge")
            if env.get(f"MNEMOSCOPE_MODEL_{stage.upper()}")
        }
        llm = LLMSettings(
            base_url=env.get("OPENAI_BASE_URL") or None,
            api_key=env.get("OPENAI_API_KEY") or None,
            model=env.get("MNEMOSCOPE_MODEL", LLMSettings.model),
            stage_models=stage_models,
            timeout_s=_float(env, "MNEMOSCOPE_LLM_TIMEOUT", LLMSettings.timeout_s),
            max_retries=int(_float(env, "MNEMOSCOPE_LLM_RETRIES", LLMSettings.max_retries)),
            workers=int(_float(env, "MNEMOSCOPE_LLM_WORKERS", LLMSettings.workers)),
        )
        limits = ImportLimits(
            max_file_mb=_float(env, "MNEMOSCOPE_MAX_FILE_MB", ImportLimits.max_file_mb),
            max_turn_chars=int(_float(env, "MNEMOSCOPE_MAX_TURN_CHARS", ImportLimits.max_turn_chars)),
            max_depth=int(_float(env, "MNEMOSCOPE_MAX_DEPTH", ImportLimits.max_depth)),
            max_turns=int(_float(env, "MNEMOSCOPE_MAX_TURNS", ImportLimits.max_turns)),
        )
        budget = env.get("MNEMOSCOPE_BUDGET_TOKENS")
        database_url = env.get("MNEMOSCOPE_DATABASE_URL") or None
        if database_url is not None:
            check_database_url(database_url)
        chroma_url = env.get("MNEMOSCOPE_CHROMA_URL") or None
        if chroma_url is not None:
            check_chroma_url(chroma_url)
        precision = env.get("MNEMOSCOPE_EMBED_PRECISION", "").strip().lower() or "auto"
        if precision not in EMBED_PRECISIONS:
            raise ConfigError(f"MNEMOSCOPE_EMBED_PRECISION: one of {', '.join(EMBED_PRECISIONS)}, "
                              f"not '{precision}'")
        access = AccessSettings(
            require_login=env.get("MNEMOSCOPE_REQUIRE_LOGIN", "").strip().lower() in ("1", "true", "yes"),
            session_minutes=_float(env, "MNEMOSCOPE_SESSION_MINUTES", AccessSettings.session_minutes),
            lockout_failures=max(1, int(_float(env, "MNEMOSCOPE_LOCKOUT_FAILURES",
                                               AccessSettings.lockout_failures))),
            lockout_minutes=_float(env, "MNEMOSCOPE_LOCKOUT_MINUTES", AccessSettings.lockout_minutes),
        )
        return cls(
            home=home_dir,
            backend=backend,
            strategy=env.get("MNEMOSCOPE_STRATEGY", "ensimem-fitted"),
            budget_tokens=int(budget) if budget else None,
            limits=limits,
            llm=llm,
            database_url=database_url,
            chroma_url=chroma_url,
            embed_precision=precision,
            access=access,
        )

    def with_home(self, home: str | Path) -> Settings:
        return replace(self, home=Path(home))


def check_database_url(url: str, name: str = "MNEMOSCOPE_DATABASE_URL") -> str:
    """A PostgreSQL URL (``postgresql://user@host:port/db`` or ``…/db?host=/socket/dir``)."""
    if not url.startswith(("postgresql://", "postgres://")):
        raise ConfigError(f"{name}: expected a postgresql://… URL, got '{url.split('://', 1)[0]}://…'")
    return url


def check_chroma_url(url: str, name: str = "MNEMOSCOPE_CHROMA_URL") -> str:
    """A Chroma server URL: ``http://host:port`` (optionally ``/DATABASE``)."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in ("http", "https") or not parts.hostname or port is None:
        raise ConfigError(f"{name}: expected http://host:port, got '{url}'")
    return url


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ConfigError(f"{name}: expected a number, got '{raw}'") from None
