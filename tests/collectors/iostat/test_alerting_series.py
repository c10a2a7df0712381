"""The zero-initialised alerting counters stay within their documented bound
(benchmarks/alerting_series.py prints the figures for a 500-disk host)."""

from __future__ import annotations

from benchmarks import alerting_series as bench


def test_series_added_are_five_per_disk_and_four_per_vdev() -> None:
    disks, tops = 50, 5
    f = bench.figures(disks)
    # + pool_suspended for the pool, - the one pattern x disk already counted
    assert f["log_after"] - f["log_before"] == 5 * disks + 1 - 1
    assert f["ev_after"] - f["ev_before"] == 4 * (disks + tops + 1) - 1  # one already counted
    assert (f["log_after"] + f["ev_after"]) / f["iostat_series"] < 0.25
