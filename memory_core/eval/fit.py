"""Fit the retrieval ranker and its stopping rule on tune questions (numpy only).

    Candidates(features, gold, tokens, key, size)   one question's turns (``ranker.FEATURES``
                                                    columns), which are gold evidence, their
                                                    tokens, its budget key and size class
    fit_weights(questions) -> (weights, mean, std)  a listwise (softmax) linear ranker: each
                                                    gold turn's share of the softmax over its
                                                    question's turns is raised; L2-penalised,
                                                    damped Newton, each question weighing the same
                                                    (it beat a pairwise logistic ranker when one
                                                    tune file was fitted and the other scored)
    tokens_needed(order, gold, tokens)              buffer tokens until every gold turn is in
    fit_budgets(questions, scores, targets)         per size class, the token budget of each
                                                    reasoning type that finds the most questions'
                                                    full evidence while the mean budget stays
                                                    within the class's target (rare types share
                                                    one budget, "other"; a class without tune
                                                    questions gets a fitted one's, scaled)
    fit_ranker(questions, targets) -> Ranker        both, in one file's worth of parameters

Nothing here knows a benchmark: the inputs are feature matrices and gold turn flags.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memory_core.query.ranker import FEATURES, OTHER, Ranker

L2 = 3.0  # penalty on the standardised weights (chosen by leave-one-tune-file-out: 0.1-3 tried)
GRID_STEP = 100  # budget grid (tokens)
MIN_BUDGET = 500
MAX_FACTOR = 1.5  # no reasoning type gets more than this times its size class's target
MIN_QUESTIONS = 15  # a reasoning type with fewer tune questions shares the "other" budget


@dataclass(frozen=True)
class Candidates:
    features: np.ndarray  # (turns, len(FEATURES))
    gold: np.ndarray  # (turns,) bool
    tokens: np.ndarray  # (turns,) int
    key: str  # the budget key (reasoning type)
    size: str  # the conversation's size class
    group: str = ""  # where the question comes from (file), for reports


def save_candidates(path: Path, questions: Sequence[Candidates]) -> None:
    """One ``.npz`` of a file's candidates (``bench fit --cache``: later fits skip retrieval)."""
    empty = not questions
    np.savez_compressed(
        path,
        features=np.zeros((0, len(FEATURES))) if empty else np.concatenate([q.features for q in questions]),
        gold=np.zeros(0, bool) if empty else np.concatenate([q.gold for q in questions]),
        tokens=np.zeros(0, np.int64) if empty else np.concatenate([q.tokens for q in questions]),
        sizes=np.array([len(q.gold) for q in questions], dtype=np.int64),
        keys=np.array([q.key for q in questions]), classes=np.array([q.size for q in questions]),
        groups=np.array([q.group for q in questions]), names=np.array(FEATURES))
    return


def load_candidates(path: Path) -> list[Candidates] | None:
    """The cached candidates, or ``None`` when the file is absent or has other features."""
    if not path.exists():
        return None
    with np.load(path, allow_pickle=False) as data:  # our own .npz: arrays only, never objects
        if tuple(str(n) for n in data["names"]) != FEATURES:
            return None
        bounds = np.r_[0, np.cumsum(data["sizes"])]
        x, gold, tokens = data["features"], data["gold"], data["tokens"]
        rows = zip(bounds[:-1], bounds[1:], data["keys"], data["classes"], data["groups"], strict=True)
        return [Candidates(x[a:b], gold[a:b], tokens[a:b], str(k), str(c), str(g)) for a, b, k, c, g in rows]


