"""Scrub freed heap memory while an API key is in use.

Chroma's HNSW persistence writes parts of freshly ``malloc``-ed, never-initialised buffers to
disk (seen: ``chroma/<segment>/length.bin`` holding a stale HTTP request with its
``authorization: Bearer`` header). Whatever the process freed earlier can end up in a file.
glibc's ``M_PERTURB`` makes ``free`` overwrite every freed block (and ``malloc`` fill new ones)
with a fixed byte, so request buffers that carried the key are wiped before any reuse. It is
turned on once, before the first LLM request, and costs a memset per allocation — paid only in
processes that talk to an LLM endpoint. On a libc without ``mallopt`` this is a no-op.
"""

from __future__ import annotations

import logging
import threading

from memory_core import heap

log = logging.getLogger(__name__)

_PERTURB_BYTE = 0x5A
_done = False
_lock = threading.Lock()


def scrub_freed_memory() -> bool:
    """Turn on glibc's free-time scrubbing for this process; True when it is on."""
    global _done
    with _lock:
        if _done:
            return True
        ok = heap.mallopt(heap.M_PERTURB, _PERTURB_BYTE)
        _done = ok
        if ok:
            log.info("freed heap memory is scrubbed from now on (an API key is in use)")
        return ok
