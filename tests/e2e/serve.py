"""Start ``zmon serve`` as a real subprocess on a free loopback port, and scrape it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from tests.support.ports import free_port
from zmon.collecting.registry import collectors


def collectors_toml(enabled: Sequence[str], listen: str | None = None, extra: str = "") -> str:
    """A zmon config enabling only ``enabled`` of the collectors, listening on ``listen``
    (if given), with ``extra`` appended."""
    lines = [f'[web]\nlisten_address = "{listen}"\n'] if listen else []
    for name in collectors():
        lines.append(f"[collectors.{name}]\nenabled = {'true' if name in enabled else 'false'}\n")
    return "\n".join(lines) + extra


def arc_procfs(root: Path) -> Path:
    """A procfs under ``root`` with one arcstats file, enough for the arc collector: it serves
    ``zmon_arc_hits_total 100.0``."""
    kstat = root / "proc" / "spl" / "kstat" / "zfs"
    kstat.mkdir(parents=True)
    (kstat / "arcstats").write_text(
        "13 1 0x01 3 144 1 2\nname                            type data\n"
        "hits                            4    100\nmisses                          4    5\n"
        "size                            4    4096\n"
    )
    return root / "proc"


class ZmonProcess:
    """A ``zmon serve`` child; stop() sends SIGTERM and checks it exits."""

    def __init__(
        self,
        args: Sequence[str],
        log_path: Path,
        port: int | None = None,
        prefix: Sequence[str] = (),
    ) -> None:
        """With ``port``, the config in ``args`` sets the listen address (so a reload can move
        it); otherwise zmon listens on a free loopback port given as a flag. ``prefix`` runs
        zmon through another program (setpriv, as the systemd unit sets it up)."""
        self.port = port or free_port()
        self.log_path = log_path
        self._log = log_path.open("wb")
        listen = [] if port else ["--web.listen-address", f"127.0.0.1:{self.port}"]
        if "--web.status-dir" not in args:  # (not the host's /run/zmon)
            listen += ["--web.status-dir", str(log_path.parent / "run")]
        self.proc = subprocess.Popen(
            [
                *prefix,
                sys.executable,
                "-m",
                "zmon.cli",
                "serve",
                *listen,
                "--log.format",
                "json",
                *args,
            ],  # fmt: skip
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        self._wait_up()

    def _wait_up(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"zmon exited early:\n{self.log_path.read_text()}")
            try:
                self.get("/healthz")
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"zmon did not come up:\n{self.log_path.read_text()}")

    def get(self, path: str, timeout: float = 5) -> bytes:
        with urllib.request.urlopen(self.base + path, timeout=timeout) as r:
            return bytes(r.read())

    def metrics(self) -> str:
        return self.get("/metrics").decode()

    def wait_for(self, needle: str, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.metrics()
            if needle in text:
                return text
            time.sleep(0.2)
        raise AssertionError(f"{needle!r} never appeared; last scrape:\n{text}")

    def wait_logged(self, needle: str, count: int = 1, timeout: float = 20) -> None:
        """Wait until zmon's log holds ``needle`` ``count`` times; zmon must stay up meanwhile."""
        deadline = time.monotonic() + timeout
        while self.log_path.read_text().count(needle) < count:
            assert self.proc.poll() is None, self.log_path.read_text()
            assert time.monotonic() < deadline, (
                f"{needle!r} not logged:\n{self.log_path.read_text()}"
            )
            time.sleep(0.05)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
                raise AssertionError("zmon did not stop on SIGTERM") from None
        self._log.close()
        return int(self.proc.returncode)


def processes_running(marker: str) -> list[int]:
    """PIDs (other than zmon itself) whose command line contains marker, zombies excluded."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmd and "zmon.cli" not in cmd and state != "Z":
            found.append(int(d.name))
    return found
