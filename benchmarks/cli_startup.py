"""What a person waits for when running ``list`` / ``stats`` on a big home: one new process each.

    .venv/bin/python benchmarks/cli_startup.py --home DIR [--database URL] [--runs 5] [--tree DIR ...]

Runs ``python -m memory_core --home DIR [--database URL] list`` (and ``stats``) ``--runs`` times
per checkout (``--tree``, default this one; give another checkout, e.g. the main tree before a
change, to compare) and prints the median and minimum wall seconds, plus the seconds Python
spent importing (``-X importtime``, top-level modules summed) and the heaviest top-level
imports. Make the home with ``benchmarks/many_conversations.py --n 5000 --home DIR --keep``
(DuckDB) or import the same file with ``--database URL`` (PostgreSQL). Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(cmd: list[str], tree: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode != 0:  # e.g. an older checkout refusing a home migrated by a newer one
        last = (done.stderr.strip().splitlines() or [""])[-1]
        raise SystemExit(f"{' '.join(cmd[-2:])} in {tree}: exit {done.returncode}: {last}")
    return time.perf_counter() - started, done.stderr


def _imports(stderr: str) -> tuple[float, list[tuple[float, str]]]:
    """Total import seconds and the top-level modules by cumulative time."""
    top: list[tuple[float, str]] = []
    for line in stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        _, cumulative, name = line.split("|")
        if name.startswith(" ") and not name.startswith("  "):  # a top-level import
            try:
                top.append((int(cumulative) / 1e6, name.strip()))
            except ValueError:  # the header line
                continue
    return sum(s for s, _ in top), sorted(top, reverse=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", required=True)
    ap.add_argument("--database", default=None, help="postgresql://… (default: the home's DuckDB file)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", action="append", default=None, help="a checkout to run (default: this one)")
    ap.add_argument("--commands", default="list,stats")
    args = ap.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("MNEMOSCOPE_DATABASE_URL", None)
    base = ["-m", "memory_core", "--home", args.home]
    if args.database:
        base += ["--database", args.database]
    engine = "PostgreSQL" if args.database else "DuckDB"
    print(f"home {args.home} ({engine}), {args.runs} runs per command, load average "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    for tree in [Path(t).resolve() for t in (args.tree or [str(ROOT)])]:
        python = str(tree / ".venv" / "bin" / "python") if (tree / ".venv").exists() else sys.executable
        for name in args.commands.split(","):
            walls = [_run([python, *base, name], tree, env)[0] for _ in range(args.runs)]
            _, stderr = _run([python, "-X", "importtime", *base, name], tree, env)
            total, top = _imports(stderr)
            heavy = ", ".join(f"{m} {s:.2f}" for s, m in top[:4])
            print(f"  {tree.name:<12} {name:<6} median {statistics.median(walls):5.2f} s, "
                  f"min {min(walls):5.2f} s; imports {total:4.2f} s ({heavy})", flush=True)


if __name__ == "__main__":
    main()
