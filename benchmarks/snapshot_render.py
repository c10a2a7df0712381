"""Cost of publishing a collector run: rendering every family again vs joining cached bytes.

zmon serves a pre-rendered exposition. After each collector run the snapshot is rebuilt. The
first design rendered all families of all collectors each time (and each worker waited its
turn for that); now a run renders only its own families, in its own thread, and the snapshot
joins bytes. On a slow CPU (the lab's TCG guest, a small NAS) the old way made collectors
queue behind each other for tens of seconds.

Run: ``python benchmarks/snapshot_render.py [SERIES_PER_COLLECTOR] [COLLECTORS]``
(default 2000 series x 15 collectors, about the size of a host with 100 disks).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zmon.exposition import render  # noqa: E402
from zmon.metrics import MetricSet  # noqa: E402
from zmon.snapshot import CollectorState, Snapshot, _merge, self_metrics  # noqa: E402


def collector_families(index: int, series: int) -> list:  # type: ignore[type-arg]
    m = MetricSet()
    per_family = 50
    for n in range(series):
        fam = f"zmon_bench{index}_family{n // per_family}_bytes"
        m.gauge(fam, "Synthetic family.", float(n), {"pool": "tank", "vdev": f"disk{n}"})
    return m.families()


def timed(func, repeat: int = 7) -> float:  # type: ignore[no-untyped-def]
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main(series: int = 2000, collectors: int = 15) -> None:
    snap = Snapshot()
    states = []
    for i in range(collectors):
        state = CollectorState(f"c{i}", 5.0, 10.0, success=True)
        state.publish(collector_families(i, series))
        snap.add(state)
        states.append(state)

    def full_render() -> None:  # the former rerender: every family, every time
        families = _merge(f for s in states for f in s.families)
        families += self_metrics(states, time.time(), 0.0)
        render(families)

    one_run = timed(lambda: states[0].publish(states[0].families))
    join = timed(snap.rerender)
    full = timed(full_render)
    size = len(snap.exposition.text)
    print(f"{collectors} collectors x {series} series, exposition {size / 1024:.0f} KiB")
    print(f"  full render of every family (before):    {full * 1000:8.1f} ms per collector run")
    print(
        f"  publish one run + join (now):            {(one_run + join) * 1000:8.1f} ms "
        f"({one_run * 1000:.1f} render own families + {join * 1000:.1f} join and gzip)"
    )
    print(f"  ratio before/now:                        {full / (one_run + join):8.1f}x")
    print(
        f"  one cycle of all {collectors} collectors, before: {full * collectors * 1000:.0f} ms "
        f"of renders in a row; now: {(one_run * collectors + join) * 1000:.0f} ms, spread "
        "over the collectors' own threads, joins coalesced"
    )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
