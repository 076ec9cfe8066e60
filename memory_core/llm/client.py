"""A thin, accountable wrapper over the ``openai`` client for one OpenAI-compatible endpoint.

``LLMClient.chat`` is the only place the project talks to a language model:

    cache lookup ─hit──▶ replay (no network, costs nothing)
        │ miss (``cache_only`` → LLMError)
        ▼
    request ─transient failure (timeout, connection, 429, 5xx)──▶ back off, retry (capped)
        │ other failure (401, 404, 400 ...) ─▶ LLMError at once
        ▼
    accounting row + one INFO log line; ``keep`` caches it once the caller accepted it

The API key lives only inside the ``openai`` client object: it is never logged, cached,
put into an exception message or written to the store. Error text coming back from the
endpoint is scrubbed of the key before it is shown.

After a call has failed for good on a transient fault the endpoint is considered down:
later calls through the same client fail at once, so a build against a dead server stops
after a bounded number of requests instead of retrying every episode.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import openai
import tenacity

from memory_core.config import LLMSettings
from memory_core.contracts import RelationalStore
from memory_core.errors import ConfigError, LLMError
from memory_core.llm.accounting import Accountant
from memory_core.llm.cache import LLMCache, cache_key
from memory_core.llm.memscrub import scrub_freed_memory
from memory_core.tokens import count_tokens

log = logging.getLogger(__name__)

DEFAULT_ENDPOINT = "https://api.openai.com/v1"
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 8.0
LOCAL_PLACEHOLDER_KEY = "not-needed"  # local servers (vLLM, Ollama, llama.cpp) ignore the key

Message = Mapping[str, str]
# json_schema: OpenAI structured outputs (also vLLM, recent Ollama); json_object_schema: the
# schema inside a json_object format (llama.cpp's server); json_object: JSON mode; text: none.
FormatMode = Literal["json_schema", "json_object_schema", "json_object", "text"]
FORMAT_MODES: tuple[FormatMode, ...] = ("json_schema", "json_object_schema", "json_object", "text")


@dataclass(frozen=True)
class Completion:
    """What one chat call produced (from the endpoint or the cache)."""

    text: str
    tokens_in: int
    tokens_out: int
    latency_s: float
    cached: bool
    attempts: int
    finish_reason: str | None = None
    key: str = ""  # cache key of the request
    model: str = ""


class ResponseFormatRejected(Exception):
    """The endpoint answered 400 to our ``response_format``; the caller may downgrade it."""


class FormatMemo:
    """Which response-format mode works per (endpoint, model), shared by threads."""

    def __init__(self) -> None:
        self._modes: dict[str, FormatMode] = {}
        self._lock = threading.Lock()

    def get(self, model: str) -> FormatMode:
        with self._lock:
            return self._modes.get(model, "json_schema")

    def downgrade(self, model: str, failed: FormatMode) -> FormatMode | None:
        with self._lock:
            index = FORMAT_MODES.index(failed)
            if index + 1 >= len(FORMAT_MODES):
                return None
            current = self._modes.get(model, "json_schema")
            if FORMAT_MODES.index(current) <= index:
                self._modes[model] = FORMAT_MODES[index + 1]
            return self._modes[model]


class _Transient(Exception):
    """A fault worth retrying (timeout, connection, 429, 5xx); ``text`` is scrubbed."""

    def __init__(self, failure: Exception, text: str, attempt: int) -> None:
        super().__init__(text)
        self.failure = failure
        self.text = text
        self.attempt = attempt


class ParameterRejected(Exception):
    """The endpoint refuses one of our sampling parameters for this model (HTTP 400)."""

    def __init__(self, name: str, text: str) -> None:
        super().__init__(text)
        self.name = name


class LLMClient:
    """One endpoint, one API key, retries, cache and accounting."""

    def __init__(self, settings: LLMSettings, store: RelationalStore | None = None, *,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.endpoint = (settings.base_url or DEFAULT_ENDPOINT).rstrip("/")
        self.cache = LLMCache(store) if store is not None else None
        self.accountant = Accountant(store)
        self._sleep = sleep
        self._secret = settings.api_key or ""
        self._client: openai.OpenAI | None = None
        self._client_lock = threading.Lock()
        self._down: str | None = None  # set once a call failed for good on a transient fault
        self.formats = FormatMemo()  # response_format mode that works, per model
        self._adapted: dict[str, set[str]] = {}  # parameters a model refused (e.g. reasoning models)
        self._adapt_lock = threading.Lock()
        self.cancelled = threading.Event()  # set by a worker pool to stop retrying siblings

    # ------------------------------------------------------------------ openai client
    def _openai(self) -> openai.OpenAI:
        with self._client_lock:
            if self._client is None:
                key = self.settings.api_key
                if not key:
                    if self.settings.base_url is None:
                        raise ConfigError(
                            "the openai backend needs OPENAI_API_KEY (or OPENAI_BASE_URL pointing "
                            "at a local OpenAI-compatible server)")
                    key = LOCAL_PLACEHOLDER_KEY
                scrub_freed_memory()  # request buffers carrying the key never reach a file
                self._client = openai.OpenAI(
                    api_key=key, base_url=self.endpoint, timeout=self.settings.timeout_s,
                    max_retries=0)  # retries are ours: transient-only, capped, logged
            return self._client

    def scrub(self, text: str) -> str:
        """``text`` with the API key removed (endpoint error bodies may echo it)."""
        if self._secret and len(self._secret) >= 4:
            text = text.replace(self._secret, "***")
        return text

    # ------------------------------------------------------------------ the call
    def chat(self, *, stage: str, item: str, model: str, messages: Sequence[Message],
             response_format: Mapping[str, Any] | None = None, max_tokens: int | None = None,
             use_cache: bool = True) -> Completion:
        """One chat completion, through the cache; raises ``LLMError`` naming stage and item."""
        params: dict[str, Any] = {"temperature": 0.0, "seed": 0}
        if response_format is not None:
            params["response_format"] = dict(response_format)
        if max_tokens is not None:
            params["max_tokens"] = max_tokens
        key = cache_key(self.endpoint, model, messages, params)

        started = time.monotonic()
        if self.cache is not None and use_cache:
            hit = self.cache.get(key)
            if hit is not None:
                latency = time.monotonic() - started
                self.accountant.record(stage=stage, model=model, tokens_in=0, tokens_out=0,
                                       latency_s=latency, cached=True)
                log.info("llm %s %s model=%s cached tokens=%d/%d (not re-spent)", stage, item, model,
                         hit.tokens_in, hit.tokens_out)
                return Completion(hit.text, hit.tokens_in, hit.tokens_out, latency, True, 0,
                                  key=key, model=model)
        if self.settings.cache_only:
            raise LLMError(stage, item, "no cached response for this request and --cache-only "
                           "forbids calling the endpoint (rebuild once with network access)")
        if self._down is not None:
            raise LLMError(stage, item, f"endpoint {self.endpoint} is unavailable ({self._down}); "
                           "not calling it again in this run")

        while True:
            try:
                raw = self._call_with_retries(stage, item, model, messages, self._wire(model, params))
                break
            except ParameterRejected as exc:
                with self._adapt_lock:
                    refused = self._adapted.setdefault(model, set())
                    if exc.name in refused:
                        raise LLMError(stage, item,
                                       f"endpoint rejected the request (HTTP 400): {exc}") from None
                    refused.add(exc.name)
                log.info("llm %s: endpoint refuses '%s' for model %s; adapting the request", stage,
                         exc.name, model)
        completion = replace(raw, key=key if use_cache else "", model=model)
        cost = self.accountant.record(stage=stage, model=model, tokens_in=completion.tokens_in,
                                      tokens_out=completion.tokens_out,
                                      latency_s=completion.latency_s, cached=False)
        log.info("llm %s %s model=%s tokens=%d/%d latency=%.2fs attempts=%d cost=$%.5f", stage, item,
                 model, completion.tokens_in, completion.tokens_out, completion.latency_s,
                 completion.attempts, cost)
        return completion

    def _wire(self, model: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters as sent: adapted to what the model accepts (the cache key is not)."""
        with self._adapt_lock:
            refused = set(self._adapted.get(model, ()))
        wire = dict(params)
        if "max_tokens" in refused and "max_tokens" in wire:
            wire["max_completion_tokens"] = wire.pop("max_tokens")
        for name in ("temperature", "seed"):
            if name in refused:
                wire.pop(name, None)
        return wire

    def keep(self, completion: Completion) -> None:
        """Cache an answer the caller parsed and validated (cached replays are already kept)."""
        if self.cache is not None and completion.key and not completion.cached:
            self.cache.put(completion.key, self.endpoint, completion.model, completion.text,
                           completion.tokens_in, completion.tokens_out)

    def _call_with_retries(self, stage: str, item: str, model: str, messages: Sequence[Message],
                           params: Mapping[str, Any]) -> Completion:
        """The request, retried by ``tenacity`` on transient faults only (timeout, connection,
        429, 5xx) with capped, jittered exponential backoff (or the server's Retry-After)."""
        client = self._openai()
        attempts_allowed = max(1, self.settings.max_retries + 1)
        started = time.monotonic()

        def wait(state: tenacity.RetryCallState) -> float:
            failure = state.outcome.exception() if state.outcome is not None else None
            after = _retry_after(failure.failure) if isinstance(failure, _Transient) else None
            return _backoff(state.attempt_number, after)

        def warn(state: tenacity.RetryCallState) -> None:
            failure = state.outcome.exception() if state.outcome is not None else None
            delay = state.next_action.sleep if state.next_action is not None else 0.0
            log.warning("llm %s %s: %s (attempt %d/%d), retrying in %.1fs", stage, item,
                        getattr(failure, "text", failure), state.attempt_number, attempts_allowed, delay)

        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(attempts_allowed), wait=wait,
            retry=tenacity.retry_if_exception_type(_Transient), sleep=self._sleep,
            before_sleep=warn, reraise=True)
        try:
            for attempt in retrying:
                with attempt:
                    if self.cancelled.is_set():
                        raise LLMError(stage, item, "cancelled because a sibling call failed")
                    return self._attempt(client, stage, item, model, messages, params, started,
                                         attempt.retry_state.attempt_number)
        except _Transient as exc:
            self._down = exc.text
            raise LLMError(stage, item,
                           f"{exc.text} after {exc.attempt} attempts to {self.endpoint}") from None
        raise LLMError(stage, item, "no attempt made")  # pragma: no cover - the loop returns or raises

    def _attempt(self, client: openai.OpenAI, stage: str, item: str, model: str,
                 messages: Sequence[Message], params: Mapping[str, Any], started: float,
                 attempt: int) -> Completion:
        """One request; a transient fault is raised as ``_Transient`` (retried), others as final."""
        try:
            response = client.chat.completions.create(
                model=model, messages=[dict(m) for m in messages],  # type: ignore[misc]
                **params)
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            failure: Exception = exc
        except openai.APIStatusError as exc:
            final = self._status_failure(exc, stage, item, model, "response_format" in params)
            if final is not None:
                raise final from None  # no chained context: it holds the request headers
            failure = exc  # 429 or 5xx: transient
        except openai.APIError as exc:  # e.g. a body that does not fit the API at all
            raise LLMError(stage, item, f"endpoint answered something unusable: "
                           f"{self.scrub(_error_text(exc))}") from None
        else:
            if not getattr(response, "choices", None):
                shown = self.scrub(" ".join(str(response).split()))[:120]
                raise LLMError(stage, item, f"endpoint {self.endpoint} did not answer with a chat "
                               f"completion (got: {shown!r}); is OPENAI_BASE_URL right?")
            return _completion(response, messages, time.monotonic() - started, attempt)
        raise _Transient(failure, self.scrub(_transient_text(failure, self.settings.timeout_s)), attempt)

    def _status_failure(self, exc: openai.APIStatusError, stage: str, item: str, model: str,
                        has_format: bool) -> Exception | None:
        """The error to raise for a final HTTP failure; None for a transient one (429, 5xx)."""
        status = exc.status_code
        text = self.scrub(_error_text(exc))
        # some servers answer an unsupported response_format with 422 or even 500 (llama.cpp)
        if has_format and status in (400, 422, 500) and _mentions_format(text):
            return ResponseFormatRejected(text)
        refused = _refused_parameter(text) if status == 400 else None
        if refused is not None:
            return ParameterRejected(refused, text)
        if status == 401:
            return LLMError(stage, item, f"endpoint {self.endpoint} refused the API key (HTTP 401); "
                            "check OPENAI_API_KEY")
        if status == 404:
            return LLMError(stage, item, f"endpoint {self.endpoint} answered 404 for model '{model}': {text}")
        if status == 429 or status >= 500:
            return None
        return LLMError(stage, item, f"endpoint rejected the request (HTTP {status}): {text}")

    def reset_availability(self) -> None:
        """Forget that the endpoint was found down (for tools that go on after a failure)."""
        self._down = None


