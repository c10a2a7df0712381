"""zmon's recording and alerting rules, as data rendered from one thresholds table.

Conventions: alert names are CamelCase with a Zfs/Disk/Ups/Zmon prefix; severity is critical
(act now: data or availability at risk), warning (act within the day) or info (tuning). Every
alert has a static summary, a templated description naming host, pool, vdev and device where
they apply, and a runbook_url pointing at its section of RUNBOOK.md.
"""

from __future__ import annotations

from alert_rules.building import (
    DISK,
    DISK_,
    DISK_LOCATION,
    POOL,
    VDEV,
    VDEV_DISK,
    VDEV_INFO,
    Alert,
    Group,
    Record,
    counted_since,
    events_per_vdev,
    fill_alert,
    hysteresis,
    paren,
    per_vdev,
    rise,
    with_pool,
    x,
)
from alert_rules.datasets import dataset_alerts
from alert_rules.slowdown import ARC_ACCESSES, arc_records, slowdown_group
from alert_rules.zmon_state import zmon_state_alerts
from zmon.judgment import declarations
from zmon.judgment.thresholds import JOB_SELECTOR, Duration, Thresholds, format_seconds
from zmon.status.ratios import ARC_GHOST_HITS_PER_ACCESS


def recording_rules(t: Thresholds) -> Group:
    """Records that several groups join with. A record used by one group's alerts lives in
    that group, before them: rules of a group run in order, so the alerts see fresh values."""
    return Group("zmon-recording", [Record.of(r) for r in declarations.shared_records(t)])


ERROR_RECORDS = [
    Record("zmon:vdev_errors:sum", x("""
        zmon_vdev_read_errors_total
        + zmon_vdev_write_errors_total
        + zmon_vdev_checksum_errors_total
    """)),
]  # fmt: skip

CAPACITY_RECORDS = [
    Record("zmon:pool_capacity:ratio", "zmon_pool_allocated_bytes / (zmon_pool_size_bytes > 0)"),
]


def scan_records(t: Thresholds) -> list[Record]:
    running = "(max by (instance, job, pool) (zmon_pool_scan_in_progress) == 1)"
    return [
        Record(
            "zmon:pool_scan_elapsed:seconds",
            x(f"""
            (time() - zmon_pool_scan_start_time_seconds)
            and on(instance, job, pool) {running}
        """),
        ),
        Record(
            "zmon:pool_scan_issued_bytes:rate",
            x(f"""
            rate(zmon_pool_scan_issued_bytes[{t.resilver_rate_window}])
            and on(instance, job, pool) {running}
        """),
        ),
        Record(
            "zmon:pool_scan_eta:seconds",
            x("""
            (
              (zmon_pool_scan_to_issue_bytes or zmon_pool_scan_to_examine_bytes)
              - zmon_pool_scan_issued_bytes
            )
            / (zmon:pool_scan_issued_bytes:rate > 0)
        """),
        ),
    ]


def pool_alerts(t: Thresholds) -> Group:
    return Group("zmon-pools", [Alert.of(c) for c in declarations.pool_conditions(t)])


