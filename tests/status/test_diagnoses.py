"""Each row of the diagnosis table, one by one: the evidence that fires it, the words it says,
and evidence close to it that must not fire it."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.status.helpers import NOW, families, findings, pool_text, recorded
from tests.status.slowdown_hour import hour
from zmon.status.diagnoses import RULES, RULES_BY_ID, Finding
from zmon.status.history import History
from zmon.status.model import read_model

DAY = 86400.0
ARC_BASE = "zmon_arc_size_bytes 1e9\nzmon_arc_max_size_bytes 2e9\nzmon_arc_misses_total 10000\n"


@dataclass(frozen=True)
class Case:
    text: str
    subject: str
    evidence: str
    severity: str | None = None
    history: tuple[tuple[float, str], ...] = ()  # (seconds before NOW, exposition) oldest first


def _hist(case: Case) -> History | None:
    if not case.history:
        return None
    h = History(step=1.0)
    for before, text in case.history:
        h.observe(NOW - before, read_model(families(text)))
    return h


def _found(case: Case) -> list[Finding]:
    """The findings of ``case``, with its history and, for a slowdown, the records the status
    page's evaluator made of it."""
    slow = case.history and "zmon_pool_io_latency_seconds" in case.text
    return findings(case.text, _hist(case), recorded=recorded(case.history) if slow else None)


RESILVER = (
    'zmon_pool_scan_info{function="resilver",pool="tank",state="in_progress"} 1\n'
    'zmon_pool_scan_in_progress{function="resilver",pool="tank"} 1\n'
    'zmon_pool_scan_progress_ratio{pool="tank"} 0.15\n'
    f'zmon_pool_scan_start_time_seconds{{pool="tank"}} {NOW - 3600}\n'
)
ISSUED = 'zmon_pool_scan_issued_bytes{{pool="tank"}} {}\n'
SCRUB = (
    'zmon_pool_scan_info{function="scrub",pool="tank",state="in_progress"} 1\n'
    'zmon_pool_scan_in_progress{function="scrub",pool="tank"} 1\n'
)
ON_BATTERY = (
    'zmon_ups_up{server="s",ups="u"} 1\n'
    'zmon_ups_status{flag="OB",server="s",ups="u"} 1\n'
    'zmon_ups_battery_runtime_seconds{server="s",ups="u"} 1200\n'
)


def sas_expander(errors: int) -> str:
    """sda, sdb and sdc of a mirror linked by PHYs 0-2 of expander-0:0, each PHY having
    counted ``errors`` invalid DWORDs (the sas_phy collector)."""
    lines = [pool_text(disks=("sda", "sdb", "sdc"))]
    for n, d in enumerate(("sda", "sdb", "sdc")):
        lines.append(
            f'zmon_sas_phy_info{{attached="disk",attached_name="",device="{d}",enclosure="",'
            f'parent="expander-0:0",parent_kind="expander",phy="phy-0:0:{n}",sas_address="",'
            f'slot=""}} 1\n'
            f'zmon_sas_phy_invalid_dwords_total{{device="{d}",phy="phy-0:0:{n}",'
            f'sas_address=""}} {errors}\n'
        )
    return "".join(lines)


def replacing_text(old_state: str = "online") -> str:
    """mirror-0 of sda and replacing-1 (sdb, the old disk, onto sdc), as zpool status shows a
    ``zpool replace tank sdb sdc`` under way."""
    pool_state = "online" if old_state == "online" else "degraded"
    lines = [
        f'zmon_pool_state{{pool="tank",state="{s}"}} {int(s == pool_state)}'
        for s in ("online", "degraded")
    ]
    rows = (
        ("", "", "root", "tank", pool_state),
        ("", "tank", "mirror", "mirror-0", pool_state),
        ("sda", "mirror-0", "disk", "sda", "online"),
        ("", "mirror-0", "replacing", "replacing-1", pool_state),
        ("sdb", "replacing-1", "disk", "sdb", old_state),
        ("sdc", "replacing-1", "disk", "sdc", "online"),
    )
    for device, parent, kind, vdev, state in rows:
        lines.append(
            f'zmon_vdev_info{{class="normal",device="{device}",parent="{parent}",pool="tank",'
            f'state="{state.upper()}",type="{kind}",vdev="{vdev}"}} 1'
        )
        lines.append(
            f'zmon_vdev_state{{class="normal",pool="tank",state="{state}",vdev="{vdev}"}} 1'
        )
    return "\n".join(lines) + "\n"


SDB = pool_text()
SLOW_MEMORY, SLOW_COLD = hour("memory"), hour("cold")
# a scrub of tank that finished 2 h ago, and the checksum errors it left on sdb's counters
SCRUBBED = (
    'zmon_pool_scan_info{function="scrub",pool="tank",state="finished"} 1\n'
    f'zmon_pool_scan_end_time_seconds{{pool="tank"}} {NOW - 7200}\n'
    f'zmon_pool_last_scrub_end_time_seconds{{pool="tank"}} {NOW - 7200}\n'
    'zmon_vdev_checksum_errors_total{class="normal",pool="tank",vdev="sdb"} 4\n'
)


