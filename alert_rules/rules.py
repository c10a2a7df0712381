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
    DISK_POOL,
    DISK_VDEV,
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
    with_pool_and_vdev,
    x,
)
from alert_rules.datasets import dataset_alerts
from alert_rules.slowdown import ARC_ACCESSES, arc_records, slowdown_group
from alert_rules.thresholds import JOB_SELECTOR, Duration, Thresholds, format_seconds
from alert_rules.zmon_state import zmon_state_alerts
from zmon.status.ratios import ARC_GHOST_HITS_PER_ACCESS


def recording_rules(t: Thresholds) -> Group:
    """Records that several groups join with. A record used by one group's alerts lives in
    that group, before them: rules of a group run in order, so the alerts see fresh values."""
    return Group(
        "zmon-recording",
        [
            Record(
                VDEV_INFO,
                x("""
            max by (instance, job, pool, vdev, device) (zmon_vdev_info{device!=""})
        """),
            ),
            Record(
                DISK_POOL,
                x(f"""
            max by (instance, job, device, pool) (
              max_over_time({VDEV_INFO}[{t.disk_pool_memory}])
            )
        """),
            ),
            Record(
                DISK_VDEV,
                x(f"""
            max by (instance, job, device, pool, vdev) (
              max_over_time({VDEV_INFO}[{t.disk_pool_memory}])
            )
        """),
            ),
        ],
    )


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
    return Group(
        "zmon-pools",
        [
            Alert(
                "ZfsPoolDegraded",
                'zmon_pool_state{state="degraded"} == 1',
                "A ZFS pool is degraded and runs with reduced redundancy.",
                f"ZFS {POOL} is DEGRADED: a vdev is faulted, offline, removed or unavailable. "
                "Another failure in the same vdev may lose data. "
                "Run zpool status -x {{ $labels.pool }} to find the vdev.",
                str(t.pool_state_for),
            ),
            Alert(
                "ZfsPoolFaulted",
                'zmon_pool_state{state=~"faulted|unavail|removed|suspended"} == 1',
                "A ZFS pool is faulted, unavailable or suspended.",
                f"ZFS {POOL} is {{{{ $labels.state | toUpper }}}}: its data cannot be read or "
                "written. Run zpool status -v {{ $labels.pool }} now.",
                str(t.pool_state_for),
            ),
            Alert(
                "ZfsPoolRedundancyLost",
                x("""
            max by (instance, job, pool) (
              zmon_vdev_redundancy == 0
              and on(instance, job, pool, vdev, class) (zmon_vdev_state{state="degraded"} == 1)
            )
        """),
                "A ZFS pool has no redundancy left: one more failure loses it.",
                f"ZFS {POOL} has a vdev with no redundancy left"
                '{{ with printf "zmon_vdev_redundancy{instance=%q,pool=%q} == 0 and on(instance, '
                'pool, vdev, class) zmon_vdev_state{state=\\"degraded\\"} == 1" $labels.instance '
                "$labels.pool | query }} ({{ range . }}{{ .Labels.vdev }} {{ end }}is DEGRADED)"
                "{{ end }}: one more disk failure in it loses the pool. Replace or bring back the "
                "missing disk now (zpool status -x {{ $labels.pool }}), and do not take another "
                "disk of it offline.",
                str(t.pool_state_for),
            ),
            Alert(
                "ZfsVdevFaulted",
                per_vdev(
                    x("""
                  zmon_vdev_state{state=~"faulted|unavail|removed"} == 1
                  unless on(instance, job, pool, vdev) zmon_vdev_info{type="root"}
              """),
                    ", state",
                ),
                "A ZFS vdev is faulted, unavailable or removed.",
                f"ZFS {VDEV} is {{{{ $labels.state | toUpper }}}}. Replace or reattach it.",
                str(t.pool_state_for),
            ),
            Alert(
                "ZfsSpareInUse",
                per_vdev('zmon_vdev_state{state="inuse"} == 1'),
                "A ZFS hot spare has replaced a failed disk.",
                f"Hot spare {{{{ $labels.vdev }}}}{VDEV_DISK} of pool {{{{ $labels.pool }}}} on "
                "{{ $labels.instance }} is in use. "
                "Replace the failed disk, then detach the spare to make it available again.",
                str(t.pool_state_for),
            ),
        ],
    )


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


DISK_REDUNDANCY = "zmon:disk_vdev_redundancy:min"


def deep(expr: str, spaces: int) -> str:
    """``expr`` for a place ``spaces`` deep in an indented block: its later lines indented."""
    return expr.replace("\n", "\n" + " " * spaces)


