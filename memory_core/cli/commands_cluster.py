"""``build-cluster (--all | --conv ID[,ID…]) (--workers N | --scheduler tcp://HOST:8786)``:
build conversations on Dask workers (a ``distributed.LocalCluster`` or an existing cluster).

Team mode only: each worker opens the shared PostgreSQL store and Chroma server from the same
settings and builds its conversation itself, through the same ``build`` a local run uses, so
every session is committed in one transaction exactly as a local build commits it. A worker
killed mid-build loses only its uncommitted session: Dask re-runs the task elsewhere
(``retries``) and the re-run skips the sessions already built. Conversations, not sessions,
are the unit: a conversation's sessions depend on each other (known entities, the graph).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from typing import Any

from memory_core.config import Settings
from memory_core.errors import ConfigError


def register(sub: Any) -> None:
    p = sub.add_parser("build-cluster",
                       help="build conversations on Dask workers (PostgreSQL + Chroma server)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--all", action="store_true", help="every conversation with unbuilt sessions")
    which.add_argument("--conv", default=None, help="comma-separated conversation ids")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--workers", type=int, default=None,
                       help="start a local cluster of N worker processes")
    where.add_argument("--scheduler", default=None, help="an existing scheduler: tcp://HOST:8786")
    p.add_argument("--backend", default=None, help="offline | openai (default: the settings' backend)")
    p.add_argument("--retries", type=int, default=2, help="re-runs of a conversation whose worker died")
    p.set_defaults(func=cmd_build_cluster)


def build_on_worker(settings: Settings, conv_id: str, run_id: str = "") -> dict[str, Any]:
    """One conversation, built by whichever worker runs this task; its stages go into the
    build-status table under ``run_id`` (the Load page shows them while the run lasts)."""
    from memory_core.services import Services
    from memory_core.services.building import new_run_id

    started = time.perf_counter()
    services = Services(settings)
    try:
        for _ in services.builds.build_tracked(conv_id, run_id or new_run_id(), worker=_worker_name()):
            pass
        stats = services.imports.stats(conv_id)
    finally:
        services.close()
    return {"conv_id": conv_id, "seconds": round(time.perf_counter() - started, 1), **stats}


def _worker_name() -> str:
    from distributed import get_worker

    try:
        return str(get_worker().address)
    except ValueError:  # not on a worker (called directly)
        return "local"


def cmd_build_cluster(args: argparse.Namespace, settings: Settings) -> int:
    if not (settings.database_url and settings.chroma_url):
        raise ConfigError("build-cluster: workers share the home through servers; set "
                          "MNEMOSCOPE_DATABASE_URL (or --database) and MNEMOSCOPE_CHROMA_URL")
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"build-cluster: --workers must be 1 or more, got {args.workers}")
    if args.backend:
        settings = replace(settings, backend=args.backend)
    from memory_core.services import Services
    from memory_core.services.building import new_run_id

    run_id = new_run_id()
    services = Services(settings)
    try:
        if args.all:
            conv_ids = [c.id for c in services.imports.list_conversations()
                        if c.built_sessions < c.sessions or not c.entities]
        else:
            conv_ids = [c.strip() for c in args.conv.split(",") if c.strip()]
        services.builds.queue(conv_ids, run_id)  # the Load page shows them from now on
    finally:
        services.close()
    if not conv_ids:
        print("nothing to build")
        return 0
    from distributed import as_completed

    from memory_core.construct.distributed import connect

    client, cluster = connect(workers=args.workers, scheduler=args.scheduler)
    started = time.perf_counter()
    failed = 0
    try:
        with client:
            futures = [client.submit(build_on_worker, settings, c, run_id, key=f"build-{c}", pure=False,
                                     retries=args.retries) for c in conv_ids]
            for future in as_completed(futures):
                if future.status == "error":
                    failed += 1
                    print(f"error: {future.key}: {future.exception()}", file=sys.stderr)
                    _mark_failed(settings, str(future.key).removeprefix("build-"), run_id, future.exception())
                    continue
                r = future.result()
                print(f"built {r['conv_id']} in {r['seconds']} s: {r['episodes']} episodes, "
                      f"{r['records']} records, {r['entities']} entities", flush=True)
    finally:
        if cluster is not None:
            cluster.close()
    print(f"{len(conv_ids) - failed} of {len(conv_ids)} conversations built in "
          f"{time.perf_counter() - started:.0f} s")
    return 1 if failed else 0


def _mark_failed(settings: Settings, conv_id: str, run_id: str, error: BaseException | None) -> None:
    """A task that failed on every try (its worker may have died before writing): the client
    records the failure, so the Load page does not show the conversation as still building."""
    from memory_core.services import Services

    services = Services(settings)
    try:
        services.builds.mark_failed(conv_id, run_id, error or "the worker died", worker="client")
    finally:
        services.close()
