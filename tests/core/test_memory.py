"""zmon.memory gives freed memory back on glibc (the daemon calls it between runs)."""

from __future__ import annotations

import platform

from zmon import memory


def test_trim_and_arena_limit_reach_glibc() -> None:
    glibc = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    big = [bytes(4096) for _ in range(20_000)]  # 80 MB, then freed: something to give back
    del big
    assert memory.trim() is glibc
    assert memory.limit_arenas(8) is glibc
