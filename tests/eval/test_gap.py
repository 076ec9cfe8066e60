"""Tune against check side by side: the gap is tune minus check recall, in points."""

from __future__ import annotations

from memory_core.eval.gap import format_gap, gap_points
from memory_core.eval_summary import EvalSummary, GroupSummary


def _group(name: str, recall: float | None, tokens: float, scored: int) -> GroupSummary:
    return GroupSummary(n=scored, scored=scored, full_recall=recall, coverage=recall, tokens_mean=tokens,
                        answer_f1=None, answer_em=None, answer_contains=None, latency_p50=0.0,
                        latency_p95=0.0, name=name)


def test_the_gap_is_tune_minus_check_in_points() -> None:
    tune = EvalSummary({"1": _group("multi-hop", 0.8, 2900.0, 40),
                        "overall": _group("overall", 0.9, 2500.4, 100)})
    check = EvalSummary({"1": _group("multi-hop", 0.55, 3100.0, 20),
                         "overall": _group("overall", 0.85, 2700.0, 50),
                         "2": _group("temporal", 1.0, 1200.0, 5)})
    assert gap_points(tune["overall"], check["overall"]) == 5.0
    assert gap_points(tune["1"], None) is None
    lines = format_gap(tune, check).splitlines()
    assert lines[1].split() == ["multi-hop", "80.0%", "2900", "40", "55.0%", "3100", "20", "+25.0"]
    assert lines[2].split() == ["overall", "90.0%", "2500", "100", "85.0%", "2700", "50", "+5.0"]
    assert lines[3].split() == ["temporal", "-", "-", "-", "100.0%", "1200", "5", "-"]