def fit_weights(questions: Sequence[Candidates], *, l2: float = L2, iterations: int = 30,
                prior: np.ndarray | None = None, scale: tuple[np.ndarray, np.ndarray] | None = None,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Listwise (softmax) ranker by Newton's method: each gold turn's share of the softmax over
    its question's turns is raised; every question weighs the same."""
    rows = np.concatenate([q.features for q in questions])
    if scale is None:
        mean, std = rows.mean(axis=0), rows.std(axis=0)
        std = np.where(std > 1e-9, std, 1.0)
    else:
        mean, std = scale
    center = np.zeros(rows.shape[1]) if prior is None else prior  # the penalty pulls towards it
    xs = [((q.features - mean) / std, q.gold / q.gold.sum()) for q in questions
          if q.gold.any() and (~q.gold).any()]
    if not xs:
        raise ValueError("no question with both gold and other turns to learn from")
    w = center.copy()
    n = len(xs)

    def loss(v: np.ndarray) -> float:
        total = 0.5 * l2 * float((v - center) @ (v - center))
        for x, y in xs:
            z = x @ v
            top = float(z.max())
            total -= float(y @ (z - top - np.log(np.exp(z - top).sum()))) / n
        return total

    current = loss(w)
    for _ in range(iterations):
        grad, hess = l2 * (w - center), l2 * np.eye(len(w))
        for x, y in xs:
            z = x @ w
            p = np.exp(z - z.max())
            p /= p.sum()
            grad += x.T @ (p - y) / n
            xp = x.T @ p
            hess += ((x * p[:, None]).T @ x - np.outer(xp, xp)) / n
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-4 and loss(w - t * step) > current:  # damped: Newton overshoots here
            t /= 2
        w, current = w - t * step, loss(w - t * step)
        if float(np.abs(t * step).max()) < 1e-5:
            break
    return w, mean, std


def tokens_needed(order: np.ndarray, gold: np.ndarray, tokens: np.ndarray) -> int | None:
    """Tokens of the ranked turns up to (and with) the last gold one; ``None`` without gold."""
    if not gold.any():
        return None
    ranked_gold = gold[order]
    last = int(np.where(ranked_gold)[0].max())
    return int(tokens[order[: last + 1]].sum())


def fit_budgets(questions: Sequence[Candidates], scores: Sequence[np.ndarray],
                targets: Mapping[str, int]) -> dict[str, dict[str, int]]:
    """Per size class: budget per key maximising full-evidence finds at mean budget <= target.

    Greedy over each key's recall-by-budget curve: from ``MIN_BUDGET`` for every key, raise the
    key (to whichever larger grid budget) with the most questions found per token added, while
    the question-weighted mean budget stays within the target.
    """
    out: dict[str, dict[str, int]] = {}
    for size, target in targets.items():
        needs: dict[str, list[float]] = {}
        for q, s in zip(questions, scores, strict=True):
            if q.size != size:
                continue
            need = tokens_needed(np.argsort(-s, kind="stable"), q.gold, q.tokens)
            if need is not None:
                needs.setdefault(q.key, []).append(float(need))
        if not needs:
            continue
        rare = [k for k, v in needs.items() if len(v) < MIN_QUESTIONS]
        for k in rare:
            needs.setdefault(OTHER, []).extend(needs.pop(k))
        total = sum(len(v) for v in needs.values())
        grid = np.arange(MIN_BUDGET, max(target * MAX_FACTOR, MIN_BUDGET) + 1, GRID_STEP)
        budget = {k: MIN_BUDGET for k in needs}
        spent = MIN_BUDGET * total
        while True:
            best: tuple[float, str, int] | None = None
            for k, v in needs.items():
                arr = np.asarray(v)
                found_now = int((arr <= budget[k]).sum())
                for b in grid[grid > budget[k]]:
                    cost = (int(b) - budget[k]) * len(v)
                    if spent + cost > target * total:
                        break
                    gain = int((arr <= b).sum()) - found_now
                    if gain > 0 and (best is None or gain / cost > best[0]):
                        best = (gain / cost, k, int(b))
            if best is None:
                break
            _, k, b = best
            spent += (b - budget[k]) * len(needs[k])
            budget[k] = b
        # what is left of the target goes to every key alike (the rule must not end below it)
        slack = int((target * total - spent) // total // GRID_STEP * GRID_STEP)
        out[size] = {k: int(b + max(0, slack)) for k, b in sorted(budget.items())}
    fitted = [s for s in targets if s in out]
    for size in (s for s in targets if s not in out and fitted):  # no tune question of this size:
        ref = fitted[0]  # the budgets of a fitted class, scaled by the ratio of the targets
        out[size] = {k: int(round(b * targets[size] / targets[ref] / GRID_STEP) * GRID_STEP)
                     for k, b in out[ref].items()}
    return out


def fit_ranker(questions: Sequence[Candidates], targets: Mapping[str, int], *,
               meta: dict[str, object] | None = None) -> Ranker:
    """Shared weights on every question; a size class with ``MIN_QUESTIONS`` or more questions
    that are not most of the tune data also gets its own weights, fitted on its questions with
    the penalty pulling towards the shared ones (few long chats must not move the rest)."""
    w, mean, std = fit_weights(questions)
    own: dict[str, np.ndarray] = {}
    for size in targets:
        members = [q for q in questions if q.size == size]
        if MIN_QUESTIONS <= len(members) <= len(questions) // 2:
            own[size], _, _ = fit_weights(members, prior=w, scale=(mean, std))
    ranker = Ranker(FEATURES, w, mean, std, {}, dict(meta or {}), own)
    scores = [ranker.score(q.features, q.size) for q in questions]
    budgets = fit_budgets(questions, scores, targets)
    return Ranker(FEATURES, w, mean, std, budgets, dict(meta or {}), own)


__all__ = ["Candidates", "fit_budgets", "fit_ranker", "fit_weights", "load_candidates", "save_candidates",
           "tokens_needed"]
