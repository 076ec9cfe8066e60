"""Evaluate-page pieces: run with progress, per-category (LoCoMo) or per-question-type
(LongMemEval) bars and table, recall/budget curve, a per-question table whose rows open their
trace, and triage of questions that missed evidence, answered wrong, or both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from components import links, plots
from components.text import esc, md, shorten
from memory_core.eval_rows import EvalRow, Triage
from memory_core.eval_summary import Figure
from memory_core.models import Source
from memory_core.progress import CurvePoint, Step
from memory_core.services import MemoryServices
from memory_core.services.evaluating import (
    ABSTENTION,
    OUTCOMES,
    WRONG_F1,
    EvalReport,
    EvalSummary,
    evidence_missed,
    outcome,
)

REPORT_KEY = "eval_report"
CURVE_KEY = "eval_curve"
METRICS = ("full_recall", "coverage", "answer_f1")
LME_METRICS = ("full_recall", "session_recall_all@5", "session_recall_all@10", "answer_f1")
LOCOMO, LONGMEMEVAL = "locomo", "longmemeval"
BENCHMARKS = {LOCOMO: "LoCoMo", "realtalk": "REALTALK", "beam": "BEAM", LONGMEMEVAL: "LongMemEval"}
"""Each layout the page evaluates; all but LongMemEval are scored as LoCoMo is (QA with evidence ids)."""


def upload_source(upload: UploadedFile) -> Source:
    """An uploaded LoCoMo-format file as the evaluation reads it: its name and bytes (never
    written to disk)."""
    return Source.upload(str(upload.name), bytes(upload.getvalue()))


def detected_format(svc: MemoryServices, source: Source | str) -> str:
    """The importer's format of a benchmark file, detected once per file (an upload by its name
    and size, a path by its name and time) and kept in the session."""
    from components.services import call

    if isinstance(source, Source) and source.data is not None:
        key: tuple[str, float | None] = (source.name, len(source.data))
    else:
        path = source.file if isinstance(source, Source) else Path(source)
        try:
            key = (str(path), path.stat().st_mtime)
        except OSError:  # the service names the problem
            key = (str(path), None)
    known: dict[tuple[str, float | None], str] = st.session_state.setdefault("eval_formats", {})
    if key not in known:
        known[key] = call(svc.evaluation.benchmark_format, source)
    return known[key]


class Progress:
    """An ``on_progress`` callback drawing a progress bar and a one-line status."""

    def __init__(self, text: str) -> None:
        self.bar = st.progress(0.0, text=text)

    def __call__(self, step: Step) -> None:
        stage = step.stage
        if stage == "question" and step.total:
            done, total = step.done, step.total
            self.bar.progress(min(1.0, done / total), text=f"Question {done}/{total}")
        elif stage == "question":  # a streamed file: the number of questions is not known ahead
            self.bar.progress(0.5, text=f"Question {step.done} asked")
        elif stage == "curve" and isinstance(point := step.detail, CurvePoint):
            self.bar.progress(0.0, text=md(f"{point.strategy} at {point.budget} tokens: "
                                           f"full recall {point.full_recall:.2f}"))
        elif stage in ("import", "build"):
            about = step.detail if stage == "import" else step.conv_id
            event = step.detail if stage == "build" and step.detail is not None else ""
            self.bar.progress(0.0, text=md(f"{stage}: {about} {event}"[:160]))

    def done(self, text: str) -> None:
        self.bar.progress(1.0, text=text)


@dataclass(frozen=True)
class EvalRun:
    """What the page keeps of a run (in session state): the service's report, the benchmark it
    ran and whether traces were saved."""

    report: EvalReport
    benchmark: str = LOCOMO
    saved_traces: bool = False

    @property
    def rows(self) -> list[EvalRow]:
        """The run's rows (what the page tabulates and triages)."""
        return self.report.rows