# ---------------------------------------------------------------------------- helpers
def _completion(response: Any, messages: Sequence[Message], latency: float, attempt: int) -> Completion:
    choice = response.choices[0]
    message = getattr(choice, "message", None)
    text = (getattr(message, "content", None) or "") if message is not None else ""
    finish = getattr(choice, "finish_reason", None)
    usage = getattr(response, "usage", None)
    tokens_in = int(getattr(usage, "prompt_tokens", 0) or 0)
    tokens_out = int(getattr(usage, "completion_tokens", 0) or 0)
    if usage is None:  # some servers omit usage: count with the project's tokenizer
        tokens_in = sum(count_tokens(m.get("content", "")) for m in messages)
        tokens_out = count_tokens(text)
    return Completion(text, tokens_in, tokens_out, latency, False, attempt, finish)


def _backoff(attempt: int, retry_after: float | None) -> float:
    if retry_after is not None:
        return min(max(retry_after, 0.0), BACKOFF_CAP_S)
    base = min(BACKOFF_BASE_S * (2 ** (attempt - 1)), BACKOFF_CAP_S)
    return base * (0.8 + 0.4 * random.random())  # jitter keeps parallel workers apart


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    if response is None:
        return None
    raw = response.headers.get("retry-after")
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


def _transient_text(exc: Exception, timeout_s: float) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return f"no answer within {timeout_s:g}s (timeout)"
    if isinstance(exc, openai.APIConnectionError):
        return "cannot connect"
    if isinstance(exc, openai.RateLimitError):
        return "rate limited (HTTP 429)"
    status = getattr(exc, "status_code", "5xx")
    return f"server error (HTTP {status})"


def _error_text(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    text = ""
    if isinstance(body, dict):
        err = body.get("error", body)
        text = str(err.get("message", "")) if isinstance(err, dict) else str(err)
    if not text:
        text = str(getattr(exc, "message", "") or exc)
    return " ".join(text.split())[:200]


def _refused_parameter(text: str) -> str | None:
    """Which adaptable parameter a 400 message complains about (OpenAI reasoning models)."""
    lowered = text.lower()
    complaints = ("unsupported", "not supported", "does not support", "only the default")
    if not any(w in lowered for w in complaints):
        return None
    for name in ("max_tokens", "temperature", "seed"):
        if any(f"{q}{name}{q}" in lowered for q in ("'", "`", '"', " ")):
            return name
    return None


def _mentions_format(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in ("response_format", "json_schema", "json_object",
                                            "response format", "grammar", "schema"))
