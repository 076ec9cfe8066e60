"""Warm a conversation's question index in the background (after a build, when Ask opens), so
the first question does not pay for building the in-memory index and embedding the vocabulary.

The thread only reads (the store serialises its calls; the index cache builds one index per
conversation under its lock, so a question asked meanwhile waits for the same index). It ends
when the index is built; a failure is logged and the first question builds the index itself.
"""

from __future__ import annotations

import logging
import threading

from memory_core.services import MemoryServices

log = logging.getLogger(__name__)
_threads: dict[str, threading.Thread] = {}
_lock = threading.Lock()


def _warm(svc: MemoryServices, conv: str) -> None:
    try:
        svc.queries.warm(conv)
    except Exception:  # the first question will build the index itself
        log.exception("warming the question index of %s failed", conv)


def start(svc: MemoryServices, conv: str) -> threading.Thread:
    """Start warming ``conv`` unless a warm-up of it is already running; returns the thread."""
    with _lock:
        running = _threads.get(conv)
        if running is not None and running.is_alive():
            return running
        thread = threading.Thread(target=_warm, args=(svc, conv), name=f"mnemoscope-warm:{conv}", daemon=True)
        _threads[conv] = thread
        thread.start()
        return thread


def wait(conv: str, timeout: float | None = None) -> None:
    """Wait for a running warm-up of ``conv`` (tests, benchmarks)."""
    thread = _threads.get(conv)
    if thread is not None:
        thread.join(timeout)


def once_per_session(svc: MemoryServices, conv: str) -> None:
    """``start`` the first time this browser session opens ``conv`` here."""
    import streamlit as st

    done = st.session_state.setdefault("warmed_convs", [])
    if conv not in done:
        done.append(conv)
        start(svc, conv)