def nvme_errlog(entries: int, media: int = 0) -> str:
    """An NVMe drive as the smart collector serves it: error-log entries and media errors."""
    return (
        'zmon_disk_smart_passed{device="nvme0n1"} 1\n'
        f'zmon_disk_nvme_media_errors_total{{device="nvme0n1"}} {media}\n'
        f'zmon_disk_nvme_error_log_entries_total{{device="nvme0n1"}} {entries}\n'
    )


def counter(metric: str, labels: str, n: float) -> str:
    return f"{metric}{{{labels}}} {n}\n"


def vdev_errors(kind: str, vdev: str, n: float) -> str:
    """A vdev error counter of tank: ``kind`` read, write, checksum or slow_ios."""
    metric = "zmon_vdev_slow_ios_total" if kind == "slow_ios" else f"zmon_vdev_{kind}_errors_total"
    return counter(metric, f'class="normal",pool="tank",vdev="{vdev}"', n)


def events(klass: str, n: float, vdev: str = "sdb") -> str:
    return counter("zmon_zfs_events_total", f'class="{klass}",pool="tank",vdev="{vdev}"', n)


def steps(make, *points: tuple[float, float]) -> tuple[tuple[float, str], ...]:  # type: ignore[no-untyped-def]
    """A history: (seconds before NOW, ``make(value)``) for each point, oldest first."""
    return tuple((before, make(value)) for before, value in points)


def slow_resilver(before: float) -> str:
    """A resilver of 1 TB started 2 h before NOW that issued 400 GB in its first hour and
    1 MB/s since: at that rate it needs a week, its average predicts about 5 h."""
    at = NOW - before
    issued = 4e11 + 1e6 * max(0.0, at - (NOW - 3600))
    return (
        pool_text()
        + RESILVER.replace(f"{NOW - 3600}", f"{NOW - 7200}")
        + ISSUED.format(issued)
        + 'zmon_pool_scan_to_issue_bytes{pool="tank"} 1e12\n'
    )


LINK_SPEED = (
    'zmon_disk_interface_speed_bytes{device="sdb"} 3.75e8\n'
    'zmon_disk_interface_max_speed_bytes{device="sdb"} 7.5e8\n'
)


