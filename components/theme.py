"""Global CSS for the HTML pieces we build ourselves (transcript, chips, marks)."""

from __future__ import annotations

import streamlit as st

# An episode's kind (its theme type) has one colour everywhere: the Episodes timeline's dots and
# legend, and the band and kind tag of every episode in a transcript.
THEME_COLORS: dict[str, str] = {"entity": "#3b5bdb", "event": "#e8590c", "topic": "#2b8a3e"}
OTHER_COLOR = "#868e96"

# Our HTML arrives through st.html, which gets none of the --st-* theme properties a v2 component
# has: every colour that is not a category's is the text colour the page gives (currentColor)
# or a translucent tint over the page, so light and dark themes both read.
CSS = """
<style>
.mn-transcript { font-size: 0.92rem; line-height: 1.45; }
.mn-session-head { font-weight: 600; margin: 0.9rem 0 0.3rem 0;
  color: color-mix(in srgb, currentColor 85%, transparent);
  border-bottom: 1px solid color-mix(in srgb, currentColor 20%, transparent); padding-bottom: 2px; }
.mn-episode { border-left: 6px solid #adb5bd; border-radius: 4px; margin: 0.35rem 0;
  padding: 0.25rem 0.5rem 0.35rem 0.6rem; }
.mn-ep-head { font-size: 0.8rem; color: color-mix(in srgb, currentColor 75%, transparent);
  margin-bottom: 0.15rem; }
.mn-ep-head .mn-tag { display: inline-block; border-radius: 8px; padding: 0 6px; margin-right: 4px;
  color: #fff; font-size: 0.72rem; }
.mn-plain { margin: 0.35rem 0; padding-left: 0.6rem; border-left: 6px solid transparent; }
.mn-pending { border-left: 6px dashed color-mix(in srgb, currentColor 25%, transparent); padding-left: 0.6rem;
  margin: 0.35rem 0; color: color-mix(in srgb, currentColor 75%, transparent); }
.mn-turn { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 0.6rem;
  padding: 1px 2px; border-radius: 3px; scroll-margin-top: 5rem; }
.mn-turn.mn-evidence { background: rgba(250, 176, 5, 0.22); outline: 1px solid #fab005; }
.mn-turn.mn-cited { outline: 2px solid #3b5bdb; }
.mn-turn:target { background: rgba(28, 126, 214, 0.2); outline: 2px solid #1c7ed6; }
.mn-tid { font-family: monospace; font-size: 0.75rem; margin-right: 4px;
  color: color-mix(in srgb, currentColor 55%, transparent); }
.mn-speaker { font-weight: 600; }
.mn-caption { font-style: italic; color: color-mix(in srgb, currentColor 70%, transparent); }
.mn-recs { font-size: 0.75rem; }
.mn-chip { display: inline-block; background: color-mix(in srgb, currentColor 7%, transparent);
  border: 1px solid color-mix(in srgb, currentColor 18%, transparent); border-radius: 10px;
  padding: 0 6px; margin: 1px 2px; color: inherit; }
a.mn-chip { text-decoration: none; cursor: pointer; }
a.mn-chip:hover { border-color: #3b5bdb; background: rgba(59, 91, 219, 0.14); }
.mn-speaker a.mn-link, a.mn-link { color: inherit; text-decoration: none;
  border-bottom: 1px dotted color-mix(in srgb, currentColor 50%, transparent); }
a.mn-link:hover { color: #4c6ef5; border-bottom-color: #4c6ef5; }
.mn-chip.mn-wrong { text-decoration: line-through; color: #e03131; }
.mn-turn mark { background: rgba(255, 212, 59, 0.45); color: inherit; padding: 0 1px; border-radius: 2px; }
.mn-cite { font-family: monospace; background: rgba(28, 126, 214, 0.14); border-radius: 6px; padding: 0 4px;
  margin: 0 2px; text-decoration: none; }
.mn-answer { font-size: 1.1rem; padding: 0.6rem 0.8rem; border-radius: 6px;
  background: color-mix(in srgb, currentColor 5%, transparent); border-left: 5px solid #3b5bdb; }
.mn-story .mn-turn { grid-template-columns: minmax(0, 1fr); }
.mn-story .mn-recs { display: none; }
.mn-story-records { margin: 0 0 0.4rem 1.1rem; padding: 0; }
.mn-story-records li { margin: 0.15rem 0; }
.mn-said { color: color-mix(in srgb, currentColor 70%, transparent); font-size: 0.9rem; }
.mn-table { container-type: inline-size; }
@container (max-width: 640px) { .mn-table .mn-wide { display: none; } }
/* a small screen (1024 x 768 with the sidebar open): the page's wide margins and the empty band
   above the title go to the content (the graph canvas, the trace's metrics) */
@media (max-width: 1180px) {
  [data-testid="stMainBlockContainer"] { padding-left: 1.5rem; padding-right: 1.5rem; }
}
@media (max-height: 820px) {
  [data-testid="stMainBlockContainer"] { padding-top: 2.5rem; }
}
</style>
"""


def inject_css() -> None:
    st.html(CSS)


def kind_colors(kind: str) -> tuple[str, str]:
    """(colour, background tint) of an episode of this kind (``entity``, ``event``, ``topic``): the
    timeline's dot colour; the tint is that colour over the page, so it reads in both themes."""
    color = THEME_COLORS.get(kind, OTHER_COLOR)
    return color, f"color-mix(in srgb, {color} 10%, transparent)"
