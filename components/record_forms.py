"""Annotator actions on records: edit any field, add a record from selected turns, mark wrong,
delete, restore, merge two entities. Each is one versioned edit made by the curation service;
project errors (a conflict, a bad value) show as one red line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum

import streamlit as st

from components import auth
from components.text import md, shorten
from memory_core.errors import ConflictError, MnemoscopeError
from memory_core.models import Episode, Record, Turn
from memory_core.services import MemoryServices

MODALITIES = ("observed", "planned", "desired", "hypothetical", "negated")
# where each form's edits are made, as the edit log says it (``Edit.via``)
VIA_EDIT, VIA_STATUS, VIA_ADD, VIA_MERGE = "edit form", "status form", "add form", "merge form"


def who() -> str:
    """The name the edit log records: the logged-in account (the services set it from the
    principal whatever is passed here; this is what the forms show)."""
    principal = st.session_state.get(auth.PRINCIPAL_KEY)
    return str(principal.name) if principal is not None else "annotator"


def read_only() -> bool:
    """A viewer sees no edit form (the curation service refuses its edits anyway)."""
    return not auth.can("annotate")


def annotator_box() -> None:
    """Whose name the changes are recorded under, or that this account may not change records."""
    if read_only():
        st.caption("Read-only: a viewer account can browse, ask and evaluate, not change records.")
    else:
        st.caption(f"Changes are recorded as **{md(who())}**.")


def _run(action: Callable[[], object], success: str) -> bool:
    try:
        result = action()
    except ConflictError as exc:
        st.error(f"Conflict: {md(exc)}")
        return False
    except MnemoscopeError as exc:
        st.error(md(exc))
        return False
    st.session_state["records_flash"] = success
    if isinstance(result, Record):
        remember_version(result)  # the annotator now looks at the saved version
    return True


def flash() -> None:
    if message := st.session_state.pop("records_flash", None):
        st.success(md(message))


def seen_version(record: Record) -> int:
    """The version the annotator was looking at when the form was drawn (for conflicts)."""
    seen = st.session_state.get("records_seen", {})
    return int(seen.get(record.id, record.version))


def remember_version(record: Record) -> None:
    st.session_state["records_seen"] = {record.id: int(record.version)}


def turn_label(t: Turn) -> str:
    """A turn as a picker shows it: ``D3:5 · speaker: first words…``."""
    return f"{t.id} · {shorten(t.speaker, 24)}: {shorten(t.text, 60)}"


def turn_options(turns: Sequence[Turn], current: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The ids a turn picker offers (the episode's turns, then any current evidence outside
    it, so nothing cited disappears silently) and their labels."""
    shown = {t.id: turn_label(t) for t in turns}
    ids = [t.id for t in turns] + [i for i in current if i not in shown]
    return ids, {i: shown.get(i, f"{i} · (not in this episode)") for i in ids}


def edit_form(svc: MemoryServices, record: Record, turns: Sequence[Turn] = ()) -> None:
    """Edit any field; evidence is picked from the episode's turns (``turns``). The form is
    keyed by the version the annotator saw, so a save made elsewhere in between still reaches
    this form and is reported as a conflict."""
    if read_only():
        return
    expected = seen_version(record)
    k = f"{record.id}:{expected}"
    with st.form(f"edit:{k}"):
        c = st.columns(3)
        values: dict[str, FormValue] = {
            "entity": c[0].text_input("Entity", record.entity, key=f"e:entity:{k}"),
            "entity_type": c[1].text_input("Entity type", record.entity_type, key=f"e:type:{k}"),
            "property": c[2].text_input("Property", record.property, key=f"e:prop:{k}"),
            "value": st.text_area("Value", record.value, key=f"e:value:{k}", height=68),
        }
        d = st.columns(4)
        values["condition"] = d[0].text_input("Condition", record.condition or "", key=f"e:cond:{k}") or None
        values["modality"] = d[1].selectbox("Modality", MODALITIES, key=f"e:mod:{k}",
                                            index=MODALITIES.index(str(record.modality.value)))
        values["valid_time"] = d[2].text_input("Valid time (ISO)", record.valid_time or "",
                                               key=f"e:time:{k}") or None
        values["confidence"] = d[3].number_input("Confidence", 0.0, 1.0, float(record.confidence), 0.05,
                                                 key=f"e:conf:{k}")
        options, names = turn_options(turns, record.evidence_turn_ids)
        values["evidence_turn_ids"] = st.multiselect(
            "Evidence", options, default=list(record.evidence_turn_ids), key=f"e:ev:{k}",
            format_func=lambda i: names.get(i, i), placeholder="pick the turns that say it")
        why = st.text_input("Why", key=f"e:why:{k}", placeholder="reason for the change")
        submitted = st.form_submit_button(f"Save changes to {record.id}", type="primary")
    if submitted:
        changes = {f: v for f, v in values.items() if _differs(getattr(record, f), v)}
        if not changes:
            st.info("Nothing changed.")
        elif _run(lambda: svc.curation.edit_record(record.id, changes, who=who(), why=why,
                                                   expected_version=expected, via=VIA_EDIT),
                  f"Saved {', '.join(changes)} of {record.id}."):
            st.rerun()
    remember_version(record)


