"""Importing a LongMemEval file of full size: time and peak memory of ``import``.

Writes a ~250 MB file in the official layout by repeating the items of the dev file under new
question ids (``<id>-r<n>``), then runs the real command in a child process —
``python -m memory_core --home TMP import FILE`` — and prints its wall time and peak resident
memory (``getrusage(RUSAGE_CHILDREN).ru_maxrss``). The import limit stays at its default
(64 MB): a LongMemEval file is streamed item by item whatever its size.

    .venv/bin/python benchmarks/lme_big.py                       # ~250 MB, temp dir, removed after
    .venv/bin/python benchmarks/lme_big.py --size-mb 50 --keep DIR

Exit status 1 when the import fails or imports a different number of conversations.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT.parent / "shared" / "bench" / "lme_s_dev.json"


def write_big(src: Path, out: Path, size_mb: float) -> tuple[int, int]:
    """Repeat ``src``'s items under new ids until ``out`` holds ``size_mb``; (items, bytes)."""
    items: list[dict[str, Any]] = json.loads(src.read_text(encoding="utf-8"))
    target = int(size_mb * 2**20)
    written = count = 0
    with out.open("w", encoding="utf-8") as f:
        f.write("[")
        while written < target:
            for item in items:
                copy = dict(item, question_id=f"{item['question_id']}-r{count}")
                piece = ("," if count else "") + json.dumps(copy, ensure_ascii=False)
                f.write(piece)
                written += len(piece.encode("utf-8"))
                count += 1
                if written >= target:
                    break
        f.write("]")
    return count, out.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEV, help="LongMemEval items to repeat")
    parser.add_argument("--size-mb", type=float, default=250.0)
    parser.add_argument("--keep", type=Path, default=None, help="write the file and home here, keep them")
    args = parser.parse_args()

    work = args.keep or Path(tempfile.mkdtemp(prefix="mnemoscope-lme-big-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        path = work / "lme_big.json"
        started = time.perf_counter()
        items, size = write_big(args.data, path, args.size_mb)
        print(f"wrote {path}: {size / 2**20:.1f} MB, {items} items in {time.perf_counter() - started:.1f} s")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        env.pop("MNEMOSCOPE_MAX_FILE_MB", None)  # the default limit (64 MB)
        command = [sys.executable, "-m", "memory_core", "--home", str(work / "home"), "import", str(path)]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        progress = [line for line in done.stderr.splitlines() if line.startswith(("checked", "saved"))]
        for line in [*progress[:3], "...", *progress[-3:]] if len(progress) > 6 else progress:
            print(f"  {line}")
        summary = [line for line in done.stdout.splitlines() if line.startswith("imported ")]
        imported = int(summary[-1].split()[1]) if summary else 0
        warnings = sum(1 for line in done.stderr.splitlines() if line.startswith("warning:"))
        print(f"import: exit {done.returncode}, {imported} conversations, {warnings} warning lines, "
              f"{elapsed:.1f} s wall, peak RSS {peak_mb:.0f} MB "
              f"({size / 2**20 / elapsed:.1f} MB/s, {items / elapsed:.1f} items/s)")
        if done.returncode != 0 or imported != items:
            print(done.stderr[-2000:], file=sys.stderr)
            return 1
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
