"""History-page pieces: the edit log with diffs and where each edit was made, revert, exports
(the impact of corrections is ``components.impact_view``)."""

from __future__ import annotations

import difflib
import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from components import auth
from components.record_forms import remember_version
from components.text import esc, md, shorten
from memory_core.errors import ConflictError, MnemoscopeError
from memory_core.models import Edit, Record
from memory_core.services import MemoryServices
from memory_core.services.curation import CurationService

ACTIONS = {"update": "edited", "create": "added", "delete": "deleted", "mark_wrong": "marked wrong",
           "restore": "restored", "merge": "merged", "revert": "reverted"}


def target_name(e: Edit) -> str:
    """What an edit changed, as people read it: ``entity · property = value`` for a record
    (from the edit's own snapshots, so a deleted record still has a name), the entity's name
    for a merge."""
    if e.target_kind == "entity":
        keep = (e.after or {}).get("merged_into")
        return f"{e.target_id} → {keep}" if keep else f"entity {e.target_id}"
    snap = e.after or e.before or {}
    if snap.get("entity") is None:
        return e.target_id
    return (f"{shorten(snap.get('entity'), 40)} · {shorten(snap.get('property'), 40)} = "
            f"{shorten(snap.get('value'), 60)}")


def edit_summary(e: Edit, by_id: dict[str, Edit] | None = None) -> str:
    """``who action name`` with the reverted edit named too (``by_id``: the log by id)."""
    text = f"{e.who} {ACTIONS.get(e.action, e.action)} {target_name(e)}"
    if e.reverts:
        old = (by_id or {}).get(e.reverts)
        text += (f" (undoing: {old.who} {ACTIONS.get(old.action, old.action)} on {old.at:%Y-%m-%d %H:%M})"
                 if old is not None else f" (undoing {e.reverts})")
    return text


def log_table(edits: list[Edit]) -> None:
    by_id = {e.id: e for e in edits}
    st.dataframe(pd.DataFrame([{
        "when": e.at, "who": e.who, "what": edit_summary(e, by_id), "where": where(e),
        "fields": ", ".join(f for f, _, _ in CurationService.record_diff(e))[:200], "why": e.why,
        "edit": e.id, "target": e.target_id, "reverts": e.reverts or ""} for e in reversed(edits)]),
        hide_index=True)


def where(e: Edit) -> str:
    """Where in the app the edit was made (``Edit.via``): "browse: table row", "review queue",
    "edit form", … ("—" for edits made before that was kept, or through the library)."""
    return e.via or "—"


def edit_label(e: Edit, by_id: dict[str, Edit] | None = None) -> str:
    return shorten(f"{e.at:%Y-%m-%d %H:%M:%S} · {edit_summary(e, by_id)}", 140)


def diff(svc: MemoryServices, edit: Edit) -> None:
    """The edit's fields before → after, removed words red and added words green."""
    rows = svc.curation.record_diff(edit)
    if rows:
        st.html(diff_html(rows))
    else:
        st.caption("No field changed.")
    if edit.why:
        st.caption(f"why: {md(edit.why)}")


def inline_diff(before: str, after: str) -> tuple[str, str]:
    """Escaped HTML of both sides, word by word: removed words in ``<del>``, added in ``<ins>``."""
    a, b = before.split(" "), after.split(" ")
    left: list[str] = []
    right: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        old, new = esc(" ".join(a[i1:i2])), esc(" ".join(b[j1:j2]))
        if op == "equal":
            left.append(old)
            right.append(new)
            continue
        if i2 > i1:
            left.append(f'<del class="mn-del">{old}</del>')
        if j2 > j1:
            right.append(f'<ins class="mn-ins">{new}</ins>')
    return " ".join(x for x in left if x), " ".join(x for x in right if x)


DIFF_CSS = ("<style>.mn-diff{border-collapse:collapse;font-size:.9rem;width:100%}"
            ".mn-diff td,.mn-diff th{border:1px solid #dee2e6;padding:4px 8px;text-align:left;"
            "vertical-align:top}.mn-del{background:#ffe3e3;color:#c92a2a;text-decoration:line-through}"
            ".mn-ins{background:#d3f9d8;color:#2b8a3e;text-decoration:none}</style>")


