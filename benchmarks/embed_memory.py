"""Embedding a LongMemEval haystack's turns, one haystack after another: time and memory.

What a long ``eval longmemeval`` run does to the process, without the rest of the build: each
haystack's turns (~500 texts, many at the model's 256 word pieces) are embedded by the shared
``Embedder`` and dropped. Prints, per haystack, the seconds it took, the resident memory after it
and the peak so far, then the growth from the first haystack to the last.

    .venv/bin/python benchmarks/embed_memory.py FILE [--items 8] [--token-budget N] [--batch-size N]
        [--no-pin | --mmap-threshold BYTES]

``--token-budget`` and ``--batch-size`` set the embedder's batching (defaults: the library's);
a budget of 0 turns the budget off (``batch_size`` texts per pass, whatever their length, as
before). ``--no-pin`` leaves glibc's mmap threshold to float (``memory_core.heap``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory_core import heap  # noqa: E402
from memory_core.embeddings import TOKEN_BUDGET, Embedder  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", help="a LongMemEval file (a list of items with haystack_sessions)")
    ap.add_argument("--items", type=int, default=8)
    ap.add_argument("--token-budget", type=int, default=TOKEN_BUDGET)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--no-pin", action="store_true", help="leave glibc's mmap threshold dynamic")
    ap.add_argument("--mmap-threshold", type=int, default=heap.MMAP_THRESHOLD, help="bytes (when pinned)")
    args = ap.parse_args()
    if not args.no_pin:
        heap.pin_mmap_threshold(args.mmap_threshold)
    items = json.loads(Path(args.file).read_text(encoding="utf-8"))[:args.items]
    embedder = Embedder(batch_size=args.batch_size, token_budget=args.token_budget or 10**9,
                        pin_allocator=not args.no_pin)
    embedder.embed(["warm-up one", "warm-up two"] * 8)
    print(f"model loaded: rss {heap.resident_mb()} MB, mmap threshold pinned: {heap.mmap_pinned()}")
    first: float | None = None
    total = 0.0
    for item in items:
        texts = [t["content"] for session in item["haystack_sessions"] for t in session if t.get("content")]
        started = time.perf_counter()
        embedder.embed(texts)
        took = time.perf_counter() - started
        total += took
        now = heap.resident_mb()
        first = now if first is None else first
        print(f"{item['question_id']:<22} {len(texts):4d} texts {took:6.1f} s  rss {now:7.1f} MB  "
              f"peak {heap.peak_mb():7.1f} MB", flush=True)
    grew = heap.resident_mb() - (first or 0.0)
    print(f"{len(items)} haystacks: {total:.1f} s embedding, rss grew {grew:.1f} MB after the first, "
          f"peak {heap.peak_mb()} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
