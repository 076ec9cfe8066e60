"""Evaluation metrics, defined exactly as the independent bench scorer defines them.

full recall   share of questions (with gold evidence) whose gold turns are ALL in the buffer
coverage      mean share of a question's gold turns present in the buffer
tokens        mean buffer tokens (per-turn cl100k counts of "speaker: text [image: ...]")
answer F1     token F1 of the answer (citations removed) against the gold answer
answer EM     the normalised answer equals the normalised gold answer
contains      the normalised gold answer appears, word for word, in the normalised answer
right         an answer with token F1 >= 0.5 (the bench's ``answers.py``)
calibration   per support level (supported / weak / unknown): answers, their share, share right
latency       p50 / p95 seconds
"""

from __future__ import annotations

import math
import re
import statistics
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from memory_core.eval.locomo import CATEGORY_NAMES
from memory_core.eval_summary import OVERALL, EvalSummary, GroupSummary

_CITATION_RE = re.compile(r"\[(?:D\d+:\d+(?:,\s*)?)+\]")
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")


def normalise_answer(text: str) -> list[str]:
    t = _CITATION_RE.sub(" ", text or "").lower()
    t = "".join(ch if ch not in string.punctuation else " " for ch in t)
    t = _ARTICLES.sub(" ", t)
    return t.split()


def token_f1(prediction: str, gold: str) -> float:
    pred, ref = normalise_answer(prediction), normalise_answer(gold)
    if not pred or not ref:
        return float(pred == ref)
    common = Counter(pred) & Counter(ref)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def exact_match(prediction: str, gold: str) -> bool:
    return normalise_answer(prediction) == normalise_answer(gold)


def contains_gold(prediction: str, gold: str) -> bool:
    pred, ref = normalise_answer(prediction), normalise_answer(gold)
    return bool(ref) and any(pred[i : i + len(ref)] == ref for i in range(len(pred) - len(ref) + 1))


RIGHT_F1 = 0.5
SUPPORT_LEVELS = ("supported", "weak", "unknown")


def calibration(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """For each support level: how many answers, their share of all, and the share right."""
    out: dict[str, dict[str, float]] = {}
    total = len(rows)
    for level in SUPPORT_LEVELS:
        members = [r for r in rows if (r.get("support") or "unknown") == level]
        right = sum(token_f1(r["answer"], r["gold"]) >= RIGHT_F1 for r in members)
        out[level] = {"n": len(members), "share": len(members) / total if total else 0.0,
                      "right": right / len(members) if members else 0.0}
    return out


def format_calibration(cal: Mapping[str, Mapping[str, float]]) -> str:
    """One line per support level: "supported   41 answers (38.0 %), 90.2 % right"."""
    return "\n".join(f"{level:10} {int(c['n']):5d} answers ({c['share']:.1%}), {c['right']:.1%} right"
                     for level, c in cal.items())


def evidence_hits(gold: Sequence[str], retrieved: Iterable[str]) -> tuple[bool, float]:
    got = set(retrieved)
    hit = sum(1 for g in gold if g in got)
    return hit == len(gold), hit / len(gold)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    k = max(0, math.ceil(q / 100 * len(ordered)) - 1)
    return ordered[k]


def group_metrics(members: Sequence[Mapping[str, Any]]) -> GroupSummary:
    """n, scored, full_recall, coverage, tokens_mean, answer_f1 and latency of a group of rows
    (the figures LoCoMo and LongMemEval summaries share). Rows without gold evidence are not
    scored for recall."""
    hits = [evidence_hits(r["evidence"], r["dia_ids"]) for r in members if r.get("evidence")]
    lat = [float(r["latency_s"]) for r in members]
    return GroupSummary(
        n=len(members),
        scored=len(hits),
        full_recall=sum(f for f, _ in hits) / len(hits) if hits else None,
        coverage=sum(c for _, c in hits) / len(hits) if hits else None,
        tokens_mean=statistics.mean(float(r["context_tokens"]) for r in members) if members else None,
        answer_f1=statistics.mean(token_f1(r["answer"], r["gold"]) for r in members) if members else None,
        answer_em=(statistics.mean(exact_match(r["answer"], r["gold"]) for r in members)
                   if members else None),
        answer_contains=(statistics.mean(contains_gold(r["answer"], r["gold"]) for r in members)
                         if members else None),
        latency_p50=percentile(lat, 50),
        latency_p95=percentile(lat, 95),
    )


def summarise(rows: Sequence[Mapping[str, Any]]) -> EvalSummary:
    """Per category ("1".."4") and "overall": ``group_metrics`` plus plan+retrieve latency.

    Each row carries its gold evidence (``row["evidence"]``); rows without any are not scored."""
    groups: dict[str, list[Mapping[str, Any]]] = {"1": [], "2": [], "3": [], "4": [], OVERALL: []}
    for row in rows:
        groups.setdefault(str(row["category"]), []).append(row)
        groups[OVERALL].append(row)
    out: dict[str, GroupSummary] = {}
    for key, members in groups.items():
        prl = [float(r["plan_retrieve_s"]) for r in members if "plan_retrieve_s" in r]
        out[key] = replace(group_metrics(members),
                           name=CATEGORY_NAMES.get(int(key), key) if key.isdigit() else OVERALL,
                           plan_retrieve_p50=percentile(prl, 50), plan_retrieve_p95=percentile(prl, 95))
    return EvalSummary(out)


def _fmt(v: float | None, spec: str, width: int) -> str:
    return (format(v, spec) if v is not None else "-").rjust(width)


def format_table(summary: EvalSummary) -> str:
    head = (
        f"{'category':16} {'n':>4} {'scored':>6} {'full_recall':>11} {'coverage':>8} {'tokens':>8} "
        f"{'answer_f1':>9} {'em':>5} {'has_gold':>8} {'lat_p50':>8} {'lat_p95':>8} {'pr_p50':>7} "
        f"{'pr_p95':>7}"
    )
    lines = [head]
    f = _fmt
    for key in ("1", "2", "3", "4", OVERALL):
        s = summary.get(key)
        if not s or not s.n:
            continue
        label = f"{key} {s.name}" if key != OVERALL else OVERALL
        lines.append(
            f"{label:16} {s.n:4d} {s.scored:6d} {f(s.full_recall, '.3f', 11)} "
            f"{f(s.coverage, '.3f', 8)} {f(s.tokens_mean, '.1f', 8)} {f(s.answer_f1, '.3f', 9)} "
            f"{f(s.answer_em, '.3f', 5)} {f(s.answer_contains, '.3f', 8)} "
            f"{f(s.latency_p50, '.3f', 8)} {f(s.latency_p95, '.3f', 8)} "
            f"{f(s.plan_retrieve_p50, '.3f', 7)} {f(s.plan_retrieve_p95, '.3f', 7)}"
        )
    return "\n".join(lines)
