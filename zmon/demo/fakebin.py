"""The programs of the demo host: print the recorded output of the current phase.

Each demo binary is a two-line script calling ``main(name, args, root)``. It looks the exact
command up in the current phase's ``commands.tsv`` (file, exit status, seconds, command) and
prints that file. ``zpool events -f`` follows the demo's event log like the real one follows
the kernel's event queue. Only the standard library is imported, to start fast.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path

from zmon.demo.variants import recorded_scenario


def lookup(phase_dir: Path, argv: list[str]) -> tuple[Path, int] | None:
    """The recorded file and exit status for exactly this command, if recorded."""
    try:
        lines = (phase_dir / "commands.tsv").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split("\t")
        if len(parts) < 4:
            continue
        file, status, _, command = parts[:4]
        if shlex.split(command) == argv:
            return phase_dir / file, int(status)
    return None


_SCAN_TIMES = ("start_time", "end_time", "pass_start", "scrub_pause")
# The snapshot listing (``zfs list -Hp -t snapshot -o name,creation``) of a phase.
SNAPSHOT_TIMES = "derived-zfs-list-snapshots.txt"


def time_anchor(phase_dir: Path, file: str) -> float | None:
    """When ``file`` was recorded (Unix time), if the phase lists it in ``time-anchors.tsv``."""
    try:
        rows = (phase_dir / "time-anchors.tsv").read_text().splitlines()
    except OSError:
        return None
    for row in rows:
        name, _, stamp = row.partition("\t")
        if name == file:
            return float(stamp)
    return None


def shift_json_times(data: bytes, delta: float) -> bytes:
    """Move the times of each scan in progress in a ``zpool status -j`` recording by ``delta``.

    The scan is replayed as if recorded just now, so rates and time left, which are worked
    out from "now minus the pass start", read as they did on the lab host. Finished scans
    and unset times (0) keep their recorded values.
    """
    try:
        doc = json.loads(data)
    except ValueError:
        return data
    step = int(delta)
    for pool in (doc.get("pools") or {}).values():
        stats = pool.get("scan_stats") if isinstance(pool, dict) else None
        if not isinstance(stats, dict) or str(stats.get("state", "")).upper() != "SCANNING":
            continue
        for key in _SCAN_TIMES:
            if isinstance(stats.get(key), int) and stats[key]:
                stats[key] += step
    return json.dumps(doc, indent=1).encode() + b"\n"


def shift_snapshot_times(data: bytes, delta: float) -> bytes:
    """Move each snapshot's creation time (``name<TAB>seconds`` lines) by ``delta``.

    The snapshots are replayed as if the listing were recorded just now: each is as old as
    it was on the lab host, not as old as the recording.
    """
    step = int(delta)
    out = []
    for line in data.split(b"\n"):
        name, tab, value = line.rpartition(b"\t")
        out.append(
            name + tab + str(int(value) + step).encode() if tab and value.isdigit() else line
        )
    return b"\n".join(out)


def shift_times(file: str, data: bytes, delta: float) -> bytes:
    """A recording with a time anchor, replayed ``delta`` seconds after it was made."""
    if file == SNAPSHOT_TIMES:
        return shift_snapshot_times(data, delta)
    return shift_json_times(data, delta)


def follow_events(root: Path) -> int:
    """``zpool events -f``: print the whole event log, then follow what the host appends."""
    log = root / "events.log"
    pos = 0
    out = sys.stdout
    while True:
        try:
            with log.open("rb") as f:
                f.seek(pos)
                chunk = f.read()
        except OSError:
            chunk = b""
        if chunk:
            # Only whole events: the host appends each event ending with a blank line.
            cut = chunk.rfind(b"\n\n")
            if cut >= 0:
                data = chunk[: cut + 2]
                pos += len(data)
                out.buffer.write(data)
                out.flush()
        time.sleep(0.2)


def main(name: str, args: list[str], root: str) -> int:
    base = Path(root)
    argv = [name, *args]
    if name == "zpool" and args[:1] == ["events"] and "-f" in args:
        try:
            return follow_events(base)
        except (BrokenPipeError, KeyboardInterrupt):
            return 0
    if name == "zpool" and args[:1] == ["events"]:
        sys.stdout.buffer.write((base / "events.log").read_bytes())
        return 0
    if name == "zpool" and (base / "zpool-hangs").exists():
        time.sleep(3600)  # a suspended pool on OpenZFS 2.1: zpool blocks until killed
        return 1
    found = lookup(base / "current", argv)
    if found is None:
        sys.stderr.write(f"{name}: demo host has no recording of: {shlex.join(argv)}\n")
        return 2
    path, status = found
    try:
        data = path.read_bytes()
    except OSError:
        data = b""
    # a variant replays its base scenario's recordings, and so their time anchors
    anchor = time_anchor(recorded_scenario((base / "current").resolve()), path.name)
    if anchor is not None:
        data = shift_times(path.name, data, time.time() - anchor)
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1], sys.argv[2:], os.environ.get("ZMON_DEMO_ROOT", ".")))
