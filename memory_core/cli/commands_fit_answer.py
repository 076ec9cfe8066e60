"""``bench fit-answer FILE [FILE ...] [--cache PATH] [--out PATH]``: fit the offline answer model.

Imports and builds what the home lacks, asks every scored question of the (tune) files once,
fits the answer model on the options their evidence offers (``eval.answer_fit``) and writes
its parameters (default: ``memory_core/query/answer_model.json``, which the offline answer
loads at start). ``--cache`` keeps the asked questions in a JSON-lines file: a later run with
the same cache refits without asking again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from memory_core.config import Settings
from memory_core.query.answer_model import MODEL_PATH


def register(which: Any) -> None:
    f = which.add_parser("fit-answer", help="fit the offline answer model on tune files")
    f.add_argument("files", nargs="+", help="LoCoMo-layout tune files (gold questions and answers)")
    f.add_argument("--cache", default=None,
                   help="JSON-lines file of asked questions (read if present, else written)")
    f.add_argument("--out", default=str(MODEL_PATH), help="where to write the model's parameters")
    f.add_argument("--l2", type=float, default=1.0, help="L2 penalty of the logistic fit")
    f.set_defaults(func=cmd_fit_answer)


def cmd_fit_answer(args: argparse.Namespace, settings: Settings) -> int:
    from memory_core.backends.offline import OfflineBackend
    from memory_core.eval.answer_fit import Sample, collect, fit_answer_model
    from memory_core.services import Services

    services = Services.open(settings)
    try:
        cache = Path(args.cache) if args.cache else None
        if cache is not None and cache.exists():
            lines = cache.read_text(encoding="utf-8").splitlines()
            samples = [Sample.from_json(line) for line in lines if line]
            print(f"read {len(samples)} asked questions from {cache}", file=sys.stderr)
        else:
            samples = collect(services, args.files, on_progress=lambda s: print(s, file=sys.stderr))
            if cache is not None:
                cache.write_text("".join(s.to_json() + "\n" for s in samples), encoding="utf-8")
        backend = OfflineBackend(embedder=services.embedder)
        model, report = fit_answer_model(samples, backend.parse, l2=args.l2)
        Path(args.out).write_text(model.to_json(), encoding="utf-8")
        print(json.dumps(report))
        print(f"wrote {args.out}")
    finally:
        services.close()
    return 0
