"""``bench fit-answer FILE [FILE ...] [--cache PATH] [--out PATH] [--keep-weights]``: fit the offline
answer model (with ``--keep-weights``: only calibrate the thresholds of the model at ``--out``).

Imports and builds what the home lacks, asks every scored question of the (tune) files once,
fits the answer model on the options their evidence offers (``eval.answer_fit``) and writes
its parameters (default: ``memory_core/backends/offline/answer_model.json``, which the offline answer
loads at start). ``--cache`` keeps the asked questions in a JSON-lines file: a later run with
the same cache refits without asking again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.backends.offline.answer_model import MODEL_PATH, AnswerModel
from memory_core.config import Settings

if TYPE_CHECKING:
    from memory_core.eval.answer_fit import Sample


def register(which: Any) -> None:
    f = which.add_parser("fit-answer", help="fit the offline answer model on tune files")
    f.add_argument("files", nargs="+", help="LoCoMo-layout tune files (gold questions and answers)")
    f.add_argument("--cache", default=None,
                   help="JSON-lines file of asked questions (read if present, else written)")
    f.add_argument("--out", default=str(MODEL_PATH), help="where to write the model's parameters")
    f.add_argument("--l2", type=float, default=1.0, help="L2 penalty of the logistic fit")
    f.add_argument("--keep-weights", action="store_true",
                   help="keep the weights of the model at --out and only calibrate its thresholds "
                        "(support levels, list floor) on these questions")
    f.set_defaults(func=cmd_fit_answer)


def cmd_fit_answer(args: argparse.Namespace, settings: Settings) -> int:
    from memory_core.backends.offline.backend import OfflineBackend
    from memory_core.embeddings import shared_embedder
    from memory_core.eval.answer_fit import Sample, fit_answer_model

    cache = Path(args.cache) if args.cache else None
    if cache is not None and cache.exists():  # refit only: the home is not opened
        lines = cache.read_text(encoding="utf-8").splitlines()
        samples = [Sample.from_json(line) for line in lines if line]
        print(f"read {len(samples)} asked questions from {cache}", file=sys.stderr)
    else:
        samples = _ask(args.files, settings)
        if cache is not None:
            cache.write_text("".join(s.to_json() + "\n" for s in samples), encoding="utf-8")
    embedder = shared_embedder(settings.embed_precision)
    backend = OfflineBackend(embedder=embedder)
    kept = None
    if args.keep_weights:
        kept = AnswerModel.load(Path(args.out))
        if not kept.weights:
            print(f"error: --keep-weights: {args.out} holds no model weights", file=sys.stderr)
            return 2
    model, report = fit_answer_model(samples, backend.parse, embed=embedder.embed, l2=args.l2,
                                     weights_of=kept)
    Path(args.out).write_text(model.to_json(), encoding="utf-8")
    print(json.dumps(report))
    print(f"wrote {args.out}")
    return 0


def _ask(files: list[str], settings: Settings) -> list[Sample]:
    """Every scored question of the files asked once (offline, default strategy), with what the
    answer stage was given."""
    from memory_core.eval.answer_fit import Sample
    from memory_core.query import premise
    from memory_core.query.pipeline import matched_records
    from memory_core.services import Services

    services = Services.open(settings)
    out: list[Sample] = []
    try:
        for file in files:
            for gold in services.evaluation.gold_questions(file):
                ci = services.queries.conversation_index(gold.conv_id)
                for q in gold.scored():
                    trace, result = services.queries.ask_detailed(gold.conv_id, q.question, save=False)
                    buffer = list(trace.buffer)
                    out.append(Sample(
                        source=Path(file).name, conv_id=gold.conv_id, qid=q.qid, category=q.category,
                        question=q.question, gold=q.answer, plan=trace.plan, buffer=tuple(buffer),
                        records=matched_records(ci, result),
                        unmentioned=premise.unmentioned(q.question, buffer)))
                print(f"{Path(file).name} {gold.conv_id}: {len(gold.scored())} questions", file=sys.stderr)
    finally:
        services.close()
    return out
