"""Keeping long-lived objects out of the garbage collector's way.

The embedding model, the spaCy pipeline and the app's services live as long as the process, and
bring millions of tracked objects with them. Every full (generation 2) collection walks them all
again, for nothing: in the app that cost ~0.4 s of each page render after the model had loaded
(``benchmarks/ui_render.py``, Ask page, 1.37 s -> 0.85 s with the heap settled). ``settle`` runs
one collection and then freezes what survived (``gc.freeze``): later collections skip those
objects. Frozen objects are still freed by reference counting when they go; only a reference
cycle among them would stay.
"""

from __future__ import annotations

import gc
import logging
import threading
import time

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
