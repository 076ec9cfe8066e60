"""Builds fanned out over a Dask cluster: workers compute, the client commits.

    build_on_cluster(store, index, embedder, backend, factory, conv_ids, client=..., rebuild=...)
        -> iterator of BuildEvent (ConversationQueued per conversation, then each
           conversation's usual stream, in the order the workers finish)

One task per conversation: a worker runs ``sessions.compute_conversation`` — model load,
embeddings, segment + extract per pending session, the vectors of the records and of the
entity names the graph will compare — on the conversation it is sent (a pydantic
``Conversation``) with a backend it makes itself (``factory()``, once per worker process; no
store, Chroma or model handle crosses the wire). It returns a ``ComputedConversation``: plain
models, frozen dataclasses and one float32 array.

The client commits each result with ``pipeline.build_conversation(..., computed=result)``,
the very code a local build runs: one ``save_session_memory`` transaction per session, then
the vectors (from the worker's, seeded into the embedding memo), then the conversation's
graph. Only the client writes, so the embedded DuckDB home (one writer) works as is.

A worker that dies (``kill -9``) loses only its running task: the scheduler re-runs it on
another worker (and ``retries`` re-runs a task that raised an unexpected error); nothing was
written for it, since writing happens on the client after the result arrived. A validation
error (``BuildError``) is not retried: it is the backend's answer, the same on any worker.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import threading
import time
import types
import uuid
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from memory_core.construct.embedcache import TextEmbedder
from memory_core.construct.pipeline import build_conversation
from memory_core.construct.sessions import ComputedConversation, compute_conversation
from memory_core.contracts import Backend, RelationalStore, VectorStore
from memory_core.embeddings import Embedder, shared_embedder
from memory_core.errors import BuildError, ConfigError
from memory_core.models import Conversation
from memory_core.progress import BuildEvent, ConversationQueued

if TYPE_CHECKING:
    from distributed import Client

log = logging.getLogger(__name__)

BackendFactory = Callable[[], Backend]
RETRIES = 2

_worker_lock = threading.Lock()
_worker_backends: dict[str, Backend] = {}


@dataclass(frozen=True)
class _Task:
    """What a worker gets for one conversation (pickled by Dask; our own processes only)."""

    conv: Conversation
    pending: tuple[int, ...]
    known: tuple[str, ...]
    factory: BackendFactory
    factory_key: str
    precision: str  # the client embedder's (``Settings.embed_precision``)
    extra: dict[str, Any] = field(default_factory=dict)


def compute_task(task: _Task) -> ComputedConversation:
    """Run on a worker: the pure stages of one conversation."""
    # the one embedder per process, made first so that the backend's (offline) is this one too
    embedder: TextEmbedder = shared_embedder(task.precision)
    with _worker_lock:
        backend = _worker_backends.get(task.factory_key)
        if backend is None:
            backend = task.factory()
            _worker_backends[task.factory_key] = backend
    delay = float(task.extra.get("delay_s", 0.0))  # tests: keep the task running long enough to kill
    if delay:
        time.sleep(delay)
    result = compute_conversation(task.conv, task.pending, task.known, backend, embedder)
    return replace(result, worker=f"{socket.gethostname()}:{os.getpid()}")


@contextlib.contextmanager
def plain_main() -> Iterator[None]:
    """Worker processes start by re-importing the parent's ``__main__`` (multiprocessing spawn);
    inside Streamlit (or its AppTest) that is the app script, which would open the home a second
    time. While this is active, new workers start from a blank ``__main__`` instead."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def connect(*, workers: int | None = None, scheduler: str | None = None) -> tuple[Client, Any]:
    """A Dask client: a ``LocalCluster`` of ``workers`` processes (one thread each) or an
    existing scheduler at ``scheduler`` (``tcp://host:8786``). Returns (client, cluster or None)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - pinned in requirements.txt
        raise ConfigError("cluster builds need the 'distributed' package (pip install distributed)") from None
    quiet = logging.getLogger("distributed")  # the CLI logs INFO; Dask's start-up chatter is not ours
    if quiet.getEffectiveLevel() < logging.WARNING:
        quiet.setLevel(logging.WARNING)
    if (workers is None) == (scheduler is None):
        raise ConfigError("give either --workers N or --scheduler tcp://HOST:PORT")
    if scheduler is not None:
        try:
            return Client(scheduler, timeout="10s"), None
        except OSError as exc:
            raise ConfigError(f"--scheduler {scheduler}: no Dask scheduler answers there "
                              f"({str(exc).splitlines()[0]})") from None
    if workers is None or workers < 1:
        raise ConfigError(f"--workers: at least 1 (got {workers})")
    with warnings.catch_warnings():  # its status page moves to a free port when 8787 is taken
        warnings.filterwarnings("ignore", message="Port .* is already in use", category=UserWarning)
        try:
            with plain_main():  # the workers start now
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.WARNING)
        except (OSError, RuntimeError) as exc:
            raise ConfigError(f"--workers {workers}: the local Dask cluster did not start "
                              f"({(str(exc).splitlines() or [''])[0]})") from None
    return Client(cluster), cluster


def build_on_cluster(store: RelationalStore, index: VectorStore, embedder: TextEmbedder, backend: Backend,
                     factory: BackendFactory, conv_ids: Sequence[str], *, client: Client,
                     rebuild: bool = False, retries: int = RETRIES, task_extra: dict[str, Any] | None = None,
                     on_result: Callable[[str, ComputedConversation], None] | None = None
                     ) -> Iterator[BuildEvent]:
    """Build ``conv_ids`` with their pure stages on the cluster and commit them here, one
    conversation at a time as results arrive. A conversation with nothing pending (only
    skips or vector repairs) is built locally."""
    from distributed import as_completed

    key = uuid.uuid4().hex  # the workers make one backend per key (per cluster build)
    precision = embedder.precision if isinstance(embedder, Embedder) else "auto"
    futures: dict[Any, str] = {}
    submitted_at: dict[str, float] = {}
    try:
        for conv_id in conv_ids:
            conv = store.load_conversation(conv_id, with_qa=False)
            built = store.built_sessions(conv_id)
            pending = tuple(s.index for s in conv.sessions if rebuild or s.index not in built)
            if not pending:
                yield from build_conversation(store, index, embedder, conv_id, backend, rebuild=rebuild)
                continue
            known = tuple(e.name for e in store.entities(conv_id))
            task = _Task(conv, pending, known, factory, key, precision, dict(task_extra or {}))
            future = client.submit(compute_task, task, key=f"build-{conv_id}-{uuid.uuid4().hex[:8]}",
                                   pure=False, retries=retries)
            futures[future] = conv_id
            submitted_at[conv_id] = time.perf_counter()
            yield ConversationQueued(conv_id, len(pending),
                                     sum(len(s.turns) for s in conv.sessions if s.index in set(pending)))
        for future in as_completed(list(futures)):
            conv_id = futures[future]
            try:
                computed: ComputedConversation = future.result()
            except BuildError:
                raise
            except Exception as exc:  # a task that failed on every try, or a cluster gone
                first = (str(exc).splitlines() or [""])[0]
                raise BuildError(f"conversation '{conv_id}': the cluster could not compute it "
                                 f"({type(exc).__name__}: {first})") from None
            if on_result is not None:
                on_result(conv_id, computed)
            log.info("%s computed on %s in %.1fs", conv_id, computed.worker,
                     time.perf_counter() - submitted_at[conv_id])
            yield from build_conversation(store, index, embedder, conv_id, backend, rebuild=rebuild,
                                          computed=computed)
            future.release()
    finally:
        for future in futures:
            if not future.done():
                future.cancel()
