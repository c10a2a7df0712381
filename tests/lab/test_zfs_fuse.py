"""zfs-fuse 0.7 (Debian package zfs-fuse) on the host: the old `zpool status` format, live.

A real zfs-fuse daemon runs through /dev/fuse; the test builds a file-backed mirror, walks it
through healthy, checksum errors repaired, offline (DEGRADED) and back, and parses each real
`zpool status -v` with `zmon parse zpool-status` (the CLI, so only the public contract is used).
Needs root, /dev/fuse and `apt-get install zfs-fuse` (tests/lab/host-deps.sh fuse). Note that
the package installs /sbin/zpool, /sbin/zfs and /sbin/zdb (zfs-fuse's own, old CLI).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import IN_CI
from tests.lab.engine import Scrape

pytestmark = [pytest.mark.real, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]
SBIN = ("/usr/sbin", "/sbin")


def _unavailable(why: str) -> None:
    msg = f"REAL-TIER TEST NOT RUN: zfs-fuse side check: {why}"
    if IN_CI:
        pytest.fail(msg + " - CI must provide it (tests/lab/host-deps.sh fuse, as root)")
    pytest.skip(msg)


def _tool(name: str) -> str:
    """zfs-fuse's own programs, looked up in sbin too (PATH may lack it)."""
    for d in SBIN:
        p = Path(d) / name
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    found = shutil.which(name)
    if not found:
        _unavailable(f"'{name}' not installed (apt-get install zfs-fuse)")
    return str(found)


def _daemon_running() -> bool:
    for comm in Path("/proc").glob("[0-9]*/comm"):
        try:
            if comm.read_text().strip() == "zfs-fuse":
                return True
        except OSError:
            continue
    return False


