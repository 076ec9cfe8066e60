"""The fitted fusion of retrieval's signals and its stopping rule, loaded from a small JSON file.

``turn_features(ci, scored, hand)`` -> (turns, len(FEATURES)) matrix of the signals scoring
already computes for one question, each in about [0, 1]:

    lexical, dense, dense_raw       BM25 (min-max), cosine (min-max) and raw cosine of the turn
    lexical_rank, dense_rank        1 / log2(2 + rank) of the turn in each channel's ranking
    record_lexical, record_dense    the best record citing the turn, by BM25 / cosine
    structured, support             requirement <-> record match; requirement support of the turn
    speaker, date                   turn by the one person asked about; session near a named date
    lexical_nb, dense_nb            the best neighbour (same session, +-1) in each channel
    episode_dense, session_dense    the best cosine inside the turn's episode / session
    episode_lexical                 the best BM25 inside the turn's episode
    length                          log of the turn's tokens (scaled to about [0, 1])
    hand                            the hand-weighted fusion (``StrategyConfig`` weights, smoothed)
    support_count                   share of the requirements the turn supports (>= 0.6)
    term_overlap                    share of the question's terms the turn contains
    session_lexical                 the best BM25 inside the turn's session
    head_dense                      raw cosine of the turn and the category the question names
                                    ("which drinks ..." -> "drinks"); 0 when it names none

A ``Ranker`` is a linear model over the standardised features (``score = w . (x - mean) / std``,
higher is better; a size class may have its own ``w``), fitted by ``bench fit``
(``memory_core.eval.fit``) on the tune files, plus
the stopping rule fitted with it: the token budget of each reasoning type, per conversation
size class (``size_class``). ``load_ranker()`` reads ``ranker.json`` beside this module once;
a missing or unreadable file leaves the hand weights in charge (``None``).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memory_core.errors import QueryError

if TYPE_CHECKING:
    from memory_core.query.context import ConversationIndex

log = logging.getLogger(__name__)

RANKER_FILE = Path(__file__).with_name("ranker.json")
FEATURES = (
    "lexical", "dense", "dense_raw", "lexical_rank", "dense_rank", "record_lexical", "record_dense",
    "structured", "support", "speaker", "date", "lexical_nb", "dense_nb", "episode_dense",
    "session_dense", "episode_lexical", "length", "hand", "support_count", "term_overlap",
    "session_lexical", "head_dense",
)
SIZE_CLASSES = (("short", 50_000), ("long", None))  # conversation tokens up to the bound
DEFAULT_BUDGET = 2500
SUPPORTED = 0.6  # a requirement counts as supported by a turn at or above this (as in retrieve)
OTHER = "other"  # the budget of the reasoning types too rare in the tune data for their own


def size_class(conversation_tokens: int) -> str:
    """The size class of a conversation of this many tokens (budgets are fitted per class)."""
    for name, bound in SIZE_CLASSES:
        if bound is None or conversation_tokens <= bound:
            return name
    return SIZE_CLASSES[-1][0]


@dataclass(frozen=True)
class Ranker:
    features: tuple[str, ...]
    weights: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    budgets: dict[str, dict[str, int]] = field(default_factory=dict)  # size class -> type -> tokens
    meta: dict[str, Any] = field(default_factory=dict)
    class_weights: dict[str, np.ndarray] = field(default_factory=dict)  # a size class's own weights

    def score(self, x: np.ndarray, size: str | None = None) -> np.ndarray:
        """One score per row of ``x`` (columns in ``self.features`` order), with the size
        class's own weights when it has some."""
        w = self.class_weights.get(size, self.weights) if size is not None else self.weights
        return (((x - self.mean) / self.std) @ w).astype(np.float32)

    def budget(self, size: str, reasoning: str) -> int:
        per_type = self.budgets.get(size) or {}
        return int(per_type.get(reasoning, per_type.get(OTHER, per_type.get("point", DEFAULT_BUDGET))))

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "weights": [round(float(w), 6) for w in self.weights],
            "mean": [round(float(m), 6) for m in self.mean],
            "std": [round(float(s), 6) for s in self.std],
            "budgets": self.budgets,
            "class_weights": {k: [round(float(w), 6) for w in v] for k, v in self.class_weights.items()},
            "meta": self.meta,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str) -> Ranker:
        try:
            names = tuple(str(f) for f in data["features"])
            arrays = [np.asarray(data[k], dtype=np.float64) for k in ("weights", "mean", "std")]
            budgets = {str(s): {str(t): int(v) for t, v in per.items()} for s, per in data["budgets"].items()}
            per_class = {str(k): np.asarray(v, dtype=np.float64)
                         for k, v in (data.get("class_weights") or {}).items()}
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise QueryError(f"{where}: not a ranker file ({exc.__class__.__name__}: {exc})") from None
        unknown = [f for f in names if f not in FEATURES]
        if unknown:
            raise QueryError(f"{where}: features: unknown {', '.join(unknown)} "
                             f"(known: {', '.join(FEATURES)})")
        if any(a.shape != (len(names),) for a in [*arrays, *per_class.values()]):
            raise QueryError(f"{where}: weights, mean and std need {len(names)} values each")
        std = np.where(arrays[2] > 1e-9, arrays[2], 1.0)
        return cls(names, arrays[0], arrays[1], std, budgets, dict(data.get("meta") or {}), per_class)