def diff_html(rows: list[tuple[str, object, object]]) -> str:
    """A table of (field, before, after): every value escaped, changes coloured."""
    body = []
    for field, before, after in rows:
        left, right = inline_diff(_show(before), _show(after))
        body.append(f"<tr><td>{esc(field)}</td><td>{left}</td><td>{right}</td></tr>")
    return (DIFF_CSS + '<table class="mn-diff"><tr><th>field</th><th>before</th><th>after</th></tr>'
            + "".join(body) + "</table>")


def _show(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return str(value)


CONFIRM_KEY = "revert_confirm"


def revert(svc: MemoryServices, edit: Edit, who: str, *, flash_key: str = "history_flash",
           via: str = "history page") -> None:
    """"Revert this edit…" asks first: the confirmation names what will be restored (not
    offered to a viewer)."""
    if not auth.can("annotate"):
        return
    why = st.text_input("Why revert", key=f"revert_why:{edit.id}")
    if st.session_state.get(CONFIRM_KEY) != edit.id:
        if st.button(f"Revert this edit of {edit.target_id}", key=f"revert:{edit.id}"):
            st.session_state[CONFIRM_KEY] = edit.id
            st.rerun()
        return
    st.warning(f"Revert “{md(shorten(edit_summary(edit), 160))}”? The fields above go back to "
               "their “before” values (a new edit; it can itself be reverted).")
    c = st.columns([1, 1, 4])
    if c[1].button("Cancel", key=f"revert_cancel:{edit.id}"):
        st.session_state.pop(CONFIRM_KEY, None)
        st.rerun()
    if c[0].button(f"Yes, revert {edit.target_id}", key=f"revert_yes:{edit.id}", type="primary"):
        st.session_state.pop(CONFIRM_KEY, None)
        try:
            svc.curation.revert_edit(edit.id, who=who, why=why, via=via)
        except ConflictError as exc:
            st.error(f"Conflict: {md(exc)}")
        except MnemoscopeError as exc:
            st.error(md(exc))
        else:
            if edit.target_kind == "record":  # the editor now looks at the reverted version
                remember_version(svc.imports.record(edit.target_id))
            st.session_state[flash_key] = f"Reverted: {edit_summary(edit)}."
            st.rerun()


def record_history(svc: MemoryServices, record: Record, who: str) -> None:
    """The record's own edits, newest first (who, when, what before → after), with revert."""
    edits = svc.curation.record_history(record.id)
    if not edits:
        st.caption("No edit yet: this record is as the build made it.")
        return
    by_id = {e.id: e for e in edits}
    newest = list(reversed(edits))
    for e in newest:
        changes = "; ".join(f"{f}: {shorten(_show(b), 40)} → {shorten(_show(a), 40)}"
                            for f, b, a in svc.curation.record_diff(e)) or "no field changed"
        why = f" — why: {shorten(e.why, 80)}" if e.why else ""
        st.markdown(f"- **{md(f'{e.at:%Y-%m-%d %H:%M}')}** · {md(e.who)} · "
                    f"{md(ACTIONS.get(e.action, e.action))} in {md(where(e))} · {md(changes)}{md(why)}")
    pick = st.selectbox("Edit of this record", range(len(newest)), key=f"rec_hist:{record.id}",
                        format_func=lambda i: edit_label(newest[i], by_id))
    diff(svc, newest[pick])
    revert(svc, newest[pick], who, flash_key="records_flash", via="record history")


def graphml_bytes(svc: MemoryServices, conv: str) -> bytes:
    with tempfile.TemporaryDirectory(prefix="mnemoscope-export-") as tmp:
        out = Path(tmp) / f"{conv}.graphml"
        svc.builds.export_graphml(conv, out)
        paths = sorted(Path(tmp).iterdir())
        if len(paths) == 1:
            return paths[0].read_bytes()
        # several files (entity + event graph): one zip
        import io
        import zipfile

        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as z:
            for p in paths:
                z.write(p, p.name)
        return buffer.getvalue()


def exports(svc: MemoryServices, conv: str) -> None:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in conv)
    c = st.columns(2)
    c[0].download_button("Corrected records (JSONL)", lambda: svc.curation.export_corrected_records(conv),
                         file_name=f"{safe}-records.jsonl", mime="application/jsonl", on_click="ignore")
    c[1].download_button("Graphs (GraphML)", lambda: graphml_bytes(svc, conv),
                         file_name=f"{safe}.graphml", mime="application/xml", on_click="ignore")
