"""Benchmarks that print figures.

``bench build FILE [--convs 26,30] [--json]``: import the file into the home if needed,
build every conversation from scratch with the chosen backend, and print per conversation:
turns/s and tokens/s (cl100k tokens of the turns), wall and CPU seconds, seconds per stage,
episode counts and lengths, records per turn, the share of LoCoMo observation evidence turns
cited by some record, the share of turns with a time expression whose records carry a valid
time, and peak memory (``ru_maxrss``).

``bench scale FILE [--workers 1,2] [--convs ...]``: build the same conversations once per
worker count, each time in a fresh temporary home — 1 = the local serial build in this
process, N > 1 = a Dask ``LocalCluster`` of N worker processes (one thread each) — and print
turns/s, tokens/s, the speed-up over the first count and whether the stores are equal
(episode, record, event and entity ids).

``bench fit --tune FILE[,FILE...] [--out memory_core/query/ranker.json] [--target short=2700,long=3700]
[--limit N]``: import and build the tune files into the home (kept: later fits and evals reuse
it), collect every scored question's turn features with their gold flags, fit the ranker
(pairwise logistic over the signals) and its token budget per reasoning type and size class
(mean budget within each class's target), write the parameters as a small JSON file and print
the tune figures (full-evidence recall within the fitted budget, hand ranking vs fitted).
``--limit`` caps the questions read from each LongMemEval file.

Without ``--home`` the benchmark runs in a fresh temporary home (removed afterwards).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memory_core import heap
from memory_core.cli import commands_fit_answer
from memory_core.config import Settings
from memory_core.errors import ConfigError

if TYPE_CHECKING:
    from memory_core.progress import Step
    from memory_core.services import MemoryServices

_STARTED = time.perf_counter()


def register(sub: Any) -> None:
    p = sub.add_parser("bench", help="benchmarks that print figures")
    which = p.add_subparsers(dest="bench", required=True, metavar="BENCH")
    b = which.add_parser("build", help="build every conversation of a file and measure the build")
    b.add_argument("file")
    b.add_argument("--convs", default=None, help="comma-separated ids or numbers (26,30 -> conv-26,conv-30)")
    b.add_argument("--backend", default="offline")
    b.add_argument("--json", action="store_true", help="one JSON object per conversation")
    b.set_defaults(func=cmd_bench_build)
    sc = which.add_parser("scale", help="build the same conversations serially and on N workers")
    sc.add_argument("file")
    sc.add_argument("--workers", default="1,2", help="comma-separated worker counts (1 = local serial)")
    sc.add_argument("--convs", default=None, help="comma-separated ids or numbers (default: all)")
    sc.add_argument("--json", action="store_true", help="one JSON object per worker count")
    sc.set_defaults(func=cmd_bench_scale)
    f = which.add_parser("fit", help="fit the retrieval ranker and its budgets on tune files")
    f.add_argument("--tune", required=True,
                   help="comma-separated benchmark files (LoCoMo layout or LongMemEval), or .npz "
                        "candidates an earlier fit kept with --cache")
    f.add_argument("--out", default="memory_core/query/ranker.json", help="where the parameters go")
    f.add_argument("--target", default="short=2700,long=3700",
                   help="mean token budget per conversation size class (short <= 50k tokens, long)")
    f.add_argument("--limit", type=int, default=None, help="questions per LongMemEval file (file order)")
    f.add_argument("--convs", default=None,
                   help="only these conversations of the LoCoMo-layout files (comma-separated ids)")
    f.add_argument("--cache", default=None,
                   help="directory for each file's collected candidates "
                        "(.npz; reused while the features match)")
    f.set_defaults(func=cmd_bench_fit)
    commands_fit_answer.register(which)


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _turn_tokens(services: MemoryServices, conv_id: str) -> tuple[int, int]:
    from memory_core.tokens import count_tokens

    turns = services.imports.turns(conv_id)
    return len(turns), sum(count_tokens(t.render()) for t in turns)


def _pick(ids: list[str], convs: str | None, file: str) -> list[str]:
    if not convs:
        return ids
    wanted = [c.strip() for c in convs.split(",") if c.strip()]
    wanted = [w if w in ids else f"conv-{w}" for w in wanted]
    unknown = [w for w in wanted if w not in ids]
    if unknown:
        raise ConfigError(f"--convs: not in {file}: {', '.join(unknown)}")
    return wanted


def cmd_bench_build(args: argparse.Namespace, settings: Settings, *, home_given: bool | None = None) -> int:
    from memory_core.backends.offline.backend import OfflineBackend
    from memory_core.progress import BuildDone
    from memory_core.services import Services

    given = home_given if home_given is not None else bool(getattr(args, "home", None))
    tmp = None if given else tempfile.mkdtemp(prefix="mnemoscope-bench-")
    if tmp is not None:
        settings = settings.with_home(tmp)
    services = Services.open(replace(settings, backend=args.backend))
    try:
        t = time.perf_counter()
        result = services.imports.import_file(args.file, replace=True)
        import_s = time.perf_counter() - t
        ids = _pick(list(result.ids), args.convs, args.file)
        print(f"# bench build {args.file}: {len(ids)} conversation(s), backend {args.backend}, "
              f"home {settings.home}, import {import_s:.1f}s", file=sys.stderr)
        backend = services.backend
        # the measures parse turns with spaCy: reuse the offline backend's parse cache when it builds
        parser = (backend if isinstance(backend, OfflineBackend)
                  else OfflineBackend(embedder=services.embedder))
        total_started = time.perf_counter()
        rows = []
        for conv_id in ids:
            started, cpu = time.perf_counter(), _cpu_s()
            stats: dict[str, Any] = {}
            for event in services.builds.build(conv_id, rebuild=True):
                if isinstance(event, BuildDone):
                    stats = dict(event.stats)
            wall, cpu = time.perf_counter() - started, _cpu_s() - cpu
            row = services.builds.measure(conv_id, parser.parse)
            _, tokens = _turn_tokens(services, conv_id)
            row.update({
                "wall_s": round(wall, 2),
                "cpu_s": round(cpu, 2),
                "tokens": tokens,
                "tokens_per_s": round(tokens / wall, 1) if wall > 0 else 0.0,
                "process_wall_s": round(time.perf_counter() - _STARTED, 2),
                "turns_per_s": stats.get("turns_per_s"),
                "stages_s": stats.get("stages", {}),
                "peak_rss_mb": heap.peak_mb(),
            })
            rows.append(row)
            _print(row, as_json=args.json)
        total = time.perf_counter() - total_started
        print(f"# all {len(ids)} conversation(s): {total:.1f}s build wall, "
              f"{time.perf_counter() - _STARTED:.1f}s since the process started, "
              f"peak RSS {heap.peak_mb()} MB",
              file=sys.stderr if args.json else sys.stdout)
    finally:
        services.close()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


def _print(row: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(row))
        return
    stages = ", ".join(f"{k} {v:.1f}" for k, v in row["stages_s"].items())
    obs = row["observation_turns_cited"]
    timed = row.get("time_turns_with_valid_time")
    anchored = row.get("anchorable_time_turns_with_valid_time")
    lines = [
        f"{row['conv_id']}: {row['sessions']} sessions, {row['turns']} turns",
        f"  build wall        {row['wall_s']:.1f} s ({row['turns_per_s']} turns/s, "
        f"{row['tokens']} tokens, {row['tokens_per_s']} tokens/s), CPU {row['cpu_s']:.1f} s; "
        f"process wall so far {row['process_wall_s']:.1f} s",
        f"  stages (s)        {stages}",
        f"  episodes          {row['episodes']} (length mean {row['episode_len_mean']}, "
        f"stdev {row['episode_len_stdev']}, min {row['episode_len_min']}, max {row['episode_len_max']}); "
        f"every turn once: {row['every_turn_once']}, no cross-session: {row['no_cross_session']}",
        f"  records           {row['records']} ({row['records_per_turn']} per turn, "
        f"{row['properties']} properties); inside own episode {row['records_citing_inside_episode']:.1%}; "
        f"turns cited {row['turns_cited']:.1%}",
        f"  observation turns {row['observation_turns']} cited by a record: "
        + (f"{obs:.1%}" if obs is not None else "n/a"),
        f"  time expressions  {row.get('turns_with_time_expression', 'n/a')} turns, with valid_time: "
        + (f"{timed:.1%}" if timed is not None else "n/a")
        + f"; a point in time {row.get('turns_with_anchorable_time', 'n/a')} turns, with valid_time: "
        + (f"{anchored:.1%}" if anchored is not None else "n/a"),
        f"  graph             {row['entities']} entities, {row['merges']} merges, {row['edges']} edges, "
        f"{row['events']} events",
        f"  peak RSS          {row['peak_rss_mb']} MB",
    ]
    fid = row.get("fidelity")
    if fid:  # LoCoMo observations in the input: records against the human-noted facts
        lines.insert(-2, f"  fidelity          {fid['observations']} observations: "
                         f"recall@0.6 {fid['recall']:.1%} (turn copy {fid['turn_copy']:.1%}), "
                         f"precision@0.6 {fid['precision']:.1%}, "
                         f"catch-all {fid['catch_all']:.1%}")
    print("\n".join(lines), flush=True)


def _snapshot(services: MemoryServices, ids: list[str]) -> dict[str, Any]:
    return {c: services.builds.memory_ids(c) for c in ids}


def cmd_bench_scale(args: argparse.Namespace, settings: Settings) -> int:
    from memory_core.cli.commands_build import offline_worker_backend
    from memory_core.construct.distributed import connect
    from memory_core.services import Services

    try:
        counts = [int(w) for w in args.workers.split(",") if w.strip()]
    except ValueError:
        raise ConfigError(f"--workers: a comma-separated list of numbers, not '{args.workers}'") from None
    if not counts or min(counts) < 1:
        raise ConfigError(f"--workers: worker counts of at least 1 (got '{args.workers}')")
    rows: list[dict[str, Any]] = []
    reference: dict[str, Any] | None = None
    for workers in counts:
        tmp = tempfile.mkdtemp(prefix="mnemoscope-scale-")
        services = Services.open(replace(settings.with_home(tmp), backend="offline"))
        try:
            imported = services.imports.import_file(args.file, replace=True)
            ids = _pick(list(imported.ids), args.convs, args.file)
            sizes = [_turn_tokens(services, c) for c in ids]
            turns, tokens = sum(n for n, _ in sizes), sum(k for _, k in sizes)
            started, cpu = time.perf_counter(), _cpu_s()
            start_s = 0.0
            if workers == 1:
                for conv_id in ids:
                    for _ in services.builds.build(conv_id, rebuild=True):
                        pass
            else:
                client, cluster = connect(workers=workers)
                start_s = time.perf_counter() - started
                try:
                    for _ in services.builds.build_on_cluster(ids, offline_worker_backend, client=client,
                                                              rebuild=True):
                        pass
                finally:
                    client.close()
                    if cluster is not None:
                        cluster.close()
            wall = time.perf_counter() - started
            snap = _snapshot(services, ids)
            reference = reference if reference is not None else snap
            row = {
                "workers": workers, "mode": "serial" if workers == 1 else "dask LocalCluster",
                "conversations": len(ids), "turns": turns, "tokens": tokens, "wall_s": round(wall, 2),
                "cluster_start_s": round(start_s, 2), "client_cpu_s": round(_cpu_s() - cpu, 2),
                "turns_per_s": round(turns / wall, 2), "tokens_per_s": round(tokens / wall, 1),
                "speedup": round(rows[0]["wall_s"] / wall, 2) if rows else 1.0,
                "same_store_as_first": snap == reference,
                "records": sum(len(v[1]) for v in snap.values()),
                "entities": sum(len(v[3]) for v in snap.values()),
            }
        finally:
            services.close()
            shutil.rmtree(tmp, ignore_errors=True)
        rows.append(row)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(f"workers {workers:>3} ({row['mode']}): {len(ids)} conversations, {turns} turns, "
                  f"{tokens} tokens in {wall:.1f} s (cluster start {start_s:.1f} s, client CPU "
                  f"{row['client_cpu_s']:.1f} s): {row['turns_per_s']} turns/s, "
                  f"{row['tokens_per_s']} tokens/s, "
                  f"x{row['speedup']} vs {counts[0]}; {row['records']} records, {row['entities']} entities; "
                  f"same store as the first run: {row['same_store_as_first']}", flush=True)
    return 0


def _targets(text: str) -> dict[str, int]:
    from memory_core.query.ranker import SIZE_CLASSES

    out: dict[str, int] = {}
    known = [name for name, _ in SIZE_CLASSES]
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, _, value = part.partition("=")
        if name not in known or not value.isdigit() or int(value) <= 0:
            raise ConfigError(f"--target: '{part}' is not CLASS=TOKENS with CLASS one of {', '.join(known)}")
        out[name] = int(value)
    return out


def cmd_bench_fit(args: argparse.Namespace, settings: Settings) -> int:
    from pathlib import Path

    import numpy as np

    from memory_core.eval.fit import fit_ranker, load_candidates, save_candidates, tokens_needed
    from memory_core.services import Services

    files = [f.strip() for f in args.tune.split(",") if f.strip()]
    missing = [f for f in files if not Path(f).exists()]
    if missing:
        raise ConfigError(f"--tune: no such file: {', '.join(missing)}")
    if args.limit is not None and args.limit <= 0:
        raise ConfigError(f"--limit must be positive, got {args.limit}")
    targets = _targets(args.target)
    convs = [c.strip() for c in args.convs.split(",") if c.strip()] if args.convs else None
    started = time.perf_counter()
    services: MemoryServices | None = None  # opened only when a file's candidates are not cached
    try:
        questions = []
        for file in files:
            cached = None
            if args.cache:
                Path(args.cache).mkdir(parents=True, exist_ok=True)
                tag = (f"-{args.limit}" if args.limit else "") + (f"-{args.convs}" if args.convs else "")
                cached = Path(args.cache) / f"{Path(file).stem}{tag}.npz"
            if file.endswith(".npz"):  # candidates kept by an earlier fit's --cache
                cached = Path(file)
            got = load_candidates(cached) if cached is not None else None
            if got is None and file.endswith(".npz"):
                raise ConfigError(f"{file}: not candidates of the current features (collect them again)")
            if got is None:
                services = services or Services.open(replace(settings, backend="offline"))
                got = list(services.evaluation.fit_candidates(file, limit=args.limit, convs=convs,
                                                              on_progress=_fit_progress))
                if cached is not None:
                    save_candidates(cached, got)
            questions += got
            print(f"# {file}: {len(got)} questions with evidence", file=sys.stderr, flush=True)
    finally:
        if services is not None:
            services.close()
    if not questions:
        raise ConfigError("--tune: no question with gold evidence in the files")
    meta = {"tune": [Path(f).name for f in files], "questions": len(questions), "targets": targets,
            "command": "python -m memory_core bench fit --tune " + ",".join(Path(f).name for f in files)
            + f" --target {args.target}" + (f" --limit {args.limit}" if args.limit else "")
            + (f" --convs {args.convs}" if args.convs else "")}
    ranker = fit_ranker(questions, targets, meta=meta)
    out = Path(args.out)
    out.write_text(json.dumps(ranker.to_json(), indent=1) + "\n", encoding="utf-8")
    hand_col = list(ranker.features).index("hand")
    print(f"fitted on {len(questions)} questions in {time.perf_counter() - started:.1f}s; wrote {out}")
    print("budgets: " + "; ".join(f"{size}: " + ", ".join(f"{k} {v}" for k, v in per.items())
                                  for size, per in ranker.budgets.items()))
    pairs = zip(ranker.features, ranker.weights, strict=True)
    print("weights: " + ", ".join(f"{f} {w:+.2f}" for f, w in pairs))
    for size, own in ranker.class_weights.items():
        named = zip(ranker.features, own, strict=True)
        print(f"{size} weights: " + ", ".join(f"{f} {w:+.2f}" for f, w in named))
    print(f"{'tune file':<28} {'n':>4} {'hand@budget':>12} {'fitted@budget':>14}  "
          "(full-evidence recall, in-sample)")
    for group in dict.fromkeys(q.group for q in questions):
        found = {"hand": 0, "fitted": 0}
        members = [q for q in questions if q.group == group]
        for q in members:
            budget = ranker.budget(q.size, q.key)
            for name, s in (("hand", q.features[:, hand_col]), ("fitted", ranker.score(q.features, q.size))):
                need = tokens_needed(np.argsort(-s, kind="stable"), q.gold, q.tokens)
                found[name] += int(need is not None and need <= budget)
        n = len(members)
        print(f"{group:<28} {n:>4} {found['hand'] / n:12.3f} {found['fitted'] / n:14.3f}")
    return 0


def _fit_progress(step: Step) -> None:
    if step.stage == "import" or (step.stage == "build" and step.detail is None):
        which = step.detail if step.stage == "import" else step.conv_id
        print(f"  {step.stage} {which}", file=sys.stderr, flush=True)
