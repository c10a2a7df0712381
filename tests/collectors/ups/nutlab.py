"""A real NUT server for tests: ``upsd`` plus ``dummy-ups`` drivers on 127.0.0.1, as root.

Everything lives in one temporary folder (NUT_CONFPATH and NUT_STATEPATH point there); the
drivers read ``<ups>.dev`` files that tests rewrite to change what the UPS reports.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from tests.helpers import require_tool, stop_process_group
from tests.support.ports import free_port

NUT_LIBEXEC = ("/lib/nut", "/usr/lib/nut", "/usr/libexec/nut", "/usr/local/libexec/nut")


def nut_tool(name: str) -> str:
    """Path of a NUT daemon binary (``upsd``, ``dummy-ups``); CI fails when it is missing.

    Debian's ``/usr/sbin/upsd`` is a wrapper that refuses to start unless /etc/nut/nut.conf
    says so, so the real binaries in NUT's libexec folder come first.
    """
    found = shutil.which(name, path=os.pathsep.join(NUT_LIBEXEC))
    return found or require_tool(name, "Debian packages nut-server and nut-client")


def dev_text(variables: Mapping[str, str]) -> str:
    return "".join(f"{name}: {value}\n" for name, value in variables.items())


class NutLab:
    """upsd on ``127.0.0.1:port`` with one dummy-ups driver per UPS name."""

    def __init__(self, root: Path, ups: Mapping[str, Mapping[str, str]], users: str = "") -> None:
        self.root = root
        self.state = root / "state"
        self.state.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.upsd_bin = nut_tool("upsd")
        self.driver_bin = nut_tool("dummy-ups")
        self.names = list(ups)
        self.upsd: subprocess.Popen[bytes] | None = None
        self.drivers: dict[str, subprocess.Popen[bytes]] = {}
        self._dev_mtimes: dict[str, int] = {}
        self.env = {**os.environ, "NUT_CONFPATH": str(root), "NUT_STATEPATH": str(self.state)}
        (root / "nut.conf").write_text("MODE=standalone\n")
        (root / "upsd.conf").write_text(f"LISTEN 127.0.0.1 {self.port}\n")
        (root / "upsd.users").write_text(users)
        (root / "upsd.users").chmod(0o600)
        sections = [
            f"[{name}]\n  driver = dummy-ups\n  port = {name}.dev\n  pollinterval = 1\n"
            f'  desc = "Test UPS {name}"\n'
            for name in ups
        ]
        (root / "ups.conf").write_text("".join(sections))
        for name, variables in ups.items():
            self.write_dev(name, variables)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def write_dev(self, name: str, variables: Mapping[str, str]) -> None:
        """Replace what the dummy driver reports (picked up within about a second)."""
        path = self.root / f"{name}.dev"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(dev_text(variables))
        # dummy-ups notices a change by the file's mtime in whole seconds: two writes within
        # one second would look like one, so each write gets a later second than the last.
        previous = self._dev_mtimes.get(name, 0)
        stamp = max(int(time.time()), previous + 1)
        os.utime(tmp, (stamp, stamp))
        os.replace(tmp, path)
        self._dev_mtimes[name] = stamp

    def _spawn(self, argv: list[str], log: str) -> subprocess.Popen[bytes]:
        with open(self.root / log, "ab") as out:
            return subprocess.Popen(
                argv,
                env=self.env,
                cwd=self.root,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    def start_driver(self, name: str) -> None:
        argv = [self.driver_bin, "-a", name, "-u", "root", "-F"]
        self.drivers[name] = self._spawn(argv, f"driver-{name}.log")
        _wait_for(
            lambda: (self.state / f"dummy-ups-{name}").exists(),
            f"driver {name} socket",
            self.drivers[name],
        )

    def stop_driver(self, name: str) -> None:
        _stop(self.drivers.pop(name, None))

    def start_upsd(self) -> None:
        self.upsd = self._spawn([self.upsd_bin, "-F", "-u", "root"], "upsd.log")
        _wait_for(self._port_open, f"upsd on port {self.port}", self.upsd)

    def stop_upsd(self, sig: int = signal.SIGTERM) -> None:
        _stop(self.upsd, sig)
        self.upsd = None

    def start(self) -> NutLab:
        for name in self.names:
            self.start_driver(name)
        self.start_upsd()
        return self

    def close(self) -> None:
        self.stop_upsd()
        for name in list(self.drivers):
            self.stop_driver(name)

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}"
            for p in sorted(self.root.glob("*.log"))
        )

    def _port_open(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return True
        except OSError:
            return False


def _wait_for(check, what: str, proc: subprocess.Popen[bytes], timeout: float = 15.0) -> None:  # noqa: ANN001
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        if proc.poll() is not None:
            raise RuntimeError(f"{what}: process exited with {proc.returncode}")
        time.sleep(0.05)
    raise RuntimeError(f"{what}: not ready after {timeout} s")


def _stop(proc: subprocess.Popen[bytes] | None, sig: int = signal.SIGTERM) -> None:
    """Stop one process we started, by its own process group; never leave it behind."""
    stop_process_group(proc, grace=5, sig=sig)
