"""zmon.memory gives freed memory back on glibc (the daemon calls it between runs)."""

from __future__ import annotations

import gc
import platform
import weakref

from zmon import memory


def test_trim_and_arena_limit_reach_glibc() -> None:
    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    big = [bytes(4096) for _ in range(20_000)]  # 80 MB, then freed: something to give back
    del big
    assert memory.trim() is glibc
    assert memory.limit_arenas(8) is glibc


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
