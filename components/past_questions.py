"""Past questions on the Ask page: one line per distinct question (newest answer first, how
often and with which strategies it was asked), searchable, with the questions evaluation runs
asked kept in a list of their own (a trace says who asked it; the words do not decide).

A question is the same question when its words are the same (case, spacing and end
punctuation ignored). A benchmark question is one of the conversation's gold questions: its
gold answer is shown beside the trace whoever asked it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import streamlit as st

from components.text import md, shorten
from memory_core.models import QAItem, TraceRow
from memory_core.services import MemoryServices

SHOWN = 30


def normalise(question: str) -> str:
    return re.sub(r"[\s?!.]+$", "", " ".join(str(question).lower().split()))


@dataclass
class Asked:
    question: str
    latest_id: str  # the newest trace of this question
    strategies: list[str] = field(default_factory=list)
    times: int = 0


def group(rows: Iterable[TraceRow]) -> list[Asked]:
    """Traces (newest first) -> distinct questions, newest first."""
    seen: dict[str, Asked] = {}
    for row in rows:
        key = normalise(row.question)
        item = seen.get(key)
        if item is None:
            item = seen[key] = Asked(row.question, row.id)
        item.times += 1
        strategy = row.strategy
        if strategy and strategy not in item.strategies:
            item.strategies.append(strategy)
    return list(seen.values())


def split(rows: Sequence[TraceRow]) -> tuple[list[Asked], list[Asked]]:
    """(questions asked by hand, questions asked by evaluation runs), each grouped: a trace goes
    by who asked it, not by its words — a typed question that is also a benchmark question is
    the user's own."""
    mine = group(r for r in rows if not r.by_evaluation)
    bench = group(r for r in rows if r.by_evaluation)
    return mine, bench


def _label(a: Asked) -> str:
    times = f" · asked {a.times}×" if a.times > 1 else ""
    return f"{shorten(a.question, 90)} · {', '.join(a.strategies)}{times}"


def _links(conv: str, items: Sequence[Asked], query: str) -> None:
    words = query.lower().split()
    found = [a for a in items if all(w in a.question.lower() for w in words)]
    if not found:
        st.caption("No past question matches." if words else "None yet.")
    for a in found[:SHOWN]:
        st.page_link("pages/ask.py", label=md(_label(a)), query_params={"conv": conv, "trace": a.latest_id})
    if len(found) > SHOWN:
        st.caption(f"… and {len(found) - SHOWN} more: narrow the search.")


def render(svc: MemoryServices, conv: str, rows: Sequence[TraceRow], expanded: bool) -> None:
    """The two lists, each in its own expander (only the user's own one opens by default)."""
    mine, bench = split(rows)
    with st.expander(f"Past questions ({len(mine)})", expanded=expanded and bool(mine)):
        query = st.text_input("Filter by words", key="past_q_search",
                              placeholder="words in the question")
        _links(conv, mine, query)
    if bench:
        with st.expander(f"Questions asked by evaluation runs ({len(bench)})"):
            _links(conv, bench, st.text_input("Filter the benchmark list by words", key="past_b_search"))


def gold_item(svc: MemoryServices, conv: str, question: str) -> QAItem | None:
    """The conversation's benchmark question with these words, if there is one."""
    key = normalise(question)
    return next((q for q in svc.evaluation.gold_items(conv) if normalise(q.question) == key), None)


def gold_evidence(svc: MemoryServices, conv: str, item: QAItem | None) -> list[str]:
    """A benchmark question's gold evidence turn ids (``gold_item`` normalised them as the
    evaluator does)."""
    return list(item.evidence) if item is not None else []


def gold_answer(svc: MemoryServices, conv: str, question: str) -> None:
    """When the question is one of the conversation's benchmark questions, show its gold answer."""
    q = gold_item(svc, conv, question)
    if q is None:
        return
    if q.answer not in (None, ""):
        st.info(f"Benchmark question — the gold answer is: **{md(q.answer)}**")
    elif q.adversarial_answer not in (None, ""):
        st.info("Benchmark question (adversarial): the conversation does not answer it; "
                "the right reply says so.")
