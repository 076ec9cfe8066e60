"""Which records a search keeps: the typed filter the Records page, the Graphs page's "as of a
day" view, the review queue and the store's record search all take.

    RecordFilter(entity=("Maya",), session=(2,), as_of=date(2024, 5, 1))
    RecordFilter.of({"entity": "maya", "status": "all"})   # loose input (a URL, a CLI flag, JSON)

Every field is an AND; within a field any value matches. Empty fields filter nothing.
``status`` empty means every status but deleted; ``"all"`` keeps deleted records too. ``as_of``
keeps the memory as it stood on that day (said in a session up to then, about a time up to
then). ``of`` checks loose input and raises ``StoreError`` with one line naming the key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import date
from typing import Any, Literal

from memory_core.as_of import parse_day
from memory_core.errors import StoreError
from memory_core.models import Modality, RecordStatus

ALL_STATUSES: Literal["all"] = "all"

# The filter widgets' choices: per field (entity, entity_type, property, modality, status,
# origin, session) its distinct values with their record counts. A session is an int, the
# rest are strings; None stands for records without the field.
FacetValue = str | int | None
RecordFacets = dict[str, list[tuple[FacetValue, int]]]


@dataclass(frozen=True)
class RecordFilter:
    entity: tuple[str, ...] = ()  # case-insensitive
    entity_type: tuple[str, ...] = ()  # case-insensitive
    property: tuple[str, ...] = ()  # case-insensitive
    modality: tuple[Modality, ...] = ()
    status: tuple[RecordStatus, ...] | Literal["all"] = ()
    min_confidence: float | None = None
    session: tuple[int, ...] = ()
    episode_id: tuple[str, ...] = ()
    origin: tuple[str, ...] = ()
    as_of: date | None = None

    def is_empty(self) -> bool:
        return self == RecordFilter()

    @classmethod
    def of(cls, raw: Mapping[str, Any] | RecordFilter | None) -> RecordFilter:
        """A filter from loose input: each key a value or a list (empty values ignored)."""
        if raw is None:
            return cls()
        if isinstance(raw, RecordFilter):
            return raw
        unknown = sorted(set(raw) - set(FILTER_KEYS))
        if unknown:
            raise StoreError(f"records filter: unknown key '{unknown[0]}' (known: {', '.join(FILTER_KEYS)})")
        status = _values("status", raw.get("status"))
        sessions = _values("session", raw.get("session"))
        try:
            session = tuple(int(s) for s in sessions)
        except (TypeError, ValueError):
            raise StoreError(
                f"records filter 'session': expected session numbers, got {sessions!r}") from None
        min_conf = raw.get("min_confidence")
        threshold: float | None = None
        if min_conf is not None and min_conf != "":
            try:
                threshold = float(min_conf)
            except (TypeError, ValueError):
                raise StoreError(
                    f"records filter 'min_confidence': expected a number, got {min_conf!r}") from None
        as_of = raw.get("as_of")
        return cls(
            entity=_texts("entity", raw),
            entity_type=_texts("entity_type", raw),
            property=_texts("property", raw),
            modality=tuple(Modality(_member("modality", v, Modality))
                           for v in _values("modality", raw.get("modality"))),
            status=(ALL_STATUSES if status == ["all"]
                    else tuple(RecordStatus(_member("status", v, RecordStatus)) for v in status)),
            min_confidence=threshold,
            session=session,
            episode_id=_texts("episode_id", raw),
            origin=_texts("origin", raw),
            as_of=None if as_of is None or as_of == "" else parse_day(as_of),
        )


FILTER_KEYS = tuple(f.name for f in fields(RecordFilter))


def _values(key: str, raw: Any) -> list[Any]:
    if raw is None or raw == "":
        return []
    if isinstance(raw, str | int | float):
        return [raw]
    if isinstance(raw, Sequence | set | frozenset):
        return [v for v in raw if v is not None and v != ""]
    raise StoreError(f"records filter '{key}': expected a value or a list, got {type(raw).__name__}")


def _texts(key: str, raw: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in _values(key, raw.get(key)))


def _member(key: str, value: Any, enum: type[Modality] | type[RecordStatus]) -> str:
    allowed = [m.value for m in enum]
    if str(value) not in allowed:
        raise StoreError(f"records filter '{key}': unknown value {value!r} (known: {', '.join(allowed)})")
    return str(value)
