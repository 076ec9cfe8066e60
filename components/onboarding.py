"""Home's first screen: what Mnemoscope does, in three steps, each with where it stands for the
current conversation and a link to the page that does it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from components import icons
from memory_core.summaries import ConversationSummary


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    page: str
    label: str
    icon: str


LOAD = Step("1 · Load", "Import a multi-session conversation: LoCoMo, LongMemEval, or your own chat as "
            "JSON, JSONL, CSV or a plain transcript.", "pages/load.py", "Load a file",
            icons.PAGE["pages/load.py"])
BUILD = Step("2 · Build", "Turn it into memory, on this machine: episodes, records (who, what, when — "
             "each with its evidence turns) and entity and event graphs.", "pages/load.py",
             "Build its memory", icons.BUILD)
ASK = Step("3 · Ask and inspect", "Ask questions: every answer shows the records and turns it used. "
           "Correct a wrong record and see what changes.", "pages/ask.py", "Ask a question",
           icons.PAGE["pages/ask.py"])


def status(rows: Sequence[ConversationSummary], conv: str | None) -> tuple[bool, bool]:
    """(loaded, built) for the current conversation."""
    row = next((r for r in rows if r.id == conv), None)
    return row is not None, row is not None and row.built_sessions > 0


def three_steps(rows: Sequence[ConversationSummary], conv: str | None) -> None:
    loaded, built = status(rows, conv)
    plan = [(LOAD, loaded, LOAD.page, LOAD.label),
            (BUILD, built, "pages/episodes.py" if built else BUILD.page,
             "See the memory" if built else BUILD.label),
            (ASK, False, ASK.page, ASK.label)]
    query = {"conv": conv} if conv else None
    for col, (step, done, page, label) in zip(st.columns(3), plan, strict=True):
        with col.container(border=True):
            st.markdown(f"**{step.title}**" + (" ✓" if done else ""))
            st.caption(step.text)
            st.page_link(page, label=label, icon=step.icon, query_params=query,
                         disabled=step is ASK and not built)