@pytest.fixture
def zfs_fuse(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(zpool, zfs) of a running zfs-fuse daemon; ours unless one already runs."""
    daemon = _tool("zfs-fuse")
    zpool, zfs = _tool("zpool"), _tool("zfs")
    if os.geteuid() != 0:
        _unavailable("needs root (the daemon mounts through /dev/fuse)")
    if not Path("/dev/fuse").exists():
        _unavailable("no /dev/fuse")
    proc = None
    if not _daemon_running():
        log = (tmp_path / "zfs-fuse.log").open("wb")
        # --no-daemon: stays in the foreground (its -p pid file is only written when forking)
        proc = subprocess.Popen(
            [daemon, "--no-daemon"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + 20
        while subprocess.run([zpool, "list"], capture_output=True).returncode != 0:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"zfs-fuse did not start:\n{(tmp_path / 'zfs-fuse.log').read_text()}")
            time.sleep(0.5)
    try:
        yield zpool, zfs
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _run(*argv: str) -> str:
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"{' '.join(argv)} failed ({r.returncode}):\n{r.stdout}{r.stderr}"
    return r.stdout


def _zmon_parse(status: str, tmp_path: Path, name: str) -> Scrape:
    f = tmp_path / f"{name}.txt"
    f.write_text(status)
    r = subprocess.run(
        [sys.executable, "-m", "zmon.cli", "parse", "zpool-status", str(f)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert r.returncode == 0, f"zmon parse zpool-status rejected real zfs-fuse output:\n{r.stderr}"
    return Scrape(r.stdout)


def _state(s: Scrape, pool: str, vdev: str | None = None) -> str:
    name, labels = (
        ("zmon_pool_state", {"pool": (pool,)})
        if vdev is None
        else ("zmon_vdev_state", {"pool": (pool,), "vdev": (vdev,)})
    )
    on = [
        lab["state"]
        for n, lab, v in s.samples
        if n == name and v == 1 and all(lab.get(k) in w for k, w in labels.items())
    ]
    return on[0] if len(on) == 1 else f"<{on}>"


def _counter(s: Scrape, metric: str, pool: str, vdev: str) -> float | None:
    return s.value(metric, {"pool": (pool,), "vdev": (vdev,)})


def test_zfs_fuse_mirror_lifecycle(zfs_fuse: tuple[str, str], tmp_path: Path) -> None:
    zpool, zfs = zfs_fuse
    pool = f"zmonfuse{os.getpid()}"
    f1, f2 = tmp_path / "f1.img", tmp_path / "f2.img"
    for f in (f1, f2):
        with f.open("wb") as fh:
            fh.truncate(128 << 20)
    mnt = tmp_path / "mnt"
    _run(zpool, "create", "-m", str(mnt), pool, "mirror", str(f1), str(f2))
    try:
        (mnt / "data.bin").write_bytes(os.urandom(24 << 20))
        _run(zpool, "scrub", pool)  # settle: the data reaches the disks
        _wait_scrub(zpool, pool)

        healthy = _zmon_parse(_run(zpool, "status", "-v", pool), tmp_path, "healthy")
        assert _state(healthy, pool) == "online"
        assert _state(healthy, pool, "mirror-0") == "online"
        assert _state(healthy, pool, str(f1)) == "online"
        assert _state(healthy, pool, str(f2)) == "online"
        assert _counter(healthy, "zmon_vdev_checksum_errors_total", pool, str(f2)) == 0

        # real corruption of one side, then a scrub repairs it (old "scrub:" line)
        with f2.open("r+b") as fh:
            for off in range(8, 120, 8):
                fh.seek((off << 20) + 4096)
                fh.write(os.urandom(1 << 20))
        _run(zpool, "scrub", pool)
        status = _wait_scrub(zpool, pool)
        assert " scrub: " in status, "zfs-fuse prints the pre-'scan:' format"
        repaired = _zmon_parse(status, tmp_path, "repaired")
        assert _state(repaired, pool) == "online"
        assert (_counter(repaired, "zmon_vdev_checksum_errors_total", pool, str(f2)) or 0) > 0
        assert _counter(repaired, "zmon_vdev_checksum_errors_total", pool, str(f1)) == 0
        _run(zpool, "clear", pool)

        _run(zpool, "offline", pool, str(f2))
        degraded = _zmon_parse(_run(zpool, "status", "-v", pool), tmp_path, "degraded")
        assert _state(degraded, pool) == "degraded"
        assert _state(degraded, pool, "mirror-0") == "degraded"
        assert _state(degraded, pool, str(f2)) == "offline"
        assert _state(degraded, pool, str(f1)) == "online"

        _run(zpool, "online", pool, str(f2))
        status = _wait_scrub(zpool, pool)
        back = _zmon_parse(status, tmp_path, "online")
        assert _state(back, pool) == "online"
        assert _state(back, pool, str(f2)) == "online"
    finally:
        subprocess.run([zpool, "destroy", "-f", pool], capture_output=True, timeout=60)


def _wait_scrub(zpool: str, pool: str, timeout: float = 120) -> str:
    """`zpool status -v` once no scrub or resilver is in progress."""
    deadline = time.monotonic() + timeout
    while True:
        status = _run(zpool, "status", "-v", pool)
        if "in progress" not in status or time.monotonic() > deadline:
            return status
        time.sleep(1)


def test_every_collector_on_zfs_fuse(zfs_fuse: tuple[str, str], tmp_path: Path) -> None:
    """`zmon collect --once` on a zfs-fuse mirror of files with a corrupted side, scrubbed:
    every collector succeeds (the datasets collector through `zfs get -Hp`, since zfs-fuse's
    `zfs list` has no -p) and the pool, vdev, scan and dataset facts come through."""
    zpool, zfs = zfs_fuse
    pool = f"zmonall{os.getpid()}"
    f1, f2 = tmp_path / "f1.img", tmp_path / "f2.img"
    for f in (f1, f2):
        with f.open("wb") as fh:
            fh.truncate(128 << 20)
    mnt = tmp_path / "mnt"
    _run(zpool, "create", "-m", str(mnt), pool, "mirror", str(f1), str(f2))
    try:
        _run(zfs, "create", f"{pool}/data")
        (mnt / "data" / "blob.bin").write_bytes(os.urandom(24 << 20))
        _run(zfs, "set", "quota=100M", f"{pool}/data")
        before = int(time.time())
        _run(zfs, "snapshot", f"{pool}/data@first")
        after = time.time()
        _run(zpool, "scrub", pool)
        _wait_scrub(zpool, pool)
        with f2.open("r+b") as fh:
            for off in range(8, 120, 8):
                fh.seek((off << 20) + 4096)
                fh.write(os.urandom(1 << 20))
        _run(zpool, "scrub", pool)
        _wait_scrub(zpool, pool)

        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "zmon.cli",
                "collect",
                "--once",
                "--binary.zpool",
                zpool,
                "--binary.zfs",
                zfs,
                "--path.state-dir",
                str(tmp_path / "state"),
            ],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr
        s = Scrape(r.stdout)
        failed = [
            lab["collector"] for n, lab, v in s.samples if n == "zmon_collector_success" and v != 1
        ]
        assert failed == [], f"collectors failing on zfs-fuse: {failed}\n{r.stderr[-3000:]}"
        assert _state(s, pool) == "online"
        assert (_counter(s, "zmon_vdev_checksum_errors_total", pool, str(f2)) or 0) > 0
        assert _counter(s, "zmon_vdev_checksum_errors_total", pool, str(f1)) == 0
        scrub = {"pool": (pool,), "function": ("scrub",), "state": ("finished",)}
        assert s.value("zmon_pool_scan_info", scrub) == 1  # the old "scrub: ... completed" line
        assert (s.value("zmon_pool_size_bytes", {"pool": (pool,)}) or 0) > 100 << 20
        data = {"pool": (pool,), "dataset": (f"{pool}/data",)}
        assert (s.value("zmon_dataset_used_bytes", data) or 0) >= 24 << 20
        assert s.value("zmon_dataset_snapshots", data) == 1
        # no zfs list -p, no zfs get -t: the time comes from zfs get -Hp creation
        newest = s.value("zmon_dataset_newest_snapshot_timestamp_seconds", data) or 0
        assert before <= newest <= after
        assert s.value("zmon_dataset_quota_bytes", data) == 100 << 20
        assert s.value("zmon_dataset_refquota_bytes", data) is None  # none set: no series
    finally:
        subprocess.run([zfs, "umount", "-a"], capture_output=True, timeout=60)
        subprocess.run([zpool, "destroy", "-f", pool], capture_output=True, timeout=60)
