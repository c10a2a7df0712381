"""What judging the declarations costs the status page: CPU seconds of one evaluation of every
condition a host judges of itself, on synthetic hosts of 100 and 1,000 disks whose history was
fed once a minute for 65 minutes (the status page feeds and evaluates once a minute).

    python -m benchmarks.judgment

The hosts are tests/health/test_store.py's ``big_host``: 10 pools of raidz2 vdevs, every
series the declarations read (pool and vdev states, error counters, kernel-log patterns, CRC,
hotplug and sector counts), all quiet. Prometheus evaluates the same rule file: its cost is
the peer's, paid on the Prometheus server instead of on the host.
"""

from __future__ import annotations

import time

from tests.health.test_store import big_host
from zmon.health.evaluator import host_evaluator

FEED_EVERY = 60.0
MINUTES = 65
REPEAT = 5


def measure(vdevs: int) -> tuple[int, float]:
    """(series fed, CPU seconds per evaluation) for a host of 10 pools x ``vdevs`` x 10 disks."""
    judge = host_evaluator(FEED_EVERY)
    series = [
        (name, {k: v for k, v in key if k != "__name__"})
        for name, key in big_host(vdevs=vdevs)
        if name in judge.store.needs
    ]
    at = 0.0
    for step in range(MINUTES):
        at = step * FEED_EVERY
        for name, labels in series:
            judge.store.add_sample(name, labels, 0.0, at)
    judge.evaluate(at)
    started = time.process_time()
    for k in range(REPEAT):
        judge.evaluate(at + k * 1e-3)
    return len(series), (time.process_time() - started) / REPEAT


def main() -> None:
    print("| disks | series judged | CPU s per evaluation | % of a core at one a minute |")
    print("|---:|---:|---:|---:|")
    for vdevs in (1, 10):
        n, cpu = measure(vdevs)
        print(f"| {100 * vdevs:,} | {n:,} | {cpu:.3f} | {100 * cpu / FEED_EVERY:.2f} |")


if __name__ == "__main__":
    main()
