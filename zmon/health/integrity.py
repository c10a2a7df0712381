"""The integrity and stuck-pool families: errors ZFS counts or posts on a vdev, a path that
keeps failing, data lost, and ZFS stuck on a pool (declarations.py has the conventions)."""

from __future__ import annotations

from zmon.health.conditions import Condition
from zmon.health.declarations import (
    DEVICE,
    DISK_REDUNDANCY,
    POOL_ID,
    POOL_UNAVAILABLE,
    VDEV_ID,
    VDEV_INFO,
    cannot_lose,
    link_errors,
    one_of,
    per_vdev,
)
from zmon.health.expr import Node, Record, Selector, changes, increase, max_by, metric, sum_by
from zmon.health.thresholds import Duration, Thresholds, format_seconds
from zmon.health.words import POOL, VDEV, VDEV_DISK, counted_since

READS, WRITES, CHECKSUMS = (
    metric(f"zmon_vdev_{k}_errors_total") for k in ("read", "write", "checksum")
)
VDEV_ERRORS = Record.of("zmon:vdev_errors:sum", READS + WRITES + CHECKSUMS)
ERROR_EVENT_CLASSES = ("checksum", "io", "data")
"""The classes of ZFS events the error-event alert counts."""
ERROR_EVENTS = metric("zmon_zfs_events_total", **{"class": one_of(ERROR_EVENT_CLASSES)})
DEADMAN_EVENTS = metric("zmon_zfs_events_total", **{"class": "deadman"})
# the identity of a vdev alert, for the exact counts its description looks up
BY_VDEV = "instance=%q,pool=%q,vdev=%q|$labels.instance $labels.pool $labels.vdev"
CHECKSUM_ERRORS = ("checksum error", "checksum errors")
ERROR_EVENT_WORDS = ("error event", "error events")
READ_ERRORS, WRITE_ERRORS = ("read error", "read errors"), ("write error", "write errors")


def events_per_vdev(selector: Selector, window: Duration) -> Node:
    """New events per vdev, all selected classes together (one alert per vdev). zmon labels
    an event's leaf as zpool status names it (a whole disk's ``ata-X``, not the event path's
    ``ata-X-part1``), so it joins zmon_vdev_info; its counters start at 0 (zero-initialised)."""
    return sum_by(VDEV_ID, increase(selector.at(window))) > 0


