"""Tune against check: the same summary of two runs side by side, with the gap.

``format_gap(tune, check)`` takes two summaries (``metrics.summarise`` or
``longmemeval.summarise``: groups with ``full_recall`` and ``tokens_mean``) and prints one line
per group present in either: full-evidence recall and mean tokens of each run and the recall gap
in points (tune minus check). A gap is what tuning did not carry to data it never saw.
"""

from __future__ import annotations

from memory_core.eval_summary import EvalSummary, GroupSummary


def _cell(group: GroupSummary | None) -> str:
    if group is None or group.full_recall is None:
        return f"{'-':>7} {'-':>7} {'-':>4}"
    return f"{100 * group.full_recall:6.1f}% {group.tokens_mean:7.0f} {group.scored:4d}"


def gap_points(tune: GroupSummary | None, check: GroupSummary | None) -> float | None:
    if tune is None or check is None or tune.full_recall is None or check.full_recall is None:
        return None
    return round(100 * (float(tune.full_recall) - float(check.full_recall)), 1)


def format_gap(tune: EvalSummary, check: EvalSummary) -> str:
    head = (f"{'group':26} {'tune R':>7} {'tokens':>7} {'n':>4}   "
            f"{'check R':>7} {'tokens':>7} {'n':>4}   {'gap':>6}")
    lines = [head]
    for key in dict.fromkeys([*tune, *check]):
        t, c = tune.get(key), check.get(key)
        either = t or c
        label = str((either.name if either is not None else None) or key)
        gap = gap_points(t, c)
        lines.append(f"{label:26} {_cell(t)}   {_cell(c)}   {'-' if gap is None else f'{gap:+.1f}':>6}")
    return "\n".join(lines)


__all__ = ["format_gap", "gap_points"]
