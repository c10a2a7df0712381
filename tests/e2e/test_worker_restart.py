"""A collection worker killed in the middle of a run is replaced; meanwhile the server keeps
serving the last data, marked stale.

No wall-clock bound: each step waits for what it checks (a run blocked in its command, a
scrape showing the stale data, the replacement's first run). The replacement is held back
until the test has seen the in-between state, by a spawn function that waits for the test;
"back within one interval" is the supervisor's chosen delay, compared with the interval.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import urllib.error
import urllib.request
from functools import partial
from pathlib import Path

from tests.support.waiting import poll as _poll
from zmon.base.children import running
from zmon.collecting.config import load
from zmon.collecting.registry import collectors
from zmon.daemon import Daemon
from zmon.runtime.supervisor import WorkerSupervisor, spawn_worker

# the worker starts a Python process per run: generous on a loaded machine
poll = partial(_poll, timeout=120.0)

INTERVAL = 2.0


def _fake_sysctl(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A FreeBSD ``sysctl`` that answers arcstats, but while ``hold`` exists it first writes
    its pid to ``pids`` and waits: a run blocked in its command."""
    hold, pids = tmp_path / "hold", tmp_path / "pids"
    prog = tmp_path / "sysctl"
    prog.write_text(
        f"#!{sys.executable}\n"
        "import os, sys, time\n"
        "if sys.argv[1:] == ['kstat.zfs.misc.arcstats']:\n"
        f"    if os.path.exists({str(hold)!r}):\n"
        f"        with open({str(pids)!r}, 'a') as f:\n"
        "            f.write(f'{os.getpid()}\\n')\n"
        f"        while os.path.exists({str(hold)!r}):\n"
        "            time.sleep(0.05)\n"
        "    print('kstat.zfs.misc.arcstats.size: 4096')\n"
        "    print('kstat.zfs.misc.arcstats.hits: 100')\n"
        "    print('kstat.zfs.misc.arcstats.misses: 5')\n"
    )
    prog.chmod(0o755)
    return prog, hold, pids


def _sample(text: str, name: str) -> float | None:
    m = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    return float(m.group(1)) if m else None


def test_a_worker_killed_mid_run_is_replaced_and_the_last_data_served_stale(
    tmp_path: Path,
) -> None:
    sysctl, hold, pids = _fake_sysctl(tmp_path)
    toml = tmp_path / "zmon.toml"
    toml.write_text(
        '[web]\nlisten_address = "127.0.0.1:0"\n'
        f'[host]\nplatform = "freebsd"\n[paths]\nstate_dir = "{tmp_path / "state"}"\n'
        f'[binaries]\nsysctl = "{sysctl}"\n'
        + "".join(
            f"[collectors.{name}]\nenabled = {'true' if name == 'arc' else 'false'}\n"
            + (f"interval = {INTERVAL}\ntimeout = 600\n" if name == "arc" else "")
            for name in collectors()
        )
    )
    cfg = load(collectors(), str(toml))
    replacement_may_start = threading.Event()
    spawned = []

    def spawn():  # type: ignore[no-untyped-def]
        if spawned:  # the replacement waits until the test has looked
            assert replacement_may_start.wait(300)
        spawned.append(1)
        return spawn_worker()

    daemon = Daemon(cfg)
    daemon.worker = WorkerSupervisor(cfg, spawn=spawn)
    daemon.start()
    assert daemon.server is not None
    url = f"http://127.0.0.1:{daemon.server.port}/metrics"

    def scrape() -> str:
        """The exposition, or "" while zmon answers 503 (no data collected yet)."""
        try:
            with urllib.request.urlopen(url, timeout=30) as r:
                return str(r.read().decode())
        except urllib.error.HTTPError as e:
            if e.code != 503:
                raise
            return ""

    try:
        assert poll(lambda: _sample(scrape(), "zmon_arc_size_bytes") == 4096.0)
        first = daemon.worker.pid
        assert first is not None
        hold.touch()
        daemon.worker.trigger()
        assert poll(lambda: pids.exists() and pids.read_text().strip())
        arc = daemon.collectors()["arc"]
        assert poll(lambda: arc.state.running_since is not None), "the server never saw the run"
        command = int(pids.read_text().split()[0])

        os.kill(first, signal.SIGKILL)  # in the middle of the run

        def stale_served() -> bool:
            text = scrape()
            return 'zmon_collector_stale{collector="arc"} 1.0' in text

        assert poll(stale_served)
        text = scrape()
        assert _sample(text, "zmon_arc_size_bytes") == 4096.0  # the last data, still served
        assert 'zmon_collector_running{collector="arc"} 0.0' in text
        assert 'zmon_collector_runs_total{collector="arc",result="failure"} 1.0' in text
        assert not daemon.scheduler_healthy()
        # the command the killed worker was waiting for came back to us and was killed
        assert poll(lambda: not running(command)), "the killed worker's command lives on"

        successes = _sample(text, 'zmon_collector_runs_total{collector="arc",result="success"}')
        assert successes is not None
        hold.unlink()
        replacement_may_start.set()

        def fresh_again() -> bool:
            t = scrape()
            # served all along: the replacement's start leaves the data held until it ran
            assert _sample(t, "zmon_arc_size_bytes") == 4096.0
            ran = _sample(t, 'zmon_collector_runs_total{collector="arc",result="success"}')
            return (
                ran is not None
                and ran > successes
                and 'zmon_collector_stale{collector="arc"} 0.0' in t
            )

        assert poll(fresh_again), "the replacement never ran the collector"
        assert daemon.worker.pid not in (None, first)
        assert daemon.worker.restarts == 1
        # the HTTP process learns the count with the supervisor's next health message
        assert poll(lambda: _sample(scrape(), "zmon_worker_restarts_total") == 1.0)
        assert daemon.worker.last_restart_delay is not None
        assert daemon.worker.last_restart_delay < INTERVAL  # back within one interval
        assert poll(daemon.scheduler_healthy)
    finally:
        replacement_may_start.set()
        hold.unlink(missing_ok=True)
        daemon.shutdown()


def test_sigterm_to_the_whole_group_stops_zmon_without_a_replacement(tmp_path: Path) -> None:
    """systemd stops a service by sending SIGTERM to every process of it: the worker may end
    before the server has seen its own signal, and must not be taken for a crash."""
    from tests.e2e.serve import ZmonProcess

    sysctl, _, _ = _fake_sysctl(tmp_path)
    zmon = ZmonProcess(
        [
            "--host.platform",
            "freebsd",
            "--binary.sysctl",
            str(sysctl),
            "--path.state-dir",
            str(tmp_path / "state"),
            *[f"--no-collector.{n}" for n in collectors() if n != "arc"],
        ],
        tmp_path / "zmon.log",
    )
    zmon.wait_for('zmon_collector_success{collector="arc"} 1.0')
    os.killpg(zmon.proc.pid, signal.SIGTERM)
    assert zmon.stop() == 0
    log = zmon.log_path.read_text()
    assert "collection worker ended" not in log, log


def test_the_landing_page_shows_the_tables_the_worker_read(tmp_path: Path) -> None:
    """A collector's landing-page table (the zpool collector's pools) is read in the worker
    and shown by the server."""
    from tests.e2e.serve import ZmonProcess

    zmon = ZmonProcess(["--demo"], tmp_path / "zmon.log")
    try:
        zmon.wait_for('zmon_collector_success{collector="zpool"} 1.0')
        page = zmon.get("/").decode()
        assert "<h3>Pools (zpool)</h3>" in page
        assert "<td>tank</td>" in page
    finally:
        assert zmon.stop() == 0