def failing_path(t: Thresholds) -> Condition:
    """Page while a disk's path fails, before ZFS faults the vdev and redundancy is lost.

    Repaired errors that come once are tickets (ZfsVdevIOErrors, ZfsVdevChecksumErrors,
    DiskCableFault); errors that keep coming are what precedes a FAULTED vdev. A disk whose
    loss would leave its vdev without redundancy has none to spare: its first new read or
    write errors page.
    """
    w = t.failing_window
    h = Duration(format_seconds(max(1, w.seconds // 2)))

    def both_halves(counter: Selector) -> tuple[Node, Node]:
        """New counts in the window's second half, and in its first."""
        return increase(counter.at(h)) > 0, increase(counter.at(h).shifted(h)) > 0

    leaf_link_rising = VDEV_INFO.op("*", link_errors(t, h), on=DEVICE, group_left=()).op(
        "*", link_errors(t, h, h.seconds), on=DEVICE, group_left=()
    )
    new_io_errors = increase(READS.at(w)) + increase(WRITES.at(w))
    zfs_errors = new_io_errors + increase(CHECKSUMS.at(w)) > 0
    io_errors = new_io_errors >= t.failing_io_errors
    # a disk its vdev cannot lose without losing redundancy has none to spare: its first new
    # read or write errors page
    exposed = (new_io_errors > 0).and_(max_by(VDEV_ID, cannot_lose(t)), on=VDEV_ID)
    # a scrub reads old data and repairs what it finds, for hours: its repairs are tickets
    # (ZfsVdevChecksumErrors, ZfsScrubFoundErrors), not a failing path
    now, before = both_halves(CHECKSUMS)
    checksum = (
        (increase(CHECKSUMS.at(w)) >= t.failing_checksum_errors)
        .and_(now)
        .and_(before)
        .unless(metric("zmon_pool_scan_in_progress", function="scrub").eq(1), on=POOL_ID)
    )
    slow_now, slow_before = both_halves(metric("zmon_vdev_slow_ios_total"))
    # a pool that is already unavailable or suspended pages as itself (ZfsPoolFaulted,
    # ZfsPoolStuck, after their for:): its disks' failed writes are its symptom, and a page
    # for them a minute earlier would be a second page for one incident
    pool_down = (
        metric("zmon_pool_state", state=one_of(POOL_UNAVAILABLE))
        .eq(1)
        .or_(metric("zmon_pool_kstat_state", state="suspended").eq(1))
        .or_(
            increase(metric("zmon_kernel_log_pool_events_total", pattern="pool_suspended").at(w))
            > 0
        )
    )
    expr = (
        io_errors.or_(exposed)
        .or_(checksum)
        .or_(slow_now.and_(slow_before))
        .or_(zfs_errors.and_(leaf_link_rising, on=VDEV_ID))
        .unless(pool_down, on=POOL_ID)
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
        + seen(f"max({DISK_REDUNDANCY.name}{{{where}}}) <= {t.page_redundancy}",
               "its vdev cannot lose this disk without losing redundancy")
    )  # fmt: skip
    return Condition(
        "ZfsVdevFailing",
        per_vdev(expr),
        "A disk's path keeps failing: ZFS is about to fault the vdev.",
        f"ZFS {VDEV} keeps failing I/O. In the last {w}:{seen_text} ZFS faults a vdev after "
        "10 I/O errors in 10 minutes, and its vdev then loses redundancy. Check the cable and "
        "port, the kernel log and zpool status -v {{ $labels.pool }} now; replace the disk "
        "while redundancy is still there.",
    )


def integrity_conditions(t: Thresholds) -> list[Condition]:
    w = t.error_window
    checksum_text = "zmon_vdev_checksum_errors_total"
    events_text = ERROR_EVENTS.promql()
    return [
        Condition(
            "ZfsVdevChecksumErrors",
            per_vdev(increase(CHECKSUMS.at(w)) > 0),
            "A ZFS vdev returned data that failed its checksum (silent corruption).",
            f"ZFS {VDEV} had {counted_since(checksum_text, w, BY_VDEV, *CHECKSUM_ERRORS)} in "
            f"the last {w}. "
            "ZFS repaired what redundancy allowed; find the cause (disk, cable, controller, "
            "memory) before the next disk fails.",
        ),
        Condition(
            "ZfsVdevIOErrors",
            per_vdev(increase(READS.at(w)) + increase(WRITES.at(w)) > 0),
            "A ZFS vdev had new read or write errors.",
            f"ZFS {VDEV} had "
            f"{counted_since(READS.name, w, BY_VDEV, *READ_ERRORS, 'no new read errors')} and "
            f"{counted_since(WRITES.name, w, BY_VDEV, *WRITE_ERRORS, 'no new write errors')} "
            f"in the last {w}.",
        ),
        failing_path(t),
        Condition(
            "ZfsPoolDataErrors",
            (metric("zmon_pool_data_errors") > 0).or_(
                metric("zmon_pool_data_errors_present").eq(1), on=POOL_ID
            ),
            "A ZFS pool has permanent data errors (data lost).",
            f"ZFS {POOL} has permanent data errors: blocks that no copy could repair. "
            "List the damaged files with zpool status -v {{ $labels.pool }}.",
        ),
        Condition(
            "ZfsPoolErrorsNotCleared",
            per_vdev(
                (VDEV_ERRORS > 0).and_(metric("zmon_pool_state", state="online").eq(1), on=POOL_ID)
            ),
            "An ONLINE ZFS pool still shows non-zero vdev error counters.",
            f"ZFS {VDEV} shows {{{{ $value | humanize }}}} read/write/checksum errors while "
            "the pool is ONLINE. Find the cause, then run zpool clear {{ $labels.pool }}.",
            t.errors_not_cleared_for,
        ),
        Condition(
            "ZfsErrorEvents",
            events_per_vdev(ERROR_EVENTS, w),
            "ZFS posted checksum, I/O or data error events.",
            f"ZFS posted {counted_since(events_text, w, BY_VDEV, *ERROR_EVENT_WORDS)} "
            f"(checksum, I/O or data) in the last {w} for pool {{{{ $labels.pool }}}}"
            "{{ with $labels.vdev }} vdev {{ . }}"
            f"{{{{ end }}}}{VDEV_DISK} on {{{{ $labels.instance }}}}. See zpool events -v.",
        ),
        Condition(
            "ZfsDeadmanEvents",
            events_per_vdev(DEADMAN_EVENTS, w),
            "ZFS detected I/O that hung (deadman).",
            "ZFS deadman fired for pool {{ $labels.pool }}{{ with $labels.vdev }} vdev {{ . }}"
            f"{{{{ end }}}}{VDEV_DISK} on "
            "{{ $labels.instance }}: an I/O did not complete within "
            "zfs_deadman_synctime_ms.",
        ),
    ]


def stuck(t: Thresholds) -> Condition:
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
    txg = metric("zmon_pool_txg_sync_duration_seconds_count")
    host = ("instance", "job")
    no_commit = changes(txg.at(w)).eq(0).and_(txg.shifted(w))
    writes_failing = sum_by(POOL_ID, increase(WRITES.at(w))) > 0
    timeouts = metric("zmon_collector_runs_total", collector="zpool", result="timeout")
    suspended = metric("zmon_kernel_log_pool_events_total", pattern="pool_suspended")
    zpool_hangs = (
        metric("zmon_collector_success", collector="zpool")
        .eq(0)
        .and_(
            increase(timeouts.at(tw)) >= t.stuck_timeouts,
            on=host,
        )
    )
    expr = max_by(
        POOL_ID,
        metric("zmon_pool_kstat_state", state="suspended")
        .eq(1)
        .or_(increase(suspended.at(w)) > 0)
        .or_(
            no_commit.and_(writes_failing, on=POOL_ID).and_(
                metric("zmon_collector_success", collector="txg").eq(1), on=host
            )
        )
        .or_(
            metric("zmon_pool_kstat_state", state="!=online")
            .eq(1)
            .or_(no_commit)
            .and_(zpool_hangs, on=host)
        ),
    )
    return Condition(
        "ZfsPoolStuck",
        expr,
        "ZFS is stuck on a pool: I/O is suspended, writes cannot commit, or zpool hangs.",
        f"ZFS {POOL} is stuck. Seen:{seen} Writes to it block, and zpool may hang on "
        "it. Check the pool's disks, cabling and "
        "controller; zpool clear {{ $labels.pool }} resumes I/O once they are back.",
        t.stuck_for,
    )
