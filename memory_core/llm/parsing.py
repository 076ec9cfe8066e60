"""Structured answers from a chat model: JSON mode, tolerant parsing, one repair, validation.

``request_structured`` asks for one JSON object shaped like a pydantic response model:

1. The request carries ``response_format`` of type ``json_schema`` (the response model's
   schema). An endpoint that rejects it (an HTTP 400/422/500 naming the format) is asked
   again with the schema inside a ``json_object`` format (llama.cpp's dialect), then plain
   ``json_object``, then with no format at all; the mode that worked is remembered per
   model for the rest of the run. Every prompt also spells out the shape in words, so the
   plain-text mode works with models that ignore formats.
2. The reply is parsed tolerantly (code fences, prose around the object, a bare list for a
   one-list model) and validated against the response model.
3. The stage's ``check`` converts it to domain objects and reports problems: it may fix
   small ones itself (``Checked.problems`` non-empty → status "repaired"), call the output
   poor (``severe``) or unusable (``value is None``).
4. An unparsable, invalid, poor or unusable reply gets exactly one repair request quoting
   the problems. If that does not give a usable value either, the first usable value is
   kept; with none, ``LLMError(stage, item, what)`` is raised.

Only exchanges that ended in a usable value are cached, so garbage is never replayed.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from memory_core.errors import LLMError
from memory_core.llm.client import Completion, LLMClient, Message, ResponseFormatRejected

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

REPAIR_ECHO_CHARS = 4000  # how much of a bad reply is quoted back in the repair request

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass
class Checked(Generic[T]):
    """A stage's verdict on a parsed reply."""

    value: T | None
    problems: list[str] = field(default_factory=list)
    severe: bool = False  # usable but poor enough to be worth one repair request


@dataclass(frozen=True)
class Outcome(Generic[T]):
    value: T
    status: Literal["accepted", "repaired"]
    problems: tuple[str, ...]
    calls: int


