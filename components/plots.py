"""Plotly figures: the episode timeline, per-category bars, the recall/budget curve."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from components.text import shorten

THEME_COLORS = {"entity": "#3b5bdb", "event": "#e8590c", "topic": "#2b8a3e"}


def episode_timeline(sessions: Sequence[Any], episodes: Sequence[Any],
                     labels: Mapping[str, str]) -> go.Figure:
    """One marker per episode at its session's date (or session number when undated).

    y is the episode's position inside its session, marker size its number of turns, colour its
    theme type; ``customdata`` carries the episode id for selection events.
    """
    session_time = {s.index: s.time for s in sessions}
    dated = all(session_time.get(ep.session) is not None for ep in episodes) and bool(episodes)
    fig = go.Figure()
    position: dict[int, int] = {}
    by_type: dict[str, dict[str, list[Any]]] = {}
    for ep in episodes:
        position[ep.session] = position.get(ep.session, 0) + 1
        kind = str(getattr(ep.theme_type, "value", ep.theme_type))
        series = by_type.setdefault(kind, {"x": [], "y": [], "size": [], "text": [], "id": []})
        series["x"].append(session_time[ep.session] if dated else ep.session)
        series["y"].append(position[ep.session])
        series["size"].append(len(ep.turn_ids))
        theme = shorten(", ".join(ep.theme[:4]) or "—", 60)
        series["text"].append(
            f"{labels.get(ep.id, ep.id)} · {len(ep.turn_ids)} turns<br>{_plain(theme)}"
            f"<br>boundary: {_plain(shorten(ep.boundary_reason or 'session start', 50))}"
        )
        series["id"].append(ep.id)
    for kind, s in by_type.items():
        biggest = max(s["size"]) if s["size"] else 1
        fig.add_trace(go.Scatter(
            x=s["x"], y=s["y"], mode="markers", name=kind, customdata=s["id"], hovertext=s["text"],
            hoverinfo="text",
            marker={"size": [8 + 22 * (v / biggest) for v in s["size"]], "color": THEME_COLORS.get(kind),
                    "opacity": 0.8, "line": {"width": 1, "color": "#fff"}},
        ))
    deepest = max(position.values(), default=1)
    fig.update_yaxes(range=[0.5, deepest + 0.5])
    fig.update_layout(
        height=320, margin={"l": 40, "r": 10, "t": 30, "b": 40}, legend_title_text="theme type",
        xaxis_title="session date" if dated else "session", yaxis_title="episode in session", yaxis_dtick=1,
    )  # no dragmode/clickmode of our own: with dragmode="select" a click selected nothing

    return fig


def _plain(text: str) -> str:
    """Plotly hover text is HTML-ish: escape the characters it would interpret."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def category_bars(summary: Sequence[Mapping[str, Any]], metrics: Sequence[str]) -> go.Figure:
    categories = [str(row.get("category", "?")) for row in summary]
    fig = go.Figure()
    for metric in metrics:
        fig.add_trace(go.Bar(name=metric, x=categories, y=[float(row.get(metric) or 0.0) for row in summary]))
    fig.update_layout(barmode="group", height=320, margin={"l": 40, "r": 10, "t": 30, "b": 40},
                      yaxis_range=[0, 1], xaxis_title="category")
    return fig


def curve(points: Sequence[Mapping[str, Any]], x: str, ys: Sequence[str],
          group: str | None = None) -> go.Figure:
    """Lines of ``ys`` over ``x`` (one line per metric, or per ``group`` value)."""
    fig = go.Figure()
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for p in points:
        groups.setdefault(str(p.get(group, "")) if group else "", []).append(p)
    for name, rows in groups.items():
        rows = sorted(rows, key=lambda r: float(r.get(x) or 0))
        for y in ys:
            label = f"{name} {y}".strip() if group else y
            fig.add_trace(go.Scatter(x=[r.get(x) for r in rows], y=[r.get(y) for r in rows],
                                     mode="lines+markers", name=_plain(label)))
    fig.update_layout(height=340, margin={"l": 40, "r": 10, "t": 30, "b": 40}, xaxis_title=x)
    return fig
