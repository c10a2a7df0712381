"""zmon.base.memory gives freed memory back on glibc (the daemon calls it between runs)."""

from __future__ import annotations

import gc
import platform
import subprocess
import sys
import weakref
from pathlib import Path

from zmon.base import memory

REPO = Path(__file__).resolve().parents[2]


def test_trim_and_arena_limit_reach_glibc() -> None:
    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    big = [bytes(4096) for _ in range(20_000)]  # 80 MB, then freed: something to give back
    del big
    assert memory.trim() is glibc
    assert memory.tune_malloc(8) is glibc


# Run in a process of its own: another thread's big block, made or freed meanwhile, would
# move the figure read here.
MAPPED_BLOCKS = """
import ctypes, sys
from zmon.base import memory

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "tuned":
    assert memory.tune_malloc()
first = bytearray(8 << 20)  # mapped, then freed: glibc alone now raises its threshold
del first
before = libc.mallinfo2().hblkhd
second = bytearray(4 << 20)
grown = libc.mallinfo2().hblkhd - before
del second
print(grown, libc.mallinfo2().hblkhd - before)
"""


def test_big_blocks_keep_their_own_mapping_after_one_was_freed() -> None:
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        assert not memory.tune_malloc()  # elsewhere it does nothing, and says so
        return

    def mapped_growth(mode: str) -> tuple[int, int]:
        """Mapped bytes added by a 4 MB block, and left once it is freed."""
        out = subprocess.run(
            [sys.executable, "-c", MAPPED_BLOCKS, mode],
            capture_output=True, text=True, timeout=60, check=True, cwd=REPO,
        )  # fmt: skip
        grown, left = map(int, out.stdout.split())
        return grown, left

    assert mapped_growth("default")[0] == 0  # the 4 MB block was carved from the heap
    grown, left = mapped_growth("tuned")
    assert grown >= 4 << 20  # a mapping of its own,
    assert left == 0  # and given back when freed


def test_settle_gc_freezes_what_exists_and_spaces_young_collections() -> None:
    before = gc.get_threshold()
    try:
        memory.settle_gc()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (memory.GC_YOUNG_THRESHOLD, before[1], before[2])
        cycle: list[object] = []
        cycle.append(cycle)  # garbage made after the freeze is still collected
        ref = weakref.ref(Holder(cycle))
        del cycle
        gc.collect()
        assert ref() is None
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


class Holder:
    def __init__(self, payload: object) -> None:
        self.me = self
        self.payload = payload
