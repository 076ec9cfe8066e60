"""The Episodes page's timeline: one dot per episode at its session's date (or session number
when undated), drawn as inline SVG by a Streamlit custom component (v2).

It replaced a Plotly scatter: plotly.js is megabytes the browser had to load and run before the
page was drawn, for one small chart. ``payload(...)`` turns the episodes into plain JSON data
(x, y, dot size by turns, colour by theme type, hover text); ``timeline(data, key=...)`` mounts
the component and returns the episode the user clicked in this run (``None`` otherwise).

The data travels as JSON and the browser writes every string with ``textContent`` or
``setAttribute`` (components/assets/timeline.js), so conversation text cannot become markup.
Hover text is still shortened and bidi-defused here.

Colours other than the dots' (categorical) follow Streamlit's theme through the CSS custom
properties it gives a v2 component (``--st-text-color``, ``--st-background-color``, ...).
The dots work by keyboard: Tab reaches the chosen episode's dot, Left/Right (Home/End) move
between dots, Enter or Space selects one as a click does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import cache, partial
from pathlib import Path
from typing import Any

import streamlit as st

from components.text import defuse_bidi, shorten
from components.theme import OTHER_COLOR, THEME_COLORS
from memory_core.json_value import JSONObject
from memory_core.models import Episode, Session

HEIGHT = 320
_JS = Path(__file__).resolve().parent / "assets" / "timeline.js"
_CSS = """
.mn-tl {
  --mn-fg: var(--st-text-color, #31333f);
  --mn-bg: var(--st-background-color, #ffffff);
  --mn-tip-bg: var(--st-secondary-background-color, #f0f2f6);
  --mn-line: var(--st-border-color, rgba(49, 51, 63, 0.2));
  --mn-accent: var(--st-primary-color, #3b5bdb);
  position: relative; font-family: var(--st-font, sans-serif); color: var(--mn-fg); }
.mn-tl-legend { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 0.8rem;
  color: color-mix(in srgb, var(--mn-fg) 85%, transparent); margin: 0 0 2px 0; align-items: center; }
.mn-tl-key { display: inline-flex; align-items: center; gap: 4px; }
.mn-tl-dot { width: 11px; height: 11px; border-radius: 50%; display: inline-block; opacity: 0.8; }
.mn-tl-plot { width: 100%; }
.mn-tl-svg text { font-size: 11px; fill: color-mix(in srgb, var(--mn-fg) 75%, transparent); }
.mn-tl-svg .mn-tl-title { font-size: 12px; fill: color-mix(in srgb, var(--mn-fg) 85%, transparent); }
.mn-tl-grid { stroke: color-mix(in srgb, var(--mn-fg) 10%, transparent); stroke-width: 1; }
.mn-tl-point { opacity: 0.8; stroke: var(--mn-bg); stroke-width: 1; cursor: pointer; outline: none; }
.mn-tl-point:hover { opacity: 1; stroke: var(--mn-fg); }
.mn-tl-selected { opacity: 1; stroke: var(--mn-fg); stroke-width: 2.5; }
.mn-tl-ring { fill: none; stroke: var(--mn-accent); stroke-width: 2.5; stroke-dasharray: 4 2;
  pointer-events: none; display: none; }
.mn-tl-point:focus-visible { opacity: 1; stroke: var(--mn-accent); stroke-width: 3; }
.mn-tl-point:focus-visible + .mn-tl-ring { display: inline; }
.mn-tl-tip { position: absolute; display: none; pointer-events: none; z-index: 2; max-width: 260px;
  background: var(--mn-tip-bg); border: 1px solid var(--mn-line); border-radius: 4px; padding: 4px 6px;
  font-size: 0.78rem; color: var(--mn-fg); white-space: pre-line; box-shadow: 0 1px 4px rgba(0,0,0,.25); }
"""


@cache
def _component() -> Any:
    """Registered on first use (inside a script run), once per process."""
    return st.components.v2.component(
        "mnemoscope.episode_timeline",
        html='<div class="mn-tl"><div class="mn-tl-legend"></div><div class="mn-tl-plot"></div>'
             '<div class="mn-tl-tip"></div></div>',
        css=_CSS,
        js=_JS.read_text(encoding="utf-8"),
    )


def _ms(value: datetime) -> float:
    stamp = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return stamp.timestamp() * 1000.0


def _text(value: object, limit: int) -> str:
    return defuse_bidi(shorten(value, limit))


def payload(sessions: Sequence[Session], episodes: Sequence[Episode], labels: Mapping[str, str], *,
            selected: str | None = None, height: int = HEIGHT) -> dict[str, Any]:
    """Plain JSON data: one point per episode.

    y is the episode's position inside its session, the dot's diameter grows with its number
    of turns (8–30 px), its colour is its theme type's; the tip and the label (the dot's name
    for a screen reader: episode, date, themes) are plain text.
    """
    session_time = {s.index: s.time for s in sessions if s.time is not None}
    dated = bool(episodes) and all(ep.session in session_time for ep in episodes)
    biggest = max((len(ep.turn_ids) for ep in episodes), default=1) or 1
    position: dict[int, int] = {}
    kinds: Counter[str] = Counter()
    points = []
    for ep in episodes:
        position[ep.session] = position.get(ep.session, 0) + 1
        kind = str(getattr(ep.theme_type, "value", ep.theme_type))
        kinds[kind] += 1
        turns = len(ep.turn_ids)
        theme = ", ".join(str(t) for t in ep.theme[:4]) or "—"
        when = session_time[ep.session].date().isoformat() if dated else f"session {ep.session}"
        points.append({
            "id": str(ep.id),
            "label": f"{_text(labels.get(ep.id, ep.id), 40)}, {when}: {_text(theme, 60)} "
                     f"({kind}, {turns} turns)",
            "x": _ms(session_time[ep.session]) if dated else float(ep.session),
            "y": position[ep.session],
            "size": round(8 + 22 * turns / biggest, 1),
            "color": THEME_COLORS.get(kind, OTHER_COLOR),
            "kind": kind,
            "tip": "\n".join([f"{_text(labels.get(ep.id, ep.id), 40)} · {kind} · {turns} turns",
                              _text(theme, 60),
                              f"boundary: {_text(ep.boundary_reason or 'session start', 50)}"]),
        })
    legend = [{"label": k, "color": THEME_COLORS.get(k, OTHER_COLOR), "count": c}
              for k, c in sorted(kinds.items())]
    return {"dated": dated, "points": points, "legend": legend, "yMax": max(position.values(), default=1),
            "height": height, "selected": selected,
            "xTitle": "session date" if dated else "session", "yTitle": "episode in session"}


def clicked(value: object, ids: Sequence[str]) -> str | None:
    """The episode id a click event carries (the component's value, whatever it holds), if it
    is one of ``ids``."""
    raw = value.get("clicked") if hasattr(value, "get") else None
    return raw if isinstance(raw, str) and raw in ids else None


def _on_click(key: str, pick_key: str, ids: Sequence[str]) -> None:
    """Before the rerun a click causes: move the episode picker (``pick_key``) to the clicked
    episode, so the page, and the timeline's highlighted dot, show it in that same run."""
    chosen = clicked(st.session_state.get(key), ids)
    if chosen is not None:
        st.session_state[pick_key] = chosen


def timeline(data: JSONObject, *, key: str, pick_key: str | None = None) -> str | None:
    """Mount the timeline (``data``: a ``payload``); the id of the episode clicked in this run,
    else ``None``.

    With ``pick_key`` a click also sets that session-state key (a selectbox's) to the episode.
    """
    points = data.get("points")
    ids = [str(p["id"]) for p in points if isinstance(p, dict)] if isinstance(points, list) else []
    callback = partial(_on_click, key, pick_key, ids) if pick_key else (lambda: None)
    result = _component()(key=key, data=data, on_clicked_change=callback)
    return clicked(result, ids) if result is not None else None
