"""``build [--conv ID | --all] [--backend offline|openai] [--rebuild] [--workers N | --scheduler ADDR]``:
a progress bar on stderr, then a summary per conversation on stdout.

``--workers N`` starts a local Dask cluster of N worker processes, ``--scheduler
tcp://HOST:8786`` uses a running one; either way each conversation's pure stages run on a
worker and this process commits the results (``memory_core.construct.distributed``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TextIO

from memory_core.config import Settings
from memory_core.errors import ConfigError

if TYPE_CHECKING:
    from memory_core.contracts import Backend
    from memory_core.progress import BuildEvent


def register(sub: Any) -> None:
    p = sub.add_parser("build", help="build the memory of one or every conversation (streamed)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--conv", help="conversation id")
    which.add_argument("--all", action="store_true", help="every imported conversation")
    p.add_argument("--backend", default=None, help="offline (default: MNEMOSCOPE_BACKEND) or openai")
    p.add_argument("--rebuild", action="store_true", help="rebuild sessions that are already built")
    p.add_argument("--discard-edits", action="store_true",
                   help="allow a rebuild of a conversation that annotators corrected")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    cluster = p.add_mutually_exclusive_group()
    cluster.add_argument("--workers", type=int, default=None,
                         help="compute on a local Dask cluster of N worker processes (offline backend)")
    cluster.add_argument("--scheduler", default=None,
                         help="compute on a running Dask cluster (tcp://HOST:8786; offline backend)")
    p.set_defaults(func=cmd_build)


def offline_worker_backend() -> Backend:
    """What a cluster worker builds with: the offline backend (models load once per worker)."""
    from memory_core.backends.offline.backend import OfflineBackend
    from memory_core.embeddings import shared_embedder

    return OfflineBackend(embedder=shared_embedder())


class Progress:
    """A text progress bar driven by build events: redrawn in place on a terminal, one line
    per session (and graph / end) when stderr is a file or a pipe."""

    def __init__(self, out: TextIO, *, enabled: bool = True, width: int = 28) -> None:
        self.out, self.enabled, self.width = out, enabled, width
        self.tty = bool(getattr(out, "isatty", lambda: False)())
        self.total = self.done = 0
        self.line = ""

    def _draw(self, label: str, *, milestone: bool = False) -> None:
        if not self.enabled or not (self.tty or milestone):
            return
        share = self.done / self.total if self.total else 1.0
        filled = round(share * self.width)
        bar = f"[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} turns  {label}"
        if not self.tty:
            self.out.write(bar + "\n")
            self.out.flush()
            return
        text = "\r" + bar
        pad = max(0, len(self.line) - len(text))
        self.out.write(text + " " * pad)
        self.out.flush()
        self.line = text

    def finish(self) -> None:
        if self.enabled and self.line:
            self.out.write("\n")
            self.out.flush()
            self.line = ""

    def feed(self, events: Iterable[BuildEvent]) -> None:
        """Draw the bar; on stdout, each conversation's summary line and its stage timings."""
        from memory_core.progress import (
            BuildDone,
            BuildStarted,
            ConversationQueued,
            EntitiesMerged,
            EpisodeFormed,
            GraphUpdated,
            RecordsExtracted,
            SessionDone,
            SessionStarted,
        )

        turns_of: dict[str, int] = {}
        for event in events:
            match event:
                case ConversationQueued():
                    self._draw(f"{event}", milestone=True)
                case BuildStarted():
                    self.total, self.done = event.turns_pending, 0
                    self._draw(f"{event.conv_id}: starting")
                case SessionStarted():
                    self._draw(f"{event.conv_id} session {event.session}")
                case EpisodeFormed():
                    turns_of[event.episode.id] = len(event.episode.turn_ids)
                case RecordsExtracted():
                    self.done += turns_of.get(event.episode_id, 0)
                    self._draw(f"{event.conv_id}: {event.episode_id}")
                case SessionDone():
                    self._draw(f"{event.conv_id} session {event.session} done", milestone=True)
                case EntitiesMerged() | GraphUpdated():
                    self._draw(f"{event.conv_id}: graph", milestone=isinstance(event, GraphUpdated))
                case BuildDone():
                    self.done = self.total
                    self._draw(f"{event.conv_id}: done", milestone=True)
                    self.finish()
                    stats = dict(event.stats)
                    print(str(event), file=sys.stdout)
                    stages = ", ".join(f"{k} {v:.1f}s" for k, v in stats.get("stages", {}).items())
                    if stages:
                        print(f"  stages: {stages}", file=sys.stdout)
        self.finish()


def cmd_build(args: argparse.Namespace, settings: Settings) -> int:
    from memory_core.backends import BACKEND_NAMES
    from memory_core.services import Services

    backend = args.backend or settings.backend
    if backend not in BACKEND_NAMES:
        raise ConfigError(f"--backend: unknown backend '{backend}' ({', '.join(BACKEND_NAMES)})")
    on_cluster = args.workers is not None or args.scheduler is not None
    if on_cluster and backend != "offline":
        raise ConfigError(f"--workers/--scheduler: cluster builds use the offline backend, not '{backend}' "
                          "(the openai backend's call cache lives in this home's store)")
    services = Services.open(replace(settings, backend=backend))
    progress = Progress(sys.stderr, enabled=not args.quiet)
    try:
        ids = services.imports.conversation_ids() if args.all else [args.conv]
        if not ids:
            print("no conversations (import one with: python -m memory_core import FILE)")
            return 0
        if on_cluster:
            services.imports.require_conversations(ids)
            from memory_core.construct.distributed import connect

            client, cluster = connect(workers=args.workers, scheduler=args.scheduler)
            try:
                progress.feed(services.builds.build_on_cluster(
                    ids, offline_worker_backend, client=client, rebuild=args.rebuild,
                    discard_edits=args.discard_edits))
            finally:
                client.close()
                if cluster is not None:
                    cluster.close()
            return 0
        for conv_id in ids:
            progress.feed(services.builds.build(conv_id, rebuild=args.rebuild,
                                                discard_edits=args.discard_edits))
    finally:
        progress.finish()
        services.close()
    return 0