# ---------------------------------------------------------------------------- parsing
def extract_json(text: str) -> Any:
    """The first JSON object (or array) in ``text``; raises ``ValueError`` if there is none."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        stripped = candidate.strip()
        for start, char in enumerate(stripped):
            if char not in "{[":
                continue
            try:
                value, _ = decoder.raw_decode(stripped, start)
            except json.JSONDecodeError:
                if _unclosed(stripped[start:]):
                    # runs to the end: cut off, and every later "{" is nested inside it
                    raise ValueError("the reply's JSON is cut off before its end") from None
                continue
            if isinstance(value, dict | list):
                return value
    raise ValueError("the reply contains no JSON object")


def _scan(body: str) -> tuple[list[tuple[int, str]], bool]:
    """Bracket scan of the value starting at ``body[0]``, outside strings.

    Returns the positions just after each complete nested element with the closers still
    needed there, and whether the value is still open at the end of ``body``.
    """
    stack: list[str] = []
    cuts: list[tuple[int, str]] = []
    in_string = escaped = False
    for i, char in enumerate(body):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            if not stack or stack.pop() != char or not stack:
                return cuts, False  # malformed, or complete
            cuts.append((i + 1, "".join(reversed(stack))))
    return cuts, bool(stack)


def _unclosed(body: str) -> bool:
    return _scan(body)[1]


def salvage_truncated(text: str) -> dict[str, Any] | None:
    """The longest closable prefix of an object cut off mid-way (e.g. at the token limit).

    Closes the first object right after its last complete nested element; ``None`` when the
    object is complete or malformed, or nothing usable remains.

    Kept hand-written rather than ``pydantic_core.from_json(text, allow_partial=True)``: that
    parser keeps the incomplete trailing element (``{"entity": "C", "val`` becomes
    ``{"entity": "C"}``, a half record that may still validate) and accepts mismatched
    brackets (``{"a": [1, 2}``), while a cut-off reply must keep only its complete elements.
    """
    start = text.find("{")
    if start < 0:
        return None
    body = text[start:]
    cuts, still_open = _scan(body)
    if not still_open:
        return None
    for end, closing in reversed(cuts[-200:]):
        try:
            value = json.loads(body[:end] + closing)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


def parse_reply(text: str, schema: type[M]) -> M:
    """Validate the first JSON object of ``text`` as ``schema``; ``ValueError`` names the fault."""
    if not text.strip():
        raise ValueError("the reply is empty")
    value = extract_json(text)
    if isinstance(value, list):
        lists = [name for name, info in schema.model_fields.items()
                 if "list" in str(info.annotation).lower()]
        if len(lists) != 1:
            raise ValueError("the reply is a JSON list, an object was asked for")
        value = {lists[0]: value}
    try:
        return schema.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "object"
        raise ValueError(f"the JSON does not fit the requested shape at '{where}': {first['msg']} "
                         f"({exc.error_count()} problem(s))") from None


def endpoint_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The response model's JSON schema as sent: references inlined, every key required.

    Requiring every key makes grammar-constrained servers write the whole shape (our own
    validation stays tolerant of missing keys through the models' defaults).
    """
    def require(node: Any) -> Any:
        if isinstance(node, dict):
            out = {k: require(v) for k, v in node.items()}
            if isinstance(out.get("properties"), dict):
                out["required"] = list(out["properties"])
            return out
        if isinstance(node, list):
            return [require(v) for v in node]
        return node

    result = require(inline_refs(schema.model_json_schema()))
    assert isinstance(result, dict)
    return result


def json_schema_format(name: str, schema: type[BaseModel]) -> dict[str, Any]:
    return {"type": "json_schema",
            "json_schema": {"name": name, "schema": endpoint_schema(schema), "strict": False}}


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with ``$defs`` references expanded (some servers cannot follow ``$ref``)."""
    defs = schema.get("$defs", {})

    def expand(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return expand(defs[ref.split("/")[-1]])
            return {k: expand(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [expand(v) for v in node]
        return node

    result = expand(schema)
    assert isinstance(result, dict)
    return result


# ---------------------------------------------------------------------------- the request
def ask(client: LLMClient, *, stage: str, item: str, model: str, messages: Sequence[Message],
        schema: type[BaseModel] | None, max_tokens: int | None) -> Completion:
    """One call in the best response-format mode the endpoint accepts for ``model``."""
    memo = client.formats
    mode = memo.get(model) if schema is not None else "text"
    while True:
        response_format: Mapping[str, Any] | None = None
        if mode == "json_schema" and schema is not None:
            response_format = json_schema_format(f"mnemoscope_{stage}", schema)
        elif mode == "json_object_schema" and schema is not None:
            response_format = {"type": "json_object", "schema": endpoint_schema(schema)}
        elif mode in ("json_object", "json_object_schema"):
            response_format = {"type": "json_object"}
        try:
            return client.chat(stage=stage, item=item, model=model, messages=messages,
                               response_format=response_format, max_tokens=max_tokens)
        except ResponseFormatRejected as exc:
            next_mode = memo.downgrade(model, mode)
            if next_mode is None:
                raise LLMError(stage, item, f"endpoint rejected the request: {exc}") from None
            log.info("llm %s: endpoint refused response_format %s for %s; using %s", stage, mode,
                     model, next_mode)
            mode = next_mode


def request_structured(client: LLMClient, *, stage: str, item: str, model: str,
                       messages: Sequence[Message], schema: type[M],
                       check: Callable[[M], Checked[T]], max_tokens: int | None = None,
                       fallback: Callable[[str], M | None] | None = None) -> Outcome[T]:
    """Ask, parse, check; one repair request; then a usable value or ``LLMError``.

    ``fallback`` may read a reply that is not JSON at all (e.g. a bare label).
    """
    first = ask(client, stage=stage, item=item, model=model, messages=messages, schema=schema,
                max_tokens=max_tokens)
    verdict, fault = _judge(first.text, schema, check, fallback)
    if verdict is not None and verdict.value is not None and not verdict.severe:
        client.keep(first)
        return Outcome(verdict.value, "repaired" if verdict.problems else "accepted",
                       tuple(verdict.problems), 1)

    problems = [fault] if fault else (verdict.problems if verdict else [])
    log.info("llm %s %s: asking for a repair: %s", stage, item, "; ".join(problems)[:300])
    repair_messages = [*messages,
                       {"role": "assistant", "content": first.text[:REPAIR_ECHO_CHARS]},
                       {"role": "user", "content": repair_instruction(problems)}]
    second = ask(client, stage=stage, item=item, model=model, messages=repair_messages, schema=schema,
                 max_tokens=max_tokens)
    verdict2, fault2 = _judge(second.text, schema, check, fallback)
    if verdict2 is not None and verdict2.value is not None:
        client.keep(first)
        client.keep(second)
        return Outcome(verdict2.value, "repaired", tuple(problems + verdict2.problems), 2)
    if verdict is not None and verdict.value is not None:  # poor but usable beats nothing
        client.keep(first)
        return Outcome(verdict.value, "repaired", tuple(problems), 2)
    what = fault2 or "; ".join(verdict2.problems if verdict2 else []) or "unusable reply"
    raise LLMError(stage, item, f"unusable reply after one repair request: {what[:300]}")


def repair_instruction(problems: Sequence[str]) -> str:
    listed = "\n".join(f"- {p}" for p in problems[:12]) or "- the reply could not be used"
    return ("Your reply above cannot be used as it is:\n"
            f"{listed}\n"
            "Send the whole answer again as a single JSON object with the shape requested in the "
            "first message, correcting every point listed. No commentary, no code fences.")


def _judge(text: str, schema: type[M], check: Callable[[M], Checked[T]],
           fallback: Callable[[str], M | None] | None) -> tuple[Checked[T] | None, str]:
    note = ""
    try:
        parsed = parse_reply(text, schema)
    except ValueError as exc:
        rescued = fallback(text) if fallback is not None else None
        if rescued is None:
            rescued = _salvaged(text, schema)
            note = "the reply was cut off; only its complete part was used"
        if rescued is None:
            return None, str(exc)
        parsed = rescued
    verdict = check(parsed)
    if note:
        verdict.problems.insert(0, note)
    return verdict, ""


def _salvaged(text: str, schema: type[M]) -> M | None:
    value = salvage_truncated(text)
    if value is None:
        return None
    try:
        return schema.model_validate(value)
    except ValidationError:
        return None
