"""The merge/revert algorithms as pure functions: records in, new rows out (no store)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_core.construct.graph_refresh import Names, annotator_pairs
from memory_core.curation import edits as ed
from memory_core.curation import merging
from memory_core.errors import StoreError
from memory_core.models import Edit, Entity, Record, RecordStatus
from tests.curation.handmade import CONV, records

ALL = [r for rs in records().values() for r in rs]
MEL = Entity(id=f"{CONV}:ent:mel", conv_id=CONV, name="Mel", type="person")
NAMES = Names.of([MEL], [], [], ["Ana", "Ben"])


def _edit(plan: merging.MergePlan) -> Edit:
    return ed.make_edit(conv_id=CONV, target_kind=merging.ENTITY, target_id=plan.merge_name, action="merge",
                        who="ana", why="", before=plan.before, after=plan.after)


def test_merge_repoints_entity_and_value_spellings() -> None:
    keep_key, merge_key = merging.merge_keys(NAMES, "Mel", "Melanie")
    assert (keep_key, merge_key) == ("mel", "melanie")
    found = merging.naming(NAMES, merge_key, ALL)
    assert [r.id for r in found] == ["c1:S2:E1:R2"]
    plan = merging.plan_merge(NAMES, "Mel", "Melanie", found, "person")
    assert (plan.keep_name, plan.merge_name) == ("Mel", "Melanie")
    ((old, new),) = plan.updates
    assert (old.entity, new.entity, new.entity_type, new.value) == ("Melanie", "Mel", "person", "with Ana")
    assert plan.before == {"name": "Melanie", "merged_into": None, "records": {old.id: {
        "entity": "Melanie", "entity_type": "person", "value": "with Ana", "version": 1}}}
    assert plan.after["merged_into"] == "Mel" and plan.after["records"][old.id]["version"] == 2
    # a value naming the merged entity is re-pointed too ("Ana friend_of Mel" when merging Mel into Ana's Mel)
    plan2 = merging.plan_merge(NAMES, "Melanie", "Mel", merging.naming(NAMES, "mel", ALL), "person")
    changed = {old.id: (new.entity, new.value) for old, new in plan2.updates}
    assert changed == {"c1:S1:E1:R3": ("Melanie", "Ana"), "c1:S1:E1:R4": ("Ana", "Melanie")}


@pytest.mark.parametrize(("keep", "merge", "message"), [
    ("", "Mel", "both names are needed"),
    ("Mel", "the Mel", "are the same entity"),
])
def test_merge_keys_refusals(keep: str, merge: str, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        merging.merge_keys(NAMES, keep, merge)


def test_dominant_type_counts_only_the_entity_itself() -> None:
    assert merging.dominant_type(ALL, "lisbon") == "place"
    assert merging.dominant_type(ALL, "Nobody") == "entity"


def test_merge_revert_restores_and_detects_later_changes() -> None:
    plan = merging.plan_merge(NAMES, "Mel", "Melanie", merging.naming(NAMES, "melanie", ALL), "person")
    edit = _edit(plan)
    saved = {new.id: new.model_copy(update={"version": new.version + 1}) for _, new in plan.updates}
    assert merging.stale_since(edit, saved) is None
    updates, before, after = merging.plan_merge_revert(edit, saved)
    ((now, restored),) = updates
    assert (now.entity, restored.entity, restored.version) == ("Mel", "Melanie", 2)
    assert before["merged_into"] == "Mel" and after["merged_into"] is None
    assert after["records"][now.id]["version"] == 3
    # the pair list an edit log gives: merged while the latest edit says so
    revert = ed.make_edit(conv_id=CONV, target_kind=merging.ENTITY, target_id="Melanie", action="revert",
                          who="ana", why="", before=before, after=after, reverts=edit.id)
    assert annotator_pairs([edit]) == [("Mel", "Melanie")]
    assert annotator_pairs([edit, revert]) == []
    later = {rid: r.model_copy(update={"version": r.version + 1}) for rid, r in saved.items()}
    assert merging.stale_since(edit, later) is not None


def test_record_revert_of_a_creation_deletes_and_of_an_update_restores() -> None:
    rec = ALL[1]
    created = ed.make_edit(conv_id=CONV, target_kind=merging.RECORD, target_id=rec.id, action="create",
                           who="ana", why="", before=None, after=ed.snapshot(rec))
    assert not merging.record_revert_is_stale(created, rec)
    assert merging.plan_record_revert(created, rec).status == RecordStatus.DELETED
    changed = ed.apply_changes(rec, {"value": "ink"}).model_copy(update={"version": 2})
    update = ed.make_edit(conv_id=CONV, target_kind=merging.RECORD, target_id=rec.id, action="update",
                          who="ana", why="", before=ed.snapshot(rec), after=ed.snapshot(changed))
    assert merging.record_revert_is_stale(update, rec)
    restored: Record = merging.plan_record_revert(update, changed)
    assert (restored.value, restored.version) == ("watercolour", 2)
    assert merging.record_diff(update) == [("value", "watercolour", "ink")]  # versions are not shown


def test_conflict_messages_are_one_line() -> None:
    rec = ALL[1].model_copy(update={"version": 3})
    last = ed.make_edit(conv_id=CONV, target_kind=merging.RECORD, target_id=rec.id, action="update",
                        who="bea", why="typo", before={"value": "a"}, after={"value": "b"})
    last = last.model_copy(update={"at": datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)})
    message = merging.conflict_message(rec, 1, last)
    assert message == (f"record '{rec.id}' was changed by bea at 2024-01-02 03:04:05 (update: typo) since "
                       "you opened version 1; it is now version 3 [value: 'a' -> 'b']; reload it and "
                       "apply your change again")
    assert merging.changed_since_message(last, rec, [last]) == (
        f"cannot revert {last.id}: record '{rec.id}' changed since (now version 3); "
        "revert the later edit first")
