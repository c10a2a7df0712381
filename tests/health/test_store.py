"""The store keeps what the declarations need, within its memory budget, and says what a
fresh start has not seen."""

from __future__ import annotations

import random
from statistics import median

import pytest
from prometheus_client.core import GaugeMetricFamily

from zmon.health import shipped
from zmon.health.conditions import Condition, needs, store_for, unseen
from zmon.health.expr import (
    Context,
    Labels,
    Record,
    is_stale,
    labels_of,
    metric,
    quantile_over_time,
    rate,
)
from zmon.health.store import COARSE_STEP, FINE, MEMORY_BUDGET, Store
from zmon.health.thresholds import DEFAULTS
from zmon.status.history import History

CONDITIONS = shipped.conditions(DEFAULTS)
STATES = ("online", "degraded", "faulted", "offline", "unavail", "removed", "inuse", "avail")
PATTERNS = ("crc_error", "link_reset", "link_down", "ata_timeout", "medium_error", "io_error")


def big_host(pools: int = 10, vdevs: int = 10, width: int = 10) -> list[tuple[str, Labels]]:
    """The series zmon serves a host of pools x vdevs x width disks (1,000 by default) that
    the declarations read."""
    out: list[tuple[str, dict[str, str]]] = []
    for p in range(pools):
        pool = f"pool{p}"
        out += [("zmon_pool_state", {"pool": pool, "state": s}) for s in STATES[:6]]
        for v in range(vdevs):
            top = f"raidz2-{v}"
            out.append(("zmon_vdev_info", {"pool": pool, "vdev": top, "type": "raidz"}))
            out.append(("zmon_vdev_redundancy", {"pool": pool, "vdev": top, "class": "normal"}))
            out += [("zmon_vdev_state", {"pool": pool, "vdev": top, "state": s}) for s in STATES]
            for d in range(width):
                disk = f"sd{p}x{v}x{d}"
                leaf = {"pool": pool, "vdev": disk, "class": "normal"}
                out.append(("zmon_vdev_info", {**leaf, "device": disk, "parent": top}))
                out += [("zmon_vdev_state", {**leaf, "state": s}) for s in STATES]
                out += [
                    (f"zmon_vdev_{k}_errors_total", leaf) for k in ("read", "write", "checksum")
                ]
                out.append(("zmon_disk_crc_errors_total", {"device": disk}))
                out += [
                    ("zmon_kernel_log_events_total", {"device": disk, "pattern": p})
                    for p in PATTERNS
                ]
                out += [
                    ("zmon_disk_hotplug_events_total", {"device": disk, "action": a})
                    for a in ("add", "remove")
                ]
                for sectors in (
                    "reallocated_sectors",
                    "pending_sectors",
                    "offline_uncorrectable_sectors",
                    "scsi_grown_defects",
                ):
                    out.append((f"zmon_disk_{sectors}", {"device": disk}))
                for gauge in (
                    "smart_passed",
                    "temperature_celsius",
                    "standby",
                    "interface_speed_bytes",
                    "interface_max_speed_bytes",
                ):
                    out.append((f"zmon_disk_{gauge}", {"device": disk}))
    return [(name, labels_of({**labels, "__name__": name})) for name, labels in out]  # fmt: skip


@pytest.mark.slow
def test_a_host_of_a_thousand_disks_fed_every_minute_stays_within_the_budget() -> None:
    """The worst case: every series its own past, none shared."""
    store = store_for(CONDITIONS)
    series = [(name, key) for name, key in big_host() if name in store.needs]
    assert len(series) > 25_000
    end = 25 * 3600.0
    start = {name: end - back - 600 for name, back in store.needs.items()}
    at = 0.0
    while at <= end:
        for i, (name, key) in enumerate(series):
            if at >= start[name]:  # (each series its own value: no two share a past)
                store.append(name, key, float(i), at)
        if at % COARSE_STEP == 0:
            store.compact(at)
        at += 60
    used = store.memory_bytes()
    assert used <= MEMORY_BUDGET, f"{used / 2**20:.1f} MiB"
    # the 24 h windows still reach back 24 h, thinned beyond the last hour
    sector = next(key for name, key in series if name == "zmon_disk_pending_sectors")
    times = next(t for k, t, _ in store.series("zmon_disk_pending_sectors") if k == sector)
    assert times[0] <= end - 24 * 3600
    assert len(times) < 24 * 3600 / COARSE_STEP + FINE / 60 + 10