CASES: dict[str, Case] = {
    "arc_slowdown": Case(
        SLOW_MEMORY[-1][1], "pool tank",
        "reads are 10x slower than usual (p99 99 ms, usually 9.8 ms over the 60 min seen); ARC "
        "hit ratio fell from "
        "97 % to 71 %; 64 % of the misses were ghost hits", history=SLOW_MEMORY),
    "slow_reads": Case(
        SLOW_COLD[-1][1], "pool tank",
        "reads are 10x slower than usual (p99 99 ms, usually 9.8 ms over the 60 min seen); ARC "
        "hit ratio fell from "
        "97 % to 71 %; 4.0 % of the misses were ghost hits", history=SLOW_COLD),
    "pool_unavailable": Case(pool_text(state="suspended")
                             + 'zmon_pool_io_suspended{pool="tank"} 1\n', "pool tank",
                             "state SUSPENDED and I/O suspended"),
    "data_errors": Case(pool_text() + 'zmon_pool_data_errors{pool="tank"} 7\n',
                        "pool tank", "7 permanent data errors"),
    "smart_failed": Case(SDB + 'zmon_disk_smart_passed{device="sdb"} 0\n',
                         "sdb (mirror-0 of tank)", "SMART overall health self-assessment FAILED"),
    "nvme_critical_warning": Case('zmon_disk_nvme_critical_warning{device="nvme0n1"} 4\n',
                                  "nvme0n1", "critical warning flags 0x04"),
    "ups_low_battery": Case('zmon_ups_up{server="s",ups="u"} 1\n'
                            'zmon_ups_status{flag="OB",server="s",ups="u"} 1\n'
                            'zmon_ups_status{flag="LB",server="s",ups="u"} 1\n'
                            'zmon_ups_battery_charge_ratio{server="s",ups="u"} 0.1\n',
                            "UPS u", "on battery, battery LOW, charge 10 %"),
    "pool_degraded": Case(pool_text(state="degraded", vdev_states={"sdb": "offline"}),
                          "pool tank", "sdb is OFFLINE"),
    "vdev_faulted": Case(pool_text(disks=("sda", "sdb", "sdc"), vdev_states={"sdc": "faulted"}),
                         "sdc (mirror-0 of tank)", "state FAULTED"),
    "resilver_stalled": Case(
        pool_text() + RESILVER + ISSUED.format(5e6), "resilver of tank",
        "0 bytes issued in 30 min",
        history=tuple((before, pool_text() + RESILVER + ISSUED.format(
            4e6 if before > 1800 else 5e6)) for before in (2400, 1800, 1200, 600, 0))),
    "cable_fault": Case(
        'zmon_disk_device_info{ata_port="ata3",device="sdc"} 1\n'
        + pool_text(disks=("sdb", "sdc")) +
        'zmon_disk_crc_errors_total{device="sdc"} 37\n'
        'zmon_kernel_log_events_total{device="sdc",pattern="link_reset"} 5\n'
        'zmon_disk_pending_sectors{device="sdc"} 0\n',
        "sdc (ata3, mirror-0 of tank)", "37 CRC errors and 5 link resets, media clean"),
    "media_failing": Case(SDB + 'zmon_disk_pending_sectors{device="sda"} 8\n'
                          'zmon_kernel_log_events_total{device="sda",pattern="medium_error"} 1\n',
                          "sda (mirror-0 of tank)", "8 sectors pending and 1 medium error"),
    "checksum_errors": Case(
        SDB + 'zmon_vdev_checksum_errors_total{class="normal",pool="tank",vdev="sda"} 12\n',
        "sda (mirror-0 of tank)", "12 checksum errors"),
    "io_errors": Case(SDB + 'zmon_vdev_read_errors_total{class="normal",pool="tank",vdev="sdb"} 3\n'
                      'zmon_vdev_write_errors_total{class="normal",pool="tank",vdev="sdb"} 1\n',
                      "sdb (mirror-0 of tank)", "3 read errors and 1 write error"),
    "spare_in_use": Case(SDB + 'zmon_vdev_info{class="spare",device="sdc",parent="",pool="tank",'
                         'state="INUSE",type="disk",vdev="sdc"} 1\n'
                         'zmon_vdev_state{class="spare",pool="tank",state="inuse",vdev="sdc"} 1\n',
                         "sdc (pool tank)", "hot spare INUSE"),
    "capacity": Case(SDB + 'zmon_pool_size_bytes{pool="tank"} 1e12\n'
                     'zmon_pool_allocated_bytes{pool="tank"} 9.3e11\n'
                     'zmon_pool_capacity_ratio{pool="tank"} 0.93\n',
                     "pool tank", "93 % full, 65.2 GiB free", severity="critical"),
    "scrub_overdue": Case(SDB + f'zmon_pool_last_scrub_end_time_seconds{{pool="tank"}} '
                          f'{NOW - 41 * DAY}\n', "pool tank", "last scrub 41 days ago"),
    "scrub_found_errors": Case(
        SDB + SCRUBBED + 'zmon_pool_scan_errors{pool="tank"} 4\n',
        "pool tank", "the last scrub found 4 errors, finished 2 h ago"),
    "dedup_table_too_large": Case(SDB + ARC_BASE + "zmon_arc_hits_total 1e6\n"
                                  'zmon_pool_ddt_in_core_bytes{pool="tank"} 8e8\n',
                                  "pool tank", "dedup table needs 762.9 MiB in RAM, 40 % of ARC "
                                  "max 1.9 GiB"),
    "nvme_worn": Case('zmon_disk_nvme_percentage_used_ratio{device="nvme0n1"} 0.97\n',
                      "nvme0n1", "97 % of rated endurance used"),
    "disk_hot": Case('zmon_disk_temperature_celsius{device="sdd"} 64\n', "sdd", "64 °C"),
    "ups_on_battery": Case(pool_text() + SCRUB + ON_BATTERY, "UPS u",
                           "on battery, about 20 min left, while tank is scanning"),
    "resilver_on_battery": Case(pool_text() + RESILVER + ON_BATTERY
                                + 'zmon_pool_scan_remaining_seconds{pool="tank"} 720\n',
                                "resilver of tank on battery",
                                "UPS u on battery, about 20 min left; the resilver is 15 % done, "
                                "about 12 min to go, started 60 min ago: it should finish before "
                                "the battery runs out"),
    "resilver_source_failing": Case(
        replacing_text("faulted") + RESILVER + 'zmon_disk_pending_sectors{device="sda"} 8\n',
        "sda (mirror-0 of tank)",
        "8 sectors pending, and it holds the only good copy of mirror-0 while tank resilvers "
        "(15 % done, no estimate yet, started 60 min ago)"),
    "ups_unreachable": Case('zmon_ups_up{server="nas:3493",ups="u"} 0\n', "UPS u",
                            "no answer from nas:3493"),
    "collector_failing": Case('zmon_collector_success{collector="smart"} 0\n'
                              'zmon_collector_stale{collector="smart"} 1\n'
                              f'zmon_collector_last_success_timestamp_seconds{{collector="smart"}}'
                              f' {NOW - 600}\n',
                              "collector smart", "last run failed, last good data 10 min ago"),
    "pools_unknown": Case(pool_text() + 'zmon_collector_success{collector="zpool"} 0\n'
                          'zmon_collector_stale{collector="zpool"} 1\n'
                          f'zmon_collector_last_success_timestamp_seconds{{collector="zpool"}}'
                          f' {NOW - 600}\n',
                          "zpool", "has not answered for 10 min; last known state: tank ONLINE, "
                          "10 min ago", severity="warning"),  # ZmonCollectorDataStale's
    "resilver_running": Case(pool_text() + RESILVER + ISSUED.format(5e6) +
                             'zmon_pool_scan_remaining_seconds{pool="tank"} 720\n',
                             "resilver of tank", "15 % done, about 12 min to go, started 60 min "
                             "ago"),
    "arc_too_small": Case(ARC_BASE + "zmon_arc_hits_total 100000\n"
                          "zmon_arc_mru_ghost_hits_total 12000\n"
                          "zmon_arc_mfu_ghost_hits_total 6000\n",
                          "ARC", "ghost hits are 16 % of ARC accesses since boot"),
    "quota_nearly_full": Case(
        SDB + 'zmon_dataset_used_bytes{dataset="tank/a",pool="tank",type="filesystem"} 9.5e9\n'
        'zmon_dataset_quota_bytes{dataset="tank/a",pool="tank",type="filesystem"} 1e10\n',
        "dataset tank/a", "uses 95 % of its quota of 9.3 GiB (8.8 GiB used)"),
    "refquota_nearly_full": Case(
        SDB + 'zmon_dataset_referenced_bytes{dataset="tank/a",pool="tank",type="filesystem"} '
        '9.5e9\nzmon_dataset_refquota_bytes{dataset="tank/a",pool="tank",type="filesystem"} '
        '1e10\n', "dataset tank/a", "references 95 % of its refquota of 9.3 GiB (8.8 GiB)"),
    "snapshot_overdue": Case(
        SDB + 'zmon_dataset_snapshots{dataset="tank/a",pool="tank",type="filesystem"} 3\n'
        'zmon_dataset_newest_snapshot_timestamp_seconds{dataset="tank/a",pool="tank",'
        f'type="filesystem"}} {NOW - 3 * DAY}\n'
        'zmon_dataset_snapshots_expected_since_timestamp_seconds{dataset="tank/a",pool="tank",'
        f'type="filesystem"}} {NOW - 90 * DAY}\n',
        "dataset tank/a", "newest snapshot taken 3 days ago (limit 26 h)"),
    "fragmentation": Case(SDB + 'zmon_pool_fragmentation_ratio{pool="tank"} 0.81\n',
                          "pool tank", "free space 81 % fragmented"),
    "sas_expander_link_errors": Case(
        sas_expander(40), "SAS expander expander-0:0",
        "link errors kept coming on 3 of its PHYs in the last 57 min: phy-0:0:0 (sda), "
        "phy-0:0:1 (sdb) and phy-0:0:2 (sdc)",
        history=tuple((before, sas_expander(n))
                      for before, n in ((3400, 10), (2000, 20), (1500, 30), (0, 40)))),
    "nvme_error_log_rising": Case(
        nvme_errlog(499), "nvme0n1",
        "12 new NVMe error-log entries in the last 50 min (499 logged in its life)",
        history=((3000, nvme_errlog(487)), (1200, nvme_errlog(490)),
                 (0, nvme_errlog(499)))),
    "vdev_failing": Case(
        SDB + vdev_errors("read", "sdb", 7), "sdb (mirror-0 of tank)",
        "7 read or write errors in the last 10 min",
        history=steps(lambda n: SDB + vdev_errors("read", "sdb", n), (600, 0), (300, 3), (0, 7))),
    "deadman_events": Case(
        SDB + events("deadman", 1), "sdb (mirror-0 of tank)",
        "1 ZFS deadman event (an I/O hung) in the last 10 min",
        history=steps(lambda n: SDB + events("deadman", n), (600, 0), (0, 1))),
    "resilver_slow": Case(
        slow_resilver(0), "resilver of tank",
        "at its rate over the last 30 min (976.6 KiB/s) it would take 7 days in all, more than "
        "3 times the 4 h 57 min its average rate predicts, for 30 min",
        history=tuple((b, slow_resilver(b)) for b in range(3600, -1, -300))),
    "sectors_reallocated": Case(
        SDB + counter("zmon_disk_reallocated_sectors", 'device="sdb"', 11),
        "sdb (mirror-0 of tank)",
        "3 more sectors reallocated in the last 2 h (11 sectors reallocated in its life)",
        history=steps(lambda n: SDB + counter("zmon_disk_reallocated_sectors", 'device="sdb"', n),
                      (7200, 8), (0, 11))),
    "nvme_media_errors": Case(
        nvme_errlog(40, media=5), "nvme0n1",
        "3 new NVMe media errors in the last 2 h (5 errors in its life)",
        history=steps(lambda n: nvme_errlog(40, media=n), (7200, 2), (0, 5))),
    "medium_errors": Case(
        SDB + counter("zmon_kernel_log_events_total", 'device="sdb",pattern="medium_error"', 2),
        "sdb (mirror-0 of tank)", "the kernel logged 2 medium errors in the last 20 min",
        history=steps(lambda n: SDB + counter(
            "zmon_kernel_log_events_total", 'device="sdb",pattern="medium_error"', n),
            (1200, 0), (0, 2))),
    "errors_not_cleared": Case(
        SDB + vdev_errors("checksum", "sda", 3), "sda (mirror-0 of tank)",
        "3 checksum errors counted for 60 min while the pool is ONLINE",
        history=steps(lambda n: SDB + vdev_errors("checksum", "sda", n),
                      (3600, 3), (1800, 3), (0, 3))),
    "error_events": Case(
        SDB + events("checksum", 4), "sdb (mirror-0 of tank)",
        "4 ZFS error events (checksum, I/O or data) in the last 10 min",
        history=steps(lambda n: SDB + events("checksum", n), (600, 0), (0, 4))),
    "l2arc_errors": Case(
        "zmon_arc_hits_total 1e6\nzmon_arc_l2_io_errors_total 2\n", "L2ARC",
        "2 I/O errors in the last 5 min",
        history=steps(lambda n: f"zmon_arc_hits_total 1e6\nzmon_arc_l2_io_errors_total {n}\n",
                      (300, 0), (0, 2))),
    "link_slow": Case(
        SDB + LINK_SPEED, "sdb (mirror-0 of tank)", "link at 3 of 6 Gb/s for 30 min",
        history=((1800, SDB + LINK_SPEED), (0, SDB + LINK_SPEED))),
    "ups_runtime_low": Case(
        'zmon_ups_up{server="s",ups="u"} 1\n'
        'zmon_ups_status{flag="OL",server="s",ups="u"} 1\n'
        'zmon_ups_battery_charge_ratio{server="s",ups="u"} 0.4\n'
        'zmon_ups_battery_runtime_seconds{server="s",ups="u"} 300\n',
        "UPS u", "battery runtime about 5 min (limit 10 min), charge 40 %"),
    "scan_on_battery": Case(pool_text() + SCRUB + ON_BATTERY, "scrub of tank on battery",
                            "the scrub is running, no estimate yet, while UPS u is on battery"),
    "kernel_log_not_followed": Case(
        'zmon_kernel_log_following{source="/var/log/kern.log"} 0\n',
        "kernel log /var/log/kern.log", "not followed (missing or unreadable)"),
    "state_not_writable": Case(
        'zmon_collector_state_writable{collector="kernel_log"} 0\n',
        "collector kernel_log", "cannot write its state files"),
}  # fmt: skip