# ---- SAS links: the PHY error counters as cable evidence (the cable alerts read them
# through sas_link_errors; the expander alert through sas_phy_link_errors)

SAS_PARENT = "zmon:disk_sas_parent:info"
SAS_LINK_ERRORS = "zmon:disk_sas_link_errors:rising"  # sas_link_errors over the cable window


def sas_counters(t: Thresholds, prefix: str) -> list[str]:
    """The link error counters of ``prefix`` (``zmon_sas_phy``: the HBA's or expander's side,
    ``zmon_disk_sas_phy``: the disk's own)."""
    return [f"{prefix}_{name}_total" for name in t.sas_link_counters.split("|")]


def _rose(metrics: list[str], selector: str, by: str, window: str, offset: int) -> str:
    """``by`` where any of ``metrics`` rose in ``window`` (ending ``offset`` seconds ago)."""
    tail = f"[{window}]" + (f" offset {format_seconds(offset)}" if offset else "")
    rises = "\nor ".join(f"increase({m}{selector}{tail}) > 0" for m in metrics)
    return f"max by ({by}) {paren(rises)}"


def _both_halves(metrics: list[str], selector: str, by: str, window: object, offset: object) -> str:
    """``by`` where ``metrics`` rose in each half of ``window`` (ending ``offset`` ago): errors
    that keep coming. A PHY's counters also rise once at boot and at a link reset (link
    training); that one step falls in one half only."""
    half = max(1, Duration(str(window)).seconds // 2)
    end = Duration(str(offset)).seconds if offset else 0
    newer = _rose(metrics, selector, by, format_seconds(half), end)
    older = _rose(metrics, selector, by, format_seconds(half), end + half)
    return f"{newer}\nand on({by})\n{older}"


def sas_link_errors(t: Thresholds, window: object, offset: object = None) -> str:
    """The disks whose SAS link took errors in both halves of ``window``: on the HBA or
    expander PHY that links the disk (sysfs), or on the disk's own PHYs (smartctl)."""
    by = "instance, job, device"
    host_side = _both_halves(sas_counters(t, "zmon_sas_phy"), '{device!=""}', by, window, offset)
    disk_side = _both_halves(sas_counters(t, "zmon_disk_sas_phy"), "", by, window, offset)
    return f"{paren(host_side)}\nor\n{paren(disk_side)}"


def sas_link_errors_record(t: Thresholds) -> Record:
    """The disks whose SAS link took errors that kept coming in the cable window (the cable
    ticket and page read it; the page's shorter periods compute their own)."""
    return Record(SAS_LINK_ERRORS, sas_link_errors(t, t.cable_window))


def sas_phy_link_errors(t: Thresholds, window: object) -> str:
    """The HBA and expander PHYs (sysfs) with link errors in both halves of ``window``."""
    return _both_halves(sas_counters(t, "zmon_sas_phy"), "", "instance, job, phy", window, None)


def sas_parent_record() -> Record:
    """Per disk that one HBA or expander PHY links (sysfs): that HBA or expander, as
    ``sas_parent``, the label the expander alert mutes the disk's cable ticket by. A disk seen
    through PHYs of two parents has none."""
    info = (
        'label_replace(zmon_sas_phy_info{attached="disk", device!=""}, "sas_parent", "$1", '
        '"parent", "(.+)")'
    )
    parents = f"max by (instance, job, device, sas_parent) ({info})"
    return Record(
        SAS_PARENT,
        f"{parents}\nand on(instance, job, device)\n"
        f"(count by (instance, job, device) ({parents}) == 1)",
    )


# The disk's SAS link, looked up when the alert fires: "; its SAS link is PHY phy-0:0:1 of
# expander-0:0 (enclosure 0:0:12:0 slot Slot01)" (nothing for a disk no HBA or expander PHY
# links). An annotation: the PHY and slot change when the disk is moved.
SAS_LINK = (
    '{{ with printf "zmon_sas_phy_info{instance=%q,device=%q}" $labels.instance $labels.device '
    "| query }}{{ with . | first }}{{ $l := .Labels }}; its SAS link is PHY {{ $l.phy }} of "
    "{{ $l.parent }}{{ with $l.slot }} (enclosure {{ $l.enclosure }} slot {{ . }}){{ end }}"
    "{{ end }}{{ end }}"
)


def with_sas_parent(expr: str) -> str:
    """``expr`` (per device) with the disk's ``sas_parent`` where it has one."""
    return f"{paren(expr)}\n* on(instance, job, device) group_left(sas_parent) {SAS_PARENT}\n" + (
        f"or on(instance, job, device)\n{paren(expr)}"
    )


def sas_expander_alert(t: Thresholds) -> Alert:
    """One ticket for an expander or HBA whose PHYs take link errors on several links at once:
    the disks' cables are not the cause (their cable tickets are muted by it)."""
    cw = t.cable_window
    info = 'label_replace(zmon_sas_phy_info, "sas_parent", "$1", "parent", "(.+)")'
    expr = x(f"""
        count by (instance, job, sas_parent) (
          {info}
          and on(instance, job, phy)
          (
            {deep(sas_phy_link_errors(t, cw), 12)}
          )
        ) >= {t.sas_expander_phys}
    """)
    rises = " or ".join(
        f"increase({m}{{instance=%q}}[{cw}]) > 0" for m in sas_counters(t, "zmon_sas_phy")
    )
    args = " ".join(["$labels.instance", "$labels.sas_parent"] + ["$labels.instance"] * 3)
    phys = (
        f'{{{{ range printf "zmon_sas_phy_info{{instance=%q,parent=%q}} and on(phy) ({rises})" '
        f'{args} | query | sortByLabel "phy" }}}} {{{{ .Labels.phy }}}}'
        "{{ with .Labels.device }} (disk {{ . }}"
        "{{ end }}{{ with .Labels.slot }}, slot {{ . }}{{ end }}"
        "{{ if .Labels.device }}){{ end }};{{ end }}"
    )
    return Alert(
        "DiskSasExpanderLinkErrors",
        expr,
        "Link errors on several PHYs of one SAS expander or HBA: suspect it, not each disk's "
        "cable.",
        f"{{{{ $value }}}} PHYs of SAS {{{{ $labels.sas_parent }}}} on {{{{ $labels.instance }}}} "
        f"took link errors (invalid DWORDs, disparity errors, lost DWORD sync) that kept coming "
        f"in the last {cw}, on several links at once:{phys} suspect the "
        "expander or HBA, its firmware or power, or the cable that feeds it; the cable tickets "
        "of its disks are muted.",
    )


def link_errors(t: Thresholds, window: object, offset: object = None) -> str:
    """The disks with new CRC errors or kernel-log link events (resets, link down, timeouts)
    in ``window`` (ending ``offset`` ago, if given), or SAS PHY errors that kept coming."""
    tail = f"[{window}]" + (f" offset {offset}" if offset else "")
    return (
        x(f"""
        sum by (instance, job, device) (increase(zmon_disk_crc_errors_total{tail})) > 0
        or
        sum by (instance, job, device) (
          increase(zmon_kernel_log_events_total{{pattern=~"{t.cable_patterns}"}}{tail})
        ) > 0
    """)
        + "\nor\n"
        + (
            SAS_LINK_ERRORS
            if str(window) == str(t.cable_window) and not offset
            else paren(sas_link_errors(t, window, offset))
        )
    )


def media_rising(t: Thresholds) -> str:
    sw = t.sector_window
    return x(f"""
        {rise("zmon_disk_reallocated_sectors", sw)} > 0
        or {rise("zmon_disk_pending_sectors", sw)} > 0
        or {rise("zmon_disk_offline_uncorrectable_sectors", sw)} > 0
        or {rise("zmon_disk_scsi_grown_defects", sw)} > 0
    """)


def disk_redundancy_record() -> Record:
    """Per pool disk: how many more member failures the top-level vdev it sits in directly
    survives (``zmon_vdev_redundancy``; a disk that is a top-level vdev itself: its own),
    while that vdev is ONLINE: the redundancy it was built with. A vdev already DEGRADED is
    told by ZfsPoolDegraded and ZfsPoolRedundancyLost; a link blip on another of its disks
    (a neighbour touched while one is swapped) pages only when it keeps coming or ZFS counts
    errors. A disk under ``replacing-N`` or ``spare-N`` has none: it is being resilvered in
    and carries no redundancy yet. Log vdevs are left out: losing one does not lose the
    pool."""
    info = 'max by (instance, job, pool, vdev, device, parent) (zmon_vdev_info{device!=""})'
    redundancy = (
        'zmon_vdev_redundancy{class!="log"} and on(instance, job, pool, vdev) '
        '(zmon_vdev_state{state="online"} == 1)'
    )
    return Record(
        DISK_REDUNDANCY,
        x(f"""
            min by (instance, job, pool, vdev, device) (
              {info}
              * on(instance, job, pool, parent) group_left()
              max by (instance, job, pool, parent) (
                label_replace({redundancy}, "parent", "$1", "vdev", "(.+)")
              )
              or
              {info}
              * on(instance, job, pool, vdev) group_left()
              max by (instance, job, pool, vdev) ({redundancy})
            )
        """),
    )


def link_failing_alert(t: Thresholds) -> Alert:
    """Page for a suspect cable only when a human is needed now (DiskCableFault is the
    ticket for every other link error): the disk's loss would leave its vdev with no
    redundancy, ZFS already counts errors on its vdev, or the errors keep coming."""
    cw, sl, n = t.cable_page_slice.seconds, t.cable_page_slice, t.cable_page_slices
    window = t.cable_window
    suspect = f"({link_errors(t, window)})\nunless on(instance, job, device)\n" + paren(
        media_rising(t)
    )
    slices = "\nand on(instance, job, device)\n".join(
        paren(link_errors(t, sl, format_seconds(i * cw) if i else None)) for i in range(n)
    )
    zfs_errors = x(f"""
        increase(zmon_vdev_read_errors_total[{window}])
        + increase(zmon_vdev_write_errors_total[{window}])
        + increase(zmon_vdev_checksum_errors_total[{window}])
        > 0
    """)
    expr = x(f"""
        max by (instance, job, pool, vdev, device) (
          (
            {DISK_REDUNDANCY} <= {t.cable_page_redundancy}
            or on(instance, job, pool, vdev)
            (
              {VDEV_INFO}
              and on(instance, job, pool, vdev)
              max by (instance, job, pool, vdev) ({deep(zfs_errors, 14)})
            )
            or on(instance, job, device)
            (
              {VDEV_INFO}
              and on(instance, job, device)
              (
                {deep(slices, 16)}
              )
            )
          )
          and on(instance, job, device)
          (
            {deep(suspect, 12)}
          )
        )
    """)
    where = "instance=%q,pool=%q,vdev=%q"
    args = "$labels.instance $labels.pool $labels.vdev"
    zfs_counted = " + ".join(
        f"sum(increase(zmon_vdev_{kind}_errors_total{{{where}}}[{window}]))"
        for kind in ("read", "write", "checksum")
    )
    why = (
        f'{{{{ with printf "{DISK_REDUNDANCY}{{{where}}} <= {t.cable_page_redundancy}" {args} '
        "| query }}{{ with . | first }}; losing it would leave its vdev without redundancy "
        "(further failures the vdev survives now: {{ .Value }}){{ end }}{{ else }}"
        f'{{{{ with printf "({zfs_counted}) > 0" {args} {args} {args} | query }}}}'
        f"{{{{ with . | first | value }}}}; ZFS counted {{{{ . | humanize }}}} read, write or "
        f"checksum errors on its vdev in the same {window}{{{{ end }}}}{{{{ else }}}}; the "
        f"errors came in each of the last {n} periods of {sl}, and keep coming"
        "{{ end }}{{ end }}"
    )
    return Alert(
        "DiskLinkFailing",
        expr,
        "Link errors on a pool disk with healthy media that cannot wait: suspect the cable "
        "or port.",
        f"{DISK_} shows CRC errors, link resets, command timeouts or SAS PHY errors in the "
        f"last {window}{SAS_LINK}{why}. Reseat or replace the cable now, or move the disk to "
        "another port"
        f"{DISK_LOCATION}; ZFS faults the disk if the errors go on.",
    )


def disk_alerts(t: Thresholds) -> Group:
    cw, sw = t.cable_window, t.sector_window
    awake = "unless on(instance, job, device) (zmon_disk_standby == 1)"
    return Group(
        "zmon-disks",
        [
            disk_redundancy_record(),
            sas_parent_record(),
            sas_link_errors_record(t),
            Alert(
                "DiskCableFault",
                with_sas_parent(
                    with_pool_and_vdev(
                        x(f"""
            (
              {deep(link_errors(t, cw), 14)}
              or
              sum by (instance, job, device) (
                increase(zmon_disk_hotplug_events_total{{action="remove"}}[{cw}])
              ) >= {t.hotplug_flaps_max + 1}
            )
            unless on(instance, job, device)
            (
              {deep(media_rising(t), 14)}
            )
        """)
                    )
                ),
                "Link errors on a disk whose media is healthy: suspect the cable or port.",
                f"{DISK_} shows CRC errors, link resets, command timeouts, hotplug flaps or SAS "
                f"PHY errors in the last {cw}{SAS_LINK}, while its reallocated, pending and "
                "uncorrectable sector counts are steady. Reseat or replace the cable, or move "
                f"the disk to another port{DISK_LOCATION}.",
            ),
            link_failing_alert(t),
            sas_expander_alert(t),
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
