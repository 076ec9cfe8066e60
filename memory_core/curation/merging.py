"""The merge and revert algorithms of curation as pure functions: records in, new rows out.

The curation service reads what these need from the store, calls them, and writes what they
return in one transaction; nothing here touches a store, an index or an embedder.

* ``plan_merge`` — entity ``merge`` folded into ``keep``: every record naming ``merge`` (any
  spelling, as its entity or as its value) re-pointed to ``keep``'s name (and, as entity, to
  ``keep``'s type), with the edit's before/after (target kind ``entity``);
* ``plan_merge_revert`` — the records of a merge edit restored, with the revert edit's
  before/after; ``stale_since`` names the first record changed since the edit;
* ``plan_record_revert`` — a record edit undone (a creation is undone by deleting);
* ``record_diff``, ``conflict_message``, ``changed_since_message`` — what the UI and the
  errors show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory_core.construct.graph_refresh import ENTITY_EDIT, Names
from memory_core.curation import edits as ed
from memory_core.errors import StoreError
from memory_core.models import Edit, Record, RecordStatus

ENTITY = ENTITY_EDIT
RECORD = "record"

Update = tuple[Record, Record]  # (current, new)


@dataclass(frozen=True)
class MergePlan:
    keep_name: str
    merge_name: str
    updates: list[Update]
    before: dict[str, Any]  # the merge edit's before / after
    after: dict[str, Any]


def merge_fields(record: Record) -> dict[str, Any]:
    """The fields a merge may change, with the version they were read at."""
    return {"entity": record.entity, "entity_type": record.entity_type, "value": record.value,
            "version": record.version}


def merge_keys(names: Names, keep: str, merge: str) -> tuple[str, str]:
    """The canonical keys of the two names; refuses empty names and a merge with itself."""
    if not keep or not merge:
        raise StoreError("merge entities: both names are needed")
    keep_key, merge_key = names.key(keep), names.key(merge)
    if keep_key == merge_key:
        raise StoreError(f"merge entities: '{keep}' and '{merge}' are the same entity")
    return keep_key, merge_key


def naming(names: Names, key: str, records: Sequence[Record]) -> list[Record]:
    """The records whose entity or value resolves to ``key``."""
    return [r for r in records if key in (names.key(r.entity), names.key(r.value))]


def dominant_type(records: Sequence[Record], name: str) -> str:
    """The most frequent entity type of the records whose entity is ``name`` ("entity" if none)."""
    types: dict[str, int] = {}
    for r in records:
        if r.entity.strip().lower() == name.strip().lower():
            types[r.entity_type] = types.get(r.entity_type, 0) + 1
    return max(sorted(types), key=lambda t: types[t]) if types else "entity"


def plan_merge(names: Names, keep: str, merge: str, merge_records: Sequence[Record], keep_type: str
               ) -> MergePlan:
    """Re-point ``merge_records`` (the records naming ``merge``) to ``keep``.

    Known names take their entity's canonical spelling; ``keep_type`` is the type given to a
    re-pointed entity (the known entity's type, else the dominant type of ``keep``'s records)."""
    keep_key, merge_key = names.key(keep), names.key(merge)
    known = names.known.get(keep_key)
    keep_name = known.name if known is not None else keep
    merge_name = known_m.name if (known_m := names.known.get(merge_key)) is not None else merge
    updates: list[Update] = []
    for r in merge_records:
        change: dict[str, Any] = {}
        if names.key(r.entity) == merge_key:
            change = {"entity": keep_name, "entity_type": keep_type}
        if names.key(r.value) == merge_key:
            change["value"] = keep_name
        if change:
            updates.append((r, ed.apply_changes(r, change)))
    before = {"name": merge_name, "merged_into": None,
              "records": {old.id: merge_fields(old) for old, _ in updates}}
    after = {"name": merge_name, "merged_into": keep_name, "records": {
        new.id: {**merge_fields(new), "version": new.version + 1} for _, new in updates}}
    return MergePlan(keep_name, merge_name, updates, before, after)


def stale_since(edit: Edit, current: Mapping[str, Record]) -> Record | None:
    """The first record of a merge edit whose version is no longer the one the edit left."""
    after = (edit.after or {}).get("records", {})
    for rid in (edit.before or {}).get("records", {}):
        if current[rid].version != after.get(rid, {}).get("version"):
            return current[rid]
    return None


def plan_merge_revert(edit: Edit, current: Mapping[str, Record]) -> tuple[list[Update], dict[str, Any],
                                                                          dict[str, Any]]:
    """The records of merge ``edit`` restored, and the revert edit's before/after (``current``:
    the records as they are now, by id; check ``stale_since`` first)."""
    before = (edit.before or {}).get("records", {})
    updates: list[Update] = []
    for rid, fields in before.items():
        now = current[rid]
        updates.append((now, ed.apply_changes(now, {k: v for k, v in fields.items() if k != "version"})))
    new_before = {**(edit.after or {}), "records": {
        old.id: {**merge_fields(old), "version": old.version} for old, _ in updates}}
    new_after = {**(edit.before or {}), "records": {
        new.id: {**merge_fields(new), "version": new.version + 1} for _, new in updates}}
    return updates, new_before, new_after


def record_revert_is_stale(edit: Edit, current: Record) -> bool:
    return (edit.after or {}).get("version") != current.version


def plan_record_revert(edit: Edit, current: Record) -> Record:
    """``current`` as it was before record ``edit`` (a creation is reverted by deleting)."""
    if edit.before is None:
        return current.model_copy(update={"status": RecordStatus.DELETED})
    return ed.restore({**edit.before, "version": current.version})


def record_diff(edit: Edit) -> list[tuple[str, Any, Any]]:
    """(field, before, after) of an edit; for a merge, one row per re-pointed record field."""
    if edit.target_kind == ENTITY:
        rows: list[tuple[str, Any, Any]] = []
        before = (edit.before or {}).get("records", {})
        after = (edit.after or {}).get("records", {})
        rows.append(("merged_into", (edit.before or {}).get("merged_into"),
                     (edit.after or {}).get("merged_into")))
        for rid in sorted(set(before) | set(after)):
            for field, b, a in ed.diff_snapshots(before.get(rid), after.get(rid)):
                rows.append((f"{rid}.{field}", b, a))
        return rows
    return ed.diff_snapshots(edit.before, edit.after)


def conflict_message(current: Record, expected_version: int, last: Edit | None) -> str:
    """One line: who changed the record since the editor opened ``expected_version``, and how."""
    by = f" by {last.who} at {last.at:%Y-%m-%d %H:%M:%S} ({last.action}" + (
        f": {last.why})" if last.why else ")") if last is not None else ""
    changes = "" if last is None else "; ".join(
        f"{f}: {b!r} -> {a!r}" for f, b, a in ed.diff_snapshots(last.before, last.after))
    return (f"record '{current.id}' was changed{by} since you opened version {expected_version}; "
            f"it is now version {current.version}" + (f" [{changes}]" if changes else "")
            + "; reload it and apply your change again")


def changed_since_message(edit: Edit, current: Record, record_edits: Sequence[Edit]) -> str:
    """One line: why ``edit`` cannot be reverted (``record_edits``: the record's edits)."""
    later = [e for e in record_edits if e.at >= edit.at and e.id != edit.id]
    what = f"; later: {later[-1].action} by {later[-1].who}" if later else ""
    return (f"cannot revert {edit.id}: record '{current.id}' changed since (now version "
            f"{current.version}{what}); revert the later edit first")