def stuck_alerts(t: Thresholds) -> Group:
    """ZFS itself stuck: from sources that do not hang together with ``zpool`` (a suspended
    pool on OpenZFS 2.1 makes zpool status and zpool events block for good)."""
    w, tw = t.stuck_window, t.stuck_timeouts_window
    where = "instance=%q,pool=%q"
    args = "$labels.instance $labels.pool"
    seen = (
        f'{{{{ with printf "zmon_pool_kstat_state{{{where},state!=\\"online\\"}} == 1" {args} '
        "| query }}"
        "{{ with . | first }} kstat state {{ .Labels.state | toUpper }};{{ end }}{{ end }}"
        f'{{{{ with printf "increase(zmon_kernel_log_pool_events_total{{{where},'
        f'pattern=\\"pool_suspended\\"}}[{w}]) > 0" {args} | query }}}}'
        " the kernel logged the pool's suspension;{{ end }}"
        f'{{{{ with printf "changes(zmon_pool_txg_sync_duration_seconds_count{{{where}}}[{w}]) '
        f'== 0" {args} | query }}}} no transaction group committed in {w} (txg kstat);{{{{ end }}}}'
        f'{{{{ with printf "sum(increase(zmon_vdev_write_errors_total{{{where}}}[{w}])) > 0" '
        f"{args} | query }}}}{{{{ with . | first | value }}}} its disks failed "
        f"{{{{ . | humanize }}}} writes in {w} (ZFS retries them);{{{{ end }}}}{{{{ end }}}}"
        '{{ with printf "increase(zmon_collector_runs_total{instance=%q,collector=\\"zpool\\",'
        f'result=\\"timeout\\"}}[{tw}])" $labels.instance | query }}}}'
        "{{ with . | first | value }} zpool timed out {{ . | humanize }} times in the last "
        f"{tw};{{{{ end }}}}{{{{ end }}}}"
    )
    return Group(
        "zmon-stuck",
        [
            Alert(
                "ZfsPoolStuck",
                x(f"""
            max by (instance, job, pool) (
              zmon_pool_kstat_state{{state="suspended"}} == 1
              or
              increase(zmon_kernel_log_pool_events_total{{pattern="pool_suspended"}}[{w}]) > 0
              or
              (
                changes(zmon_pool_txg_sync_duration_seconds_count[{w}]) == 0
                and zmon_pool_txg_sync_duration_seconds_count offset {w}
                and on(instance, job, pool)
                sum by (instance, job, pool) (increase(zmon_vdev_write_errors_total[{w}])) > 0
                and on(instance, job)
                zmon_collector_success{{collector="txg"}} == 1
              )
              or
              (
                (
                  zmon_pool_kstat_state{{state!="online"}} == 1
                  or
                  changes(zmon_pool_txg_sync_duration_seconds_count[{w}]) == 0
                  and zmon_pool_txg_sync_duration_seconds_count offset {w}
                )
                and on(instance, job)
                (
                  zmon_collector_success{{collector="zpool"}} == 0
                  and on(instance, job)
                  increase(zmon_collector_runs_total{{collector="zpool", result="timeout"}}[{tw}])
                  >= {t.stuck_timeouts}
                )
              )
            )
        """),
                "ZFS is stuck on a pool: I/O is suspended, writes cannot commit, or zpool hangs.",
                f"ZFS {POOL} is stuck. Seen:{seen} Writes to it block, and zpool may hang on "
                "it. Check the pool's disks, cabling and "
                "controller; zpool clear {{ $labels.pool }} resumes I/O once they are back.",
                str(t.stuck_for),
            ),
        ],
    )


# the identity of a vdev alert, for the exact counts its description looks up
BY_VDEV = "instance=%q,pool=%q,vdev=%q|$labels.instance $labels.pool $labels.vdev"
ERROR_EVENTS = 'zmon_zfs_events_total{class=~"checksum|io|data"}'
CHECKSUM, READS, WRITES = (f"zmon_vdev_{k}_errors_total" for k in ("checksum", "read", "write"))
CHECKSUM_ERRORS = ("checksum error", "checksum errors")
ERROR_EVENT_WORDS = ("error event", "error events")
READ_ERRORS, WRITE_ERRORS = ("read error", "read errors"), ("write error", "write errors")


