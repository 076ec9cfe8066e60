"""Home-page pieces: totals, the conversations table, build cost, quick links."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

import streamlit as st

from components import html_table, icons, pager
from components.text import md
from memory_core.services import MemoryServices
from memory_core.summaries import ConversationSummary

COUNT_COLUMNS = ("sessions", "turns", "questions", "episodes", "records", "entities", "events")

LINKS = (
    ("pages/episodes.py", "Episodes", icons.PAGE["pages/episodes.py"]),
    ("pages/records.py", "Records", icons.PAGE["pages/records.py"]),
    ("pages/graphs.py", "Graphs", icons.PAGE["pages/graphs.py"]),
    ("pages/ask.py", "Ask", icons.PAGE["pages/ask.py"]),
    ("pages/evaluate.py", "Evaluate", icons.PAGE["pages/evaluate.py"]),
    ("pages/history.py", "History", icons.PAGE["pages/history.py"]),
)


def totals(rows: Sequence[ConversationSummary]) -> None:
    cols = st.columns(4)
    cols[0].metric("Conversations", len(rows))
    cols[1].metric("Turns", sum(r.turns for r in rows))
    cols[2].metric("Episodes", sum(r.episodes for r in rows))
    cols[3].metric("Records", sum(r.records for r in rows))


def built_label(row: ConversationSummary) -> str:
    built, total = row.built_sessions, row.sessions
    if built == 0:
        return "not built"
    return "built" if built >= total else f"{built}/{total} sessions"


# dropped while the table is narrow (a 1024 px window), so it never needs a sideways scroll
NARROW_COLUMNS = ("questions", "entities", "events", "format")
PAGE_ROWS = 50  # conversations per page of the Home table
_PAGE_KEY = "home_page"


def conversation_table(rows: Sequence[ConversationSummary]) -> None:
    """Every conversation with its counts, as a light table (no data grid to load on the front
    page); the id opens it. Beyond one page of ``PAGE_ROWS``: a filter on the id and a pager."""
    shown = list(rows)
    if len(rows) > PAGE_ROWS:
        wanted = st.text_input("Find a conversation", key="home_find", placeholder="part of its id").strip()
        shown = [r for r in rows if wanted.lower() in r.id.lower()] if wanted else shown
        page = pager.draw(_PAGE_KEY, len(shown), PAGE_ROWS,
                          lambda p, n: f"{len(shown)} of {len(rows)} conversations · page {p} of {n}")
        shown = shown[(page - 1) * PAGE_ROWS:page * PAGE_ROWS]
    html_table.render(
        ("conversation", *COUNT_COLUMNS, "memory", "format"),
        [{"conversation": r.id, **{c: r.count(c) for c in COUNT_COLUMNS},
          "memory": built_label(r), "format": r.source_format} for r in shown],
        link_column="conversation", href=lambda row: f"?{urlencode({'conv': row['conversation']})}",
        empty="No conversation matches.", narrow=NARROW_COLUMNS,
    )


def build_cost(svc: MemoryServices, conv: str) -> None:
    """The latest build of ``conv``: backend, duration, LLM tokens and cost."""
    history = svc.builds.build_history(conv)
    if not history:
        st.caption("Not built yet — open *Load & build* to build its memory.")
        return
    last = history[0]
    cost = last.cost
    used_llm = cost.calls > 0  # offline builds call no model: no cost to show
    st.caption(f"Last build by the {md(last.backend or '?')} backend.")  # a word, not a big figure
    cols = st.columns(4)
    cols[0].metric("Build time", f"{last.seconds:.1f} s")
    if used_llm:
        cols[1].metric("LLM calls", cost.calls)
        cols[2].metric("Tokens in/out", f"{cost.tokens_in}/{cost.tokens_out}")
        cols[3].metric("Cost", f"${cost.cost_usd:.4f}")
    if last.finished_at is None:
        st.caption("The last build did not finish; building again resumes where it stopped.")


def quick_links(conv: str) -> None:
    """The pages of ``conv``, three to a row (six in one row cut their names at 1024 px)."""
    cols = st.columns(3)
    for i, (path, label, icon) in enumerate(LINKS):
        cols[i % 3].page_link(path, label=label, icon=icon, query_params={"conv": conv})
