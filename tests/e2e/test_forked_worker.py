"""The first collection worker is forked from the main process before any thread starts; a
replacement is started with exec. Both are named ``zmon-worker`` and hold no socket but their
channel: not the listening sockets, not the main process's end of the HTTP process's channel.

No wall-clock bound: each step waits for what it checks (a scrape, a process, a count).
"""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

from tests.e2e.serve import ZmonProcess, arc_procfs, collectors_toml
from tests.support.waiting import wait_for


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


def _comm(pid: int) -> str:
    return Path(f"/proc/{pid}/comm").read_text().strip()


def _cmdline(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


def _worker(main: int) -> int | None:
    found = [p for p in _children(main) if _comm(p) == "zmon-worker"]
    return found[0] if len(found) == 1 else None


def _sockets(pid: int) -> list[int]:
    """The inodes of the sockets ``pid`` holds."""
    out = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            if stat.S_ISSOCK(os.stat(fd).st_mode):
                out.append(os.stat(fd).st_ino)
        except OSError:
            continue
    return out


def test_the_first_worker_is_forked_and_a_replacement_started_with_exec(tmp_path: Path) -> None:
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(collectors_toml(["arc"]))
    zmon = ZmonProcess(
        ["--config", str(cfg), "--path.procfs", str(arc_procfs(tmp_path / "host")),
         "--path.state-dir", str(tmp_path / "state")],
        tmp_path / "zmon.log",
    )  # fmt: skip
    try:
        zmon.wait_for("zmon_arc_hits_total 100.0")
        main = zmon.proc.pid
        names = sorted(_comm(p) for p in _children(main))
        assert names == ["zmon-http", "zmon-worker"], names
        first = _worker(main)
        assert first is not None
        # forked: the main process's command line, not python -m zmon.runtime.worker
        assert _cmdline(first) == _cmdline(main)
        # its one socket is its channel: the main process holds the other end, and nothing
        # else it holds (listening sockets, the HTTP process's channel) is in the worker
        held = _sockets(first)
        assert len(held) == 1, held
        assert not set(held) & set(_sockets(main))

        os.kill(first, signal.SIGKILL)
        zmon.wait_for("zmon_worker_restarts_total 1.0")
        second = wait_for(lambda: (w := _worker(main)) not in (None, first) and w, timeout=120)
        assert b"zmon.runtime.worker" in _cmdline(second)  # started with exec
        assert len(_sockets(second)) == 1
        zmon.wait_for("zmon_arc_hits_total 100.0")
    finally:
        assert zmon.stop() == 0
