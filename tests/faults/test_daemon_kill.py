"""kill -9 of the whole daemon at random moments while fault lines arrive: nothing is lost.

A real ``zmon serve`` follows a kernel log file that a writer keeps appending I/O-error lines
to. The daemon is killed (SIGKILL, no clean shutdown) at a random moment of each batch - while
it reads, counts or writes its checkpoint - and the rest of the batch is written while it is
down. After every kill:

- the checkpoint is a whole document (no warning about an unusable state file);
- the restarted daemon's counters go on from the checkpoint: the first value it serves is at
  least the last value the killed run served (Prometheus never sees a counter go down, which
  it would read as a reset);
- it then reads every line after the checkpoint's position, so that its counters end at
  exactly the number of lines written: none lost, none counted twice.

A fast scraper reads each run's counters until the kill, as Prometheus would.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import signal
import threading
import time
from pathlib import Path

import pytest

from tests.e2e.serve import ZmonProcess
from zmon.collecting.registry import collectors

pytestmark = [pytest.mark.real, pytest.mark.slow]

KILLS = 12
LINE = (
    "Dec  1 07:00:00 nas kernel: [  {n}.000000] blk_update_request: I/O error, dev sdb, "
    "sector {n}\n"
)


def _config(tmp: Path) -> Path:
    """Only the kernel_log collector, following one file under a private root."""
    cfg = tmp / "zmon.toml"
    sections = [
        f"[collectors.{name}]\nenabled = false\n" for name in collectors() if name != "kernel_log"
    ]
    sections.append(
        '[collectors.kernel_log]\nenabled = true\nsource = "file"\n'
        'files = ["/var/log/kern.log"]\npoll_interval = 0.05\n'
    )
    cfg.write_text("\n".join(sections))
    return cfg


def _start(tmp: Path, cfg: Path, run: int) -> ZmonProcess:
    return ZmonProcess(
        [
            "--config", str(cfg),
            "--path.rootfs", str(tmp / "root"),
            "--path.state-dir", str(tmp / "state"),
        ],
        tmp / f"zmon-{run}.log",
    )  # fmt: skip


def _count(text: str, name: str) -> int:
    return int(sum(float(v) for v in re.findall(rf"^{name}(?:\{{[^}}]*\}})? (\S+)$", text, re.M)))


def _lines_read(zmon: ZmonProcess) -> int:
    return _count(zmon.metrics(), "zmon_kernel_log_lines_read_total")


def _wait_read(zmon: ZmonProcess, want: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    got = -1
    while time.monotonic() < deadline:
        got = _lines_read(zmon)
        if got >= want:
            assert got == want, f"read {got} lines, expected exactly {want}"
            return
        time.sleep(0.05)
    raise AssertionError(f"read {got} of {want} lines:\n{zmon.log_path.read_text()[-3000:]}")


class LastServed:
    """Scrapes a daemon as fast as it can until it dies: the highest counts it served."""

    def __init__(self, zmon: ZmonProcess) -> None:
        self.zmon = zmon
        self.lines = self.events = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                text = self.zmon.metrics()
            except (OSError, http.client.HTTPException):  # killed mid-answer
                return
            self.lines = max(self.lines, _count(text, "zmon_kernel_log_lines_read_total"))
            self.events = max(self.events, _count(text, "zmon_kernel_log_events_total"))

    def stop(self) -> tuple[int, int]:
        self._stop.set()
        self._thread.join()
        return self.lines, self.events


def _saved_offset(state: Path) -> int:
    doc = json.loads((state / "kernel_log" / "checkpoint.json").read_text())
    return int(doc["positions"]["file-/var/log/kern.log"]["offset"])


def _lines_before(log: Path, offset: int) -> int:
    with log.open("rb") as fh:
        return fh.read(offset).count(b"\n")


def test_kill_9_at_random_moments_loses_no_line_and_counts_none_twice(tmp_path: Path) -> None:
    rng = random.Random(20261201)
    log = tmp_path / "root" / "var" / "log" / "kern.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(LINE.format(n=n) for n in range(50)))  # before the first start
    cfg = _config(tmp_path)
    written = 50
    zmon = _start(tmp_path, cfg, 0)
    behind = 0
    try:
        # the first run starts at the end of the log; a line marks that it is following
        with log.open("a") as fh:
            fh.write(LINE.format(n=written))
        written += 1
        _wait_read(zmon, 1)
        for run in range(1, KILLS + 1):
            batch = rng.randrange(200, 2000)
            kill_after = rng.randrange(0, batch)
            scraper = LastServed(zmon)
            at_kill = 0
            with log.open("a") as fh:
                for i in range(batch):
                    fh.write(LINE.format(n=written))
                    fh.flush()
                    written += 1
                    if i == kill_after:
                        os.killpg(zmon.proc.pid, signal.SIGKILL)
                        zmon.proc.wait()
                        at_kill = written
                    elif i % 50 == 0:
                        time.sleep(0.005)  # let the daemon read while the batch grows
            served_lines, served_events = scraper.stop()
            saved = _lines_before(log, _saved_offset(tmp_path / "state"))
            behind += at_kill - saved  # written before the kill, not yet in the checkpoint
            zmon = _start(tmp_path, cfg, run)
            first = zmon.wait_for("zmon_kernel_log_lines_read_total{")  # its first snapshot
            assert _count(first, "zmon_kernel_log_lines_read_total") >= served_lines
            assert _count(first, "zmon_kernel_log_events_total") >= served_events
            _wait_read(zmon, written - 50)  # every line since the first start, once
            assert "unusable state" not in zmon.log_path.read_text()
            events = _count(zmon.metrics(), "zmon_kernel_log_events_total")
            assert events == written - 50, (events, written)
    finally:
        zmon.stop()
    print(
        f"\n{KILLS} kills, {written - 50} lines written while followed, {behind} written before "
        "a kill but not yet checkpointed (read after the restart), 0 lost, 0 counted twice"
    )
    assert behind > 0  # the kills landed while the daemon was behind, not only when idle