@dataclass(frozen=True)
class QuestionLine:
    """One line of the per-question table: a row's outcome and, when saved, its trace's link."""

    conversation: str
    qid: int
    category: str  # as the chart names it
    question: str
    gold: str
    answer: str
    evidence_found: bool | None
    outcome: str  # one of ``OUTCOMES``
    support: str
    tokens: int
    answer_f1: float
    latency_s: float
    trace: str | None  # the link to the question's trace on Ask

    def cells(self) -> dict[str, object]:
        """The table's columns."""
        return {"conversation": self.conversation, "qid": self.qid, "category": self.category,
                "question": self.question, "gold": self.gold, "answer": self.answer,
                "evidence found": self.evidence_found, "outcome": self.outcome, "support": self.support,
                "tokens": self.tokens, "answer F1": self.answer_f1, "latency s": self.latency_s,
                "trace": self.trace}


def report_to_state(report: EvalReport, benchmark: str = LOCOMO, *, saved: bool = False) -> EvalRun:
    """What the page keeps of a run."""
    return EvalRun(report, benchmark, saved)


def summary_rows(summary: EvalSummary, benchmark: str = LOCOMO) -> list[dict[str, Figure]]:
    """The table's lines: one per group with questions (LoCoMo: categories, then overall)."""
    if benchmark == LONGMEMEVAL:  # question types, then abstentions, then overall (as summarised)
        return [{"category": k, **g.to_json()} for k, g in summary.items() if g.n]
    keys = [k for k in ("1", "2", "3", "4", "5") if k in summary and summary[k].n] + ["overall"]
    return [{"category": summary[k].name or k, **summary[k].to_json()} for k in keys if k in summary]


def show_summary(run: EvalRun) -> None:
    benchmark = run.benchmark
    summary = run.report.summary
    rows = summary_rows(summary, benchmark)
    overall = summary.overall
    n, recall, tokens, f1 = ((overall.n, overall.full_recall, overall.tokens_mean, overall.answer_f1)
                             if overall is not None else (0, None, None, None))
    recall_at = (overall.session_recall or {}) if overall is not None else {}
    lme = benchmark == LONGMEMEVAL
    cols = st.columns(5 if lme else 4)
    cols[0].metric("Questions", n, help="scored questions (abstentions apart)" if lme else
                   "scored questions (LoCoMo categories 1-4; adversarial ones are not scored)")
    cols[1].metric("Full evidence recall", _pct(recall),
                   help="share of questions whose every gold evidence turn is in the buffer")
    cols[2].metric("Mean buffer tokens", f"{float(tokens or 0):.0f}")
    cols[3].metric("Answer F1", _pct(f1), help="token overlap of the answer with the gold answer (0-100 %)")
    if lme:
        cols[4].metric("Session recall_all@5", _pct(recall_at.get(5)),
                       help="share of questions whose every answer session is among the 5 best-ranked "
                            "sessions (as the LongMemEval paper defines it)")
    st.plotly_chart(plots.category_bars(rows, LME_METRICS if lme else METRICS))
    names = ("full_recall", "coverage", "answer_f1", "latency_p50", "latency_p95", "session_recall_all@5",
             "session_recall_all@10", "abstained")
    number = {k: st.column_config.NumberColumn(k, format="%.3f") for k in names}
    number["tokens_mean"] = st.column_config.NumberColumn("tokens_mean", format="%.0f")
    if lme:
        number["category"] = st.column_config.TextColumn("question type")
        number["full_recall"] = st.column_config.NumberColumn(
            "turn recall", format="%.3f", help="all has_answer turns in the buffer")
        number["abstained"] = st.column_config.NumberColumn(
            "correct abstentions", format="%.3f", help="abstention questions answered 'unknown'")
        order: tuple[str, ...] = ("category", "n", "full_recall", "coverage", "session_recall_all@5",
                                  "session_recall_all@10", "tokens_mean", "answer_f1", "abstained",
                                  "latency_p50", "latency_p95")
        if ABSTENTION in summary:
            st.caption("Abstention questions (the haystack does not hold the answer) are counted apart: "
                       "not scored for recall; an answer of \"unknown\" is a correct abstention. "
                       "\"overall\" leaves them out.")
    else:
        order = ("category", "n", "scored", "full_recall", "coverage", "tokens_mean", "answer_f1",
                 "latency_p50", "latency_p95")
    st.dataframe(pd.DataFrame(rows), hide_index=True, column_config=number,
                 column_order=[c for c in order if any(c in r for r in rows) or c == "category"])


