"""Fitting the offline answer model on tune files (``python -m memory_core bench fit-answer``).

    Sample                                      one asked question: the answer stage's inputs
                                                (plan, buffer, matched records) and its gold
    fit_answer_model(samples, parse) -> (model, report)

Each option the evidence offers a question (``backends.offline.compose``) is labelled with its token-F1
against the gold answer; a logistic model is fitted on those labels (``answer_model.fit``),
then ``supported_at`` is calibrated, per answer form (a time is one form, whatever the question's):
the lowest probability from which the answers the offline backend shows — a time chosen by
``_timed``, a list joined by ``gathered``, not merely the model's top option — that would be
supported (more than one option, every target requirement met) were right (F1 >= 0.5) at
least 90 % of the time, over at least 10 (1.0: no answer of the form is supported); ``doubtful_at``: the
highest probability up to which the model's first choices (questions answered by one piece,
not a time or a list) were right at most 10 % of the time (shown as a guess, support
"unknown"); and ``gather_floor`` is
the list-item floor whose joined answers scored best on the tune questions that gather. The
samples can be kept in a JSON-lines file so that a refit does not ask again.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memory_core.backends.offline.answer_model import AnswerModel, calibrate, calibrate_doubt, featurise, fit
from memory_core.backends.offline.answering import (
    Candidate,
    Parse,
    candidates,
    draft_answer,
    gathered,
    gathers,
    options,
)
from memory_core.backends.offline.compose import Choice, Embed
from memory_core.eval.metrics import token_f1
from memory_core.models import BufferTurn, Plan, Record, SupportLevel

RIGHT = 0.5  # token-F1 from which an answer counts as right
PRECISION = 0.9  # share of supported answers that must be right on the tune files
DOUBT = 0.1  # share of the answers shown as a guess that may be right on the tune files
SKIPPED_TARGETS = frozenset({"boolean", "likelihood"})  # answered by polarity, not by options
GATHER_FLOORS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)  # the list-item floors the fit tries


@dataclass(frozen=True)
class Sample:
    source: str
    conv_id: str
    qid: int
    category: int
    question: str
    gold: str
    plan: Plan
    buffer: tuple[BufferTurn, ...]
    records: tuple[Record, ...]
    unmentioned: tuple[str, ...]

    def to_json(self) -> str:
        return json.dumps({
            "source": self.source, "conv_id": self.conv_id, "qid": self.qid, "category": self.category,
            "question": self.question, "gold": self.gold, "plan": self.plan.model_dump(mode="json"),
            "buffer": [b.model_dump(mode="json") for b in self.buffer],
            "records": [r.model_dump(mode="json") for r in self.records],
            "unmentioned": list(self.unmentioned),
        })

    @classmethod
    def from_json(cls, line: str) -> Sample:
        d = json.loads(line)
        return cls(source=d["source"], conv_id=d["conv_id"], qid=int(d["qid"]), category=int(d["category"]),
                   question=d["question"], gold=d["gold"], plan=Plan.model_validate(d["plan"]),
                   buffer=tuple(BufferTurn.model_validate(b) for b in d["buffer"]),
                   records=tuple(Record.model_validate(r) for r in d["records"]),
                   unmentioned=tuple(d["unmentioned"]))


Labelled = list[tuple[Choice, dict[str, float], float]]  # option, features, token-F1 against gold
Scored = tuple[Sample, list[tuple[float, Choice]], list[Candidate]]  # a question, its options best first


def _groups(samples: Sequence[Sample], parse: Parse,
            embed: Embed | None = None) -> list[tuple[Sample, Labelled, list[Candidate]]]:
    """Each usable sample with its options (choice, features, F1)."""
    out = []
    for s in samples:
        if s.unmentioned or s.plan.answer_target in SKIPPED_TARGETS:
            continue
        ranked = candidates(s.plan, list(s.buffer))
        if not ranked:
            continue
        opts = options(s.question, s.plan, ranked, s.records, list(s.buffer), parse, embed)
        out.append((s, [(c, featurise(c.option), token_f1(c.text, s.gold)) for c in opts], ranked))
    return out


def fit_answer_model(samples: Sequence[Sample], parse: Parse, *, embed: Embed | None = None,
                     l2: float = 1.0, temperature: float | None = None,
                     weights_of: AnswerModel | None = None) -> tuple[AnswerModel, dict[str, Any]]:
    """The answer model fitted on the samples, its thresholds calibrated on them; with
    ``weights_of``, that model's weights are kept and only the thresholds are calibrated."""
    groups = _groups(samples, parse, embed)
    if weights_of is not None:
        model = AnswerModel(weights=dict(weights_of.weights))
    else:
        model = fit([[(f, y) for _c, f, y in opts] for _s, opts, _r in groups if opts], l2=l2,
                    temperature=temperature)
    first_choice: list[tuple[float, bool]] = []  # (probability, right) where the top option is the answer
    f1s: list[float] = []
    oracle: list[float] = []
    lists: list[Scored] = []  # the questions that gather, their options best first
    for s, opts, ranked in groups:
        if not opts:
            continue
        probs = model.probabilities([f for _c, f, _y in opts])
        if gathers(s.plan) and s.plan.answer_target != "time":
            scored = sorted(zip(probs, [c for c, _f, _y in opts], strict=True), key=lambda pc: -pc[0])
            lists.append((s, scored, ranked))
        p, _c, f1 = max(((p, c, y) for p, (c, _f, y) in zip(probs, opts, strict=True)), key=lambda t: t[0])
        f1s.append(f1)
        oracle.append(max(y for _c, _f, y in opts))
        if not gathers(s.plan) and s.plan.answer_target != "time":  # answered by the model's first choice
            first_choice.append((p, f1 >= RIGHT))
    model.doubtful_at = calibrate_doubt(first_choice, DOUBT)
    model.gather_floor, by_floor = _fit_gather_floor(model, lists)
    by_target = _supportable(model, samples, parse, embed)
    model.supported_at = calibrate([c for cs in by_target.values() for c in cs], PRECISION)
    model.supported_at_by_target = {t: calibrate(c, PRECISION) for t, c in by_target.items()}
    supported = sum(model.reaches(p, t) for t, c in by_target.items() for p, _ok in c)
    right = sum(ok for t, c in by_target.items() for p, ok in c if model.reaches(p, t))
    n = len(f1s)
    report: dict[str, Any] = {
        "files": sorted({s.source for s in samples}),
        "weights": "kept" if weights_of is not None else "fitted",
        "questions": len(samples),
        "fitted_on": n,
        "options": sum(len(opts) for _s, opts, _r in groups),
        "chosen_f1": round(sum(f1s) / n, 4) if n else 0.0,
        "best_option_f1": round(sum(oracle) / n, 4) if n else 0.0,
        "supported_at": {t: round(v, 4) for t, v in sorted(model.supported_at_by_target.items())},
        "supported_share": round(supported / n, 4) if n else 0.0,
        "supported_right": round(right / supported, 4) if supported else 0.0,
        "doubtful_at": round(model.doubtful_at, 4),
        "doubtful_share": round(sum(model.doubtful(p) for p, _ok in first_choice) / n, 4) if n else 0.0,
        "doubtful_right": round(_share([ok for p, ok in first_choice if model.doubtful(p)]), 4),
        "gather_floor": model.gather_floor,
        "gathered_f1_by_floor": by_floor,
    }
    model.notes = report
    return model, report


