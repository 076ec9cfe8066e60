"""Lists stay fast in a home with thousands of conversations.

    .venv/bin/python benchmarks/many_conversations.py [--n 5000] [--home DIR] [--keep]

Writes ``--n`` small LoCoMo-layout conversations (2 sessions, 6 turns each) into one file,
imports them into a temporary home through the CLI, then times what a person waits for:
``list`` and ``stats`` through the CLI (a new process each, imports included), the services'
``list_conversations``/``stats`` calls in one process, and the Home page's first render in
Streamlit's AppTest (frame + sidebar conversation picker + home). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
WORDS = ("garden", "trip", "piano", "novel", "bakery", "marathon", "puppy", "museum", "camping", "chess")


def sample(i: int) -> dict[str, object]:
    topic, other = WORDS[i % len(WORDS)], WORDS[(i * 7 + 3) % len(WORDS)]
    conv: dict[str, object] = {"speaker_a": "Ana", "speaker_b": "Ben"}
    for s in (1, 2):
        conv[f"session_{s}_date_time"] = f"1:{10 + s} pm on {1 + i % 27} May, 2023"
        conv[f"session_{s}"] = [
            {"speaker": "Ana" if k % 2 == 0 else "Ben", "dia_id": f"D{s}:{k + 1}",
             "text": f"Conversation {i}, session {s}: talking about the {topic if k % 3 else other} ({k})."}
            for k in range(6)
        ]
    return {"sample_id": f"gen-{i:05d}", "conversation": conv, "qa": []}


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, capture_output=True, cwd=ROOT)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--home")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    home = Path(args.home or tempfile.mkdtemp(prefix="mnemoscope-many-"))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "MNEMOSCOPE_HOME": str(home)}
    cli = [sys.executable, "-m", "memory_core", "--home", str(home)]
    data = home.parent / f"{home.name}-conversations.json"
    data.write_text(json.dumps([sample(i) for i in range(args.n)]), encoding="utf-8")
    print(f"{args.n} conversations, {data.stat().st_size / 2**20:.1f} MB", flush=True)
    print(f"  import (CLI)          {timed([*cli, 'import', str(data)], env):7.2f} s", flush=True)
    for name in ("list", "stats"):
        runs = [timed([*cli, name], env) for _ in range(3)]
        print(f"  {name:<5} (CLI process)  {statistics.median(runs):7.2f} s median of 3", flush=True)

    from memory_core.config import Settings
    from memory_core.services import Services

    svc = Services.open(Settings.from_env().with_home(home))
    for name, call in (("list_conversations", svc.imports.list_conversations),
                       ("stats", svc.imports.stats)):
        runs = []
        for _ in range(5):
            t = time.perf_counter()
            call()
            runs.append(time.perf_counter() - t)
        print(f"  {name:<20} {statistics.median(runs) * 1000:7.1f} ms median of 5 (in process)", flush=True)
    svc.close()

    from streamlit.testing.v1 import AppTest

    os.environ.update(env)
    runs = []
    for _ in range(3):
        app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        t = time.perf_counter()
        app.run()
        runs.append(time.perf_counter() - t)
        if app.exception:
            print("  home page raised:", app.exception[0].message)
    print(f"  Home page (AppTest)   {statistics.median(runs):7.2f} s median of 3 (first run incl. opening "
          f"the home: {runs[0]:.2f} s)", flush=True)
    if not args.keep and not args.home:
        shutil.rmtree(home, ignore_errors=True)
    data.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
