"""An hour of what zmon serves on a host whose reads slow down, for the status history.

100 reads per second with a p99 of about 10 ms, then (the last ``slow_for`` seconds) 500 reads
per second with a p99 of about 100 ms while the ARC's hit ratio falls from 97 % to 71 %.
``case`` says what is behind it: "memory" (64 % of the misses are ghost hits), "cold" (4 %),
"scrub" (a scrub runs), "disk" (sdb's reads take ten times sda's), "throttle" (writes wait
for dirty data).
"""

from __future__ import annotations

from tests.status.helpers import NOW, pool_text

STEP = 30.0
FAST = {"0.001": 50.0, "0.01": 99.9, "0.1": 100.0, "+Inf": 100.0}  # per second, p99 ~9.8 ms
SLOW = {"0.001": 100.0, "0.01": 200.0, "0.1": 499.5, "+Inf": 500.0}  # p99 ~99 ms
MEAN = {"fast": 0.004, "slow": 0.03}  # seconds a read takes on average
GHOST_MISSES = (80_000 / 60, 31_360 / 60)  # 64 % of the misses are ghost hits
COLD_MISSES = (5_000 / 60, 2_000 / 60)  # 4 %


def exposition(t: float, case: str, slow_from: float, reads: float = 1.0) -> str:
    """What zmon serves at ``t`` seconds into the hour."""
    fast_s, slow_s = min(t, slow_from), max(0.0, t - slow_from)
    lines = [pool_text("tank", disks=("sda", "sdb"))]
    lines.append("# TYPE zmon_pool_io_latency_seconds histogram")
    for le in FAST:
        n = (FAST[le] * fast_s + SLOW[le] * slow_s) * reads
        lines.append(f'zmon_pool_io_latency_seconds_bucket{{op="read",pool="tank",le="{le}"}} {n}')
    total = (FAST["+Inf"] * fast_s + SLOW["+Inf"] * slow_s) * reads
    lines.append(f'zmon_pool_io_latency_seconds_count{{op="read",pool="tank"}} {total}')
    lines.append(f'zmon_pool_io_latency_seconds_sum{{op="read",pool="tank"}} {total * 0.01}')
    lines.append("# TYPE zmon_vdev_io_latency_seconds histogram")
    for disk in ("sda", "sdb"):
        slow_disk = case == "disk" and disk == "sdb"
        ops = total / 2
        seconds = (
            ops * MEAN["fast"]
            if not slow_disk
            else (fast_s * 50 * reads * MEAN["fast"] + slow_s * 250 * reads * MEAN["slow"] * 10)
        )
        labels = f'class="normal",op="read",pool="tank",vdev="{disk}"'
        lines.append(f'zmon_vdev_io_latency_seconds_bucket{{{labels},le="+Inf"}} {ops}')
        lines.append(f"zmon_vdev_io_latency_seconds_count{{{labels}}} {ops}")
        lines.append(f"zmon_vdev_io_latency_seconds_sum{{{labels}}} {seconds}")
    mru, mfu = COLD_MISSES if case == "cold" else GHOST_MISSES
    arc = {
        "hits": 9700 * fast_s + 7100 * slow_s,
        "misses": 300 * fast_s + 2900 * slow_s,
        "mru_ghost_hits": 1000 / 60 * fast_s + mru * slow_s,
        "mfu_ghost_hits": 500 / 60 * fast_s + mfu * slow_s,
    }
    lines += [f"zmon_arc_{k}_total {v}" for k, v in arc.items()]
    lines.append('zmon_arc_state_size_bytes{state="mru_ghost"} 2684354560')
    lines.append('zmon_arc_state_size_bytes{state="mfu_ghost"} 644245094')
    lines.append("zmon_arc_max_size_bytes 4294967296")
    lines.append("zmon_arc_memory_all_bytes 17179869184")
    waits = 40 * slow_s if case == "throttle" else 0
    lines.append("# TYPE zmon_dmu_tx_events counter")
    for reason, n in (("dirty_throttle", waits), ("dirty_over_max", 0), ("dirty_delay", 7)):
        lines.append(f'zmon_dmu_tx_events_total{{reason="{reason}"}} {n}')
    if case == "scrub":
        lines.append('zmon_pool_scan_info{function="scrub",pool="tank",state="in_progress"} 1')
        lines.append('zmon_pool_scan_issued_bytes{pool="tank"} 1000000')
    return "\n".join(lines) + "\n"


def hour(case: str, slow_for: float = 300.0, reads: float = 1.0) -> tuple[tuple[float, str], ...]:
    """(seconds before NOW, exposition) every STEP seconds over the hour, oldest first."""
    length = 3600.0
    return tuple(
        (length - i * STEP, exposition(i * STEP, case, length - slow_for, reads))
        for i in range(int(length / STEP) + 1)
    )


__all__ = ["NOW", "STEP", "exposition", "hour"]
