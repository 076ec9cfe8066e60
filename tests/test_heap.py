"""``heap.settle``: what is alive when it runs is frozen (later collections skip it); what was
already garbage is collected first, not frozen with it. ``heap.pin_mmap_threshold``: large blocks
keep their own mappings after a larger one was freed."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

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


# A child process (a fresh allocator): frees a 16 MB block, then allocates 4 MB; prints how many
# of those bytes came as their own mapping (glibc's mallinfo2 ``hblkhd``).
_MAPPED_AFTER_FREE = """
import ctypes, ctypes.util, sys
from memory_core import heap

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
                 "fordblks", "keepcost")]

libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "pin":
    assert heap.pin_mmap_threshold() and heap.mmap_pinned()
freed = bytearray(16 << 20)
del freed
before = libc.mallinfo2().hblkhd
block = bytearray(4 << 20)
print(libc.mallinfo2().hblkhd - before)
"""


def _mapped_after_free(mode: str) -> int:
    root = Path(__file__).resolve().parent.parent
    # glibc's own threshold stops floating when any MALLOC_*_ setting is in the environment (a
    # Dask nanny started by an earlier test leaves MALLOC_TRIM_THRESHOLD_ behind): the child
    # starts without them
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    out = subprocess.run([sys.executable, "-c", _MAPPED_AFTER_FREE, mode], cwd=root, check=True,
                         capture_output=True, text=True, env=env).stdout
    return int(out.strip())


def test_a_pinned_mmap_threshold_maps_large_blocks_after_a_larger_one_was_freed() -> None:
    # glibc's own rule raises the threshold past 4 MB once the 16 MB block is freed: the 4 MB
    # block then comes from the heap, where it would stay after being freed
    assert _mapped_after_free("float") == 0
    assert _mapped_after_free("pin") >= 4 << 20
