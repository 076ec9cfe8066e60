"""History: the edit log with diffs, revert, exports (corrected records JSONL, graphs GraphML),
the impact of corrections on the saved questions, before and after side by side, and (admins)
the audit trail."""

import streamlit as st

from components import audit_view, history_view, impact_view, links, record_forms
from components.services import call, services
from components.state import require_conv
from components.text import md
from memory_core.progress import Step

svc = services()
conv = require_conv()
st.title("History")
if flash := st.session_state.pop("history_flash", None):
    st.success(md(flash))

edits = call(svc.curation.edit_log, conv)
st.subheader(f"Edit log ({len(edits)})")
if edits:
    history_view.log_table(edits)
    newest = list(reversed(edits))
    by_id = {e.id: e for e in edits}
    pick = st.selectbox("Edit", range(len(newest)),
                        format_func=lambda i: history_view.edit_label(newest[i], by_id))
    chosen = newest[pick]
    if chosen.target_kind == "record":
        links.show("record " + links.record_link(conv, chosen.target_id, history_view.target_name(chosen)))
    history_view.diff(svc, chosen)
    record_forms.annotator_box()
    history_view.revert(svc, chosen, record_forms.who(), via="history page")
else:
    st.caption("No edit yet: corrections made on the Records page appear here.")

audit_view.show(svc, conv)  # admins: who read, asked, changed, exported, forgot (filterable)

st.subheader("Export")
history_view.exports(svc, conv)

st.subheader("Impact of corrections")
st.caption("Re-ask this conversation's saved questions against the corrected memory and compare each "
           "answer, plan and buffer with the answer given before an edit (or the last time it was asked).")
baseline = impact_view.impact_baseline(edits)
if st.button("Re-run saved questions"):
    bar = st.progress(0.0, text="Re-asking…")

    def advance(step: Step) -> None:
        bar.progress(step.done / max(step.total, 1), text=f"Question {step.done}/{step.total}")

    impact = call(svc.curation.impact, conv, on_progress=advance,
                  before=baseline.at if baseline is not None else None)
    st.session_state[impact_view.IMPACT_KEY] = impact
if report := st.session_state.get(impact_view.IMPACT_KEY):
    impact_view.render(svc, report)
