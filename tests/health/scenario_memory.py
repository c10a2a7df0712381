"""The synthetic host's memory, latency and zmon's own series (tests/health/scenario.py):

- the ARC serves 54 accesses a second, 11 % misses, until minute 100; then half of them miss
  and most misses are ghost hits (the ARC is too small);
- tank's dedup table needs 30 % of the ARC maximum from minute 50; the L2ARC device errs at
  minutes 70 and 90;
- tank's reads (pool and both top-level vdevs, mirror-1 a little slower than raidz1-0) are 16x
  slower than usual from minute 140, after the scrub of minutes 90-115; fast sees too few
  I/Os to be judged; dirty data throttles writes in minutes 20-30;
- collector zpool fails in minutes 30-60, smart hangs (no success) in minutes 60-120, and
  sas_phy never has a good run;
- Prometheus cannot scrape zmon in minutes 60-80 (``up`` 0) and has no target in minutes
  150-175 (no ``up``).

The baseline of the slowdown (the median of a day of 5-minute p99s) is the median of the
scenario's three hours here: 140 minutes of usual reads outweigh the 40 slow ones.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.health.scenario import MINUTES, STEP, Series, _counter, _series

LE = ("0.001", "0.004", "0.016", "0.064", "0.256", "+Inf")
# I/Os per minute at or below each bound (cumulative): 20 a second
USUAL = (600, 1140, 1194, 1200, 1200, 1200)
USUAL_SLOWER = (300, 1100, 1194, 1200, 1200, 1200)
SLOW = (100, 400, 800, 1100, 1200, 1200)
WRITES = (900, 1170, 1197, 1200, 1200, 1200)
FEW = (200, 280, 298, 300, 300, 300)  # 5 a second: below slowdown_min_ops


def _per_minute(rate: Callable[[int], float]) -> Callable[[int], float]:
    """A counter rising by ``rate(m)`` in each minute m (from 0 at minute 0)."""
    return _counter({m: rate(m) for m in range(1, MINUTES + 1)})


def _arc(out: Series) -> None:
    small = 100  # the ARC is too small from this minute on
    rates = {
        "hits": (2880, 1800),
        "misses": (360, 1800),
        "mru_ghost_hits": (20, 900),
        "mfu_ghost_hits": (10, 400),
        "demand_data_hits": (2000, 2000),
        "demand_metadata_hits": (600, 600),
        "demand_data_misses": (200, 200),
        "demand_metadata_misses": (100, 100),
        "prefetch_data_hits": (200, 200),
        "prefetch_metadata_hits": (80, 80),
        "prefetch_data_misses": (50, 50),
        "prefetch_metadata_misses": (10, 10),
        "l2_hits": (100, 100),
        "l2_misses": (300, 300),
    }
    for field, (before, after) in rates.items():
        _series(out, f"zmon_arc_{field}_total", {},
                _per_minute(lambda m, b=before, a=after: b if m < small else a))  # fmt: skip
    for state, size in (("mru_ghost", 1.5e9), ("mfu_ghost", 5e8), ("mru", 3e9)):
        _series(out, "zmon_arc_state_size_bytes", {"state": state}, lambda i, s=size: s)
    _series(out, "zmon_arc_max_size_bytes", {}, lambda i: 4e9)
    _series(out, "zmon_pool_ddt_in_core_bytes", {"pool": "tank"},
            lambda i: 1.2e9 if i >= 50 else 5e8)  # fmt: skip
    _series(out, "zmon_pool_ddt_in_core_bytes", {"pool": "fast"}, lambda i: 1e8)
    _series(out, "zmon_arc_l2_io_errors_total", {}, _counter({70: 2}))
    _series(out, "zmon_arc_l2_checksum_errors_total", {}, _counter({90: 1}))


def _histogram(out: Series, name: str, labels: dict[str, str],
               shape: Callable[[int], tuple[int, ...]]) -> None:  # fmt: skip
    for k, le in enumerate(LE):
        _series(
            out, f"{name}_bucket", {**labels, "le": le}, _per_minute(lambda m, k=k: shape(m)[k])
        )
    _series(out, f"{name}_count", labels, _per_minute(lambda m: shape(m)[-1]))


def _latency(out: Series) -> None:
    slow_from = 140

    def reads(usual: tuple[int, ...]) -> Callable[[int], tuple[int, ...]]:
        return lambda m: SLOW if m >= slow_from else usual

    pool, vdev = "zmon_pool_io_latency_seconds", "zmon_vdev_io_latency_seconds"
    _histogram(out, pool, {"pool": "tank", "op": "read"}, reads(USUAL))
    _histogram(out, pool, {"pool": "tank", "op": "write"}, lambda m: WRITES)
    _histogram(out, pool, {"pool": "fast", "op": "read"}, lambda m: FEW)
    for name, usual in (("raidz1-0", USUAL), ("mirror-1", USUAL_SLOWER)):
        labels = {"pool": "tank", "vdev": name, "class": "normal"}
        _histogram(out, vdev, {**labels, "op": "read"}, reads(usual))
        _histogram(out, vdev, {**labels, "op": "write"}, lambda m: WRITES)
    _histogram(out, vdev, {"pool": "fast", "vdev": "nvme0n1", "class": "normal", "op": "read"},
               lambda m: FEW)  # fmt: skip
    _series(out, "zmon_dmu_tx_events_total", {"reason": "dirty_throttle"},
            _counter({m: 5 for m in range(20, 30)}))  # fmt: skip


def _collectors(out: Series) -> None:
    # collector -> (interval, minutes it fails, minutes it hangs, ever had a good run)
    collectors = {"zpool": (60, range(30, 60), range(0), True),
                  "smart": (300, range(0), range(60, 120), True),
                  "sas_phy": (60, range(0), range(0), False),
                  "arcstats": (15, range(0), range(0), True)}  # fmt: skip
    for name, (interval, failing, hung, good) in collectors.items():
        labels = {"collector": name}
        stuck = set(failing) | set(hung)

        def last_success(i: int, stuck: set[int] = stuck, good: bool = good) -> float:
            if not good:
                return 0.0
            while i in stuck:
                i -= 1
            return float(i * STEP)

        _series(out, "zmon_collector_success", labels,
                lambda i, f=failing: 0.0 if i in f else 1.0)  # fmt: skip
        _series(out, "zmon_collector_last_success_timestamp_seconds", labels, last_success)
        _series(out, "zmon_collector_interval_seconds", labels, lambda i, n=interval: n)
        _series(out, "zmon_collector_has_data", labels, lambda i, g=good: 1.0 if g else 0.0)
    _series(out, "zmon_start_time_seconds", {}, lambda i: 0.0)


def _target(out: Series) -> None:
    _series(out, "up", {},
            lambda i: None if 150 <= i < 175 else 0.0 if 60 <= i < 80 else 1.0)  # fmt: skip


def memory(out: Series) -> None:
    """Add the memory, latency and zmon-self series to ``out``."""
    _arc(out)
    _latency(out)
    _collectors(out)
    _target(out)