def unscored_note(svc: MemoryServices, conv_ids: Sequence[str]) -> None:
    """Say which of the conversations' questions the run did not score (LoCoMo's adversarial
    category and any category outside 1-4), so none vanishes without a word."""
    from memory_core.services.evaluating import CATEGORY_NAMES, SCORED_CATEGORIES

    left: dict[str, int] = {}
    for conv in conv_ids:
        for q in svc.evaluation.gold_items(conv):
            if q.category not in SCORED_CATEGORIES:
                name = CATEGORY_NAMES.get(q.category or 0, f"category {q.category}")
                left[name] = left.get(name, 0) + 1
    if left:
        said = ", ".join(f"{n} {name}" for name, n in left.items())
        st.caption(f"Not scored: {said} question(s). Adversarial questions ask about something the "
                   "conversation does not say; they have no gold answer or evidence to score against "
                   "(the Ask page shows what the right reply is).")


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * float(value):.1f}%"


def evidence_found(row: EvalRow, gold: Mapping[tuple[str, int], Sequence[str]]) -> bool | None:
    """All gold evidence in the buffer? From the row's own evidence, else the home's gold."""
    if row.evidence:
        missed = evidence_missed(row.to_json())
        return None if missed is None else not missed
    ev = gold.get((row.conv_id, int(row.qid)))
    if not ev:
        return None
    got = set(row.dia_ids)
    return all(t in got for t in ev)


def category_name(category: int | str | None) -> str:
    """A LoCoMo category code as the chart names it (``4`` -> ``single-hop``); a LongMemEval
    question type is already a name."""
    from memory_core.services.evaluating import CATEGORY_NAMES

    code = str(category)
    return CATEGORY_NAMES.get(int(code), f"category {code}") if code.isdigit() else code


def table_rows(run: EvalRun, gold: Mapping[tuple[str, int], Sequence[str]], *,
               f1_below: float = WRONG_F1) -> list[QuestionLine]:
    """One line per question: its outcome and, when the run saved traces, a link to its trace."""
    out = []
    for r in run.rows:
        found = evidence_found(r, gold)
        row = {**r.to_json(), "evidence": r.evidence or list(gold.get((r.conv_id, int(r.qid)), ()))}
        trace = r.trace_id if run.saved_traces else None
        out.append(QuestionLine(
            conversation=r.conv_id, qid=r.qid, category=category_name(r.category), question=r.question,
            gold=r.gold, answer=r.answer, evidence_found=found, outcome=outcome(row, f1_below=f1_below),
            support=r.support, tokens=r.context_tokens, answer_f1=r.answer_f1, latency_s=r.latency_s,
            trace=links.href_trace(r.conv_id, trace) if trace else None))
    return out


def question_table(run: EvalRun, gold: Mapping[tuple[str, int], Sequence[str]], *,
                   f1_below: float = WRONG_F1) -> list[QuestionLine]:
    rows = table_rows(run, gold, f1_below=f1_below)
    config = {"question": st.column_config.TextColumn("question", width="large"),
              "answer": st.column_config.TextColumn("answer", width="large",
                                                    help="the whole answer shows under Triage below"),
              "gold": st.column_config.TextColumn("gold", width="medium"),
              "trace": st.column_config.LinkColumn(
        "trace", display_text="open trace", help="the question's trace on the Ask page"),
        "outcome": st.column_config.TextColumn(
            "outcome", help="missed evidence: a gold evidence turn is not in the buffer; wrong answer: "
                            f"answer F1 below {f1_below:.2f} or an answer the evidence does not "
                            "(fully) support (or a failed abstention); both; ok")}
    order = ("question", "answer", "gold", "outcome", "category", "evidence found", "support", "answer F1",
             "tokens", "latency s", "conversation", "qid", "trace")  # the link last
    st.dataframe(pd.DataFrame([r.cells() for r in rows]), hide_index=True, column_config=config,
                 column_order=order)
    return rows


