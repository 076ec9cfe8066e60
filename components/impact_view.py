"""History's "Impact of corrections": what changed when the saved questions were re-asked.

A question *changed* when its answer text or the turns it cites differ (``ImpactRow.changed``;
a new plan or buffer under the same answer is listed but is not a change). The view lists the
questions (*Changed only* by default), shows each changed question's answer as a word-level
diff with the cited turns it gained and lost (their text), and opens the before / after
comparison on the first changed question. The report (an ``ImpactReport``) lives in session state.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from components import trace_view
from components.history_view import DIFF_CSS, edit_label
from components.services import call
from components.text import esc, shorten
from memory_core.impact_report import ImpactReport, ImpactRow
from memory_core.models import Edit, Trace
from memory_core.services import MemoryServices
from memory_core.services.curation import CurationService

IMPACT_KEY = "impact_report"
BASELINE_KEY = "impact_baseline"
ONLY_KEY = "impact_changed_only"


def impact_baseline(edits: list[Edit]) -> Edit | None:
    """Choose what "before" means: the answers given before one edit (the oldest edit by
    default, so every correction counts), or each question's last answer (``None``)."""
    if not edits:
        return None
    newest = list(reversed(edits))
    by_id = {e.id: e for e in edits}
    options = ["", *[e.id for e in newest]]  # "": each question's last answer
    default = options.index(edits[0].id)
    choice = st.selectbox(
        "Compare with the answers given", options, index=default, key=BASELINE_KEY,
        format_func=lambda i: ("the last time each question was asked" if not i else
                               "before: " + edit_label(by_id[i], by_id)),
        help="Questions first asked after that edit have no “before” and are only re-asked.")
    return by_id.get(str(choice))


def impact_rows(report: ImpactReport, only_changed: bool = False) -> list[dict[str, Any]]:
    """The table's rows: changed ones first named as such; ``only_changed`` keeps just those."""
    return [{
        "question": r.question, "changed": r.changed,
        "answer before": r.before_answer if r.before_answer is not None else "(never asked)",
        "answer after": r.after_answer,
        "cited +": ", ".join(r.cited_added), "cited −": ", ".join(r.cited_removed),
        "plan changed": r.plan_changed,
        "buffer +": ", ".join(r.buffer_added), "buffer −": ", ".join(r.buffer_removed),
        "error": r.error or ""} for r in report.rows if r.changed or not only_changed]


def diff_words_html(before: str, after: str) -> str:
    """One line: kept words plain, removed words struck (``<del>``), added ones marked (``<ins>``);
    every word escaped."""
    tags = {"=": "{}", "-": '<del class="mn-del">{}</del>', "+": '<ins class="mn-ins">{}</ins>'}
    return " ".join(tags[op].format(esc(text)) for op, text in CurationService.answer_diff(before, after))


def _turn_lines(ids: Sequence[str], trace: Trace | None) -> str:
    by_id = {b.turn_id: b for b in trace.buffer} if trace is not None else {}
    return "".join(
        f"<div><b>{esc(t)}</b> {esc(by_id[t].speaker)}: {esc(shorten(by_id[t].text, 160))}</div>"
        if t in by_id else f"<div><b>{esc(t)}</b></div>" for t in ids) or "—"


def changes_html(rows: Sequence[ImpactRow], traces: Mapping[str, Trace]) -> str:
    """A table of the changed questions: the answer's word diff, the cited turns gained (text from
    the new trace) and lost (text from the earlier one)."""
    body = "".join(
        f"<tr><td>{esc(r.question)}</td>"
        f"<td>{diff_words_html(r.before_answer or '', r.after_answer)}</td>"
        f"<td>{_turn_lines(r.cited_added, traces.get(r.after_trace_id))}</td>"
        f"<td>{_turn_lines(r.cited_removed, traces.get(r.before_trace_id or ''))}</td></tr>"
        for r in rows)
    return (DIFF_CSS + '<table class="mn-diff"><tr><th>question</th><th>answer (before → after)</th>'
            "<th>cited turns gained</th><th>cited turns lost</th></tr>" + body + "</table>")


def render(svc: MemoryServices, report: ImpactReport) -> None:
    """The report: a count, *Changed only*, the table, the changed questions' diffs, and the
    before / after traces opened on the first changed question."""
    rows = report.rows
    moved = [r for r in rows if r.changed and r.before_trace_id]
    st.caption(f"{len(moved)} of {len(rows)} questions changed (answer text or cited turns differ) · "
               f"{report.edits_considered} edits considered")
    token = hashlib.sha256("|".join(r.after_trace_id for r in rows).encode()).hexdigest()[:12]
    only = st.toggle("Changed only", value=bool(moved), key=f"{ONLY_KEY}:{token}",
                     help="Only the questions whose answer text or cited turns differ from before.")
    table = impact_rows(report, only_changed=only)
    if table:
        st.dataframe(table, hide_index=True)
    else:
        st.info("No question changed: every re-asked answer and its cited turns are as before.")
    if moved:
        wanted = {t for r in moved for t in (r.before_trace_id, r.after_trace_id) if t}
        traces = {t: call(svc.queries.trace, t) for t in sorted(wanted)}
        st.html(changes_html(moved, traces))
    compared = {r.after_trace_id: r for r in rows if r.before_trace_id and (r.changed or not only)}
    if compared:  # keyed by the re-asked trace: the choice outlives a switch of "Changed only"
        ids = list(compared)
        first = next((k for k, r in enumerate(compared.values()) if r.changed), 0)
        pick = st.selectbox("Before / after", ids, index=first, key=f"impact_pick:{token}",
                            format_func=lambda t: ("changed · " if compared[t].changed else "")
                            + compared[t].question[:100])
        chosen = compared[str(pick)]
        trace_view.comparison([call(svc.queries.trace, str(chosen.before_trace_id)),
                               call(svc.queries.trace, chosen.after_trace_id)],
                              titles=("before", "after"))
