"""Series cost of the zero-initialised counters the alert rules use, on a large host.

zmon serves ``zmon_kernel_log_events_total`` for each rule-used pattern x each known disk,
``zmon_kernel_log_pool_events_total{pattern="pool_suspended"}`` per pool, and
``zmon_zfs_events_total`` for each rule-used event class x each vdev (and the pool) at 0 from
start-up, so that the first burst of errors is a rise that increase() sees. This prints what
that costs, next to what the same host serves without it and next to the iostat collector's
default series for the same host (the peer: another per-vdev family), as ratios.

Run: ``python -m benchmarks.alerting_series [DISKS]`` (default 500 disks: one pool of 50
raidz2 top-level vdevs of 10 disks).
"""

from __future__ import annotations

import sys
import time

from benchmarks.iostat_cardinality import measure
from zmon.collectors.kernel_log.metrics import (
    ALERTED_PATTERNS,
    TallySnapshot,
    kernel_log_metrics,
    zero_series,
)
from zmon.collectors.zpool_events import (
    ALERTED_CLASSES,
    event_metrics,
    with_zero_counts,
)
from zmon.exposition.formats import render

WIDTH = 10


def _series(text: bytes, prefix: str) -> int:
    return sum(1 for line in text.splitlines() if line.startswith(prefix.encode()))


def figures(disks: int) -> dict[str, float]:
    names = [f"sd{chr(97 + i // 26 % 26)}{chr(97 + i % 26)}{i // 676 or ''}" for i in range(disks)]
    tops = [f"raidz2-{t}" for t in range(max(1, disks // WIDTH))]
    vdevs = {"big": frozenset([*tops, *names])}
    # A host that has seen a little trouble: a few real counts on each side.
    empty = TallySnapshot(
        {("link_reset", names[0]): 2}, {}, {}, {"kmsg": 10}, {"kmsg": 0}, {"kmsg": True}
    )
    counts = {("big", names[0], "checksum"): 3, ("big", "", "scrub_finish"): 1}

    start = time.perf_counter()
    log_after = render(
        kernel_log_metrics(zero_series(empty, ALERTED_PATTERNS["linux"], names, ["big"])).families()
    )
    ev_after = render(event_metrics(with_zero_counts(counts, vdevs), {}, 0).families())
    seconds = time.perf_counter() - start
    log_before = render(kernel_log_metrics(empty).families())
    ev_before = render(event_metrics(counts, {}, 0).families())

    iostat = next(x for x in measure(disks)[0] if (x.mode, x.buckets) == ("toplevel", "fine"))
    return {
        "log_before": _series(log_before, "zmon_kernel_log_"),
        "log_after": _series(log_after, "zmon_kernel_log_"),
        "ev_before": _series(ev_before, "zmon_zfs_events_total"),
        "ev_after": _series(ev_after, "zmon_zfs_events_total"),
        "bytes_added": len(log_after) + len(ev_after) - len(log_before) - len(ev_before),
        "render_ms": seconds * 1000,
        "iostat_series": iostat.series,
    }


def main(argv: list[str]) -> int:
    disks = int(argv[0]) if argv else 500
    f = figures(disks)
    added = f["log_after"] - f["log_before"] + f["ev_after"] - f["ev_before"]
    print(f"host: {disks} disks in one pool ({disks // WIDTH} raidz2 of {WIDTH}), Linux")
    print(f"{'family':40} {'before':>8} {'after':>8} {'per disk':>9}")
    print(
        f"{'zmon_kernel_log_* (5 patterns x disk)':40} {f['log_before']:8.0f} "
        f"{f['log_after']:8.0f} {(f['log_after'] - f['log_before']) / disks:9.2f}"
    )
    print(
        f"{'zmon_zfs_events_total (4 classes x vdev)':40} {f['ev_before']:8.0f} "
        f"{f['ev_after']:8.0f} {(f['ev_after'] - f['ev_before']) / disks:9.2f}"
    )
    print(
        f"added series: {added:.0f} ({added / disks:.2f} per disk), "
        f"{f['bytes_added'] / 1024:.0f} KiB more exposition per scrape, "
        f"rendered in {f['render_ms']:.1f} ms"
    )
    print(
        f"peer: the iostat collector's default series on the same host: "
        f"{f['iostat_series']:.0f}; added / iostat = {added / f['iostat_series']:.2f}"
    )
    print(
        f"bound: {len(ALERTED_PATTERNS['linux'])} x disks + 1 x pools (kernel log), "
        f"{len(ALERTED_CLASSES)} x (vdevs + pools) (events)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
