"""Give memory back to the system between collector runs (glibc's allocator only).

On a big host a collector's run peaks at tens of megabytes (thousands of datasets, a long
iostat answer) and frees them when it ends. glibc keeps what was freed: each thread may get its
own malloc arena (every run is a thread), and the top of a heap is returned only past a
threshold. Untuned, a big host's collection process holds several times more RSS than it has
live Python objects. ``tune_malloc`` caps the arenas (as ``MALLOC_ARENA_MAX=2`` would) before
threads start and fixes the size from which a block gets its own mapping; ``trim`` returns
free pages (``malloc_trim``), which is cheap next to a run. Elsewhere both do nothing.

``settle_gc`` is for the cyclic garbage collector, on every platform: a big host's run
allocates hundreds of thousands of containers, and the default thresholds make that a
collection every few hundred of them (the full ones going over every object the process
holds), a visible share of the CPU of the runs themselves.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import platform
from typing import Any

M_ARENA_MAX = -8  # glibc malloc.h
M_MMAP_THRESHOLD = -3
# Blocks from this size on get their own mapping, unmapped when freed. glibc raises this
# threshold each time such a block is freed (up to 32 MiB), and a big host's renders (megabytes
# of iostat text) and command answers would then be carved from the heap, leaving holes there
# that RSS keeps. A fixed threshold keeps them out of the heap: less RSS, for the small cost of
# mapping and unmapping those blocks.
MMAP_THRESHOLD = 256 * 1024
# A young collection after this many new containers (CPython's default is 700). Most of
# what a run allocates is freed by reference counting, not by the collector.
GC_YOUNG_THRESHOLD = 10_000


@functools.cache
def _libc() -> Any | None:
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim.argtypes, libc.mallopt.argtypes = [ctypes.c_size_t], [ctypes.c_int] * 2
    except (OSError, AttributeError):
        return None
    return libc


def tune_malloc(arenas: int = 2, mmap_threshold: int = MMAP_THRESHOLD) -> bool:
    """At most ``arenas`` malloc arenas for the threads started from now on, and blocks of
    ``mmap_threshold`` bytes or more always in their own mapping; True if glibc took both."""
    libc = _libc()
    return bool(
        libc is not None
        and libc.mallopt(M_ARENA_MAX, arenas) == 1
        and libc.mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1
    )


def trim() -> bool:
    """Return the allocator's free memory to the system; True if some was returned."""
    libc = _libc()
    return bool(libc is not None and libc.malloc_trim(0))


def settle_gc() -> None:
    """Once started: what exists now (modules, classes, the configuration) is left out of
    every later collection (``gc.freeze``), and young collections come less often."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)