def triage_filters(rows: Sequence[QuestionLine], key: str = "triage") -> list[QuestionLine]:
    """Category and outcome filters over the table's rows (default: everything not ok)."""
    c = st.columns(2)
    categories = list(dict.fromkeys(r.category for r in rows))
    chosen_cats = c[0].multiselect("Category", categories, default=categories, key=f"{key}_cat")
    chosen = c[1].multiselect("Outcome", list(OUTCOMES), default=[o for o in OUTCOMES if o != "ok"],
                              key=f"{key}_outcome")
    return [r for r in rows if r.category in chosen_cats and r.outcome in chosen]


def outcome_counts(rows: Sequence[QuestionLine]) -> str:
    counts = {o: sum(1 for r in rows if r.outcome == o) for o in OUTCOMES}
    return " · ".join(f"{n} {o}" for o, n in counts.items())


def show_answer_check(row: EvalRow, line: QuestionLine) -> None:
    """The answer against the gold one, and a link to the question's trace."""
    st.markdown(f"**Answer**: {md(row.answer)}  \n**Gold**: {md(row.gold)}")
    st.caption(f"outcome {line.outcome} · answer F1 {float(row.answer_f1):.2f} · "
               f"support {row.support or '—'}")
    if line.trace:
        links.page_link("ask", row.conv_id, "Open this question's trace on Ask",
                        icon=":material/account_tree:", trace=row.trace_id)


def pick_label(r: QuestionLine) -> str:
    return f"[{r.outcome}] {shorten(r.question, 90)}"


def show_curve(curve: dict[str, dict[int, dict[str, float]]]) -> None:
    points: list[plots.Point] = [{"strategy": name, "budget": int(b), **vals}
                                 for name, by in curve.items() for b, vals in by.items()]
    st.plotly_chart(plots.curve(points, "budget", ["full_recall"], group="strategy"))


def show_triage(t: Triage, records: Mapping[str, str] | None = None) -> None:
    """``records``: record id -> a readable label (entity · property = value) for the links."""
    st.markdown(f"**{md(t.question)}** — gold: {md(t.gold)}")
    st.caption(f"{category_name(t.category)} question · all gold evidence retrieved: "
               f"{'yes' if t.full_recall else 'no'} · coverage {float(t.coverage):.2f}")
    st.markdown("**Gold evidence turns** — cited by a record? retrieved? at what rank?")
    st.dataframe(pd.DataFrame([{
        "turn": e.turn_id, "retrieved": e.retrieved, "rank": e.rank,
        "cited by records": len(e.cited_by_records), "text": e.text}
        for e in t.evidence]), hide_index=True, column_config={
            "rank": st.column_config.NumberColumn(help="the turn's place in the fused ranking (1 = best)"),
            "cited by records": st.column_config.NumberColumn(
                help="how many records of the memory cite the turn as evidence (listed below)")})
    cited = [(e.turn_id, e.cited_by_records) for e in t.evidence if e.cited_by_records]
    if cited and records is not None:
        links.show("<br>".join(
            f"{esc(turn)} is cited by " + ", ".join(
                links.record_link(t.conv_id, rid, records.get(rid, rid)) for rid in ids)
            for turn, ids in cited))
    if t.outranked_by:
        st.markdown("**What outranked the missing evidence**")
        st.dataframe(pd.DataFrame([o.to_json() for o in t.outranked_by]), hide_index=True)
    if t.plan:
        with st.expander("Plan"):
            st.json(t.plan)


def record_labels(svc: MemoryServices, triaged: Triage) -> dict[str, str]:
    """Readable labels of the records citing a triaged question's gold turns."""
    from components import data

    ids = list(dict.fromkeys(r for e in triaged.evidence for r in e.cited_by_records))
    return {r.id: shorten(f"{r.entity} · {r.property} = {r.value}", 60)
            for r in data.records_by_ids(svc, ids)} if ids else {}


def gold_evidence(svc: MemoryServices, conv_ids: Sequence[str]) -> dict[tuple[str, int], tuple[str, ...]]:
    """(conversation, qid) -> gold evidence turn ids, normalised as the evaluator does."""
    return {(conv, int(q.qid)): q.evidence for conv in conv_ids for q in svc.evaluation.gold_items(conv)}