@pytest.mark.slow
def test_a_thousand_disks_fed_as_the_status_page_feeds_them_stay_within_the_budget() -> None:
    """The status page feeds its history every ``History().step`` seconds (10), six times as
    often as the test above: a 1,000-disk host whose counters hold still (most do: error
    counts at 0, states) reached 134 MiB by the store's count after 70 minutes, past the
    budget, when every series held arrays of its own. Series with the same past now share
    one pair of arrays."""
    store = store_for(CONDITIONS)
    series = [(name, key) for name, key in big_host() if name in store.needs]
    step = History().step
    at = 0.0
    while at <= FINE + 2 * COARSE_STEP:
        for i, (name, key) in enumerate(series):
            # the disks' temperatures move (each its own past); everything else holds still
            moving = name == "zmon_disk_temperature_celsius"
            store.append(name, key, 30.0 + (i + at // 60) % 7 if moving else 0.0, at)
        store._fed(at)
        at += step
    used = store.memory_bytes()
    assert used <= MEMORY_BUDGET / 2, f"{used / 2**20:.1f} MiB"


def test_series_with_the_same_past_share_their_arrays_until_one_differs() -> None:
    store = Store({"m": 600.0})
    a, b, c = (labels_of({"__name__": "m", "d": d}) for d in "abc")
    for at in (0.0, 10.0, 20.0):
        for key in (a, b, c):
            store.append("m", key, 1.0 if key == c and at == 20.0 else 0.0, at)
    held = {key: (times, values) for key, times, values in store.series("m")}
    assert held[a][0] is held[b][0] and held[a][1] is held[b][1]
    assert held[c][1] is not held[a][1]
    assert list(held[a][1]) == [0.0, 0.0, 0.0] and list(held[c][1]) == [0.0, 0.0, 1.0]
    # a sample for one of the sharers leaves the other's past as it was
    store.append("m", a, 5.0, 30.0)
    held = {key: (times, values) for key, times, values in store.series("m")}
    assert list(held[a][1]) == [0.0, 0.0, 0.0, 5.0] and list(held[b][1]) == [0.0, 0.0, 0.0]
    assert list(held[b][0]) == [0.0, 10.0, 20.0]


def test_shared_pasts_give_the_same_samples_as_separate_ones() -> None:
    """Scrapes with holes (a staleness marker for the series absent), repeated samples and
    compactions: every series holds what it was fed, whichever others it shares its arrays
    with."""
    rng = random.Random(7)
    store = Store({"m": 2 * FINE}, fine=FINE / 2)
    disks = [str(i) for i in range(40)]
    fed: dict[Labels, list[tuple[float, float | str]]] = {
        labels_of({"__name__": "m", "d": d}): [] for d in disks
    }
    at = 0.0
    while at < 3 * FINE:
        family = GaugeMetricFamily("m", "m", labels=["d"])
        for i, d in enumerate(disks):
            key = labels_of({"__name__": "m", "d": d})
            roll = 1.0 if i < 10 else rng.random()  # (the first ten are always there)
            if roll < 0.1:  # absent from this scrape: stale, unless it is already
                if fed[key] and fed[key][-1][1] != "stale":
                    fed[key].append((at, "stale"))
                continue
            value = 1.0 if roll < 0.15 else 0.0
            if i < 10:  # one past, through compactions, until they part in the last hour
                value = 0.0 if at < 2 * FINE else float(i % 3)
            family.add_metric([d], value)
            fed[key].append((at, value))
        store.add([family], at)
        if rng.random() < 0.2:  # the same samples again at the same time: dropped
            store.add([family], at)
        at += 10.0

    def said(value: float) -> float | str:
        return "stale" if is_stale(value) else value

    # what the store keeps of its last half hour, which it has not thinned
    recent = at - FINE / 2
    got = {
        k: [(x, said(y)) for x, y in zip(ts, vs, strict=True) if x >= recent]
        for k, ts, vs in store.series("m")
    }
    want = {k: [(x, y) for x, y in samples if x >= recent] for k, samples in fed.items()}
    assert got == want
    # the ten that parted share in three groups still (their pasts up to the parting)
    assert len({id(vs) for _, _, vs in store.series("m")}) <= len(disks) - 10 + 3


def test_only_the_selected_metrics_are_kept_for_their_longest_window() -> None:
    kept = needs(CONDITIONS)
    assert "zmon_disk_power_on_seconds_total" not in kept
    # a disk's temperature is read over its for: and the lookback, not a day
    assert kept["zmon_disk_temperature_celsius"] < 3600
    # the sector counts are read over 24 h
    assert kept["zmon_disk_pending_sectors"] >= 24 * 3600
    # the 15-minute slices of DiskLinkFailing reach back 45 minutes, the cable window 1 h
    assert kept["zmon_disk_crc_errors_total"] >= 3600


def test_old_samples_are_thinned_and_forgotten() -> None:
    store = Store({"g": 2 * 3600.0})
    for minute in range(4 * 60):
        store.add_sample("g", {}, float(minute), minute * 60.0)
    now = 4 * 3600 - 60
    store.compact(now)
    ((_, times, values),) = store.series("g")
    assert times[0] >= now - 2 * 3600 - 2 * COARSE_STEP
    fine = [t for t in times if t >= now - FINE]
    coarse = [t for t in times if t < now - FINE]
    assert len(fine) >= 55
    assert all(b - a >= COARSE_STEP - 60 for a, b in zip(coarse, coarse[1:], strict=False))


def test_a_fresh_start_says_which_windows_it_has_not_seen() -> None:
    store = store_for(CONDITIONS)
    assert unseen(CONDITIONS, store, 1000.0)["DiskCableFault"] > 24 * 3600 - 1
    store.add_sample("zmon_pool_state", {"pool": "p", "state": "online"}, 1.0, 0.0)
    missing = unseen(CONDITIONS, store, 2 * 3600.0)
    assert "ZfsPoolDegraded" not in missing  # 1 minute for: plus the 5-minute lookback
    assert missing["DiskCableFault"] == pytest.approx(22 * 3600)


def test_a_record_read_over_a_range_is_kept_as_recorded_at_each_step() -> None:
    """As Prometheus stores a record's value at each evaluation, the store records a record
    that is read over a range (the slowdown's usual: a day of 5-minute p99s) at each step, and
    keeps of its input only what the recent steps need: three hours of a counter, thinned
    beyond the last hour, give the median of every 5-minute rate of the last two hours."""
    per_minute = [m % 7 + 1.0 for m in range(181)]
    rates = Record.of("r", rate(metric("c").at("5m")))
    usual = quantile_over_time(0.5, rates.at("2h"))
    condition = Condition("Usual", usual > 0, "", "")
    store = store_for([condition])
    assert store.needs["c"] < 3600 and store.needs["r"] >= 2 * 3600
    total = 0.0
    for minute, n in enumerate(per_minute):
        total += n if minute else 0.0
        store.add_sample("c", {}, total, minute * 60.0)
    now = 180 * 60.0
    steps = range(60, 181)  # the steps of the last two hours
    expected = median(sum(per_minute[m - 4 : m + 1]) / 300 for m in steps)
    assert usual.vector(Context(store), now) == {(): pytest.approx(expected)}
    ((_, times, _),) = store.series("c")
    assert times[0] >= now - 3600
