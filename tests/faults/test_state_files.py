"""Corrupt, old-version and hostile state files never stop zmon; writes survive kill -9 and
power cuts.

Every state file zmon keeps is read through ``zmon.base.durable``: the kernel-log checkpoint and
positions (StateStore), the zpool_events cursor and counts, and the scrub history. A bad file
is a warning and a rebuild. Writes go through ``durable.write_atomic`` (write, fsync, rename,
fsync the directory), checked here against a simulated disk that loses everything not yet
synced.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.collectors.zpool.test_collector import json_runner
from tests.faults.harness import CYCLES, Rig, no_leaks
from zmon.base import durable
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context, Paths
from zmon.collectors.zpool import ZpoolCollector
from zmon.collectors.zpool.scrub_history import ScrubHistory
from zmon.collectors.zpool_events import CursorStore
from zmon.host.logfollow import FileFollower
from zmon.host.statestore import StateStore

HOSTILE: dict[str, bytes | None] = {
    "nested-arrays": b"[" * 200_000,
    "nested-objects": b'{"a":' * 100_000,
    "huge": b"{" + b" " * (2 << 20) + b"}",
    "binary": b"\xff\xfe\x00garbage\x00",
    "truncated": b'{"offset": 12, "ino',
    "array": b"[1, 2, 3]",
    "null": b"null",
    "wrong-types": b'{"eid": "x", "pools": 7, "offset": "far", "head_len": [], "ino": {}}',
    "huge-numbers": b'{"eid": 1e400, "offset": 1e400, "pools": {"x": {"end_time": 1e400}}}',
    "old-version": b'{"version": 0, "pools": [["tank", 1]], "position": 5}',
    "fifo": None,
    "directory": None,
}


def plant(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
        (path / "x").write_text("{}")
    else:
        path.write_bytes(HOSTILE[kind] or b"")


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_every_loader_survives_a_hostile_state_file(tmp_path: Path, kind: str) -> None:
    store = StateStore(tmp_path / "kl")
    plant(store.path("file-x"), kind)
    assert store.load("file-x") is None or isinstance(store.load("file-x"), dict)
    plant(tmp_path / "events.json", kind)
    saved = CursorStore(tmp_path / "events.json").load()
    assert saved is None or saved.cursor is None or isinstance(saved.cursor.eid, int)
    plant(tmp_path / "scrub.json", kind)
    history = ScrubHistory(tmp_path / "scrub.json")
    assert history.get("tank", None) is None
    # and a follower starting from it: reads from the end, never raises
    log = tmp_path / "kern.log"
    log.write_text("old line\n")
    follower = FileFollower(log, lambda _: None, store=store, key="file-x")
    follower.poll()
    follower.close()


@pytest.mark.parametrize("kind", ["nested-arrays", "fifo"])
def test_zpool_collector_runs_1000_times_on_a_hostile_scrub_file(tmp_path: Path, kind: str) -> None:
    """The original finding: a deeply nested scrub file failed every zpool run."""
    plant(tmp_path / "state" / "zpool-last-scrub.json", kind)
    runner = StaticRunner(responses=json_runner("04-scrub-finished", "zpool-status.json"))
    ctx = Context(
        paths=Paths(rootfs=tmp_path, state_dir=tmp_path / "state"),
        runner=runner,
        options={"timezone": "UTC", "device_map": False},
    )
    rig = Rig(ZpoolCollector(ctx))
    rig.cycle(2)
    with no_leaks():
        rig.cycle(CYCLES)
    assert rig.state.runs["success"] == CYCLES + 2 and rig.reason() is None
    assert rig.has("zmon_pool_last_scrub_end_time_seconds", pool="tank")
    if kind != "fifo":  # a FIFO is left alone (the write fails, logged once)
        doc = durable.read_json(tmp_path / "state" / "zpool-last-scrub.json")
        assert doc is not None and "tank" in json.dumps(doc)


# ---------------------------------------------------------------- kill -9 at any point

WRITER = """
import sys, time
from zmon.base import durable
path, start = sys.argv[1], int(sys.argv[2])
n = start
while True:
    n += 1
    durable.write_json(path, {"count": n, "pad": "x" * (n % 4096)})
    print(n, flush=True)
