"""Every SIGHUP reload path: through the real daemon (a subprocess) and, 1,000 times over,
through ``Daemon.reload`` in process with resources counted.

Paths: a valid change, an invalid file, infinite values, a busy listen port, a free new
listen port, a collector that cannot start. A rejected reload keeps the old config serving
and leaves nothing it started running.
"""

from __future__ import annotations

import signal
import socket
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from tests.e2e.serve import ZmonProcess, arc_procfs, collectors_toml, processes_running
from tests.faults.harness import no_leaks
from tests.support.ports import free_port
from zmon.collecting.config import Config, load
from zmon.collecting.registry import Paths, collectors
from zmon.daemon import Daemon
from zmon.runtime.supervisor import WorkerSupervisor, spawn_worker


@pytest.fixture
def busy_port():  # type: ignore[no-untyped-def]
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    yield sock.getsockname()[1]
    sock.close()


def serve(
    cfg: Path, listen_port: int, enabled: list[str], args: list[str], log: Path
) -> ZmonProcess:
    """``zmon serve`` listening where the config file says (no --web.listen-address flag,
    which would override every reload)."""
    cfg.write_text(collectors_toml(enabled, listen=f"127.0.0.1:{listen_port}"))
    return ZmonProcess(["--config", str(cfg), *args], log, port=listen_port)


def _fake_zpool(tmp_path: Path, marker: str) -> Path:
    tool = tmp_path / f"zpool-{marker}"
    tool.write_text(f"#!/bin/sh\n# {marker}\nexec sleep 1000 # {marker}\n")
    tool.chmod(0o755)
    return tool


def test_sighup_to_a_busy_port_keeps_the_daemon_and_starts_nothing(tmp_path, busy_port) -> None:
    """The original finding: the old server was stopped before the new one bound, the bind
    failed, zmon died, and the `zpool events -f` the reload had started was orphaned."""
    marker = "reload-busy-port-events"
    cfg = tmp_path / "zmon.toml"
    zmon = serve(
        cfg,
        free_port(),
        ["arc"],
        [
            "--path.procfs",
            str(arc_procfs(tmp_path)),
            "--path.state-dir",
            str(tmp_path / "state"),
            "--binary.zpool",
            str(_fake_zpool(tmp_path, marker)),
        ],
        tmp_path / "zmon.log",
    )
    try:
        zmon.wait_for("zmon_arc_hits_total 100.0")
        cfg.write_text(collectors_toml(["arc", "zpool_events"], listen=f"127.0.0.1:{busy_port}"))
        zmon.proc.send_signal(signal.SIGHUP)
        zmon.wait_logged("reload rejected")
        assert zmon.proc.poll() is None, zmon.log_path.read_text()
        assert "cannot listen on" in zmon.log_path.read_text()
        assert 'zmon_collector_success{collector="arc"} 1.0' in zmon.metrics()
        assert 'collector="zpool_events"' not in zmon.metrics()
        time.sleep(0.5)
        assert processes_running(marker) == []
    finally:
        assert zmon.stop() == 0
    assert processes_running(marker) == []


def test_sighup_to_a_free_port_moves_the_server(tmp_path) -> None:
    cfg = tmp_path / "zmon.toml"
    zmon = serve(
        cfg,
        free_port(),
        ["arc"],
        ["--path.procfs", str(arc_procfs(tmp_path)), "--path.state-dir", str(tmp_path / "state")],
        tmp_path / "zmon.log",
    )
    old_base = zmon.base
    try:
        zmon.wait_for("zmon_arc_hits_total 100.0")
        new_port = free_port()
        cfg.write_text(collectors_toml(["arc"], listen=f"127.0.0.1:{new_port}"))
        zmon.proc.send_signal(signal.SIGHUP)
        zmon.wait_logged("config reloaded")
        zmon.base = f"http://127.0.0.1:{new_port}"
        assert "zmon_arc_hits_total 100.0" in zmon.wait_for("zmon_arc_hits_total")
        zmon.base = old_base
        with pytest.raises(OSError):
            zmon.get("/healthz", timeout=2)
    finally:
        assert zmon.stop() == 0


