#!/usr/bin/env python3
"""What the datasets collector's snapshot step costs zmon on a host with many snapshots.

Generates the output of ``zfs list -Hp -t snapshot -o name,creation`` for a sanoid-style
host (DATASETS datasets, each with hourly, daily and monthly snapshots named the way sanoid
names them) and measures, on it:

- the bytes ``zfs list`` prints (what the runner reads through its pipe);
- ``parse_snapshot_times``: CPU time (best of REPEAT runs) and peak Python memory
  (tracemalloc) of turning it into one count and one newest time per dataset;
- the series the collector adds: two per dataset with snapshots (count and newest time).

The time ``zfs list`` itself takes on the host (walking every snapshot's properties in the
kernel) is not measured here: no ZFS on this machine. This is a benchmark that prints
figures, not a test.

    python -m benchmarks.snapshots --snapshots 100000 --datasets 1000
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from datetime import UTC, datetime, timedelta

from zmon.parsers.zfs.zfs_snapshots import parse_snapshot_times

NOW = datetime(2026, 12, 3, 7, 0, 1, tzinfo=UTC)


def listing(snapshots: int, datasets: int) -> bytes:
    """``name<TAB>creation`` lines: each dataset's snapshots, newest last, as zfs prints."""
    per = max(1, snapshots // datasets)
    lines = []
    for d in range(datasets):
        name = f"tank/home/user{d:05d}"
        for i in range(per):
            kind = "hourly" if i % 10 < 7 else ("daily" if i % 10 < 9 else "monthly")
            when = NOW - timedelta(hours=per - i)
            stamp = when.strftime("%Y-%m-%d_%H:%M:%S")
            lines.append(f"{name}@autosnap_{stamp}_{kind}\t{int(when.timestamp())}\n")
    return "".join(lines[:snapshots]).encode()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--snapshots", type=int, default=100_000)
    p.add_argument("--datasets", type=int, default=1_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    data = listing(args.snapshots, args.datasets)
    best = float("inf")
    for _ in range(args.repeat):
        start = time.process_time()
        result = parse_snapshot_times(data)
        best = min(best, time.process_time() - start)
    tracemalloc.start()
    parse_snapshot_times(data)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    lines = data.count(b"\n")
    print(f"snapshots listed         {lines:>12,}")
    print(f"datasets with snapshots  {len(result):>12,}")
    print(f"zfs list output          {len(data) / 1e6:>12.1f} MB")
    print(f"parse CPU (best of {args.repeat})    {best * 1000:>12.0f} ms")
    print(f"parse per snapshot       {best / lines * 1e9:>12.0f} ns")
    print(f"parse peak memory        {peak / 1e6:>12.1f} MB")
    print(f"series added             {2 * len(result):>12,}")


if __name__ == "__main__":
    main()
