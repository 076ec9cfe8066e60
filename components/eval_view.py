"""Evaluate-page pieces: run with progress, per-category bars, recall/budget curve, per-question
table, triage of a question whose gold evidence was not retrieved."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from components import plots
from components.text import md
from memory_core.services import Services
from memory_core.services.evaluating import Upload

REPORT_KEY = "eval_report"
CURVE_KEY = "eval_curve"
METRICS = ("full_recall", "coverage", "answer_f1")


def upload_source(upload: Any) -> Upload:
    """An uploaded LoCoMo-format file as the evaluation reads it: its name and bytes (never
    written to disk)."""
    return Upload(str(upload.name), bytes(upload.getvalue()))


class Progress:
    """An ``on_progress`` callback drawing a progress bar and a one-line status."""

    def __init__(self, text: str) -> None:
        self.bar = st.progress(0.0, text=text)

    def __call__(self, info: dict[str, Any]) -> None:
        stage = info.get("stage")
        if stage == "question" and info.get("total"):
            done, total = int(info["done"]), int(info["total"])
            self.bar.progress(done / total, text=f"Question {done}/{total}")
        elif stage == "curve":
            self.bar.progress(0.0, text=md(f"{info.get('strategy')} at {info.get('budget')} tokens: "
                                           f"full recall {float(info.get('full_recall') or 0):.2f}"))
        elif stage in ("import", "build"):
            self.bar.progress(0.0, text=md(f"{stage}: {info.get('conv_id') or info.get('conv_ids')} "
                                           f"{info.get('event') or ''}"[:160]))

    def done(self, text: str) -> None:
        self.bar.progress(1.0, text=text)


def report_to_state(report: Any) -> dict[str, Any]:
    return {"strategy": report.strategy, "budget_tokens": report.budget_tokens, "backend": report.backend,
            "rows": [dict(r) for r in report.rows], "summary": dict(report.summary),
            "conv_ids": list(report.conv_ids), "seconds": float(report.seconds)}


def summary_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    keys = [k for k in ("1", "2", "3", "4", "5") if k in summary and summary[k].get("n")] + ["overall"]
    return [{"category": summary[k].get("name", k), **summary[k]} for k in keys if k in summary]


def show_summary(report: dict[str, Any]) -> None:
    rows = summary_rows(report["summary"])
    overall = report["summary"].get("overall", {})
    cols = st.columns(4)
    cols[0].metric("Questions", overall.get("n", 0))
    cols[1].metric("Full evidence recall", _pct(overall.get("full_recall")))
    cols[2].metric("Mean buffer tokens", f"{float(overall.get('tokens_mean') or 0):.0f}")
    cols[3].metric("Answer F1", _pct(overall.get("answer_f1")))
    st.plotly_chart(plots.category_bars(rows, METRICS))
    number = {k: st.column_config.NumberColumn(k, format="%.3f") for k in (
        "full_recall", "coverage", "answer_f1", "latency_p50", "latency_p95")}
    number["tokens_mean"] = st.column_config.NumberColumn("tokens_mean", format="%.0f")
    st.dataframe(pd.DataFrame(rows), hide_index=True, column_config=number, column_order=(
        "category", "n", "scored", "full_recall", "coverage", "tokens_mean", "answer_f1", "latency_p50",
        "latency_p95"))


def _pct(value: Any) -> str:
    return "—" if value is None else f"{100 * float(value):.1f}%"


def evidence_found(row: dict[str, Any], gold: Mapping[tuple[str, int], Sequence[str]]) -> bool | None:
    ev = gold.get((row["conv_id"], int(row["qid"])))
    if not ev:
        return None
    got = set(row.get("dia_ids") or ())
    return all(t in got for t in ev)


def question_table(report: dict[str, Any], gold: Mapping[tuple[str, int], Sequence[str]]) -> list[dict]:
    rows = [{
        "conversation": r["conv_id"], "qid": r["qid"], "category": r["category"], "question": r["question"],
        "gold": r["gold"], "answer": r["answer"], "evidence found": evidence_found(r, gold),
        "tokens": r["context_tokens"], "answer F1": r.get("answer_f1"), "latency s": r["latency_s"]}
        for r in report["rows"]]
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    return rows


def show_curve(curve: dict[str, dict[Any, dict[str, float]]]) -> None:
    points = [{"strategy": name, "budget": int(b), **vals}
              for name, by in curve.items() for b, vals in by.items()]
    st.plotly_chart(plots.curve(points, "budget", ["full_recall"], group="strategy"))


def show_triage(t: dict[str, Any]) -> None:
    st.markdown(f"**{md(t['question'])}** — gold: {md(t['gold'])}")
    st.caption(f"category {t['category']} · all gold evidence retrieved: "
               f"{'yes' if t['full_recall'] else 'no'} · coverage {float(t['coverage']):.2f}")
    st.markdown("**Gold evidence turns** — cited by a record? retrieved? at what rank?")
    st.dataframe(pd.DataFrame([{
        "turn": e["turn_id"], "retrieved": e["retrieved"], "rank": e["rank"],
        "cited by records": ", ".join(e["cited_by_records"]) or "none", "text": e["text"]}
        for e in t["evidence"]]), hide_index=True)
    if t.get("outranked_by"):
        st.markdown("**What outranked the missing evidence**")
        st.dataframe(pd.DataFrame(t["outranked_by"]), hide_index=True)
    if t.get("plan"):
        with st.expander("Plan"):
            st.json(t["plan"])


def gold_evidence(svc: Services, conv_ids: Sequence[str]) -> dict[tuple[str, int], tuple[str, ...]]:
    """(conversation, qid) -> gold evidence turn ids, normalised as the evaluator does."""
    from memory_core.ids import normalise_evidence

    out: dict[tuple[str, int], tuple[str, ...]] = {}
    for conv in conv_ids:
        known = {t.id for t in svc.store.turns(conv)}
        for q in svc.store.qa_items(conv):
            out[(conv, int(q.qid))] = tuple(normalise_evidence(q.evidence, known)[0])
    return out
