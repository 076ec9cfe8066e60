"""An evaluation run's summary: the figures of each group of rows (a LoCoMo category, a
LongMemEval question type, the abstentions, "overall"), in the order the tables print them.

    summary = EvalSummary({"1": GroupSummary(n=12, scored=12, ...), "overall": ...})
    summary.overall.full_recall      # None: no row of the group had gold evidence
    summary.to_json()                # {"1": {"name": ..., "n": 12, ...}, "overall": {...}}

``memory_core.eval.metrics.summarise`` (LoCoMo) and ``memory_core.eval.longmemeval.summarise``
build it from the rows (``eval_rows.EvalRow``); ``EvalService`` returns it in
``EvalReport.summary``; the CLI tables, the tune/check gap and the Evaluate page read it.
``to_json`` gives each group's keys in the order the summaries have always had them: the
figures every group has, then LoCoMo's plan+retrieve latency or LongMemEval's session recall
and correct abstentions, then the judge's accuracy when the run had a judge. This module sits
on the bottom floor: plain values, no imports of ours.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

Figure = str | int | float | None  # a value of a summary's JSON group (a bool is an int)
OVERALL = "overall"


@dataclass(frozen=True)
class GroupSummary:
    """The figures of one group of rows. A figure that needs gold evidence (recall, coverage)
    is None when no row of the group has any; the optional ones are None when the benchmark or
    the run does not have them."""

    n: int
    scored: int  # rows with gold evidence (scored for recall)
    full_recall: float | None
    coverage: float | None
    tokens_mean: float | None
    answer_f1: float | None
    answer_em: float | None
    answer_contains: float | None
    latency_p50: float
    latency_p95: float
    name: str | None = None  # LoCoMo: the category's name ("overall" for the overall group)
    plan_retrieve_p50: float | None = None  # LoCoMo: plan + retrieve latency
    plan_retrieve_p95: float | None = None
    session_recall: Mapping[int, float | None] | None = None  # LongMemEval: k -> recall_all@k
    abstained: float | None = None  # LongMemEval's abstention group: share answered "unknown"
    judged: bool = False  # the run had an LLM judge
    judge_accuracy: float | None = None  # share the judge called right (None: no judged row)

    def to_json(self) -> dict[str, Figure]:
        """The group as a JSON object, keys in the order the summaries have always had them."""
        out: dict[str, Figure] = {} if self.name is None else {"name": self.name}
        out |= {"n": self.n, "scored": self.scored, "full_recall": self.full_recall,
                "coverage": self.coverage, "tokens_mean": self.tokens_mean, "answer_f1": self.answer_f1,
                "answer_em": self.answer_em, "answer_contains": self.answer_contains,
                "latency_p50": self.latency_p50, "latency_p95": self.latency_p95}
        if self.plan_retrieve_p50 is not None:
            out |= {"plan_retrieve_p50": self.plan_retrieve_p50, "plan_retrieve_p95": self.plan_retrieve_p95}
        if self.session_recall is not None:
            out |= {f"session_recall_all@{k}": v for k, v in self.session_recall.items()}
        if self.abstained is not None:
            out["abstained"] = self.abstained
        if self.judged:
            out["judge_accuracy"] = self.judge_accuracy
        return out


@dataclass(frozen=True)
class EvalSummary:
    """The groups of a run, keyed as the tables name them ("1".."4" or a question type,
    "abstention", "overall"), in print order; empty before a run."""

    groups: Mapping[str, GroupSummary] = field(default_factory=dict)

    @property
    def overall(self) -> GroupSummary | None:
        return self.groups.get(OVERALL)

    def get(self, key: str) -> GroupSummary | None:
        return self.groups.get(key)

    def __getitem__(self, key: str) -> GroupSummary:
        return self.groups[key]

    def __contains__(self, key: object) -> bool:
        return key in self.groups

    def __iter__(self) -> Iterator[str]:
        return iter(self.groups)

    def items(self) -> Iterator[tuple[str, GroupSummary]]:
        return iter(self.groups.items())

    def judged(self, accuracy: Mapping[str, float | None]) -> EvalSummary:
        """The summary with the judge's accuracy of each group (``accuracy``: group key -> share)."""
        return EvalSummary({key: replace(g, judged=True, judge_accuracy=accuracy.get(key))
                            for key, g in self.groups.items()})

    def to_json(self) -> dict[str, dict[str, Figure]]:
        """The summary as a JSON object: group key -> the group's figures."""
        return {key: g.to_json() for key, g in self.groups.items()}


__all__ = ["OVERALL", "EvalSummary", "Figure", "GroupSummary"]