def _supportable(model: AnswerModel, samples: Sequence[Sample], parse: Parse,
                 embed: Embed | None) -> dict[str, list[tuple[float, bool]]]:
    """Per answer form, (probability, right) of each answer the offline backend gives that
    would be supported if every probability reached its threshold (more than one option, every
    target requirement met, the form fitting): the thresholds are calibrated on the answers
    shown — a time chosen by ``_timed``, a list joined by ``gathered`` — not on the model's top
    option. An answer is right when its token-F1 against gold is at least ``RIGHT``."""
    every = dataclasses.replace(model, supported_at=0.0, supported_at_by_target={})
    out: dict[str, list[tuple[float, bool]]] = {}
    for s in samples:
        draft = draft_answer(s.question, s.plan, list(s.buffer), unmentioned=s.unmentioned, parse=parse,
                             records=s.records, embed=embed, model=every)
        answer = draft.answer
        if draft.how == "edited" or answer.support != SupportLevel.SUPPORTED or answer.confidence is None:
            continue
        form = "time" if draft.how == "time" else (s.plan.answer_target or "value")
        out.setdefault(form, []).append((answer.confidence, token_f1(answer.text, s.gold) >= RIGHT))
    return out


def _share(flags: Sequence[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


def _fit_gather_floor(model: AnswerModel, lists: Sequence[Scored]) -> tuple[float, dict[str, float]]:
    """The list-item floor (``GATHER_FLOORS``) whose joined answers to the tune questions that
    gather (``lists``: each with its options scored, best first) scored the best mean token-F1
    against gold (the lowest floor on a tie)."""
    if not lists:
        return 0.0, {}
    by_floor: dict[str, float] = {}
    for floor in GATHER_FLOORS:
        trial = dataclasses.replace(model, gather_floor=floor)
        f1s = [token_f1(gathered(s.plan, scored, ranked, trial).text, s.gold) for s, scored, ranked in lists]
        by_floor[f"{floor:.1f}"] = round(sum(f1s) / len(f1s), 4)
    best = max(GATHER_FLOORS, key=lambda f: (by_floor[f"{f:.1f}"], -f))
    return best, by_floor
