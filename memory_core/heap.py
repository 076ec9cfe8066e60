"""Keeping long-lived objects out of the garbage collector's way, and freed memory out of the
process.

The embedding model, the spaCy pipeline and the app's services live as long as the process, and
bring millions of tracked objects with them. Every full (generation 2) collection walks them all
again, for nothing: in the app that cost ~0.4 s of each page render after the model had loaded
(``benchmarks/ui_render.py``, Ask page, 1.37 s -> 0.85 s with the heap settled). ``settle`` runs
one collection and then freezes what survived (``gc.freeze``): later collections skip those
objects. Frozen objects are still freed by reference counting when they go; only a reference
cycle among them would stay.

``pin_mmap_threshold`` fixes glibc's mmap threshold (``mallopt``). Left alone, glibc raises it
each time a large mapped block is freed, up to 32 MB; from then on blocks of that size come from
the heap arenas and, once freed, stay in the process. The embedding model allocates such blocks
by the hundred for every batch, of ever-changing sizes: embedding one LongMemEval haystack after
another grew the resident memory by ~50 MB per haystack (``benchmarks/embed_memory.py``), with
nothing kept. Pinned (``MMAP_THRESHOLD``, 4 MB), every block that size or larger has its own
mapping, unmapped when freed; 1 MB held memory flatter still but cost ~25 % more build CPU in
page faults.
``mallopt`` is glibc's; elsewhere both helpers do nothing and say so.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import resource
import threading
import time
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)
_lock = threading.Lock()


def settle(what: str) -> None:
    """Call after loading something that stays for the life of the process (``what`` names it)."""
    with _lock:
        started = time.perf_counter()
        gc.collect()
        gc.freeze()
        log.debug("heap settled after %s: %d objects frozen in %.2fs", what, gc.get_freeze_count(),
                  time.perf_counter() - started)


M_PERTURB = -6  # glibc malloc.h: the byte freed and new blocks are filled with
M_MMAP_THRESHOLD = -3  # glibc malloc.h: blocks of at least this many bytes get their own mapping
MMAP_THRESHOLD = 4 << 20
_pinned = False


@lru_cache(maxsize=1)
def _libc() -> Any:
    """The C library, looked up once (``find_library`` runs ``ldconfig``); None where there is none."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:
        return None


def mallopt(param: int, value: int) -> bool:
    """glibc's ``mallopt(param, value)`` for this process; False where there is none."""
    try:
        return bool(_libc().mallopt(param, value))
    except AttributeError:  # no C library, or one without mallopt
        return False


def pin_mmap_threshold(nbytes: int = MMAP_THRESHOLD) -> bool:
    """Give every block of ``nbytes`` or more its own mapping from now on, whatever was freed
    before (call before loading what allocates large blocks); True when it is pinned."""
    global _pinned
    with _lock:
        if not _pinned and mallopt(M_MMAP_THRESHOLD, nbytes):
            _pinned = True
            log.debug("glibc mmap threshold pinned at %d bytes", nbytes)
        return _pinned


def mmap_pinned() -> bool:
    return _pinned


def resident_mb() -> float:
    """This process's resident memory now, in MB (Linux ``/proc``)."""
    with open("/proc/self/statm", encoding="ascii") as f:
        return round(int(f.read().split()[1]) * resource.getpagesize() / 2**20, 1)


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB (``ru_maxrss``)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