# Close to each history-based finding, but not it: below its count, outside its window, or
# not lasting the alert's ``for:`` yet.
NEAR_MISSES: dict[str, Case] = {
    "vdev_failing": Case(
        SDB + vdev_errors("read", "sdb", 4), "", "",
        history=steps(lambda n: SDB + vdev_errors("read", "sdb", n), (600, 0), (300, 3), (0, 4))),
    "deadman_events": Case(
        SDB + events("deadman", 1), "", "",
        history=steps(lambda n: SDB + events("deadman", n), (1800, 0), (1200, 1), (0, 1))),
    "resilver_slow": Case(
        slow_resilver(0), "", "", history=tuple((b, slow_resilver(b)) for b in (1200, 600, 0))),
    "sectors_reallocated": Case(
        SDB + counter("zmon_disk_reallocated_sectors", 'device="sdb"', 11), "", "",
        history=steps(lambda n: SDB + counter("zmon_disk_reallocated_sectors", 'device="sdb"', n),
                      (7200, 11), (0, 11))),
    "nvme_media_errors": Case(nvme_errlog(40, media=5), "", "",
                              history=steps(lambda n: nvme_errlog(40, media=n), (7200, 5), (0, 5))),
    "medium_errors": Case(
        SDB + counter("zmon_kernel_log_events_total", 'device="sdb",pattern="medium_error"', 2),
        "", "", history=steps(lambda n: SDB + counter(
            "zmon_kernel_log_events_total", 'device="sdb",pattern="medium_error"', n),
            (1200, 2), (0, 2))),
    "errors_not_cleared": Case(
        SDB + vdev_errors("checksum", "sda", 3), "", "",
        history=steps(lambda n: SDB + vdev_errors("checksum", "sda", n), (3000, 3), (0, 3))),
    "error_events": Case(
        SDB + events("checksum", 4), "", "",
        history=steps(lambda n: SDB + events("checksum", n), (600, 4), (0, 4))),
    "l2arc_errors": Case(
        "zmon_arc_hits_total 1e6\nzmon_arc_l2_io_errors_total 2\n", "", "",
        history=steps(lambda n: f"zmon_arc_hits_total 1e6\nzmon_arc_l2_io_errors_total {n}\n",
                      (300, 2), (0, 2))),
    "link_slow": Case(SDB + LINK_SPEED, "", "",
                      history=((1200, SDB + LINK_SPEED), (0, SDB + LINK_SPEED))),
    "ups_runtime_low": Case(
        'zmon_ups_up{server="s",ups="u"} 1\n'
        'zmon_ups_battery_runtime_seconds{server="s",ups="u"} 700\n', "", ""),
    "scan_on_battery": Case(
        pool_text() + ON_BATTERY
        + 'zmon_pool_scan_info{function="scrub",pool="tank",state="finished"} 1\n', "", ""),
    "kernel_log_not_followed": Case(
        'zmon_kernel_log_following{source="/var/log/kern.log"} 1\n', "", ""),
    "state_not_writable": Case('zmon_collector_state_writable{collector="kernel_log"} 1\n', "", ""),
}  # fmt: skip


