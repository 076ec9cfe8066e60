"""History-page pieces: the edit log with diffs, revert, exports, impact of corrections."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from components.text import md, shorten
from memory_core.errors import ConflictError, MnemoscopeError
from memory_core.models import Edit
from memory_core.services import Services

IMPACT_KEY = "impact_report"


def log_table(edits: list[Edit]) -> None:
    st.dataframe(pd.DataFrame([{
        "when": e.at, "who": e.who, "action": e.action, "target": e.target_id, "why": e.why,
        "reverts": e.reverts or ""} for e in reversed(edits)]), hide_index=True)


def edit_label(e: Edit) -> str:
    return shorten(f"{e.at:%Y-%m-%d %H:%M:%S} · {e.who} · {e.action} {e.target_id}", 100)


def diff(svc: Services, edit: Edit) -> None:
    rows = [{"field": f, "before": _show(b), "after": _show(a)} for f, b, a in svc.curation.record_diff(edit)]
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True)
    else:
        st.caption("No field changed.")
    if edit.why:
        st.caption(f"why: {md(edit.why)}")


def _show(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return str(value)


def revert(svc: Services, edit: Edit, who: str) -> None:
    why = st.text_input("Why revert", key=f"revert_why:{edit.id}")
    if st.button("Revert this edit", key=f"revert:{edit.id}"):
        try:
            svc.curation.revert_edit(edit.id, who=who, why=why)
        except ConflictError as exc:
            st.error(f"Conflict: {md(exc)}")
        except MnemoscopeError as exc:
            st.error(md(exc))
        else:
            st.session_state["history_flash"] = f"Reverted {edit.id}."
            st.rerun()


def graphml_bytes(svc: Services, conv: str) -> bytes:
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


def exports(svc: Services, conv: str) -> None:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in conv)
    c = st.columns(2)
    c[0].download_button("Corrected records (JSONL)", lambda: svc.curation.export_corrected_records(conv),
                         file_name=f"{safe}-records.jsonl", mime="application/jsonl", on_click="ignore")
    c[1].download_button("Graphs (GraphML)", lambda: graphml_bytes(svc, conv),
                         file_name=f"{safe}.graphml", mime="application/xml", on_click="ignore")


def impact_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [{
        "question": r["question"], "changed": _changed(r),
        "answer before": r["before_answer"] or "(never asked)",
        "answer after": r["after_answer"], "plan changed": r["plan_changed"],
        "buffer +": ", ".join(r["buffer_added"]), "buffer −": ", ".join(r["buffer_removed"]),
        "error": r.get("error") or ""} for r in report["rows"]]


def _changed(r: dict[str, Any]) -> bool:
    return bool(r["answer_changed"] or r["plan_changed"] or r["buffer_added"] or r["buffer_removed"])
