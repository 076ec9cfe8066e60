"""Evaluate: run LoCoMo-format questions (this conversation's, or an uploaded file) with progress;
per-category bars, the recall/budget curve, a per-question table and triage of a miss."""

import streamlit as st

from components import eval_view
from components.services import call, services, session_services
from components.state import require_conv, session_settings

svc = services()
conv = require_conv()
st.title("Evaluate")
settings = session_settings(svc.settings)
strategies = call(svc.queries.strategies)

source_kind = st.radio("Questions", ["This conversation's questions", "Upload a LoCoMo-format file"],
                       horizontal=True)
upload = st.file_uploader("LoCoMo-format file", type=["json"]) if source_kind.startswith("Upload") else None
source = [conv] if upload is None else eval_view.upload_source(upload)
c = st.columns(2)
strategy = c[0].selectbox("Strategy", strategies, index=strategies.index(settings["strategy"])
                          if settings["strategy"] in strategies else 0)
budget = c[1].number_input("Token budget (0 = the strategy's own)", 0, 100_000,
                           int(settings["budget_tokens"] or 0), 100)
if st.button("Run evaluation", type="primary", disabled=source_kind.startswith("Upload") and upload is None):
    progress = eval_view.Progress("Preparing…")
    finished = call(session_services().evaluation.evaluate, source, strategy=strategy,
                    budget_tokens=int(budget) or None, on_progress=progress)
    progress.done(f"Done in {finished.seconds:.1f} s")
    st.session_state[eval_view.REPORT_KEY] = eval_view.report_to_state(finished)

report = st.session_state.get(eval_view.REPORT_KEY)
if report:
    st.subheader(f"Results · {report['strategy']}")
    eval_view.show_summary(report)
    rows = eval_view.question_table(report, call(eval_view.gold_evidence, svc, report["conv_ids"]))
    missed = [r for r in rows if r["evidence found"] is False]
    st.subheader(f"Triage ({len(missed)} questions whose gold evidence was not all retrieved)")
    if missed:
        pick = st.selectbox("Question", range(len(missed)), format_func=lambda i: missed[i]["question"][:100])
        row = next(r for r in report["rows"] if r["qid"] == missed[pick]["qid"]
                   and r["conv_id"] == missed[pick]["conversation"])
        eval_view.show_triage(call(svc.evaluation.triage, row["conv_id"], int(row["qid"]), row))

st.subheader("Recall at each token budget")
chosen = st.multiselect("Strategies to compare", strategies, default=[s for s in ("ensimem", "bm25")
                                                                     if s in strategies])
if st.button("Compute the curve", disabled=not chosen):
    progress = eval_view.Progress("Preparing…")
    st.session_state[eval_view.CURVE_KEY] = call(svc.evaluation.curve, source, strategies=chosen,
                                                 on_progress=progress)
    progress.done("Done")
if curve := st.session_state.get(eval_view.CURVE_KEY):
    eval_view.show_curve(curve)
