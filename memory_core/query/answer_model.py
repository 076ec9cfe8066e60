"""Which piece answers the question: a small logistic model over answer candidates.

    AnswerModel.load() -> model        (parameters from ``answer_model.json`` beside this file)
    model.probability(features) -> p   (p: the candidate is a right answer, token-F1 >= 0.5)
    featurise(option, question) -> {name: value}
    fit(examples) -> AnswerModel       (plain numpy; ``python -m memory_core bench fit-answer``)

Every candidate answer — a constituent of an evidence sentence, an active record's value, a
time expression resolved against its session's date, the sentence itself — is described by
the same few general features: its kind crossed with the question's answer form (a person for
"who", a place for "where", a number for "how many" ...), how much of it is new to the
question, how close it sits to the words the question repeats, its length, the rank of its
sentence, whether a record states it. The weights are fitted on the tune files by a
reproducible command, not chosen by hand, and the probability of the chosen answer is what
its support level is calibrated on (``supported_at``: the lowest probability whose answers
were right often enough on the tune files).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from memory_core.query.constituents import KINDS

MODEL_PATH = Path(__file__).with_name("answer_model.json")
TARGETS = ("entity", "location", "time", "count", "value", "list", "explanation", "boolean", "likelihood")


@dataclass(frozen=True)
class Option:
    """One candidate answer and what is known about it (plain values: featurising is pure)."""

    text: str
    kind: str  # a constituent kind (``constituents.KINDS``)
    target: str  # the question's answer form
    sentence_score: float  # the evidence sentence's score relative to the best sentence (0..1]
    sentence_rank: int  # 0 = the best sentence
    novelty: float  # share of the option's content words the question does not hold
    overlap: float  # share of the question's content words the option repeats
    distance: float  # tokens between the option and the nearest question word in its sentence (0..1)
    attached: bool  # the option hangs on a word the question repeats
    proper: float  # share of proper-noun tokens
    words: int
    head_match: bool  # the option holds the question's category noun or a word of its family
    asked_name: bool  # the option is (or holds) the name of the asked person
    speaker_is_asked: bool  # the sentence is said by the asked person
    record: bool = False  # an active record's value
    record_property: bool = False  # ... of a record whose property matches the requirement's
    edited: bool = False  # ... a record an annotator wrote or corrected
    turn_closeness: float = 0.0  # the turn's closeness to the question (0..1, buffer-normalised)


def featurise(o: Option) -> dict[str, float]:
    kind = o.kind if o.kind in KINDS else "np"
    target = o.target if o.target in TARGETS else "value"
    return {
        "bias": 1.0,
        f"kind={kind}": 1.0,
        f"target={target}|kind={kind}": 1.0,
        "sentence_score": o.sentence_score,
        "sentence_rank": 1.0 / (1.0 + o.sentence_rank),
        "novelty": o.novelty,
        "overlap": o.overlap,
        "distance": o.distance,
        "attached": float(o.attached),
        "proper": o.proper,
        f"target={target}|proper": o.proper,
        "log_words": math.log1p(o.words),
        f"target={target}|log_words": math.log1p(o.words),
        "short": float(o.words <= 3),
        "long": float(o.words > 8),
        "head_match": float(o.head_match),
        "asked_name": float(o.asked_name),
        "speaker_is_asked": float(o.speaker_is_asked),
        "record": float(o.record),
        "record_property": float(o.record_property),
        "edited": float(o.edited),
        "turn_closeness": o.turn_closeness,
    }


@dataclass
class AnswerModel:
    weights: dict[str, float] = field(default_factory=dict)
    supported_at: float = 0.5  # probability from which an answer is called supported
    notes: dict[str, object] = field(default_factory=dict)  # how it was fitted (files, counts, scores)

    def score(self, features: Mapping[str, float]) -> float:
        return sum(self.weights.get(k, 0.0) * v for k, v in features.items())

    def probability(self, features: Mapping[str, float]) -> float:
        z = self.score(features)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def to_json(self) -> str:
        weights = {k: round(v, 5) for k, v in sorted(self.weights.items()) if abs(v) >= 1e-5}
        return json.dumps({"weights": weights, "supported_at": round(self.supported_at, 4),
                           "notes": self.notes}, indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> AnswerModel:
        data = json.loads(text)
        return cls(weights={str(k): float(v) for k, v in data.get("weights", {}).items()},
                   supported_at=float(data.get("supported_at", 0.5)), notes=dict(data.get("notes", {})))

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> AnswerModel:
        return cls.from_json(path.read_text(encoding="utf-8")) if path.exists() else cls()


@cache
def default_model() -> AnswerModel:
    return AnswerModel.load()


def fit(groups: Sequence[Sequence[tuple[dict[str, float], float]]], *, l2: float = 1.0,
        epochs: int = 400, rate: float = 0.5) -> AnswerModel:
    """Logistic regression on (features, label) pairs; ``groups`` are the options of one
    question each (a question with many options counts as much as one with few)."""
    names = sorted({k for g in groups for f, _y in g for k in f})
    col = {k: i for i, k in enumerate(names)}
    rows, labels, weights = [], [], []
    for g in groups:
        if not g:
            continue
        for f, y in g:
            x = np.zeros(len(names))
            for k, v in f.items():
                x[col[k]] = v
            rows.append(x)
            labels.append(y)
            weights.append(1.0 / math.sqrt(len(g)))
    x_all, y_all, w_all = np.array(rows), np.array(labels), np.array(weights)
    w_all = w_all / w_all.mean()
    beta = np.zeros(len(names))
    n = len(y_all)
    for _ in range(epochs):
        p = 1.0 / (1.0 + np.exp(-np.clip(x_all @ beta, -30, 30)))
        grad = x_all.T @ ((p - y_all) * w_all) / n + l2 * beta / n
        beta -= rate * grad
    return AnswerModel(weights={k: float(beta[i]) for k, i in col.items()})


def calibrate(chosen: Sequence[tuple[float, bool]], precision: float = 0.9, min_n: int = 10) -> float:
    """The lowest probability p such that answers chosen with probability >= p were right at
    least ``precision`` of the time (over at least ``min_n`` answers); 1.0 when none is."""
    ordered = sorted(chosen, key=lambda c: -c[0])
    best = 1.0
    right = 0
    for n, (p, ok) in enumerate(ordered, start=1):
        right += ok
        if n >= min_n and right / n >= precision:
            best = p
    return best