def read_ranker(path: str | Path) -> Ranker:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise QueryError(f"{p}: cannot read the ranker ({exc})") from None
    if not isinstance(data, dict):
        raise QueryError(f"{p}: a ranker is a JSON object")
    return Ranker.from_json(data, str(p))


@lru_cache(maxsize=4)
def load_ranker(path: str | None = None) -> Ranker | None:
    """The committed ranker (or the one at ``path``), read once; ``None`` when there is none."""
    p = Path(path) if path else RANKER_FILE
    if not p.exists():
        log.warning("no fitted ranker at %s: retrieval uses the hand weights", p)
        return None
    return read_ranker(p)


def _rank_feature(x: np.ndarray) -> np.ndarray:
    order = np.argsort(-x, kind="stable")
    ranks = np.empty(len(x), dtype=np.float64)
    ranks[order] = np.arange(len(x))
    return 1.0 / np.log2(2.0 + ranks)


def _neighbour_max(ci: ConversationIndex, s: np.ndarray) -> np.ndarray:
    if s.size < 2:
        return np.zeros_like(s)
    same = ci.turn_session[1:] == ci.turn_session[:-1]
    prev = np.where(np.r_[False, same], np.r_[0.0, s[:-1]], 0.0)
    nxt = np.where(np.r_[same, False], np.r_[s[1:], 0.0], 0.0)
    return np.maximum(prev, nxt)


def _group_max(groups: np.ndarray, s: np.ndarray) -> np.ndarray:
    if s.size == 0:
        return s
    keys, inverse = np.unique(groups, return_inverse=True)
    best = np.full(len(keys), -np.inf)
    np.maximum.at(best, inverse, s)
    return best[inverse]


def turn_features(ci: ConversationIndex, channels: dict[str, np.ndarray], support: np.ndarray,
                  raw_dense: np.ndarray, hand: np.ndarray, qterms: Sequence[str]) -> np.ndarray:
    """(turns, len(FEATURES)) features of one question (see the module docstring)."""
    n = len(ci.turns)
    wanted = frozenset(qterms)
    overlap = np.array([len(wanted & d) / len(wanted) for d in ci.turn_lex.doc_terms]) if wanted else \
        np.zeros(n)
    zero = np.zeros(n, dtype=np.float64)
    lex, dense = channels["lexical"].astype(np.float64), channels["dense"].astype(np.float64)
    cols = {
        "lexical": lex,
        "dense": dense,
        "dense_raw": raw_dense.astype(np.float64),
        "lexical_rank": _rank_feature(lex) if n else zero,
        "dense_rank": _rank_feature(dense) if n else zero,
        "record_lexical": channels.get("record_lexical", zero),
        "record_dense": channels.get("record_dense", zero),
        "structured": channels.get("structured", zero),
        "support": support.max(axis=0) if support.size else zero,
        "speaker": channels.get("speaker", zero),
        "date": channels.get("date", zero),
        "lexical_nb": _neighbour_max(ci, lex),
        "dense_nb": _neighbour_max(ci, dense),
        "episode_dense": _group_max(ci.turn_episode, dense),
        "session_dense": _group_max(ci.turn_session, dense),
        "episode_lexical": _group_max(ci.turn_episode, lex),
        "length": np.log1p(ci.turn_tokens.astype(np.float64)) / math.log(1000.0),
        "hand": hand.astype(np.float64),
        "support_count": (support >= SUPPORTED).mean(axis=0) if support.size else zero,
        "term_overlap": overlap,
        "session_lexical": _group_max(ci.turn_session, lex),
        "head_dense": channels.get("head_dense", zero),
    }
    return np.stack([np.asarray(cols[f], dtype=np.float64) for f in FEATURES], axis=1) if n else \
        np.zeros((0, len(FEATURES)))


def fitted_scores(ranker: Ranker, x: np.ndarray, size: str | None = None) -> np.ndarray:
    """The ranker's scores for a full feature matrix (``FEATURES`` columns) of a conversation of
    size class ``size``."""
    cols = [FEATURES.index(f) for f in ranker.features]
    return ranker.score(x[:, cols], size)
