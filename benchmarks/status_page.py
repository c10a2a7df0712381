"""Cost of the status views against what the daemon already does: joining the exposition.

The page reads the snapshot's families on each request (the history ring samples them at most
every 10 s, in the render thread). This prints the time of one page, of its JSON, of one
history sample, and of one snapshot join (``Snapshot.rerender``), as ratios to the join, for
a host of POOLS pools x DISKS disks with DATASETS dataset series (which the views skip), and
the memory a full history ring holds.

Run: ``python -m benchmarks.status_page [POOLS] [DISKS_PER_POOL] [DATASETS]``
(default 4 pools x 24 disks and 20,000 dataset series).
"""

from __future__ import annotations

import statistics
import sys
import time
import tracemalloc

from zmon.exposition.metrics import MetricSet
from zmon.exposition.snapshot import CollectorState, Snapshot
from zmon.status.history import History
from zmon.status.model import read_model
from zmon.status.page import StatusPage


def host_families(pools: int, disks: int, datasets: int) -> dict[str, list]:  # type: ignore[type-arg]
    z, s, d = MetricSet(), MetricSet(), MetricSet()
    for p in range(pools):
        pool = f"pool{p}"
        z.state_set(
            "zmon_pool_state", "Pool state.", ["online", "degraded"], "online", {"pool": pool}
        )
        z.info(
            "zmon_vdev_info",
            "Vdev.",
            {
                "pool": pool,
                "vdev": pool,
                "class": "normal",
                "parent": "",
                "device": "",
                "type": "root",
                "state": "ONLINE",
            },
        )
        for k in range(disks):
            dev = f"sd{p}x{k}"
            labels = {"pool": pool, "vdev": dev, "class": "normal"}
            z.info(
                "zmon_vdev_info",
                "Vdev.",
                {**labels, "parent": pool, "device": dev, "type": "disk", "state": "ONLINE"},
            )
            z.state_set("zmon_vdev_state", "Vdev state.", ["online", "faulted"], "online", labels)
            for kind in ("read", "write", "checksum"):
                z.counter(f"zmon_vdev_{kind}_errors_total", "Errors.", 0.0, labels)
            s.gauge("zmon_disk_smart_passed", "SMART.", 1.0, {"device": dev})
            s.counter("zmon_disk_crc_errors_total", "CRC.", float(k % 3), {"device": dev})
            s.gauge("zmon_disk_temperature_celsius", "Temp.", 35.0, {"device": dev})
            for attr in range(20):  # the SMART attribute table, skipped by the views
                s.gauge(
                    "zmon_disk_smart_attribute_raw",
                    "Raw.",
                    0.0,
                    {"device": dev, "id": str(attr), "name": f"a{attr}"},
                )
    for n in range(datasets):
        d.gauge(
            "zmon_dataset_used_bytes",
            "Used.",
            float(n),
            {"pool": "pool0", "dataset": f"pool0/ds{n}", "type": "filesystem"},
        )
    return {"zpool": z.families(), "smart": s.families(), "datasets": d.families()}


def timed(func, repeat: int = 7) -> float:  # type: ignore[no-untyped-def]
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def main(pools: int = 4, disks: int = 24, datasets: int = 20_000) -> None:
    snap = Snapshot()
    series = 0
    for name, fams in host_families(pools, disks, datasets).items():
        state = CollectorState(
            name, 15.0, 10.0, success=True, has_data=True, last_success=time.time()
        )
        state.publish(fams)
        snap.add(state)
        series += sum(len(f.samples) for f in fams)
    page = StatusPage(snap, "bench")
    join = timed(snap.rerender)
    html = timed(lambda: page.respond(""))
    as_json = timed(lambda: page.respond("format=json"))
    now = time.time()
    model = read_model(page.families(now))
    sample = timed(lambda: History(step=0).observe(now, model))
    ring = History(step=0, max_points=400)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for i in range(400):
        ring.observe(now + i, model)
    held = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(before, "filename"))
    tracemalloc.stop()
    print(f"host: {pools} pools x {disks} disks, {datasets} dataset series, {series} series")
    print(f"snapshot join (peer)      {join * 1e3:8.2f} ms   1.00x")
    print(f"status page (HTML)        {html * 1e3:8.2f} ms   {html / join:5.2f}x the join")
    print(f"status report (JSON)      {as_json * 1e3:8.2f} ms   {as_json / join:5.2f}x the join")
    print(f"history sample            {sample * 1e3:8.2f} ms   {sample / join:5.2f}x the join")
    print(f"full history ring (400)   {held / 1024:8.0f} KiB")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:4]))
