"""Freed heap memory is scrubbed once an API key is in use (Chroma persists uninitialised memory)."""

from __future__ import annotations

import ctypes
import ctypes.util
import subprocess
import sys

import pytest

CHILD = r"""
import ctypes, ctypes.util, sys
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
if sys.argv[1] == "scrub":
    from memory_core.llm.memscrub import scrub_freed_memory
    assert scrub_freed_memory()
secret = b"authorization: Bearer sk-test-" + b"Q" * 2000
hits = 0
for _ in range(50):
    p = libc.malloc(4096)
    ctypes.memmove(p, secret, len(secret))
    libc.free(p)
    q = libc.malloc(4096)  # glibc hands the same block back (tcache)
    hits += secret[32:] in ctypes.string_at(q, len(secret))  # the first bytes hold free-list links
    libc.free(q)
print(hits)
"""


@pytest.mark.skipif(not ctypes.util.find_library("c") or not sys.platform.startswith("linux"),
                    reason="glibc mallopt only")
def test_freed_blocks_no_longer_carry_the_secret() -> None:
    def run(mode: str) -> int:
        out = subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True,
                             check=True, timeout=60)
        return int(out.stdout.strip())

    assert run("plain") > 0  # without scrubbing, freed memory comes back with the secret in it
    assert run("scrub") == 0
