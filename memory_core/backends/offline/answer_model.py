"""Which piece answers the question: a small logistic model over answer candidates.

    AnswerModel.load() -> model        (parameters from ``answer_model.json`` beside this file)
    model.probabilities([features, ...]) -> [p, ...]   (how likely each option is the answer)
    featurise(option, question) -> {name: value}
    fit(groups) -> AnswerModel          (plain numpy; ``python -m memory_core bench fit-answer``)

Every candidate answer — a constituent of an evidence sentence, an active record's value, a
time expression resolved against its session's date, the sentence itself — is described by
the same few general features: its kind crossed with the question's answer form (a person for
"who", a place for "where", a number for "how many" ...), how much of it is new to the
question, how close it sits to the words the question repeats, its length, the rank of its
sentence, whether a record states it. The weights are fitted on the tune files by a
reproducible command, not chosen by hand: a listwise fit, where the options of one question
compete and the ones closest to the gold answer should win. The probability the chosen answer
gets among its question's options is what its support level is calibrated on
(``supported_at``: the lowest probability whose answers were right often enough on the tune
files; ``doubtful_at``: the highest probability whose answers were right so rarely that they
are shown as a guess). ``gather_floor`` is fitted the same way: the share of the best item's probability a
list answer's other items need, the one whose lists scored best on the tune files.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from memory_core.backends.offline.constituents import KINDS

MODEL_PATH = Path(__file__).with_name("answer_model.json")
# dependency labels of a piece's head with a feature of their own (the rest count as "other")
DEPS = frozenset({"dobj", "pobj", "attr", "nsubj", "nsubjpass", "conj", "appos", "compound", "ROOT", "xcomp",
                  "acomp", "npadvmod", "dative", "oprd", "amod", "advmod", "ccomp"})
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
    sentence_overlap: float = 0.0  # share of the question's content words its sentence holds
    kind_rank: int = 0  # options of the same kind before this one (best sentence first)
    head_sim: float = 0.0  # a short option's cosine with what is asked for ("instrument", "a place")
    dep: str = ""  # the dependency label of the piece's head in its sentence ("dobj", "pobj", ...)
    after: bool = False  # the piece starts after the nearest word the question repeats


def featurise(o: Option) -> dict[str, float]:
    """The option's features: each general one, and each again for the question's answer form
    (what makes a good "when" answer is not what makes a good "who" answer)."""
    kind = o.kind if o.kind in KINDS else "np"
    target = o.target if o.target in TARGETS else "value"
    general = {
        f"kind={kind}": 1.0,
        "sentence_score": o.sentence_score,
        "sentence_rank": 1.0 / (1.0 + o.sentence_rank),
        "novelty": o.novelty,
        "overlap": o.overlap,
        "distance": o.distance,
        "attached": float(o.attached),
        "proper": o.proper,
        "log_words": math.log1p(o.words),
        "short": float(o.words <= 3),
        "long": float(o.words > 8),
        "head_match": float(o.head_match),
        "asked_name": float(o.asked_name),
        "speaker_is_asked": float(o.speaker_is_asked),
        "record": float(o.record),
        "record_property": float(o.record_property),
        "edited": float(o.edited),
        "turn_closeness": o.turn_closeness,
        "sentence_overlap": o.sentence_overlap,
        "first_of_kind": float(o.kind_rank == 0),
        "head_sim": o.head_sim,
        f"dep={o.dep if o.dep in DEPS else 'other'}": 1.0 if o.dep else 0.0,
        "after": float(o.after),
    }
    return {**general, **{f"target={target}|{k}": v for k, v in general.items()}}


@dataclass
class AnswerModel:
    weights: dict[str, float] = field(default_factory=dict)
    supported_at: float = 0.5  # probability from which an answer is called supported
    supported_at_by_target: dict[str, float] = field(default_factory=dict)  # the same, per answer form
    # probability up to which an answer is a guess: the tune answers chosen that unsure were
    # rarely right (``calibrate_doubt``); 0 = no answer is called a guess for its probability
    doubtful_at: float = 0.0
    # a list answer keeps items whose probability is at least this share of the best item's
    gather_floor: float = 0.0
    notes: dict[str, object] = field(default_factory=dict)  # how it was fitted (files, counts, scores)

    def threshold(self, target: str) -> float:
        """The probability from which an answer of this form is called supported (1.0: none is)."""
        return self.supported_at_by_target.get(target, self.supported_at)

    def reaches(self, p: float, target: str) -> bool:
        """Does probability ``p`` reach the threshold calibrated for this form? Never when the
        tune files found no probability that made such answers right often enough (1.0)."""
        t = self.threshold(target)
        return t < 1.0 and p >= t

    def supports(self, p: float, target: str, options: int) -> bool:
        """Is an answer of this form chosen with probability ``p`` among ``options`` options
        supported? When ``p`` reaches its threshold, and never when it was the only option: its
        probability is 1 by construction and says nothing."""
        return options > 1 and self.reaches(p, target)

    def doubtful(self, p: float) -> bool:
        """Is an answer chosen with probability ``p`` a guess (right rarely on the tune files)?"""
        return p <= self.doubtful_at

    def score(self, features: Mapping[str, float]) -> float:
        return sum(self.weights.get(k, 0.0) * v for k, v in features.items())

    def probabilities(self, options: Sequence[Mapping[str, float]]) -> list[float]:
        """How likely each option is the answer, among these options (a softmax of scores)."""
        if not options:
            return []
        scores = [self.score(f) for f in options]
        top = max(scores)
        exp = [math.exp(s - top) for s in scores]
        total = sum(exp)
        return [e / total for e in exp]

    def to_json(self) -> str:
        weights = {k: round(v, 5) for k, v in sorted(self.weights.items()) if abs(v) >= 1e-5}
        by_target = {k: round(v, 4) for k, v in sorted(self.supported_at_by_target.items())}
        return json.dumps({"weights": weights, "supported_at": round(self.supported_at, 4),
                           "supported_at_by_target": by_target, "gather_floor": round(self.gather_floor, 4),
                           "doubtful_at": round(self.doubtful_at, 4),
                           "notes": self.notes},
                          indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> AnswerModel:
        data = json.loads(text)
        return cls(weights={str(k): float(v) for k, v in data.get("weights", {}).items()},
                   supported_at=float(data.get("supported_at", 0.5)),
                   supported_at_by_target={str(k): float(v)
                                           for k, v in data.get("supported_at_by_target", {}).items()},
                   gather_floor=float(data.get("gather_floor", 0.0)),
                   doubtful_at=float(data.get("doubtful_at", 0.0)),
                   notes=dict(data.get("notes", {})))

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> AnswerModel:
        return cls.from_json(path.read_text(encoding="utf-8")) if path.exists() else cls()


@cache
def default_model() -> AnswerModel:
    return AnswerModel.load()


def fit(groups: Sequence[Sequence[tuple[dict[str, float], float]]], *, l2: float = 1.0,
        epochs: int = 1500, rate: float = 0.05, temperature: float | None = None) -> AnswerModel:
    """A conditional-logit (listwise) fit: within each question, the options compete through a
    softmax of their scores, and the options' token-F1 against the gold answer (normalised
    over the question) is the target. A question none of whose options is any good teaches
    nothing about choosing and is left out. Adam steps, L2 penalty ``l2`` (per question)."""
    usable = [g for g in groups if g and sum(y for _f, y in g) > 0]
    names = sorted({k for g in usable for f, _y in g for k in f})
    col = {k: i for i, k in enumerate(names)}
    mats, targets = [], []
    for g in usable:
        x = np.zeros((len(g), len(names)))
        for r, (f, _y) in enumerate(g):
            for k, value in f.items():
                x[r, col[k]] = value
        y = np.array([y for _f, y in g], dtype=float)
        if temperature is None:
            y = np.where(y >= y.max() - 1e-9, 1.0, 0.0)  # the best options of the question share the target
        else:  # nearly-best options get a share too
            y = np.exp((y - y.max()) / temperature)
        mats.append(x)
        targets.append(y / y.sum())
    beta = np.zeros(len(names))
    m, v = np.zeros_like(beta), np.zeros_like(beta)
    n = max(len(mats), 1)
    for step in range(1, epochs + 1):
        grad = l2 * beta / n
        for x, t in zip(mats, targets, strict=True):
            s = x @ beta
            p = np.exp(s - s.max())
            p /= p.sum()
            grad = grad + x.T @ (p - t) / n
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        beta -= rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
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


def calibrate_doubt(chosen: Sequence[tuple[float, bool]], most_right: float = 0.1, min_n: int = 10) -> float:
    """The highest probability p such that answers chosen with probability <= p were right at
    most ``most_right`` of the time (over at least ``min_n`` answers); 0.0 when none is."""
    ordered = sorted(chosen, key=lambda c: c[0])
    best = 0.0
    right = 0
    for n, (p, ok) in enumerate(ordered, start=1):
        right += ok
        if n >= min_n and right / n <= most_right and (n == len(ordered) or ordered[n][0] > p):
            best = p  # never between two answers of the same probability
    return best
