"""zmon.memory gives freed memory back on glibc (the daemon calls it between runs)."""

from __future__ import annotations

import ctypes
import gc
import platform
import weakref

import pytest

from zmon import memory


def test_trim_and_arena_limit_reach_glibc() -> None:
    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    big = [bytes(4096) for _ in range(20_000)]  # 80 MB, then freed: something to give back
    del big
    assert memory.trim() is glibc
    assert memory.tune_malloc(8) is glibc


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]  # fmt: skip


@pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only"
)
def test_big_blocks_keep_their_own_mapping_after_one_was_freed() -> None:
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2

    def mapped() -> int:
        return int(libc.mallinfo2().hblkhd)

    assert memory.tune_malloc()
    first = bytearray(8 << 20)  # mapped, then freed: glibc alone would now raise its threshold
    del first
    before = mapped()
    second = bytearray(4 << 20)
    assert mapped() - before >= 4 << 20  # still a mapping of its own, not a hole in the heap
    del second
    assert mapped() == before  # and given back when freed


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