def integrity_alerts(t: Thresholds) -> Group:
    w = t.error_window
    return Group(
        "zmon-integrity",
        [
            *ERROR_RECORDS,
            Alert(
                "ZfsVdevChecksumErrors",
                per_vdev(f"increase(zmon_vdev_checksum_errors_total[{w}]) > 0"),
                "A ZFS vdev returned data that failed its checksum (silent corruption).",
                f"ZFS {VDEV} had {counted_since(CHECKSUM, w, BY_VDEV, *CHECKSUM_ERRORS)} in the "
                f"last {w}. "
                "ZFS repaired what redundancy allowed; find the cause (disk, cable, controller, "
                "memory) before the next disk fails.",
            ),
            Alert(
                "ZfsVdevIOErrors",
                per_vdev(
                    x(f"""
                  (
                    increase(zmon_vdev_read_errors_total[{w}])
                    + increase(zmon_vdev_write_errors_total[{w}])
                  ) > 0
              """)
                ),
                "A ZFS vdev had new read or write errors.",
                f"ZFS {VDEV} had "
                f"{counted_since(READS, w, BY_VDEV, *READ_ERRORS, 'no new read errors')} and "
                f"{counted_since(WRITES, w, BY_VDEV, *WRITE_ERRORS, 'no new write errors')} "
                f"in the last {w}.",
            ),
            failing_path_alert(t),
            Alert(
                "ZfsPoolDataErrors",
                x("""
            zmon_pool_data_errors > 0
            or on(instance, job, pool) (zmon_pool_data_errors_present == 1)
        """),
                "A ZFS pool has permanent data errors (data lost).",
                f"ZFS {POOL} has permanent data errors: blocks that no copy could repair. "
                "List the damaged files with zpool status -v {{ $labels.pool }}.",
            ),
            Alert(
                "ZfsPoolErrorsNotCleared",
                per_vdev(
                    x("""
                  zmon:vdev_errors:sum > 0
                  and on(instance, job, pool) (zmon_pool_state{state="online"} == 1)
              """)
                ),
                "An ONLINE ZFS pool still shows non-zero vdev error counters.",
                f"ZFS {VDEV} shows {{{{ $value | humanize }}}} read/write/checksum errors while "
                "the pool is ONLINE. Find the cause, then run zpool clear {{ $labels.pool }}.",
                str(t.errors_not_cleared_for),
            ),
            Alert(
                "ZfsErrorEvents",
                events_per_vdev(ERROR_EVENTS, w),
                "ZFS posted checksum, I/O or data error events.",
                f"ZFS posted {counted_since(ERROR_EVENTS, w, BY_VDEV, *ERROR_EVENT_WORDS)} "
                f"(checksum, I/O or data) in the last {w} for pool {{{{ $labels.pool }}}}"
                "{{ with $labels.vdev }} vdev {{ . }}"
                f"{{{{ end }}}}{VDEV_DISK} on {{{{ $labels.instance }}}}. See zpool events -v.",
            ),
            Alert(
                "ZfsDeadmanEvents",
                events_per_vdev('zmon_zfs_events_total{class="deadman"}', w),
                "ZFS detected I/O that hung (deadman).",
                "ZFS deadman fired for pool {{ $labels.pool }}{{ with $labels.vdev }} vdev {{ . }}"
                f"{{{{ end }}}}{VDEV_DISK} on "
                "{{ $labels.instance }}: an I/O did not complete within "
                "zfs_deadman_synctime_ms.",
            ),
        ],
    )


