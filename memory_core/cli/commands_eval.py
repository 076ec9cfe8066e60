"""``eval locomo FILE [--check FILE] [--convs 26,30] [--strategy S] [--budget-tokens N] [--backend B]
[--judge] [--curve] [--out run.jsonl]``: answer every scored question and print per-category metrics.

``eval longmemeval FILE [--check FILE] [--limit N] ...``: the same for LongMemEval items.

With ``--check`` the held-out file is run the same way after ``FILE`` (the tune file) and both
are printed side by side with the recall gap in points (``memory_core.eval.gap``); its run goes
to ``OUT`` with ``.check`` before the suffix."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_core.config import Settings
from memory_core.errors import ConfigError

if TYPE_CHECKING:
    from memory_core.eval_summary import EvalSummary
    from memory_core.progress import Step
    from memory_core.services.evaluating import EvalReport

STRATEGY_HELP = "retrieval strategy (default ensimem; an unknown name is refused with the list)"


def register(sub: Any) -> None:
    p = sub.add_parser("eval", help="evaluate retrieval and answers on a benchmark")
    kinds = p.add_subparsers(dest="eval_kind", required=True, metavar="KIND")
    e = kinds.add_parser("locomo", help="a LoCoMo-layout file (imports and builds what the home lacks)")
    e.add_argument("file")
    e.add_argument("--check", default=None, help="a held-out file run the same way, printed beside FILE")
    e.add_argument("--convs", default=None, help="subset, e.g. 26,30 or conv-26")
    e.add_argument("--check-convs", default=None, help="subset of the --check file")
    e.add_argument("--strategy", default=None, help=STRATEGY_HELP)
    e.add_argument("--budget-tokens", type=int, default=None)
    e.add_argument("--backend", default=None, choices=("offline", "openai"))
    e.add_argument("--judge", action="store_true", help="also grade answers with the LLM judge")
    e.add_argument(
        "--curve", action="store_true", help="also print recall at budgets 500..8000 for every strategy"
    )
    e.add_argument("--out", default=None, help="write one JSON line per question here")
    e.add_argument("--save-traces", action="store_true", help="persist every question's trace")
    e.set_defaults(func=cmd_eval_locomo)

    e = kinds.add_parser("longmemeval", help="a LongMemEval file (each haystack imported and built "
                                             "if the home lacks it, then asked its question)")
    e.add_argument("file")
    e.add_argument("--types", default=None,
                   help="question types to ask, e.g. multi-session,temporal-reasoning "
                        "(abstention: the _abs items)")
    e.add_argument("--check", default=None, help="a held-out file run the same way, printed beside FILE")
    e.add_argument("--limit", type=int, default=None,
                   help="ask at most N questions (file order; of each file with --check)")
    e.add_argument("--strategy", default=None, help=STRATEGY_HELP)
    e.add_argument("--budget-tokens", type=int, default=None)
    e.add_argument("--backend", default=None, choices=("offline", "openai"))
    e.add_argument("--out", default=None, help="write one JSON line per question here")
    e.add_argument("--save-traces", action="store_true", help="persist every question's trace")
    e.set_defaults(func=cmd_eval_longmemeval)


def _conversations(step: Step) -> object:
    """What an "import" or "build" step is about: the imported ids, or the conversation built."""
    return step.detail if step.stage == "import" else step.conv_id


def _progress(step: Step) -> None:
    from memory_core.progress import CurvePoint

    stage = step.stage
    if stage == "question" and (step.done % 25 == 0 or step.done == step.total):
        print(f"  {step.done}/{step.total} questions", file=sys.stderr)
    elif stage in ("import", "build") and (stage == "import" or step.detail is None):
        print(f"  {stage} {_conversations(step)}", file=sys.stderr)
    elif stage == "curve" and isinstance(point := step.detail, CurvePoint):
        print(f"  curve {point.strategy} @ {point.budget}: {point.full_recall:.3f}", file=sys.stderr)


def format_curve(curve: dict[str, dict[int, dict[str, float]]]) -> str:
    budgets = sorted({b for per in curve.values() for b in per})
    lines = [f"{'budget':>8} " + " ".join(f"{name:>9}" for name in curve)]
    for b in budgets:
        lines.append(f"{b:>8} " + " ".join(f"{curve[name][b]['full_recall']:9.3f}" for name in curve))
    return "\n".join(lines)


def check_strategy(name: str | None) -> None:
    """Refuse an unknown ``--strategy`` before any work (the parser no longer lists them: that
    would import the query code for every command)."""
    if name is not None:
        from memory_core.query.strategies import strategy

        strategy(name)  # raises QueryError naming the known strategies


def _check_out(out: str | None) -> str | None:
    if not out:
        return None
    p = Path(out)
    return str(p.with_name(f"{p.stem}.check{p.suffix or '.jsonl'}"))


def _files(args: argparse.Namespace) -> list[Path]:
    paths = [Path(args.file)] + ([Path(args.check)] if args.check else [])
    for path in paths:
        if not path.exists():
            raise ConfigError(f"{path}: no such file")
    return paths


def cmd_eval_locomo(args: argparse.Namespace, settings: Settings) -> int:
    from memory_core.eval.metrics import format_table
    from memory_core.services import Services
    from memory_core.services.evaluating import CURVE_BUDGETS

    check_strategy(args.strategy)
    paths = _files(args)
    services = Services.open(replace(settings, backend=args.backend or settings.backend))
    try:
        judge = services.evaluation.llm_judge() if args.judge else None

        def run(path: Path, tune: bool) -> EvalReport:
            return services.evaluation.evaluate(
                path, strategy=args.strategy, budget_tokens=args.budget_tokens, judge=judge,
                on_progress=_progress, convs=args.convs if tune else args.check_convs,
                save_traces=args.save_traces)

        def judged(report: EvalReport) -> None:
            if judge is not None:
                overall = report.summary.overall
                acc = overall.judge_accuracy if overall is not None else None
                print(f"judge accuracy: {acc:.3f}" if acc is not None else "judge accuracy: -")

        tune_and_check(args, paths, run, format_table, "full-evidence recall", with_convs=True,
                       after=judged)
        if args.curve:
            curve = services.evaluation.curve(paths[0], budgets=CURVE_BUDGETS, convs=args.convs,
                                              on_progress=_progress)
            print("full-evidence recall at budget (tokens):")
            print(format_curve(curve))
    finally:
        services.close()
    return 0


def cmd_eval_longmemeval(args: argparse.Namespace, settings: Settings) -> int:
    from memory_core.eval.longmemeval import format_table as lme_table
    from memory_core.services import Services

    check_strategy(args.strategy)
    paths = _files(args)
    if args.limit is not None and args.limit <= 0:
        raise ConfigError(f"--limit must be positive, got {args.limit}")
    types = [t.strip() for t in args.types.split(",") if t.strip()] if args.types else None
    services = Services.open(replace(settings, backend=args.backend or settings.backend))
    try:
        def run(path: Path, tune: bool) -> EvalReport:
            return services.evaluation.longmemeval(
                path, types=types, limit=args.limit, strategy=args.strategy,
                budget_tokens=args.budget_tokens, on_progress=_lme_progress, save_traces=args.save_traces)

        tune_and_check(args, paths, run, lme_table, "turn full recall")
    finally:
        services.close()
    return 0


def tune_and_check(args: argparse.Namespace, paths: list[Path], run: Callable[[Path, bool], EvalReport],
                   table: Callable[[EvalSummary], str], recall: str, *, with_convs: bool = False,
                   after: Callable[[EvalReport], None] | None = None) -> None:
    """Run the tune file (``run(path, True)``) and the ``--check`` file if given, print each
    report (its table, the support calibration, ``after``), write each run file (``--out``; the
    check's with ``.check``), then the two side by side with the ``recall`` gap in points."""
    from memory_core.eval.gap import format_gap
    from memory_core.eval.metrics import calibration, format_calibration

    summaries = []
    for i, (path, out) in enumerate(zip(paths, (args.out, _check_out(args.out)), strict=False)):
        report = run(path, i == 0)
        if out:
            Path(out).write_text(report.jsonl(), encoding="utf-8")
        cap = f", budget {report.budget_tokens} tokens" if report.budget_tokens else ""
        convs = f"conversations {', '.join(report.conv_ids)}, " if with_convs else ""
        print(f"{path.name}: strategy {report.strategy}{cap}, backend {report.backend}, "
              f"{convs}{len(report.rows)} questions in {report.seconds:.1f}s")
        print(table(report.summary))
        print("support calibration (right: answer F1 >= 0.5):")
        print(format_calibration(calibration(report.json_rows())))
        if after is not None:
            after(report)
        if out:
            print(f"wrote {out}")
        summaries.append(report.summary)
    if len(summaries) == 2:
        print(f"tune {paths[0].name} vs check {paths[1].name} ({recall}, mean tokens, gap in points):")
        print(format_gap(summaries[0], summaries[1]))


def _lme_progress(step: Step) -> None:
    stage = step.stage
    if stage == "question":
        print(f"  {step.done} questions ({step.conv_id})", file=sys.stderr, flush=True)
    elif stage in ("import", "build") and (stage == "import" or step.detail is None):
        print(f"  {stage} {_conversations(step)}", file=sys.stderr, flush=True)