"""


def test_kill_9_at_any_point_leaves_the_state_whole_and_never_behind(tmp_path: Path) -> None:
    """A writer is killed at 60 random moments; each time the file must be a whole document
    whose count is at least the last one the writer reported as written."""
    path = tmp_path / "state.json"
    last = 0
    for i in range(60):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(last)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        reported = int(proc.stdout.readline())  # at least one write done
        time.sleep((i % 7) * 0.003)
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        reported = max([reported, *map(int, out.split())])
        doc = durable.read_json(path)
        assert doc is not None, f"kill {i}: state unreadable"
        assert doc["count"] >= reported, f"kill {i}: a completed write was lost"
        last = doc["count"]
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "state.json"]
    assert len(leftovers) <= 60  # at most one temporary per killed writer, never read


# ---------------------------------------------------------------- simulated power cut


class SimDisk(durable.FileOps):
    """A disk that keeps only what was synced: file data after fsync(file), names after
    fsync(directory). ``crash_images`` lists every state the disk may come back in after a
    power cut at each point (any mix of the unsynced data and name changes reaching it)."""

    def __init__(self, target: str, old: bytes) -> None:
        self.target = target
        self.inodes: dict[int, list[bytes]] = {1: [old, old]}  # inode -> [volatile, durable]
        self.names = {target: 1}  # volatile directory
        self.synced_names = dict(self.names)  # durable directory
        self.fds: dict[int, int] = {}
        self.images: list[set[bytes | None]] = []
        self._next = 2

    def _record(self) -> None:
        images: set[bytes | None] = set()
        for names in (self.names, self.synced_names):
            ino = names.get(self.target)
            for which in (0, 1):
                images.add(None if ino is None else self.inodes[ino][which])
        self.images.append(images)

    def open(self, path: str, flags: int, mode: int = 0o600) -> int:
        fd = 100 + len(self.fds)
        if flags & os.O_DIRECTORY:
            self.fds[fd] = -1
        else:
            ino, self._next = self._next, self._next + 1
            self.inodes[ino] = [b"", b""]
            self.names[path] = ino
            self.fds[fd] = ino
        self._record()
        return fd

    def write(self, fd: int, data: bytes | memoryview) -> int:
        ino = self.fds[fd]
        half = max(1, len(data) // 2)  # short writes: the caller must loop
        self.inodes[ino][0] += bytes(data[:half])
        self._record()
        return half

    def fsync(self, fd: int) -> None:
        ino = self.fds[fd]
        if ino == -1:
            self.synced_names = dict(self.names)
        else:
            self.inodes[ino][1] = self.inodes[ino][0]
        self._record()

    def close(self, fd: int) -> None:
        self._record()

    def replace(self, src: str, dst: str) -> None:
        self.names[dst] = self.names.pop(src)
        self._record()

    def unlink(self, path: str) -> None:
        self.names.pop(path, None)
        self._record()


def naive_write(path: str, data: bytes, ops: durable.FileOps) -> None:
    """What the zpool_events cursor and the follower positions used to do."""
    fd = ops.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    view = memoryview(data)
    while view:
        view = view[ops.write(fd, view) :]
    ops.close(fd)
    ops.replace(path + ".tmp", path)


def crash_outcomes(writer, old: bytes, new: bytes) -> set[bytes | None]:  # type: ignore[no-untyped-def]
    disk = SimDisk("/state/x.json", old)
    writer("/state/x.json", new, disk)
    return set(itertools.chain.from_iterable(disk.images))


def test_a_power_cut_at_any_point_leaves_the_old_or_the_new_state() -> None:
    old, new = b'{"offset": 1}\n', b'{"offset": 123456}\n'
    assert crash_outcomes(durable.write_atomic, old, new) <= {old, new}
    # after write_atomic returns, only the new content can come back
    disk = SimDisk("/state/x.json", old)
    durable.write_atomic("/state/x.json", new, disk)
    disk._record()
    assert disk.images[-1] == {new}


def test_the_simulated_disk_catches_the_old_unsynced_write() -> None:
    """The model is strict enough: without fsync a power cut can leave an empty or torn file."""
    old, new = b'{"offset": 1}\n', b'{"offset": 123456}\n'
    outcomes = crash_outcomes(naive_write, old, new)
    assert outcomes - {old, new}, outcomes