def failing_path_alert(t: Thresholds) -> Alert:
    """Page while a disk's path fails, before ZFS faults the vdev and redundancy is lost.

    Repaired errors that come once are tickets (ZfsVdevIOErrors, ZfsVdevChecksumErrors,
    DiskCableFault); errors that keep coming are what precedes a FAULTED vdev.
    """
    w = t.failing_window
    h = Duration(format_seconds(max(1, w.seconds // 2)))
    before = f"[{h}] offset {h})"

    def both_halves(metric: str) -> str:
        return f"increase({metric}[{h}]) > 0\nand increase({metric}{before} > 0"

    link_now = x(f"""
        sum by (instance, job, device) (increase(zmon_disk_crc_errors_total[{h}])) > 0
        or
        sum by (instance, job, device) (
          increase(zmon_kernel_log_events_total{{pattern=~"{t.cable_patterns}"}}[{h}])
        ) > 0
    """)
    link_before = link_now.replace(f"[{h}])", before)
    leaf_link_rising = "\n".join(
        [
            VDEV_INFO,
            f"* on(instance, job, device) group_left() {paren(link_now)}",
            f"* on(instance, job, device) group_left() {paren(link_before)}",
        ]
    )
    zfs_errors = x(f"""
        increase(zmon_vdev_read_errors_total[{w}])
        + increase(zmon_vdev_write_errors_total[{w}])
        + increase(zmon_vdev_checksum_errors_total[{w}])
        > 0
    """)
    io_errors = x(f"""
        increase(zmon_vdev_read_errors_total[{w}])
        + increase(zmon_vdev_write_errors_total[{w}])
        >= {t.failing_io_errors}
    """)
    # a scrub reads old data and repairs what it finds, for hours: its repairs are tickets
    # (ZfsVdevChecksumErrors, ZfsScrubFoundErrors), not a failing path
    checksum = (
        f"increase(zmon_vdev_checksum_errors_total[{w}]) >= {t.failing_checksum_errors}\n"
        f"and {both_halves('zmon_vdev_checksum_errors_total')}\n"
        'unless on(instance, job, pool) (zmon_pool_scan_in_progress{function="scrub"} == 1)'
    )
    expr = "\nor\n".join(
        [
            paren(io_errors),
            paren(checksum),
            paren(both_halves("zmon_vdev_slow_ios_total")),
            paren(f"{zfs_errors}\nand on(instance, job, pool, vdev) {paren(leaf_link_rising)}"),
        ]
    )
    where = "instance=%q,pool=%q,vdev=%q"
    args = "$labels.instance $labels.pool $labels.vdev"

    def seen(query: str, text: str, arguments: str = args) -> str:
        return (
            f'{{{{ with printf "{query}" {arguments} | query }}}}'
            f"{{{{ with . | first | value }}}} {text};{{{{ end }}}}{{{{ end }}}}"
        )

    def vdev_sum(metrics: tuple[str, ...]) -> str:
        return " + ".join(f"sum(increase({m}{{{where}}}[{w}]))" for m in metrics)

    disk = "instance=%q,device=%q"
    disk_args = "$labels.instance $disk"
    link_seen = (
        '{{ with printf "zmon:vdev_device:info{instance=%q,pool=%q,vdev=%q}" '
        f"{args} | query }}}}{{{{ with . | first }}}}{{{{ $disk := .Labels.device }}}}"
        + seen(
            f"sum(increase(zmon_kernel_log_events_total{{{disk},"
            f'pattern=~\\"{t.cable_patterns}\\"}}[{w}])) > 0',
            "the link of disk {{ $disk }} logged {{ . | humanize }} CRC errors, "
            "resets or timeouts (suspect the cable or port)",
            disk_args,
        )
        + "{{ end }}{{ end }}"
    )
    seen_text = (
        seen(
            f"{vdev_sum(('zmon_vdev_read_errors_total', 'zmon_vdev_write_errors_total'))} > 0",
            "{{ . | humanize }} read/write errors",
            f"{args} {args}",
        )
        + seen(f"{vdev_sum(('zmon_vdev_checksum_errors_total',))} > 0",
               "{{ . | humanize }} checksum errors")
        + seen(f"{vdev_sum(('zmon_vdev_slow_ios_total',))} > 0", "{{ . | humanize }} slow I/Os")
        + link_seen
    )  # fmt: skip
    return Alert(
        "ZfsVdevFailing",
        per_vdev(expr),
        "A disk's path keeps failing: ZFS is about to fault the vdev.",
        f"ZFS {VDEV} keeps failing I/O. In the last {w}:{seen_text} ZFS faults a vdev after "
        "10 I/O errors in 10 minutes, and its vdev then loses redundancy. Check the cable and "
        "port, the kernel log and zpool status -v {{ $labels.pool }} now; replace the disk "
        "while redundancy is still there.",
    )


def scan_alerts(t: Thresholds) -> Group:
    stall = t.resilver_stall_window
    return Group(
        "zmon-scans",
        [
            *scan_records(t),
            Alert(
                "ZfsResilverStalled",
                x(f"""
            zmon_pool_scan_in_progress{{function=~"resilver|rebuild"}} == 1
            unless on(instance, job, pool) (zmon_pool_scan_paused == 1)
            and on(instance, job, pool) (changes(zmon_pool_scan_issued_bytes[{stall}]) == 0)
            and on(instance, job, pool) (zmon_pool_scan_issued_bytes offset {stall})
            and on(instance, job, pool)
            (time() - zmon_pool_scan_start_time_seconds > {stall.seconds})
            unless on(instance, job, pool)
            (changes(zmon_pool_scan_examined_bytes[{stall}]) > 0)
            unless on(instance, job)
            (max_over_time(zmon_collector_stale{{collector="zpool"}}[{stall}]) == 1)
        """),
                "A ZFS resilver has stopped making progress.",
                f"The {{{{ $labels.function }}}} of {POOL} has neither examined nor issued any "
                f"bytes for {stall} and is not paused, while zpool status answers; the pool stays "
                "without redundancy until it completes.",
                str(t.resilver_stall_for),
            ),
            Alert(
                "ZfsResilverSlow",
                x(f"""
            (zmon:pool_scan_elapsed:seconds + zmon:pool_scan_eta:seconds)
            > {t.resilver_slow_factor} * zmon:pool_scan_elapsed:seconds
              * (zmon_pool_scan_to_issue_bytes or zmon_pool_scan_to_examine_bytes)
              / (zmon_pool_scan_issued_bytes > 0)
            and on(instance, job, pool)
            (zmon_pool_scan_in_progress{{function=~"resilver|rebuild"}} == 1)
            and on(instance, job, pool)
            (zmon:pool_scan_elapsed:seconds > {t.resilver_slow_min_age.seconds})
        """),
                "A ZFS resilver will take far longer than its own average rate predicts.",
                f"At its rate over the last {t.resilver_rate_window}, the resilver of {POOL} "
                f"would take {{{{ $value | humanizeDuration }}}} in all, more than "
                f"{t.resilver_slow_factor:g} times what its average rate so far predicts. "
                "Look for a slow or failing disk and competing load.",
                str(t.resilver_slow_for),
            ),
            Alert(
                "ZfsScrubOverdue",
                x(f"""
            (
              time() - zmon_pool_last_scrub_end_time_seconds > {t.scrub_max_age.seconds}
              or
              (
                time() - zmon_pool_creation_time_seconds > {t.scrub_max_age.seconds}
                unless on(instance, job, pool) zmon_pool_last_scrub_end_time_seconds
                and on(instance, job, pool) zmon_pool_state
              )
            )
            unless on(instance, job, pool) (zmon_pool_scan_in_progress{{function="scrub"}} == 1)
        """),
                "A ZFS pool has not been scrubbed recently, or never.",
                '{{ with printf "zmon_pool_last_scrub_end_time_seconds{instance=%q,pool=%q}" '
                "$labels.instance $labels.pool | query }}The last completed scrub of "
                f"{POOL} ended {{{{ $value | humanizeDuration }}}} ago{{{{ else }}}}ZFS {POOL} "
                "was created {{ $value | humanizeDuration }} ago and has never been scrubbed"
                f"{{{{ end }}}} (limit {t.scrub_max_age}). Run or schedule "
                f"zpool scrub {{{{ $labels.pool }}}}.",
                str(t.scrub_overdue_for),
            ),
            Alert(
                "ZfsScrubFoundErrors",
                x(f"""
            (
              zmon_pool_last_scrub_errors > 0
              or on(instance, job, pool)
              (
                zmon_pool_scan_processed_bytes > 0
                and on(instance, job, pool)
                zmon_pool_scan_info{{function="scrub", state="finished"}}
              )
            )
            and on(instance, job, pool)
            (time() - zmon_pool_last_scrub_end_time_seconds < {t.scrub_errors_max_age.seconds})
            and on(instance, job, pool)
            (
              sum by (instance, job, pool) (
                zmon_vdev_read_errors_total + zmon_vdev_write_errors_total
                + zmon_vdev_checksum_errors_total
              ) > 0
              or zmon_pool_data_errors > 0
              or zmon_pool_data_errors_present == 1
            )
        """),
                "The last ZFS scrub found errors.",
                f"The last scrub of {POOL} found damaged data (repaired, or errors it could not "
                "repair). Check zpool status -v {{ $labels.pool }} and the vdev error counters. "
                "The alert ends when zpool clear resets them, or "
                f"{t.scrub_errors_max_age} after the scrub.",
            ),
        ],
    )


def capacity_alerts(t: Thresholds) -> Group:
    def level(name: str, on: float, off: float, summary: str, above: str, rest: str) -> Alert:
        """Fires above ``on``, clears below ``off`` (hysteresis)."""
        return fill_alert(
            name,
            hysteresis("zmon:pool_capacity:ratio", name, on, off),
            summary,
            subject=f"ZFS {POOL} is",
            filled="full",
            bounds=f"{above} {on:.0%}, clears below {off:.0%}",
            consequence=rest,
            for_=t.capacity_for,
        )

    return Group(
        "zmon-capacity",
        [
            *CAPACITY_RECORDS,
            level(
                "ZfsPoolCapacityWarning",
                t.capacity_warning_on,
                t.capacity_warning_off,
                "A ZFS pool is filling up.",
                "warns above",
                ".",
            ),
            level(
                "ZfsPoolCapacityCritical",
                t.capacity_critical_on,
                t.capacity_critical_off,
                "A ZFS pool is nearly full.",
                "above",
                "; writes slow down sharply and will fail when it is full.",
            ),
            Alert(
                "ZfsPoolFragmentationHigh",
                f"zmon_pool_fragmentation_ratio > {t.fragmentation_max}",
                "A ZFS pool's free space is highly fragmented.",
                f"Free space of {POOL} is {{{{ $value | humanizePercentage }}}} fragmented; "
                "allocation and writes slow down, worse as the pool fills.",
                str(t.fragmentation_for),
            ),
        ],
    )


def memory_alerts(t: Thresholds) -> Group:
    w = t.error_window
    return Group(
        "zmon-memory",
        [
            *arc_records(),
            Alert(
                "ZfsDedupTableTooLarge",
                x(f"""
            zmon_pool_ddt_in_core_bytes
            / on(instance, job) group_left() (zmon_arc_max_size_bytes > 0)
            > {t.ddt_arc_share_max}
        """),
                "A ZFS dedup table takes a large share of the ARC.",
                f"The dedup table of {POOL} needs {{{{ $value | humanizePercentage }}}} of the "
                f"ARC maximum in memory (limit {t.ddt_arc_share_max:.0%}); it will crowd out "
                "cached data and slow every write.",
            ),
            Alert(
                "ZfsArcGhostHitsHigh",
                x(f"""
            {ARC_GHOST_HITS_PER_ACCESS.record} > {t.arc_ghost_hit_ratio_max}
            and on(instance, job) {ARC_ACCESSES} > {t.arc_min_ops}
        """),
                "ZFS ARC ghost hits are high: the ARC looks too small.",
                "On {{ $labels.instance }}, ghost hits are {{ $value | humanizePercentage }} "
                "of ARC accesses: recently evicted blocks are read again. A larger ARC "
                "(zfs_arc_max) or an L2ARC would serve them.",
                str(t.arc_for),
            ),
            Alert(
                "ZfsL2arcErrors",
                x(f"""
            increase(zmon_arc_l2_io_errors_total[{w}]) > 0
            or increase(zmon_arc_l2_checksum_errors_total[{w}]) > 0
        """),
                "The ZFS L2ARC device returned I/O or checksum errors.",
                "The L2ARC (cache) device on {{ $labels.instance }} returned errors in the last "
                f"{w}. ZFS falls back to the pool, but check the cache device.",
            ),
        ],
    )


def disk_alerts(t: Thresholds) -> Group:
    cw, sw = t.cable_window, t.sector_window
    awake = "unless on(instance, job, device) (zmon_disk_standby == 1)"
    return Group(
        "zmon-disks",
        [
            Record.of(declarations.DISK_REDUNDANCY),
            *(Alert.of(c) for c in declarations.cable_conditions(t)),
            Alert(
                "DiskSmartFailed",
                with_pool("zmon_disk_smart_passed == 0"),
                "A disk failed its SMART overall health self-assessment.",
                f"{DISK_} reports SMART health FAILED. Replace it{DISK_LOCATION}.",
            ),
            Alert(
                "DiskReallocatedSectorsRising",
                with_pool(
                    x(f"""
            {rise("zmon_disk_reallocated_sectors", sw)} > 0
            or {rise("zmon_disk_scsi_grown_defects", sw)} > 0
        """)
                ),
                "A disk is reallocating sectors.",
                f"{DISK_} remapped {{{{ $value | humanize }}}} more sectors in the last {sw}. "
                f"Plan its replacement{DISK_LOCATION}.",
            ),
            Alert(
                "DiskPendingSectorsRising",
                with_pool(
                    x(f"""
            {rise("zmon_disk_pending_sectors", sw)} > 0
            or {rise("zmon_disk_offline_uncorrectable_sectors", sw)} > 0
        """)
                ),
                "A disk has new pending or uncorrectable sectors.",
                f"{DISK_} has {{{{ $value | humanize }}}} more pending or offline-uncorrectable "
                f"sectors than at its lowest in the last {sw}: sectors it cannot read. "
                f"Scrub the pool and plan the disk's replacement{DISK_LOCATION}.",
            ),
            Alert(
                "DiskNvmeMediaErrors",
                with_pool(f"increase(zmon_disk_nvme_media_errors_total[{sw}]) > 0"),
                "An NVMe drive reported new media errors.",
                f"{DISK_} had {{{{ $value | humanize }}}} new NVMe media and data integrity "
                f"errors in the last {sw}{DISK_LOCATION}.",
            ),
            Alert(
                "DiskMediumErrors",
                with_pool(
                    x(f"""
            sum by (instance, job, device) (
              increase(zmon_kernel_log_events_total{{pattern="medium_error"}}[{cw}])
            ) > 0
        """)
                ),
                "The kernel logged medium errors for a disk.",
                f"The kernel logged {{{{ $value | humanize }}}} medium errors for {DISK} in the "
                f"last {cw}: the disk could not read a sector{DISK_LOCATION}.",
            ),
            Alert(
                "DiskTemperatureHigh",
                with_pool(f"zmon_disk_temperature_celsius > {t.disk_temperature_max:g}\n{awake}"),
                "A disk is running hot.",
                f"{DISK_} is at {{{{ $value }}}} °C (limit {t.disk_temperature_max:g} °C). "
                "Check fans, airflow and the room.",
                str(t.disk_temperature_for),
            ),
            Alert(
                "DiskNvmeCriticalWarning",
                with_pool("zmon_disk_nvme_critical_warning > 0"),
                "An NVMe drive raised its critical warning flag.",
                f"{DISK_} reports NVMe critical warning bits {{{{ $value }}}} (spare low, "
                f"temperature, reliability degraded, read-only or backup failed){DISK_LOCATION}.",
            ),
            Alert(
                "DiskNvmeWearHigh",
                with_pool(f"zmon_disk_nvme_percentage_used_ratio > {t.nvme_used_max}"),
                "An NVMe drive is near the end of its rated endurance.",
                f"{DISK_} has used {{{{ $value | humanizePercentage }}}} of its rated endurance. "
                f"Plan its replacement{DISK_LOCATION}.",
            ),
            Alert(
                "DiskLinkSpeedDegraded",
                with_pool(
                    x(f"""
            zmon_disk_interface_speed_bytes > 0
            < on(instance, job, device) zmon_disk_interface_max_speed_bytes
            {awake}
        """)
                ),
                "A disk's link runs below its maximum speed.",
                f"{DISK_} negotiated {{{{ $value | humanize }}}}B/s, below the speed it supports: "
                f"often a bad cable or backplane port. Reseat or replace the cable{DISK_LOCATION}.",
                str(t.link_speed_for),
            ),
        ],
    )


def ups_alerts(t: Thresholds) -> Group:
    on_battery = 'max by (instance, job) (zmon_ups_status{flag="OB"}) == 1'
    return Group(
        "zmon-ups",
        [
            Alert(
                "UpsOnBattery",
                'zmon_ups_status{flag="OB"} == 1',
                "A UPS is running on battery.",
                "UPS {{ $labels.ups }} of {{ $labels.instance }} is on battery: mains power "
                "is out.",
                str(t.ups_on_battery_for),
            ),
            Alert(
                "UpsLowBattery",
                'zmon_ups_status{flag="LB"} == 1',
                "A UPS battery is low: shutdown is imminent.",
                "UPS {{ $labels.ups }} of {{ $labels.instance }} reports LOW BATTERY. Hosts "
                "on it will shut down; make sure pools are exported cleanly.",
            ),
            Alert(
                "UpsRuntimeLow",
                f"zmon_ups_battery_runtime_seconds < {t.ups_runtime_min.seconds}",
                "A UPS's estimated battery runtime is short.",
                "UPS {{ $labels.ups }} of {{ $labels.instance }} estimates "
                "{{ $value | humanizeDuration }} of runtime on battery (limit "
                f"{t.ups_runtime_min}). Replace the battery or reduce the load.",
                str(t.ups_runtime_for),
            ),
            Alert(
                "UpsOnBatteryDuringScan",
                x(f"""
            zmon_pool_scan_in_progress == 1
            and on(instance, job) ({on_battery})
        """),
                "A ZFS scrub or resilver is running while the UPS is on battery.",
                f"A {{{{ $labels.function }}}} of {POOL} is running on battery power; it "
                "drains the battery faster. Pause a scrub with zpool scrub -p {{ $labels.pool }}.",
                str(t.ups_on_battery_for),
            ),
            Alert(
                "UpsUnreachable",
                "zmon_ups_up == 0 or zmon_ups_server_up == 0",
                "zmon cannot read a UPS.",
                "zmon on {{ $labels.instance }} gets no answer from "
                "{{ with $labels.ups }}UPS {{ . }} on {{ else }}UPS server {{ end }}"
                "{{ $labels.server }}: a power failure would go unnoticed.",
                str(t.ups_unreachable_for),
            ),
        ],
    )


def zmon_alerts(t: Thresholds) -> Group:
    return Group(
        "zmon-self",
        [
            Alert(
                "ZmonCollectorFailing",
                "zmon_collector_success == 0",
                "A zmon collector is failing.",
                "Collector {{ $labels.collector }} of zmon on {{ $labels.instance }} fails; its "
                "metrics are stale. See zmon's log.",
                str(t.collector_failing_for),
            ),
            Alert(
                "ZmonCollectorDataStale",
                x(f"""
            time() - zmon_collector_last_success_timestamp_seconds
            > clamp_min(
                {t.collector_stale_intervals} * zmon_collector_interval_seconds,
                {t.collector_stale_min.seconds}
              )
            and zmon_collector_has_data == 1
        """),
                "Data from a zmon collector is stale.",
                "Collector {{ $labels.collector }} of zmon on {{ $labels.instance }} last "
                "succeeded {{ $value | humanizeDuration }} ago; alerts on its metrics are blind.",
            ),
            Alert(
                "ZmonCollectorNoData",
                # the uptime of zmon for each of its collectors that has never had a good run
                # (a last-success time of 0: one that hangs from the start, which
                # ZmonCollectorDataStale cannot see), past as many intervals as a stale one
                x(f"""
            zmon_collector_interval_seconds * 0
            + on(instance, job) group_left() (time() - zmon_start_time_seconds)
            > clamp_min(
                {t.collector_stale_intervals} * zmon_collector_interval_seconds,
                {t.collector_stale_min.seconds}
              )
            and on(instance, job, collector)
            zmon_collector_last_success_timestamp_seconds == 0
        """),
                "A zmon collector has had no good run since zmon started.",
                "Collector {{ $labels.collector }} of zmon on {{ $labels.instance }} has not "
                "finished one good run since zmon started {{ $value | humanizeDuration }} ago "
                "(a command that hangs, such as zpool on a stuck pool); alerts on its metrics "
                "have seen nothing.",
            ),
            Alert(
                "ZmonTargetDown",
                f"up{{{JOB_SELECTOR}}} == 0",
                "Prometheus cannot scrape zmon.",
                "zmon on {{ $labels.instance }} does not answer scrapes: ZFS, disk and UPS "
                "alerts for that host are blind.",
                str(t.target_down_for),
            ),
            Alert(
                "ZmonTargetMissing",
                f"absent(up{{{JOB_SELECTOR}}})",
                "Prometheus scrapes no zmon target.",
                "Prometheus scrapes no target of job {{ $labels.job }} (selector "
                f"{JOB_SELECTOR}): ZFS, disk and UPS alerts see nothing. "
                "Check the scrape configuration.",
                str(t.target_down_for),
            ),
        ],
    )


def groups(t: Thresholds) -> list[Group]:
    return [
        recording_rules(t),
        pool_alerts(t),
        stuck_alerts(t),
        integrity_alerts(t),
        scan_alerts(t),
        capacity_alerts(t),
        dataset_alerts(t),
        memory_alerts(t),
        slowdown_group(t),
        disk_alerts(t),
        ups_alerts(t),
        zmon_alerts(t),
        zmon_state_alerts(t),
    ]


def alerts(t: Thresholds) -> list[Alert]:
    return [r for g in groups(t) for r in g.rules if isinstance(r, Alert)]