@pytest.mark.parametrize("rule", sorted(NEAR_MISSES))
def test_near_miss_does_not_fire(rule: str) -> None:
    case = NEAR_MISSES[rule]
    assert [f for f in _found(case) if f.rule == rule] == []


def test_every_rule_has_a_case() -> None:
    assert set(CASES) == set(RULES_BY_ID)


@pytest.mark.parametrize("rule", [r.id for r in RULES])
def test_rule_fires_with_its_words(rule: str) -> None:
    case = CASES[rule]
    mine = [f for f in _found(case) if f.rule == rule]
    assert len(mine) == 1, _found(case)
    f = mine[0]
    assert f.subject == case.subject
    assert f.evidence == case.evidence
    assert f.severity == (case.severity or RULES_BY_ID[rule].severity)
    assert f.line().startswith(f"{case.subject}: {case.evidence} → {f.cause}; ")
    if f.alert:
        assert f.runbook and f.runbook.endswith("#" + f.alert.lower())


def test_each_finding_names_an_alert_its_row_declares() -> None:
    """A hit's own alert (a cable that pages, a stale collector) is one its row lists."""
    for rule, case in CASES.items():
        for f in _found(case):
            assert f.alert in RULES_BY_ID[f.rule].alerts or (
                f.alert is None and not RULES_BY_ID[f.rule].alerts
            ), (rule, f)


