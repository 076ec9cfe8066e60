"""What appending to a grown conversation costs against rebuilding it: prints figures.

    .venv/bin/python benchmarks/append_vs_rebuild.py FILE [--conv ID] [--turns 600] [--append 10]
                                                   [--work DIR]

FILE is in the LoCoMo layout (e.g. ../shared/bench/realtalk_tune.json). The conversation
(``--conv``, default the first) is cut to its first ``--turns`` turns, imported and built
(offline backend; this first build also loads the models, so the timings after it are warm).
Then, on two copies of that home, the next ``--append`` turns of the source are appended:

  last session   the turns continue the last (cut) session — ``import --append`` extends it,
                 the build redoes that session only;
  new session    the same turns as a new session after the last — the build does only it;

each timed as ``import --append`` + ``build``, and against a full rebuild of the same grown
conversation (``build --rebuild``) on the same home. Wall seconds and the incremental build's
stages are printed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_core.config import Settings  # noqa: E402
from memory_core.embeddings import shared_embedder  # noqa: E402
from memory_core.services import Services  # noqa: E402


def sessions_of(body: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]]]]:
    keys = [k for k, v in body.items() if re.fullmatch(r"session_\d+", k) and isinstance(v, list)]
    return sorted((int(k.split("_")[1]), body[k]) for k in keys)


def cut(sample: dict[str, Any], turns: int, extra: int,
        new_session: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the first ``turns`` turns, the same plus the next ``extra`` turns) as LoCoMo samples."""
    body = sample["conversation"]
    flat = [(i, t) for i, ts in sessions_of(body) for t in ts]
    if len(flat) < turns + extra:
        raise SystemExit(f"{sample['sample_id']} has {len(flat)} turns; needs {turns + extra}")

    def sample_of(items: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
        out: dict[str, Any] = {k: v for k, v in body.items() if not k.startswith("session_")}
        for i, t in items:
            out.setdefault(f"session_{i}", []).append(t)
            date = body.get(f"session_{i}_date_time")
            if date:
                out[f"session_{i}_date_time"] = date
        return {"sample_id": sample["sample_id"], "conversation": out, "qa": []}

    base = flat[:turns]
    more = flat[turns:turns + extra]
    last = base[-1][0]
    if new_session:  # the next turns as a new session after the last, renumbered
        index = max(i for i, _ in sessions_of(body)) + 1
        taken = {t["dia_id"] for _, t in flat}
        more = [(index, {**t, "dia_id": f"D{index}:{n + 1}"}) for n, (_, t) in enumerate(more)]
        if any(t["dia_id"] in taken for _, t in more):
            raise SystemExit("renumbered turn ids collide with the source's")
        date = body.get(f"session_{flat[turns][0]}_date_time", "")  # the next source turn's date
        body = {**body, f"session_{index}_date_time": date}
    else:  # the next turns continue the last session
        more = [(last, t) for _, t in more]
    return sample_of(base), sample_of(base + more)


def build(services: Services, conv: str, **kw: Any) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    stats: dict[str, Any] = {}
    for event in services.builds.build(conv, **kw):
        if event.kind == "build_done":
            stats = dict(getattr(event, "stats", {}))
    return time.perf_counter() - started, stats


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--conv", default=None)
    ap.add_argument("--turns", type=int, default=600)
    ap.add_argument("--append", type=int, default=10)
    ap.add_argument("--work", default=None, help="working directory (default: a temporary one, removed)")
    args = ap.parse_args()
    data = json.loads(Path(args.file).read_text(encoding="utf-8"))
    sample = next((s for s in data if args.conv in (None, s["sample_id"])), None)
    if sample is None:
        raise SystemExit(f"no conversation {args.conv!r} in {args.file}")
    conv = str(sample["sample_id"])
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="append-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    embedder = shared_embedder()
    try:
        base_sample, _ = cut(sample, args.turns, args.append, new_session=False)
        (work / "base.json").write_text(json.dumps([base_sample]), encoding="utf-8")
        home = work / "base-home"
        svc = Services(Settings(home=home), embedder=embedder)
        svc.imports.import_file(work / "base.json")
        seconds, stats = build(svc, conv)
        svc.close()
        print(f"{conv}: {args.turns} turns in {stats.get('sessions_built')} sessions, first build "
              f"{seconds:.1f} s (loads the models), {stats.get('records')} records")
        print(f"\nappending {args.append} turns, then building (warm; seconds):")
        print(f"{'case':<14} {'append':>7} {'build':>7} {'built':>6} {'rebuild':>8} {'speed-up':>9}  "
              "stages of the incremental build")
        for name, new_session in (("last session", False), ("new session", True)):
            _, grown = cut(sample, args.turns, args.append, new_session=new_session)
            path = work / f"grown-{'new' if new_session else 'last'}.json"
            path.write_text(json.dumps([grown]), encoding="utf-8")
            copy = work / f"home-{'new' if new_session else 'last'}"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(home, copy)
            svc = Services(Settings(home=copy), embedder=embedder)
            try:
                t = time.perf_counter()
                svc.imports.append_file(path)
                appended = time.perf_counter() - t
                incremental, inc_stats = build(svc, conv)
                rebuild, _ = build(svc, conv, rebuild=True, discard_edits=True)
            finally:
                svc.close()
            stages = ", ".join(f"{k} {v:.2f}" for k, v in sorted(inc_stats.get("stages", {}).items(),
                                                                    key=lambda kv: -kv[1])[:5])
            total = appended + incremental
            print(f"{name:<14} {appended:>7.2f} {incremental:>7.2f} {inc_stats.get('sessions_built', 0):>6} "
                  f"{rebuild:>8.1f} {rebuild / total:>8.1f}x  {stages}")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
