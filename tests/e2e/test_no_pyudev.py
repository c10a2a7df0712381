"""zmon starts and serves without pyudev (FreeBSD has none; some containers neither).

The daemon runs in a child where ``import pyudev`` fails (a ``pyudev`` module first on the
path that raises ImportError, so its collection worker sees the same), with every collector
at its default; /metrics is served and the hotplug collector reports no data instead of
failing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.helpers import stop_process_group
from tests.support.ports import free_port


def _without_pyudev(tmp_path: Path) -> dict[str, str]:
    """An environment whose Python processes cannot import pyudev."""
    blocker = tmp_path / "no-pyudev"
    blocker.mkdir()
    (blocker / "pyudev.py").write_text('raise ImportError("pyudev is not installed here")\n')
    path = os.pathsep.join(p for p in (str(blocker), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def test_daemon_starts_and_serves_without_pyudev(tmp_path: Path) -> None:
    env = _without_pyudev(tmp_path)
    check = subprocess.run(
        [sys.executable, "-c", "import pyudev"], capture_output=True, text=True, env=env
    )
    assert "ImportError" in check.stderr
    port = free_port()
    log = tmp_path / "zmon.log"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "zmon.cli",
            "serve",
            "--web.listen-address",
            f"127.0.0.1:{port}",
            "--path.state-dir",
            str(tmp_path / "state"),
            "--web.status-dir",
            str(tmp_path / "run"),
            "--log.format",
            "json",
        ],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        body = ""
        while 'zmon_collector_success{collector="hotplug"}' not in body:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, f"{log.read_text()}\n{body}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
                    body = r.read().decode()
            except OSError:
                pass
            time.sleep(0.2)
        assert "pyudev" in log.read_text()  # the collector says why it has nothing
    finally:
        stop_process_group(proc)
    assert proc.returncode == 0, log.read_text()
