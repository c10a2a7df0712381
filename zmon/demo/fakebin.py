"""The programs of the demo host: print the recorded output of the current phase.

Each demo binary is a two-line script calling ``main(name, args, root)``. It looks the exact
command up in the current phase's ``commands.tsv`` (file, exit status, seconds, command) and
prints that file, or the host's live copy of it (``live/`` in the demo root: the latency
histograms, which grow with the phase's I/Os). ``zpool events -f`` follows the demo's event
log like the real one follows the kernel's event queue. Only the standard library is
imported, to start fast.
"""

from __future__ import annotations

import calendar
import json
import os
import re
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
# The ``time-anchors.tsv`` row for every recording of the phase without a row of its own.
PHASE_ANCHOR = "*"
# In the demo root: recordings the host rewrites as it goes, served instead of the phase's.
LIVE = "live"
# In the demo root: how many seconds older than the lab's the pools are (a story's phase).
POOL_AGE_FILE = "pool-age"
# A date as ``zpool status`` prints it after "on" or "since" on its scan line.
_STATUS_DATE = re.compile(rb"\b(on|since) (\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\b")
_STATUS_DATE_FORMAT = "%a %b %d %H:%M:%S %Y"


def time_anchor(phase_dir: Path, file: str) -> float | None:
    """When ``file`` was recorded (Unix time): its own row in the phase's
    ``time-anchors.tsv``, else the phase's row, if it has one."""
    try:
        rows = (phase_dir / "time-anchors.tsv").read_text().splitlines()
    except OSError:
        return None
    anchors = dict(row.partition("\t")[::2] for row in rows)
    stamp = anchors.get(file, anchors.get(PHASE_ANCHOR))
    return float(stamp) if stamp else None


def shift_json_times(data: bytes, delta: float) -> bytes:
    """Move the times of every scan in a ``zpool status -j`` recording by ``delta``.

    The recording is replayed as if made just now: a finished scrub is as old as it was on
    the lab host, and a scan in progress reads the same rate and time left, which are worked
    out from "now minus the pass start". Unset times (0) stay unset.
    """
    try:
        doc = json.loads(data)
    except ValueError:
        return data
    step = int(delta)
    for pool in (doc.get("pools") or {}).values():
        stats = pool.get("scan_stats") if isinstance(pool, dict) else None
        if not isinstance(stats, dict):
            continue
        for key in _SCAN_TIMES:
            if isinstance(stats.get(key), int) and stats[key]:
                stats[key] += step
    return json.dumps(doc, indent=1).encode() + b"\n"


def shift_status_text_times(data: bytes, delta: float) -> bytes:
    """Move the dates on the scan lines of a text ``zpool status`` recording by ``delta``.

    The dates are the lab host's local time (as ``ctime`` prints it); they move as written,
    without a time zone.
    """
    step = int(delta)

    def moved(m: re.Match[bytes]) -> bytes:
        try:
            then = calendar.timegm(time.strptime(m.group(2).decode(), _STATUS_DATE_FORMAT))
        except ValueError:
            return m.group(0)
        return m.group(1) + b" " + time.asctime(time.gmtime(then + step)).encode()

    return b"\n".join(
        _STATUS_DATE.sub(moved, line) if b"scan:" in line else line for line in data.split(b"\n")
    )


def _shift_column(data: bytes, delta: float, column: int, prop: bytes | None = None) -> bytes:
    """Move the Unix times in tab-separated ``column`` by ``delta``; with ``prop``, only on
    rows whose second column names that property. Other rows stay as they are."""
    step = int(delta)
    out = []
    for line in data.split(b"\n"):
        parts = line.split(b"\t")
        if len(parts) > column and parts[column].isdigit() and prop in (None, parts[1]):
            parts[column] = str(int(parts[column]) + step).encode()
        out.append(b"\t".join(parts))
    return b"\n".join(out)


def shift_snapshot_times(data: bytes, delta: float) -> bytes:
    """Move each snapshot's creation time (``name<TAB>seconds`` lines) by ``delta``.

    The snapshots are replayed as if the listing were recorded just now: each is as old as
    it was on the lab host, not as old as the recording.
    """
    return _shift_column(data, delta, 1)


def shift_creation_times(data: bytes, delta: float) -> bytes:
    """Move the ``creation`` rows of a ``zfs get -Hp`` recording (name, property, value,
    source) by ``delta``: pools and datasets are as old as they were on the lab host."""
    return _shift_column(data, delta, 2, prop=b"creation")


def shift_times(file: str, data: bytes, delta: float, pool_age: float = 0.0) -> bytes:
    """The recording ``file`` replayed ``delta`` seconds after it was made: the times zmon
    reads from it (scans, pool and dataset creation, snapshots) moved by ``delta``, creation
    ``pool_age`` seconds earlier still; other recordings as they are."""
    if file == SNAPSHOT_TIMES:
        return shift_snapshot_times(data, delta)
    if file.startswith("zpool-status") and file.endswith(".json"):
        return shift_json_times(data, delta)
    if file.startswith("zpool-status") and file.endswith(".txt"):
        return shift_status_text_times(data, delta)
    if file.startswith(("zfs-get", "derived-zfs-get")):
        return shift_creation_times(data, delta - pool_age)
    return data


def pool_age(root: Path) -> float:
    """How much older than the lab's the demo host's pools are, in seconds (0: as old)."""
    try:
        return float((root / POOL_AGE_FILE).read_text())
    except (OSError, ValueError):
        return 0.0


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


def replay(root: Path, argv: list[str], now: float) -> tuple[bytes, int] | None:
    """The current phase's recorded answer to exactly ``argv`` (output, exit status),
    replayed at ``now``; None if the phase has no recording of it."""
    found = lookup(root / "current", argv)
    if found is None:
        return None
    path, status = found
    live = root / LIVE / path.name
    if live.exists():
        path = live
    try:
        data = path.read_bytes()
    except OSError:
        data = b""
    # a variant replays its base scenario's recordings, and so their time anchors
    anchor = time_anchor(recorded_scenario((root / "current").resolve()), path.name)
    if anchor is not None:
        data = shift_times(path.name, data, now - anchor, pool_age(root))
    return data, status


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
    replayed = replay(base, argv, time.time())
    if replayed is None:
        sys.stderr.write(f"{name}: demo host has no recording of: {shlex.join(argv)}\n")
        return 2
    data, status = replayed
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1], sys.argv[2:], os.environ.get("ZMON_DEMO_ROOT", ".")))
