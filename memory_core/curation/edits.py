"""Pure parts of record curation: validate a change, apply it, snapshot, diff.

Nothing here touches storage; ``CurationService`` reads the record and its episode, calls
these functions, then writes the record and its ``Edit`` in one transaction.

Every validation failure is a ``StoreError`` with one line naming the record (or episode),
the field and what is wrong, e.g.::

    record 'c1:S2:E1:R3': field 'confidence': expected a number between 0 and 1, got '1.7'
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from memory_core.errors import StoreError
from memory_core.models import Edit, Modality, Record
from memory_core.store.base import now

# fields an annotator may change with ``edit_record`` (status goes through delete/mark_wrong)
EDITABLE_FIELDS = (
    "entity", "entity_type", "property", "value", "condition", "modality", "valid_time",
    "valid_time_text", "evidence_turn_ids", "confidence", "source_speaker", "importance",
    "episode_id",
)
REQUIRED_TEXT = ("entity", "entity_type", "property", "value")
SINGLE_LINE = ("entity", "entity_type", "property", "source_speaker")
MAX_NAME_CHARS = 200
MAX_TEXT_CHARS = 2000
MAX_VIA_CHARS = 60
# ISO year, month or day; an optional time is allowed after a day ("2023-05-06T14:00")
_VALID_TIME = re.compile(r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01])(T\d{2}:\d{2}(:\d{2})?)?)?)?$")
# fields compared by ``record_diff`` (version moves on every save and is not a change)
DIFF_FIELDS = tuple(f for f in Record.model_fields if f not in ("version",))


def validate_changes(where: str, changes: Mapping[str, Any], *, allowed: Sequence[str] = EDITABLE_FIELDS
                     ) -> dict[str, Any]:
    """Check and normalise ``changes`` (field -> new value); ``where`` names the record."""
    if not changes:
        raise StoreError(f"{where}: nothing to change")
    clean: dict[str, Any] = {}
    for field, raw in changes.items():
        if field not in allowed:
            raise StoreError(f"{where}: field '{field}' cannot be edited (editable: {', '.join(allowed)})")
        clean[field] = _validate_field(where, field, raw)
    return clean


def _validate_field(where: str, field: str, raw: Any) -> Any:
    def bad(what: str) -> StoreError:
        return StoreError(f"{where}: field '{field}': {what}")

    if field in ("confidence", "importance"):
        try:
            number = float(raw)
        except (TypeError, ValueError):
            raise bad(f"expected a number, got {raw!r}") from None
        if number != number:  # NaN
            raise bad("expected a number, got NaN")
        if field == "confidence" and not 0.0 <= number <= 1.0:
            raise bad(f"expected a number between 0 and 1, got {raw!r}")
        if field == "importance" and number < 0:
            raise bad(f"expected a number of 0 or more, got {raw!r}")
        return number
    if field == "modality":
        allowed = [m.value for m in Modality]
        if str(raw) not in allowed:
            raise bad(f"unknown modality {raw!r} (known: {', '.join(allowed)})")
        return Modality(str(raw))
    if field == "evidence_turn_ids":
        if isinstance(raw, str):
            raw = [p.strip() for p in raw.replace(";", ",").split(",")]
        if not isinstance(raw, Sequence):
            raise bad(f"expected a list of turn ids, got {type(raw).__name__}")
        ids = tuple(dict.fromkeys(str(t).strip() for t in raw if str(t).strip()))
        if not ids:
            raise bad("a record must cite at least one evidence turn")
        return ids
    # text fields
    if raw is None:
        if field in REQUIRED_TEXT or field == "episode_id":
            raise bad("must not be empty")
        return None
    if not isinstance(raw, str):
        raise bad(f"expected text, got {type(raw).__name__}")
    text = raw.strip()
    if not text:
        if field in REQUIRED_TEXT or field == "episode_id":
            raise bad("must not be empty")
        return None
    if field in SINGLE_LINE and ("\n" in text or "\r" in text):
        raise bad("must be a single line")
    limit = MAX_NAME_CHARS if field in SINGLE_LINE else MAX_TEXT_CHARS
    if len(text) > limit:
        raise bad(f"too long ({len(text)} characters, at most {limit})")
    if field == "valid_time" and not _VALID_TIME.match(text):
        raise bad(f"expected an ISO date, month or year (2023-05-06, 2023-05, 2023), got {text!r}")
    return text


def check_evidence(where: str, evidence: Sequence[str], episode_id: str,
                   episode_turns: Sequence[str]) -> None:
    """Every evidence turn must lie inside the record's episode."""
    inside = set(episode_turns)
    outside = [t for t in evidence if t not in inside]
    if outside:
        span = f"{episode_turns[0]}..{episode_turns[-1]}" if episode_turns else "no turns"
        raise StoreError(
            f"{where}: field 'evidence_turn_ids': turn {outside[0]!r} is not inside episode "
            f"'{episode_id}' ({span})"
        )


def apply_changes(record: Record, changes: Mapping[str, Any]) -> Record:
    return record.model_copy(update=dict(changes))


def snapshot(record: Record) -> dict[str, Any]:
    """The record as JSON-ready values (what an ``Edit`` keeps as before/after)."""
    return record.model_dump(mode="json")


def restore(data: Mapping[str, Any]) -> Record:
    return Record.model_validate(dict(data))


def diff_snapshots(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
                   ) -> list[tuple[str, Any, Any]]:
    """(field, before, after) for every field that differs; version is not a change."""
    before = before or {}
    after = after or {}
    keys = [k for k in DIFF_FIELDS if k in before or k in after]
    keys += sorted(k for k in set(before) | set(after) if k not in DIFF_FIELDS and k != "version")
    return [(k, before.get(k), after.get(k)) for k in keys if before.get(k) != after.get(k)]


def new_edit_id() -> str:
    """Time-ordered unique id (the log sorts by time, then id)."""
    return f"edit-{now():%Y%m%d%H%M%S%f}-{uuid.uuid4().hex[:8]}"


def new_record_id(episode_id: str) -> str:
    return f"{episode_id}:A{uuid.uuid4().hex[:10]}"


def make_edit(*, conv_id: str, target_kind: str, target_id: str, action: str, who: str, why: str,
              before: dict[str, Any] | None, after: dict[str, Any] | None,
              reverts: str | None = None, via: str = "") -> Edit:
    """An edit made now; ``via`` says where in the app it was made (one short line, may be empty)."""
    who = (who or "").strip()
    if not who:
        raise StoreError(f"{target_kind} '{target_id}': an edit needs who made it")
    if len(who) > MAX_NAME_CHARS or "\n" in who:
        raise StoreError(f"{target_kind} '{target_id}': 'who' must be one line of at most "
                         f"{MAX_NAME_CHARS} characters")
    why = (why or "").strip()
    if len(why) > MAX_TEXT_CHARS:
        raise StoreError(f"{target_kind} '{target_id}': 'why' is too long ({len(why)} characters, "
                         f"at most {MAX_TEXT_CHARS})")
    via = (via or "").strip()
    if len(via) > MAX_VIA_CHARS or "\n" in via:
        raise StoreError(f"{target_kind} '{target_id}': 'via' (where the edit was made) must be one line "
                         f"of at most {MAX_VIA_CHARS} characters")
    return Edit(id=new_edit_id(), conv_id=conv_id, target_kind=target_kind, target_id=target_id,
                action=action, who=who, at=now(), before=before, after=after, why=why, reverts=reverts,
                via=via)
