"""Tune against check: the same summary of two runs side by side, with the gap.

``format_gap(tune, check)`` takes two summaries (``metrics.summarise`` or
``longmemeval.summarise``: groups with ``full_recall`` and ``tokens_mean``) and prints one line
per group present in either: full-evidence recall and mean tokens of each run and the recall gap
in points (tune minus check). A gap is what tuning did not carry to data it never saw.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _cell(group: Mapping[str, Any] | None) -> str:
    if not group or group.get("full_recall") is None:
        return f"{'-':>7} {'-':>7} {'-':>4}"
    return f"{100 * group['full_recall']:6.1f}% {group['tokens_mean']:7.0f} {group['scored']:4d}"


def gap_points(tune: Mapping[str, Any] | None, check: Mapping[str, Any] | None) -> float | None:
    if not tune or not check or tune.get("full_recall") is None or check.get("full_recall") is None:
        return None
    return round(100 * (float(tune["full_recall"]) - float(check["full_recall"])), 1)


def format_gap(tune: Mapping[str, Mapping[str, Any]], check: Mapping[str, Mapping[str, Any]]) -> str:
    head = (f"{'group':26} {'tune R':>7} {'tokens':>7} {'n':>4}   "
            f"{'check R':>7} {'tokens':>7} {'n':>4}   {'gap':>6}")
    lines = [head]
    for key in dict.fromkeys([*tune, *check]):
        t, c = tune.get(key), check.get(key)
        label = str((t or c or {}).get("name") or key)
        gap = gap_points(t, c)
        lines.append(f"{label:26} {_cell(t)}   {_cell(c)}   {'-' if gap is None else f'{gap:+.1f}':>6}")
    return "\n".join(lines)


__all__ = ["format_gap", "gap_points"]
