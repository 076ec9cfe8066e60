"""Where a build's time goes, function by function: cProfile over one ``build``.

Imports FILE into a fresh temporary home, builds the chosen conversations (default: the
first) under cProfile with the offline backend, and prints the build's stage seconds and
the top functions by cumulative and by own time.

    .venv/bin/python benchmarks/profile_build.py FILE [--conv ID] [--top 40] [--out prof.pstats]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from memory_core.config import Settings
from memory_core.progress import BuildDone
from memory_core.services import Services


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--conv", default=None)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--out", default=None, help="also write the raw pstats here")
    args = ap.parse_args()
    home = tempfile.mkdtemp(prefix="mnemoscope-prof-")
    try:
        services = Services.open(Settings.from_env().with_home(home))
        ids = list(services.imports.import_file(args.file, replace=True).ids)
        conv = args.conv or ids[0]
        services.backend.prepare()  # models load outside the profile
        profiler = cProfile.Profile()
        started = time.perf_counter()
        profiler.enable()
        stats = {}
        for event in services.builds.build(conv, rebuild=True):
            if isinstance(event, BuildDone):
                stats = event.stats
        profiler.disable()
        print(f"{conv}: {time.perf_counter() - started:.1f}s under cProfile; stages {stats.get('stages')}; "
              f"records {stats.get('records')}, entities {stats.get('entities')}")
        if args.out:
            profiler.dump_stats(args.out)
        p = pstats.Stats(profiler).strip_dirs()
        p.sort_stats("cumulative").print_stats(args.top)
        p.sort_stats("tottime").print_stats(args.top)
        services.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
