"""zmon starts and serves without pyudev (FreeBSD has none; some containers neither).

The daemon runs in a child where ``import pyudev`` fails, with every collector at its
default; /metrics is served and the hotplug collector reports no data instead of failing.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.helpers import stop_process_group
from tests.support.ports import free_port

BLOCK_PYUDEV = (
    "import sys; sys.modules['pyudev'] = None  # any 'import pyudev' now raises ImportError\n"
    "from zmon.cli import main; sys.exit(main())"
)


def test_daemon_starts_and_serves_without_pyudev(tmp_path: Path) -> None:
    check = subprocess.run(
        [sys.executable, "-c", BLOCK_PYUDEV.split("\n")[0] + "\nimport pyudev"],
        capture_output=True,
        text=True,
    )
    assert "ImportError" in check.stderr or "ModuleNotFoundError" in check.stderr
    port = free_port()
    log = tmp_path / "zmon.log"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            BLOCK_PYUDEV,
            "serve",
            "--web.listen-address",
            f"127.0.0.1:{port}",
            "--path.state-dir",
            str(tmp_path / "state"),
            "--log.format",
            "json",
        ],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
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
