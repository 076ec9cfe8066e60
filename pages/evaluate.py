"""Evaluate: run benchmark questions — this conversation's, or a LoCoMo, REALTALK, BEAM or LongMemEval
file (uploaded, or a path on this machine — a BEAM chat directory too; the format detected or
chosen) — with progress; per-category or per-question-type bars and table, the recall/budget curve,
a per-question table whose rows open their trace, and triage of missed evidence and wrong answers."""

import streamlit as st

from components import eval_view
from components.services import call, services, session_services
from components.state import require_conv, session_settings
from memory_core.models import Source
from memory_core.services.evaluating import ABSTENTION, QUESTION_TYPES

svc = services()
conv = require_conv()
st.title("Evaluate")
settings = session_settings(svc.settings)
strategies = call(svc.queries.strategies)

OWN, UPLOAD = "This conversation's questions", "Upload a benchmark file"
PATH = "A benchmark file on this machine"
source_kind = st.radio("Questions", [OWN, UPLOAD, PATH], horizontal=True)
source: Source | str | None = None
if source_kind == UPLOAD:
    upload = st.file_uploader("Benchmark file (LoCoMo, REALTALK or LongMemEval JSON)", type=["json"])
    source = eval_view.upload_source(upload) if upload is not None else None
elif source_kind == PATH:
    path = st.text_input("Path of a benchmark file or a BEAM chat directory",
                         placeholder="e.g. /data/longmemeval_s.json",
                         help="LoCoMo, REALTALK or LongMemEval JSON, or a BEAM chat's directory").strip()
    source = path or None
benchmark = eval_view.LOCOMO
types: list[str] = []
limit = 0
if source is not None:
    fmt = st.selectbox("Format", ["detect", *eval_view.BENCHMARKS], format_func=lambda f: (
        "detect from the content" if f == "detect" else eval_view.BENCHMARKS[f]))
    detected = eval_view.detected_format(svc, source) if fmt == "detect" else fmt
    if detected not in eval_view.BENCHMARKS:
        st.error(f"This file reads as the {detected} format, not a benchmark layout (LoCoMo, "
                 "REALTALK, BEAM or LongMemEval): choose the format if it is one.")
        st.stop()
    benchmark = detected
    st.caption(f"{eval_view.BENCHMARKS[benchmark]} layout"
               + (" (detected)" if fmt == "detect" else ""))
    if benchmark == eval_view.LONGMEMEVAL:
        c = st.columns(2)
        types = c[0].multiselect("Question types (none = all)", [*QUESTION_TYPES, ABSTENTION])
        limit = int(c[1].number_input("Questions (0 = all)", 0, 100_000, 0, 1,
                                      help="each question is a haystack, imported and built if new"))
c = st.columns(2)
strategy = c[0].selectbox("Strategy", strategies, index=strategies.index(settings["strategy"])
                          if settings["strategy"] in strategies else 0)
budget = c[1].number_input("Token budget (0 = the strategy's own)", 0, 100_000,
                           int(settings["budget_tokens"] or 0), 100)
if st.button("Run evaluation", type="primary", disabled=source_kind != OWN and source is None):
    progress = eval_view.Progress("Preparing…")
    if benchmark == eval_view.LONGMEMEVAL and source is not None:
        finished = call(session_services().evaluation.longmemeval, source, types=types or None,
                        limit=limit or None, strategy=strategy, budget_tokens=int(budget) or None,
                        on_progress=progress, save_traces=True)
    else:
        finished = call(session_services().evaluation.evaluate, [conv] if source is None else source,
                        strategy=strategy, budget_tokens=int(budget) or None, on_progress=progress,
                        save_traces=True)
    progress.done(f"Done in {finished.seconds:.1f} s")
    st.session_state[eval_view.REPORT_KEY] = eval_view.report_to_state(finished, benchmark, saved=True)

run = st.session_state.get(eval_view.REPORT_KEY)
if run:
    st.subheader(f"Results · {eval_view.BENCHMARKS[run.benchmark]} · {run.report.strategy}")
    eval_view.show_summary(run)
    if run.benchmark != eval_view.LONGMEMEVAL:
        eval_view.unscored_note(svc, run.report.conv_ids)
    f1_below = st.slider("An answer is wrong below this answer F1", 0.0, 1.0, eval_view.WRONG_F1, 0.05,
                         help="or when the evidence does not (fully) support it, or a judge said so")
    gold = {} if run.benchmark == eval_view.LONGMEMEVAL else call(
        eval_view.gold_evidence, svc, run.report.conv_ids)
    rows = eval_view.question_table(run, gold, f1_below=f1_below)
    st.subheader("Triage")
    st.caption(eval_view.outcome_counts(rows))
    picked = eval_view.triage_filters(rows)
    if picked:
        pick = st.selectbox(f"Question ({len(picked)} match the filters)", range(len(picked)),
                            format_func=lambda i: eval_view.pick_label(picked[i]))
        chosen = picked[pick]
        row = next(r for r in run.rows if r.qid == chosen.qid and r.conv_id == chosen.conversation)
        eval_view.show_answer_check(row, chosen)
        if row.evidence or run.benchmark != eval_view.LONGMEMEVAL:
            triaged = call(svc.evaluation.triage, row.conv_id, int(row.qid), row)
            eval_view.show_triage(triaged, eval_view.record_labels(svc, triaged))
    else:
        st.caption("No question matches the filters.")

if benchmark != eval_view.LONGMEMEVAL and (source_kind == OWN or source is not None):
    st.subheader("Recall at each token budget")
    chosen_strategies = st.multiselect("Strategies to compare", strategies, default=[
        s for s in ("ensimem", "bm25") if s in strategies])
    if st.button("Compute the curve", disabled=not chosen_strategies):
        progress = eval_view.Progress("Preparing…")
        st.session_state[eval_view.CURVE_KEY] = call(
            svc.evaluation.curve, [conv] if source is None else source, strategies=chosen_strategies,
            on_progress=progress)
        progress.done("Done")
    if curve := st.session_state.get(eval_view.CURVE_KEY):
        eval_view.show_curve(curve)