@pytest.mark.parametrize("rule", [r.id for r in RULES])
def test_healthy_host_fires_nothing(rule: str) -> None:
    healthy = (
        pool_text() + ARC_BASE + "zmon_arc_hits_total 1e6\n"
        'zmon_disk_smart_passed{device="sda"} 1\n'
        'zmon_disk_crc_errors_total{device="sda"} 0\n'
        'zmon_ups_up{server="s",ups="u"} 1\n'
        'zmon_ups_status{flag="OL",server="s",ups="u"} 1\n'
        'zmon_collector_success{collector="zpool"} 1\n'
        'zmon_pool_last_scrub_end_time_seconds{pool="tank"} '
        f"{NOW - 3 * DAY}\n"
    )
    assert [f for f in findings(healthy) if f.rule == rule] == []


def test_crc_errors_with_bad_media_are_a_dying_disk_not_a_cable() -> None:
    text = CASES["cable_fault"].text + 'zmon_disk_reallocated_sectors{device="sdc"} 16\n'
    rules = {f.rule for f in findings(text)}
    assert "cable_fault" not in rules and "media_failing" in rules


def test_checksum_errors_on_a_disk_with_a_bad_link_are_told_as_the_cable() -> None:
    text = (
        CASES["cable_fault"].text
        + 'zmon_vdev_checksum_errors_total{class="normal",pool="tank",vdev="sdc"} 3\n'
    )
    rules = [f.rule for f in findings(text)]
    assert "cable_fault" in rules and "checksum_errors" not in rules


def test_a_slow_link_joins_the_cable_evidence() -> None:
    text = CASES["cable_fault"].text + (
        'zmon_disk_interface_speed_bytes{device="sdc"} 1.875e8\n'
        'zmon_disk_interface_max_speed_bytes{device="sdc"} 7.5e8\n'
    )
    (f,) = [f for f in findings(text) if f.rule == "cable_fault"]
    assert "link at 1.5 of 6 Gb/s" in f.evidence


def test_a_resilver_that_moves_is_not_stalled() -> None:
    case = CASES["resilver_stalled"]
    h = History(step=1.0)
    for i, before in enumerate((2400, 1800, 1200, 600, 0)):
        h.observe(NOW - before, read_model(families(pool_text() + RESILVER + ISSUED.format(i))))
    rules = {f.rule for f in findings(case.text, h)}
    assert "resilver_stalled" not in rules and "resilver_running" in rules


def test_a_paused_resilver_is_not_stalled() -> None:
    case = CASES["resilver_stalled"]
    paused = case.text + 'zmon_pool_scan_paused{pool="tank"} 1\n'
    h = _hist(case)
    assert "resilver_stalled" not in {f.rule for f in findings(paused, h)}