def test_sighup_with_infinite_values_is_rejected(tmp_path) -> None:
    cfg = tmp_path / "zmon.toml"
    cfg.write_text(collectors_toml(["arc"]))
    zmon = ZmonProcess(
        [
            "--config",
            str(cfg),
            "--path.procfs",
            str(arc_procfs(tmp_path)),
            "--path.state-dir",
            str(tmp_path / "state"),
        ],
        tmp_path / "zmon.log",
    )
    try:
        zmon.wait_for("zmon_arc_hits_total 100.0")
        cfg.write_text(
            collectors_toml(
                ["arc"], extra="[collectors.arc]\ninterval = inf\ntimeout = 1e308\n"
            ).replace("[collectors.arc]\nenabled = true\n", "")
        )
        zmon.proc.send_signal(signal.SIGHUP)
        zmon.wait_logged("reload rejected")
        assert zmon.get("/healthz") == b"ok\n"
    finally:
        assert zmon.stop() == 0


# ---------------------------------------------------------------- a thousand reloads in process

# Each accepted reload stops and starts every collector thread and swaps the HTTP server's
# generation, a large part of a second; a new-port reload also waits for the old server's poll
# loop, so the order holds few of those. A thousand of them make the test slow.
RELOADS = 1000


@pytest.mark.slow
def test_a_thousand_reloads_over_every_path_leak_nothing(tmp_path, busy_port) -> None:
    procfs = arc_procfs(tmp_path)
    files = {
        "good-arc": collectors_toml(["arc"], listen="127.0.0.1:0"),
        "good-none": collectors_toml([], listen="127.0.0.1:0"),
        "invalid": "[collectors.arc]\ninterval = -3\n",
        "infinite": "[collectors.arc]\ntimeout = inf\n",
        "busy-port": collectors_toml(["arc"], listen=f"127.0.0.1:{busy_port}"),
        "new-port": collectors_toml(["arc"], listen="127.0.0.2:0"),
    }
    cfg_path = tmp_path / "zmon.toml"

    def loader() -> Config:
        cfg = load(collectors(), str(cfg_path))
        return replace(
            cfg,
            paths=Paths(
                procfs=procfs, sysfs=tmp_path / "sys", rootfs=tmp_path, state_dir=tmp_path / "state"
            ),
        )

    cfg_path.write_text(files["good-arc"])
    daemon = Daemon(loader(), loader)
    daemon.start()
    # moving the server waits for the old one's poll loop (0.5 s): a few times, not hundreds
    order = ["good-none", "invalid", "good-arc", "busy-port", "infinite", "good-arc"] * 10 + [
        "new-port",
        "good-arc",
    ]
    outcomes: dict[str, int] = {}
    try:
        for name in dict.fromkeys(order):  # warm up each path once
            cfg_path.write_text(files[name])
            daemon.reload()
        with no_leaks():
            for i in range(RELOADS):
                name = order[i % len(order)]
                cfg_path.write_text(files[name])
                before = daemon.cfg
                daemon.reload()
                kept = daemon.cfg is before
                outcomes[name] = outcomes.get(name, 0) + (1 if kept else 0)
                assert daemon.server is not None
                assert daemon.scheduler_healthy()
    finally:
        daemon.shutdown()
    tried = Counter(order[i % len(order)] for i in range(RELOADS))
    for rejected in ("invalid", "infinite", "busy-port"):  # rejected every time
        assert outcomes[rejected] == tried[rejected], rejected
    assert outcomes["new-port"] == 0  # accepted every time
    assert outcomes.get("good-arc", 0) == 0 and outcomes.get("good-none", 0) == 0


# a collection worker whose kernel_log collector cannot start
BROKEN_KERNEL_LOG_WORKER = (
    "import sys\n"
    "from zmon.collectors.kernel_log import KernelLogCollector\n"
    "def broken(self):\n"
    "    raise RuntimeError('cannot start')\n"
    "KernelLogCollector.start = broken\n"
    "from zmon.runtime.worker import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_a_collector_that_cannot_start_rejects_the_reload(tmp_path) -> None:
    cfg_path = tmp_path / "zmon.toml"
    cfg_path.write_text(collectors_toml(["arc"], listen="127.0.0.1:0"))
    daemon = Daemon(load(collectors(), str(cfg_path)), lambda: load(collectors(), str(cfg_path)))
    program = (sys.executable, "-c", BROKEN_KERNEL_LOG_WORKER)
    daemon.worker = WorkerSupervisor(daemon.cfg, spawn=lambda: spawn_worker(program))
    daemon.start()
    try:
        old = daemon.cfg
        cfg_path.write_text(collectors_toml(["arc", "kernel_log"], listen="127.0.0.1:0"))
        daemon.reload()
        assert daemon.cfg is old
        assert sorted(daemon.collectors()) == ["arc"]
        assert daemon.scheduler_healthy()
    finally:
        daemon.shutdown()
