"""Global CSS for the HTML pieces we build ourselves (transcript, chips, marks)."""

from __future__ import annotations

import streamlit as st

# Episode band colours (border, background tint), cycled by episode position.
PALETTE: tuple[tuple[str, str], ...] = (
    ("#3b5bdb", "#edf2ff"),
    ("#2b8a3e", "#ebfbee"),
    ("#e8590c", "#fff4e6"),
    ("#862e9c", "#f8f0fc"),
    ("#0b7285", "#e3fafc"),
    ("#c2255c", "#fff0f6"),
    ("#5c940d", "#f4fce3"),
    ("#d9480f", "#fff5f5"),
)

CSS = """
<style>
.mn-transcript { font-size: 0.92rem; line-height: 1.45; }
.mn-session-head { font-weight: 600; margin: 0.9rem 0 0.3rem 0; color: #343a40;
  border-bottom: 1px solid #dee2e6; padding-bottom: 2px; }
.mn-episode { border-left: 6px solid #adb5bd; border-radius: 4px; margin: 0.35rem 0;
  padding: 0.25rem 0.5rem 0.35rem 0.6rem; }
.mn-ep-head { font-size: 0.8rem; color: #495057; margin-bottom: 0.15rem; }
.mn-ep-head .mn-tag { display: inline-block; border-radius: 8px; padding: 0 6px; margin-right: 4px;
  color: #fff; font-size: 0.72rem; }
.mn-plain { margin: 0.35rem 0; padding-left: 0.6rem; border-left: 6px solid transparent; }
.mn-pending { border-left: 6px dashed #ced4da; padding-left: 0.6rem; margin: 0.35rem 0; color: #495057; }
.mn-turn { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 0.6rem;
  padding: 1px 2px; border-radius: 3px; }
.mn-turn.mn-evidence { background: #fff3bf; outline: 1px solid #fab005; }
.mn-turn.mn-cited { outline: 2px solid #3b5bdb; }
.mn-turn:target { background: #d0ebff; outline: 2px solid #1c7ed6; }
.mn-tid { font-family: monospace; font-size: 0.75rem; color: #868e96; margin-right: 4px; }
.mn-speaker { font-weight: 600; }
.mn-caption { font-style: italic; color: #5c677d; }
.mn-recs { font-size: 0.75rem; }
.mn-chip { display: inline-block; background: #f1f3f5; border: 1px solid #dee2e6; border-radius: 10px;
  padding: 0 6px; margin: 1px 2px; color: #212529; }
a.mn-chip { text-decoration: none; cursor: pointer; }
a.mn-chip:hover { border-color: #3b5bdb; background: #edf2ff; }
.mn-speaker a.mn-link, a.mn-link { color: inherit; text-decoration: none; border-bottom: 1px dotted #868e96; }
a.mn-link:hover { color: #3b5bdb; border-bottom-color: #3b5bdb; }
.mn-chip.mn-wrong { text-decoration: line-through; color: #c92a2a; }
.mn-turn mark { background: #ffe066; padding: 0 1px; border-radius: 2px; }
.mn-cite { font-family: monospace; background: #e7f5ff; border-radius: 6px; padding: 0 4px;
  margin: 0 2px; text-decoration: none; }
.mn-answer { font-size: 1.1rem; padding: 0.6rem 0.8rem; background: #f8f9fa; border-radius: 6px;
  border-left: 5px solid #3b5bdb; }
</style>
"""


def inject_css() -> None:
    st.html(CSS)


def episode_colors(position: int) -> tuple[str, str]:
    return PALETTE[position % len(PALETTE)]