FormValue = str | float | list[str] | None  # what the edit form's widgets return
FieldValue = str | float | int | Enum | tuple[str, ...] | None  # a record field the form edits


def _differs(old: FieldValue, new: FormValue) -> bool:
    """Did the form change the field? (evidence as a list, the modality as its value, the
    confidence to within rounding)"""
    if isinstance(old, tuple):
        return not isinstance(new, list) or list(old) != new
    if isinstance(old, Enum):
        return str(old.value) != str(new)
    if isinstance(old, float):
        return not isinstance(new, int | float) or abs(old - float(new)) > 1e-9
    return old != new


def status_actions(svc: MemoryServices, record: Record) -> None:
    if read_only():
        return
    expected = seen_version(record)
    why = st.text_input("Reason", key=f"s:why:{record.id}", placeholder="why (kept in the edit log)")
    status = str(record.status.value)
    c = st.columns(3)
    if status != "wrong" and c[0].button(f"Mark {record.id} as wrong", key=f"s:wrong:{record.id}") and _run(
            lambda: svc.curation.mark_wrong(record.id, who=who(), why=why, expected_version=expected,
                                            via=VIA_STATUS),
            f"Marked {record.id} as wrong."):
        st.rerun()
    if status != "deleted" and c[1].button(f"Delete {record.id}", key=f"s:del:{record.id}") and _run(
            lambda: svc.curation.delete_record(record.id, who=who(), why=why, expected_version=expected,
                                               via=VIA_STATUS),
            f"Deleted {record.id}."):
        st.rerun()
    if status != "active" and c[2].button(f"Restore {record.id}", key=f"s:restore:{record.id}") and _run(
            lambda: svc.curation.restore_record(record.id, who=who(), why=why, expected_version=expected,
                                                via=VIA_STATUS),
            f"Restored {record.id}."):
        st.rerun()


def create_form(svc: MemoryServices, conv: str, episode: Episode, turns: Sequence[Turn]) -> None:
    """A new record written by the annotator from turns of ``episode``."""
    if read_only():
        return
    with st.form(f"create:{episode.id}", clear_on_submit=False):
        labels = {t.id: turn_label(t) for t in turns}
        chosen = st.multiselect("Evidence turns", [t.id for t in turns],
                                format_func=lambda i: labels.get(i, i))
        c = st.columns(3)
        fields: dict[str, str | None] = {
            "entity": c[0].text_input("Entity"),
            "entity_type": c[1].text_input("Entity type", "person"),
            "property": c[2].text_input("Property"),
            "value": st.text_input("Value"),
        }
        c = st.columns(3)
        fields["modality"] = c[0].selectbox("Modality", MODALITIES)
        fields["valid_time"] = c[1].text_input("Valid time (ISO, optional)") or None
        fields["condition"] = c[2].text_input("Condition (optional)") or None
        why = st.text_input("Why", placeholder="reason for adding it")
        submitted = st.form_submit_button("Add record")
    if submitted:
        if not chosen:
            st.error("Choose at least one evidence turn.")
            return
        clean = {k: v for k, v in fields.items() if v not in (None, "")}
        holder: dict[str, Record] = {}

        def _create() -> None:
            holder["record"] = svc.curation.create_record(conv, episode.id, clean, chosen, who=who(), why=why,
                                                          via=VIA_ADD)

        if _run(_create, "Added a record."):
            st.session_state["records_flash"] = f"Added record {holder['record'].id}."
            st.rerun()


def merge_form(svc: MemoryServices, conv: str, names: Sequence[str]) -> None:
    if read_only():
        return
    with st.form("merge"):
        c = st.columns(2)
        keep = c[0].selectbox("Keep this entity", names, key="merge_keep")
        merge = c[1].selectbox("Merge this one into it", names, key="merge_other",
                               index=1 if len(names) > 1 else 0)
        why = st.text_input("Why", key="merge_why", placeholder="e.g. same person, nickname")
        submitted = st.form_submit_button("Merge entities")
    if submitted:
        if keep == merge:
            st.error("Choose two different entities.")
        elif _run(lambda: svc.curation.merge_entities(conv, keep, merge, who=who(), why=why, via=VIA_MERGE),
                  f"Merged {merge} into {keep}."):
            st.rerun()
