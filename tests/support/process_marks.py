"""Every process a test started, found again wherever it went: a mark in the environment.

``killpg`` reaches a process group, not what left it: a child started in a session of its own
(zmon's event followers, ``setsid``) or orphaned when its parent was SIGKILLed (a dead
subreaper's orphans go to init). Every descendant inherits its starter's environment, though:
a test starts a process with a mark of its own there (``marked_env``), and ``end_marked`` kills
every process still carrying that mark.
"""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Mapping

from tests.support.waiting import poll

MARK = "ZMON_TEST_PROCESS_MARK"


def new_mark() -> str:
    return uuid.uuid4().hex


def marked_env(mark: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: ours) with ``mark`` added, for a process to start and pass on."""
    return {**(os.environ if env is None else env), MARK: mark}


def carrying(mark: str) -> list[int]:
    """The live processes whose environment holds ``mark`` (a zombie's environment reads
    empty: it is dead, only not reaped yet)."""
    entry = f"{MARK}={mark}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                environ = fh.read().split(b"\0")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if entry in environ:
            found.append(int(name))
    return found


def end_marked(mark: str, timeout: float = 30.0) -> None:
    """SIGKILL every process carrying ``mark`` until none is left (one may start another
    while it is being killed); fails when some still run after ``timeout`` seconds."""

    def gone() -> bool:
        left = carrying(mark)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return not left

    if not poll(gone, timeout, step=0.05):
        raise AssertionError(f"processes still running after SIGKILL: {carrying(mark)}")
