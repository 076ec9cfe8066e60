"""Plotly figures: per-category bars, the recall/budget curve (the episode timeline is
components/timeline.py, inline SVG)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from memory_core.eval_summary import Figure


def _plain(text: str) -> str:
    """Plotly hover text is HTML-ish: escape the characters it would interpret."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def category_bars(summary: Sequence[Mapping[str, Figure]], metrics: Sequence[str]) -> go.Figure:
    """One group of bars per summary line (its ``category``), one bar per metric (0..1)."""
    categories = [str(row.get("category", "?")) for row in summary]
    fig = go.Figure()
    for metric in metrics:
        fig.add_trace(go.Bar(name=metric, x=categories, y=[float(row.get(metric) or 0.0) for row in summary]))
    fig.update_layout(barmode="group", height=320, margin={"l": 40, "r": 10, "t": 30, "b": 40},
                      yaxis_range=[0, 1], xaxis_title="category")
    return fig


Point = Mapping[str, str | float]  # a curve's point: its coordinates, and its group's name


def curve(points: Sequence[Point], x: str, ys: Sequence[str], group: str | None = None) -> go.Figure:
    """Lines of ``ys`` over ``x`` (one line per metric, or per ``group`` value)."""
    fig = go.Figure()
    groups: dict[str, list[Point]] = {}
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
