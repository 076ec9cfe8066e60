"""Load: N simulated users (threads over one Services object) asking and editing at once.

Each user loops until the time is up: ask one of the conversation's saved questions (its QA
items and earlier questions), or edit a record (read it, change its value and confidence with
the version it read; a ``ConflictError`` is an expected outcome and counted, not an error), or
page through the records table. Afterwards every successful edit is checked against the edit
log and the final record state: nothing may be lost or silently overwritten.

    .venv/bin/python benchmarks/load_test.py                      # builds the sample in a temp home
    .venv/bin/python benchmarks/load_test.py --home H --conv ID --users 8 --duration 120

Team mode (issue 13.3): many processes on one home, PostgreSQL + a Chroma server. The sample
is built once, then two app processes x 8 users ask and edit it while a CLI ``build`` of a
second conversation runs; the edits of both processes are checked together at the end.

    .venv/bin/python benchmarks/load_test.py --team                       # throwaway PG + Chroma
    .venv/bin/python benchmarks/load_test.py --team --processes 2 --users 8 --duration 60 \
        --database postgresql://... --chroma http://127.0.0.1:8000       # existing servers

Exit status 1 when any error happened or an edit was lost.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from memory_core.config import Settings
from memory_core.errors import ConflictError
from memory_core.services import Services

SAMPLE = Path(__file__).resolve().parent.parent / "sample_data" / "sample_conversation.json"


@dataclass
class SavedEdit:
    record_id: str
    version: int  # the version this edit produced
    value: str
    confidence: float
    who: str


@dataclass
class LoadReport:
    users: int
    seconds: float
    asks: list[float] = field(default_factory=list)  # latencies, seconds
    edits: list[float] = field(default_factory=list)
    pages: list[float] = field(default_factory=list)
    conflicts: int = 0
    errors: list[str] = field(default_factory=list)
    saved: list[SavedEdit] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # problems found by the final check

    @property
    def ok(self) -> bool:
        return not self.errors and not self.lost

    def lines(self) -> list[str]:
        def pct(xs: list[float], q: float) -> float:
            if not xs:
                return float("nan")
            ordered = sorted(xs)
            return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000

        out = [f"users {self.users}, {self.seconds:.0f} s: {len(self.asks)} asks, "
               f"{len(self.edits)} saved edits, "
               f"{self.conflicts} conflicts (refused, as designed), {len(self.pages)} record pages, "
               f"{len(self.errors)} errors, {len(self.lost)} lost edits"]
        for name, xs in (("ask", self.asks), ("edit", self.edits), ("records page", self.pages)):
            if xs:
                out.append(f"{name:>13} latency ms: p50 {pct(xs, 0.5):.0f}  p95 {pct(xs, 0.95):.0f}  "
                           f"max {max(xs) * 1000:.0f}  mean {statistics.fmean(xs) * 1000:.0f}")
        out.append(f"throughput: {len(self.asks) / self.seconds:.2f} asks/s, "
                   f"{len(self.edits) / self.seconds:.2f} edits/s")
        out += [f"ERROR {e}" for e in self.errors[:10]] + [f"LOST {p}" for p in self.lost[:10]]
        return out


def questions_of(services: Services, conv_id: str) -> list[str]:
    asked = [t.question for t in services.queries.traces(conv_id, agents=None, limit=1000)]
    qa = [q.question for q in services.evaluation.gold_items(conv_id)]
    return list(dict.fromkeys(asked + qa)) or ["What happened?"]


def run_load(services: Services, conv_id: str, *, users: int = 8, duration: float = 120.0,
             edit_share: float = 0.3, page_share: float = 0.1, hot_records: int = 12,
             seed: int = 7, who_prefix: str = "", check: bool = True) -> LoadReport:
    """Run the simulated users against ``services`` and check the edits afterwards (``check``:
    off when other processes edit too; the caller checks everyone's edits together)."""
    questions = questions_of(services, conv_id)
    record_ids = [r.id for r in services.curation.records(conv_id)]
    if not record_ids:
        raise SystemExit(f"{conv_id}: no records to edit (build the conversation first)")
    hot = record_ids[:hot_records]  # a few records everyone edits: conflicts are likely there
    edits_before = len(services.curation.edit_log(conv_id))
    report = LoadReport(users=users, seconds=duration)
    lock = threading.Lock()
    deadline = time.monotonic() + duration
    started = threading.Barrier(users)

    def user(n: int) -> None:
        rnd = random.Random(seed * 1000 + n)
        who = f"{who_prefix}user{n}"
        started.wait()
        while time.monotonic() < deadline:
            roll = rnd.random()
            t0 = time.perf_counter()
            try:
                if roll < edit_share:
                    rid = rnd.choice(hot) if rnd.random() < 0.5 else rnd.choice(record_ids)
                    current = services.imports.record(rid)
                    value = f"{who} edit {rnd.randrange(10**6)}"
                    confidence = round(rnd.random(), 3)
                    try:
                        saved = services.curation.edit_record(rid, {"value": value, "confidence": confidence},
                                                     who=who, why="load test",
                                                     expected_version=current.version)
                    except ConflictError:
                        with lock:
                            report.conflicts += 1
                        continue
                    with lock:
                        report.edits.append(time.perf_counter() - t0)
                        report.saved.append(SavedEdit(rid, saved.version, value, confidence, who))
                elif roll < edit_share + page_share:
                    services.curation.search_records(conv_id, query=rnd.choice(["", "", "a", "the"]),
                                            sort=rnd.choice(["episode", "-confidence", "entity"]),
                                            page=rnd.randint(1, 3), page_size=50)
                    with lock:
                        report.pages.append(time.perf_counter() - t0)
                else:
                    services.queries.ask(conv_id, rnd.choice(questions))
                    with lock:
                        report.asks.append(time.perf_counter() - t0)
            except Exception as exc:  # everything else is a failure of the load test
                with lock:
                    report.errors.append(f"{who}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=user, args=(n,), name=f"user{n}") for n in range(users)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    report.seconds = time.monotonic() - t0
    if check:
        report.lost = check_edits(services, conv_id, report.saved, edits_before)
    return report


def check_edits(services: Services, conv_id: str, saved: list[SavedEdit], edits_before: int) -> list[str]:
    """Every successful edit is in the log; each record ends as its last successful edit."""
    problems: list[str] = []
    log = services.curation.edit_log(conv_id)[edits_before:]
    by_key = {(e.target_id, (e.after or {}).get("version")): e for e in log}
    if len(log) != len(saved):
        problems.append(f"{len(saved)} successful edits but {len(log)} new rows in the edit log")
    last: dict[str, SavedEdit] = {}
    for s in saved:
        entry = by_key.get((s.record_id, s.version))
        if entry is None:
            problems.append(f"{s.record_id} v{s.version} by {s.who}: no edit-log row")
        elif (entry.after or {}).get("value") != s.value or entry.who != s.who:
            problems.append(f"{s.record_id} v{s.version}: the log row does not match what {s.who} saved")
        if s.record_id not in last or s.version > last[s.record_id].version:
            last[s.record_id] = s
    versions = Counter((s.record_id, s.version) for s in saved)
    for (rid, version), n in versions.items():
        if n > 1:
            problems.append(f"{rid} v{version} was saved by {n} users (an overwrite)")
    for rid, s in last.items():
        final = services.imports.record(rid)
        if (final.version, final.value, final.confidence) != (s.version, s.value, s.confidence):
            problems.append(f"{rid}: final state v{final.version} {final.value!r} is not the last "
                            f"successful edit v{s.version} {s.value!r}")
    return problems


def built_sample(home: Path, settings: Settings | None = None) -> tuple[Services, str]:
    services = Services(settings or Settings(home=home))
    result: Any = services.imports.import_file(SAMPLE)
    conv_id = services.imports.conversation_ids()[0]
    del result
    t0 = time.perf_counter()
    for _ in services.builds.build(conv_id):
        pass
    print(f"built {conv_id} in {time.perf_counter() - t0:.0f} s", flush=True)
    return services, conv_id


# ---------------------------------------------------------------------------- team mode
def team_worker(args: argparse.Namespace) -> int:
    """One app process: its own services (own PostgreSQL connection and Chroma client)."""
    settings = Settings(home=Path(args.home), database_url=args.database, chroma_url=args.chroma)
    services = Services(settings)
    try:
        services.queries.ask(args.conv, questions_of(services, args.conv)[0])  # warm: model and indexes
        Path(args.out + ".ready").write_text("ready")
        while not Path(args.out + ".go").exists():  # start together with the other processes
            time.sleep(0.05)
        report = run_load(services, args.conv, users=args.users, duration=args.duration,
                          edit_share=args.edit_share, seed=args.seed, who_prefix=f"p{args.seed}-",
                          check=False)
    finally:
        services.close()
    Path(args.out).write_text(json.dumps(dataclasses.asdict(report)))
    return 0


def team(args: argparse.Namespace) -> int:
    """Two app processes x N users plus a CLI build of another conversation, one home."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from engines import ChromaServer, PostgresCluster  # the same throwaway servers the tests use

    cluster = server = None
    with tempfile.TemporaryDirectory() as tmp:
        try:
            if args.database is None:
                cluster = PostgresCluster()
                args.database = cluster.url(cluster.fresh())
            if args.chroma is None:
                server = ChromaServer()
                args.chroma = server.fresh()
            home = Path(tmp) / "home"
            settings = Settings(home=home, database_url=args.database, chroma_url=args.chroma)
            services, conv_id = built_sample(home, settings)
            other = Path(tmp) / "other.json"  # the sample again under another id, for the CLI build
            data = json.loads(SAMPLE.read_text(encoding="utf-8"))
            data[0]["sample_id"] = f"{data[0]['sample_id']}-cli"
            other.write_text(json.dumps(data), encoding="utf-8")
            other_id = services.imports.import_file(other).ids[0]
            services.close()
            return _drive_team(args, home, conv_id, other_id, Path(tmp))
        finally:
            if server is not None:
                server.stop()
            if cluster is not None:
                cluster.stop()


def _drive_team(args: argparse.Namespace, home: Path, conv_id: str, other_id: str, tmp: Path) -> int:
    env = {**os.environ, "MNEMOSCOPE_DATABASE_URL": args.database, "MNEMOSCOPE_CHROMA_URL": args.chroma}
    script = str(Path(__file__).resolve())
    outs = [str(tmp / f"proc{k}.json") for k in range(args.processes)]
    procs = [subprocess.Popen([sys.executable, script, "--worker", "--home", str(home), "--conv", conv_id,
                               "--database", args.database, "--chroma", args.chroma, "--users",
                               str(args.users), "--duration", str(args.duration), "--edit-share",
                               str(args.edit_share), "--seed", str(k + 1), "--out", outs[k]], env=env)
             for k in range(args.processes)]
    while not all(Path(o + ".ready").exists() for o in outs):
        if any(p.poll() not in (None, 0) for p in procs):
            raise SystemExit("an app process failed while warming up")
        time.sleep(0.2)
    settings = Settings(home=home, database_url=args.database, chroma_url=args.chroma)
    checker = Services(settings)
    edits_before = len(checker.curation.edit_log(conv_id))
    checker.close()
    for o in outs:
        Path(o + ".go").write_text("go")
    t0 = time.perf_counter()
    build = [sys.executable, "-m", "memory_core", "--home", str(home), "build", "--conv", other_id]
    cli = subprocess.run(build, env=env, capture_output=True, text=True, cwd=Path(script).parent.parent)
    cli_s = time.perf_counter() - t0
    codes = [p.wait() for p in procs]
    reports = [LoadReport(**{**json.loads(Path(o).read_text()), "saved": []}) for o in outs]
    saved = [SavedEdit(**e) for o in outs for e in json.loads(Path(o).read_text())["saved"]]
    checker = Services(settings)
    try:
        lost = check_edits(checker, conv_id, saved, edits_before)
        built = checker.imports.stats(other_id)
    finally:
        checker.close()
    total = LoadReport(users=args.users * args.processes, seconds=max(r.seconds for r in reports),
                       asks=[x for r in reports for x in r.asks], edits=[x for r in reports for x in r.edits],
                       pages=[x for r in reports for x in r.pages], saved=saved, lost=lost,
                       conflicts=sum(r.conflicts for r in reports),
                       errors=[e for r in reports for e in r.errors])
    print(f"team: {args.processes} app processes x {args.users} users on PostgreSQL + Chroma server, "
          f"plus a CLI build of {other_id}")
    for k, r in enumerate(reports):
        print(f"  process {k + 1}: {len(r.asks)} asks, {len(r.edits)} edits, {r.conflicts} conflicts, "
              f"{len(r.errors)} errors")
    print("\n".join(total.lines()))
    cli_line = cli.stdout.strip().splitlines()[-1] if cli.stdout.strip() else cli.stderr.strip()[-300:]
    print(f"CLI build of {other_id} during the load: exit {cli.returncode} in {cli_s:.0f} s "
          f"({built['episodes']} episodes, {built['records']} records): {cli_line}")
    ok = total.ok and cli.returncode == 0 and all(c == 0 for c in codes)
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", default=None, help="a home with a built conversation (default: build "
                                                      "the sample in a temporary home)")
    parser.add_argument("--conv", default=None)
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--duration", type=float, default=120.0, help="seconds")
    parser.add_argument("--edit-share", type=float, default=0.3)
    parser.add_argument("--torch-threads", type=int, default=0, help="0: torch's default")
    parser.add_argument("--team", action="store_true",
                        help="several app processes + a CLI build on PostgreSQL + a Chroma server")
    parser.add_argument("--processes", type=int, default=2, help="team mode: app processes")
    parser.add_argument("--database", default=None, help="team mode: postgresql://… (default: a throwaway "
                                                          "cluster)")
    parser.add_argument("--chroma", default=None, help="team mode: http://host:port (default: a throwaway "
                                                       "server)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=7, help=argparse.SUPPRESS)
    parser.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return team_worker(args)
    if args.team:
        return team(args)
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    with tempfile.TemporaryDirectory() as tmp:
        if args.home:
            services = Services(Settings(home=Path(args.home)))
            conv_id = args.conv or services.imports.conversation_ids()[0]
        else:
            services, conv_id = built_sample(Path(tmp) / "home")
        try:
            services.queries.ask(conv_id, questions_of(services, conv_id)[0])  # warm: model and indexes
            report = run_load(services, conv_id, users=args.users, duration=args.duration,
                              edit_share=args.edit_share)
        finally:
            services.close()
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
