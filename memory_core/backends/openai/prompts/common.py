"""Pieces shared by the stage prompts: turn rendering, tolerant field types, grounding checks."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from memory_core.models import Turn

Messages = list[dict[str, str]]

_WORD = re.compile(r"[\w']+", re.UNICODE)
_ISO_TIME = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")
STOPWORDS = frozenset({
    "the", "a", "an", "and", "or", "of", "to", "in", "on", "at", "for", "with", "from", "by", "about",
    "into", "over", "after", "before", "his", "her", "their", "its", "our", "your", "my", "mine",
    "me", "you", "we", "they", "them", "he", "she", "it", "this", "that", "these", "those", "who",
    "whom", "which", "what", "new", "old", "some", "any", "all", "one", "two",
})
FIRST_PERSON = frozenset({"i", "me", "my", "myself", "mine"})


class Reply(BaseModel):
    """Base of every response model: unknown keys are ignored, not fatal."""

    model_config = ConfigDict(extra="ignore")


def choice(default: str, options: Sequence[str]) -> Any:
    """A text field whose JSON schema lists ``options`` (grammar-constrained servers obey the
    enum), while validation stays tolerant: converters map or default unexpected values."""
    return Field(default, json_schema_extra={"enum": list(options)})


def _to_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(_to_text(v) for v in value if v is not None)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_to_text(v)}" for k, v in value.items())
    return " ".join(str(value).split())


def _to_ids(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip().strip("[]") for part in re.split(r"[,\s]+", value) if part.strip()]
    if isinstance(value, list | tuple):
        return [str(v).strip().strip("[]") for v in value if v is not None and str(v).strip()]
    return [str(value)]


def _to_texts(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list | tuple):
        return [t for t in (_to_text(v) for v in value) if t]
    return [_to_text(value)]


def _to_score(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.5
    return min(max(number, 0.0), 1.0) if number == number else 0.5  # NaN -> 0.5


Text = Annotated[str, BeforeValidator(_to_text)]
Ids = Annotated[list[str], BeforeValidator(_to_ids)]
Texts = Annotated[list[str], BeforeValidator(_to_texts)]
Score = Annotated[float, BeforeValidator(_to_score)]


def render_turn(turn: Turn) -> str:
    """``[D1:3] Maya: text [image: caption]`` — the id the model must cite, then the turn."""
    return f"[{turn.id}] {turn.render()}"


def render_turns(turns: Iterable[Turn]) -> str:
    return "\n".join(render_turn(t) for t in turns)


def render_time(time: datetime | None, text: str = "") -> str:
    if time is not None:
        return f"{time:%A %d %B %Y, %H:%M}" + (f" (written as '{text}')" if text else "")
    return text or "unknown"


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if len(w) >= 3 and w not in STOPWORDS]


def is_grounded(name: str, haystack: str) -> bool:
    """Does some content word of ``name`` (or its stem-ish prefix) occur in ``haystack``?"""
    text = haystack.lower()
    for word in content_words(name):
        stem = word[: max(4, len(word) - 3)]
        if word in text or stem in text:
            return True
    return False


def iso_time(value: str) -> str | None:
    value = value.strip()
    return value if _ISO_TIME.match(value) else None


def norm_label(value: str, limit: int = 60) -> str:
    """A property/predicate label: lower case, words joined by underscores."""
    return "_".join(words(value))[:limit]


def known(ids: Sequence[str], allowed: set[str]) -> tuple[list[str], list[str]]:
    """Split ``ids`` into (present in ``allowed``, not present), de-duplicated, order kept."""
    good: list[str] = []
    bad: list[str] = []
    for turn_id in ids:
        (good if turn_id in allowed else bad).append(turn_id)
    return list(dict.fromkeys(good)), list(dict.fromkeys(bad))
