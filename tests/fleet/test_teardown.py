"""A host the fleet killed leaves nothing running once the stack is torn down.

The ``down`` incident SIGKILLs a host's zmon (its session). Its collection worker's event
follower (the demo's fake ``zpool events -f``) runs in a session of its own, and the
server that would reap it as subreaper is dead: it outlives the kill. The stack's teardown
(``Process.stop``) must end it too.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fleet.stack import Host, kill
from tests.support.process_marks import carrying

pytestmark = pytest.mark.slow


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, parent, session) of a process; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # pid (comm) state ppid pgrp session ...; comm may hold spaces and parentheses
    fields = stat[stat.rfind(b")") + 2 :].split()
    return fields[0].decode(), int(fields[1]), int(fields[3])


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _processes() -> dict[int, tuple[str, int, int]]:
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (stat := _stat(int(name))) is not None:
            out[int(name)] = stat
    return out


def _descendants(root: int) -> set[int]:
    processes = _processes()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {p for p, (_, parent, _) in processes.items() if parent in frontier} - found
        found |= frontier
    return found


def _running(pids: set[int]) -> dict[int, str]:
    """Those of ``pids`` still running (a zombie is dead, only not reaped), with their
    command lines."""
    out = {}
    for pid in pids:
        stat = _stat(pid)
        if stat is not None and stat[0] != "Z":
            out[pid] = _cmdline(pid)
    return out


def test_a_killed_host_leaves_no_process_behind_its_teardown(tmp_path: Path) -> None:
    host = Host(tmp_path, "down", "127.0.0.1", "healthy")
    server = host.proc.proc.pid
    session = os.getsid(server)
    try:
        started = _descendants(server)
        followers = [p for p in started if "zpool events -f" in _cmdline(p)]
        assert followers, f"no event follower runs: {_running(started)}"
        kill(host.proc)  # as the down incident does
    finally:
        host.stop()
    assert _running(started) == {}, "the host's processes outlived the teardown"
    in_session = {p for p, (state, _, s) in _processes().items() if s == session and state != "Z"}
    assert in_session == set(), _running(in_session)
    assert carrying(host.proc.mark) == []