def test_arc_ratio_uses_the_recording_rules_5_minutes_when_there_are_some() -> None:
    h = History(step=1.0)
    for before, hits, ghost in ((300, 100_000, 36_000), (0, 200_000, 37_000)):
        h.observe(
            NOW - before,
            read_model(
                families(
                    ARC_BASE.replace("10000", str(hits // 10)) + f"zmon_arc_hits_total {hits}\n"
                    f"zmon_arc_mru_ghost_hits_total {ghost}\n"
                )
            ),
        )
    text = ARC_BASE + "zmon_arc_hits_total 200000\nzmon_arc_mru_ghost_hits_total 37000\n"
    # 17 % of accesses since boot, but 0.9 % in the last 5 minutes: the recent window decides
    assert [f.rule for f in findings(text) if f.rule == "arc_too_small"] == ["arc_too_small"]
    assert [f for f in findings(text, h) if f.rule == "arc_too_small"] == []


def test_few_arc_accesses_say_nothing() -> None:
    text = "zmon_arc_hits_total 100\nzmon_arc_misses_total 10\nzmon_arc_mru_ghost_hits_total 90\n"
    assert [f for f in findings(text) if f.rule == "arc_too_small"] == []


def test_findings_are_sorted_most_severe_first() -> None:
    text = CASES["fragmentation"].text + 'zmon_pool_data_errors{pool="tank"} 1\n'
    severities = [f.severity for f in findings(text)]
    assert severities == sorted(severities, key=("critical", "warning", "info").index)


def test_cable_evidence_counts_what_is_new_in_the_recent_history() -> None:
    case = CASES["cable_fault"]
    h = History(step=1.0)
    for before, crc in ((3000, 30), (1200, 33), (0, 37)):
        h.observe(NOW - before, read_model(families(case.text.replace(" 37\n", f" {crc}\n"))))
    (f,) = [f for f in findings(case.text, h) if f.rule == "cable_fault"]
    assert f.evidence == "37 CRC errors (7 in the last 50 min) and 5 link resets, media clean"


def test_new_link_errors_never_exceed_the_totals_they_belong_to() -> None:
    """The disk counted 34 CRC errors in its life; the kernel logged 91 since zmon started,
    and 3 link resets. The words print the larger CRC total, and what is new of each total
    right after it (not kernel CRC errors counted as "link events" beside SMART's total)."""
    base = pool_text(disks=("sdb", "sdc")) + 'zmon_disk_crc_errors_total{device="sdc"} 34\n'

    def text(crc: int, resets: int) -> str:
        return base + (
            f'zmon_kernel_log_events_total{{device="sdc",pattern="crc_error"}} {crc}\n'
            f'zmon_kernel_log_events_total{{device="sdc",pattern="link_reset"}} {resets}\n'
        )

    h = History(step=1.0)
    for before, crc, resets in ((300, 0, 0), (150, 40, 1), (0, 91, 3)):
        h.observe(NOW - before, read_model(families(text(crc, resets))))
    (f,) = [f for f in findings(text(91, 3), h) if f.rule == "cable_fault"]
    # 91 is the larger total; 57 of it is new (34 -> 91: SMART's 34 was the floor 5 min ago)
    assert f.evidence == (
        "91 CRC errors (57 in the last 5 min) and 3 link resets (3 in the last 5 min), media clean"
    )


def _errlog_history(*counts: int, media: int = 0) -> History:
    h = History(step=1.0)
    for before, n in zip((3000, 1200, 0), counts, strict=True):
        h.observe(NOW - before, read_model(families(nvme_errlog(n, media))))
    return h


def test_an_unchanged_nvme_error_log_says_nothing() -> None:
    """499 entries logged over the drive's life are history, not news (no rise, no finding)."""
    text = nvme_errlog(499)
    assert [f for f in findings(text, _errlog_history(499, 499, 499)) if "nvme" in f.rule] == []
    assert [f for f in findings(text) if f.rule == "nvme_error_log_rising"] == []


def test_a_rising_nvme_error_log_joins_the_media_evidence() -> None:
    """With media errors the failing-media finding tells the rise; no second finding."""
    text = nvme_errlog(499, media=3)
    got = findings(text, _errlog_history(487, 490, 499, media=3))
    assert [f.rule for f in got] == ["media_failing"]
    assert got[0].evidence == (
        "3 NVMe media errors and 12 new NVMe error-log entries in the last 50 min"
    )


def test_checksum_advice_follows_the_scrub_state() -> None:
    """No "run zpool scrub" right after a scrub finished, nor while one runs."""
    errors = SDB + 'zmon_vdev_checksum_errors_total{class="normal",pool="tank",vdev="sda"} 12\n'
    finished = (
        'zmon_pool_scan_info{function="scrub",pool="tank",state="finished"} 1\n'
        f'zmon_pool_scan_end_time_seconds{{pool="tank"}} {NOW - 29}\n'
        f'zmon_pool_last_scrub_end_time_seconds{{pool="tank"}} {NOW - 29}\n'
    )
    (just_after,) = [f for f in findings(errors + finished) if f.rule == "checksum_errors"]
    assert "run zpool scrub" not in just_after.action
    assert just_after.action.startswith("the scrub that finished 29 s ago read every block")
    assert "zpool clear tank" in just_after.action
    (during,) = [f for f in findings(errors + SCRUB) if f.rule == "checksum_errors"]
    assert "run zpool scrub" not in during.action and "let the scrub finish" in during.action
    old = f'zmon_pool_last_scrub_end_time_seconds{{pool="tank"}} {NOW - 20 * DAY}\n'
    (later,) = [f for f in findings(errors + old) if f.rule == "checksum_errors"]
    assert later.action.startswith("run zpool scrub tank")


CABLE_ON_SDC = (
    'zmon_disk_crc_errors_total{device="sdc"} 37\n'
    'zmon_kernel_log_events_total{device="sdc",pattern="link_reset"} 5\n'
)


def _cable(text: str, history: History | None = None):  # type: ignore[no-untyped-def]
    (f,) = [f for f in findings(text, history) if f.rule == "cable_fault"]
    return f


def test_a_suspect_cable_pages_where_its_disks_loss_leaves_no_redundancy() -> None:
    mirror = pool_text(disks=("sdb", "sdc")) + CABLE_ON_SDC
    two_way = 'zmon_vdev_redundancy{class="normal",pool="tank",vdev="mirror-0"} 1\n'
    three_way = 'zmon_vdev_redundancy{class="normal",pool="tank",vdev="mirror-0"} 2\n'
    paged = _cable(mirror + two_way)
    assert (paged.severity, paged.alert) == ("critical", "DiskLinkFailing")
    ticket = _cable(mirror + three_way)
    assert (ticket.severity, ticket.alert) == ("warning", "DiskCableFault")


def test_a_suspect_cable_on_a_disk_in_no_pool_is_a_ticket() -> None:
    f = _cable(pool_text(disks=("sda", "sdb")) + CABLE_ON_SDC)
    assert (f.severity, f.alert) == ("warning", "DiskCableFault")
    assert f.subject == "sdc"


def test_a_suspect_cable_pages_while_zfs_counts_errors_on_its_vdev() -> None:
    text = (
        pool_text(disks=("sdb", "sdc"))
        + 'zmon_vdev_redundancy{class="normal",pool="tank",vdev="mirror-0"} 2\n'
        + 'zmon_vdev_checksum_errors_total{class="normal",pool="tank",vdev="sdc"} 3\n'
    )
    h = History(step=1.0)
    for before, crc in ((600, 30), (0, 37)):
        link = f'zmon_disk_crc_errors_total{{device="sdc"}} {crc}\n'
        h.observe(NOW - before, read_model(families(text + link)))
    f = _cable(text + CABLE_ON_SDC, h)
    assert (f.severity, f.alert) == ("critical", "DiskLinkFailing")
    # the same counts with no new link error in the history: a ticket
    assert _cable(text + CABLE_ON_SDC).severity == "warning"


def test_a_suspended_pools_failed_writes_are_its_own_finding_not_a_failing_path() -> None:
    """As ZfsVdevFailing leaves out a pool that is unavailable or suspended (one page for
    one incident: the pool's)."""
    suspended = pool_text(state="suspended")

    def text(n: float) -> str:
        return suspended + vdev_errors("write", "sdb", n)

    h = History(step=1.0)
    for before, n in ((600, 0), (0, 9)):
        h.observe(NOW - before, read_model(families(text(n))))
    rules = {f.rule for f in findings(text(9), h)}
    assert "pool_unavailable" in rules and "vdev_failing" not in rules


def test_a_scrub_that_repaired_data_found_errors_as_its_alert_says() -> None:
    """ZfsScrubFoundErrors: the scrub counted errors or repaired bytes, ended within 7 days,
    and the vdev counters (or the data errors) still show them."""
    repaired = 'zmon_pool_scan_processed_bytes{pool="tank"} 8884224\n'
    (f,) = [f for f in findings(SDB + SCRUBBED + repaired) if f.rule == "scrub_found_errors"]
    assert f.evidence == "the last scrub repaired 8.5 MiB, finished 2 h ago"
    assert f.alert == "ZfsScrubFoundErrors"
    cleared = SCRUBBED.replace("} 4\n", "} 0\n")
    assert not [f for f in findings(SDB + cleared + repaired) if f.rule == "scrub_found_errors"]
    old = SCRUBBED.replace(f"{NOW - 7200}", f"{NOW - 8 * DAY}")
    assert not [f for f in findings(SDB + old + repaired) if f.rule == "scrub_found_errors"]
