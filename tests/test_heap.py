"""``heap.settle``: what is alive when it runs is frozen (later collections skip it); what was
already garbage is collected first, not frozen with it."""

from __future__ import annotations

import gc
import weakref

from memory_core import heap


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector can free it


def test_settle_collects_cycles_then_freezes_the_survivors() -> None:
    keep = [_Node() for _ in range(1000)]
    lost = _Node()
    gone = weakref.ref(lost)
    del lost  # cyclic garbage: reference counting alone cannot free it
    before = gc.get_freeze_count()
    heap.settle("a test heap")
    assert gone() is None, "the collection ran before the freeze"
    assert gc.get_freeze_count() >= before + len(keep), "the survivors are frozen"
