"""The scans family: a resilver that stalls or crawls or reads its last good copy from a
failing disk, a scrub overdue or one that found errors, and the records of a running scan's
progress (declarations.py has the conventions).

zmon serves a scan's ``zmon_pool_scan_*`` values from zpool status while one is known; a
paused scrub is not in progress (``zmon_pool_scan_paused`` is 1).
"""

from __future__ import annotations

from functools import reduce

from zmon.health.conditions import Condition
from zmon.health.declarations import DEVICE, LEAF, POOL_ID, TOP, VDEV_ID, as_parent, one_of
from zmon.health.expr import (
    Node,
    Record,
    changes,
    count_by,
    max_by,
    max_over_time,
    metric,
    rate,
    sum_by,
    time,
)
from zmon.health.integrity import CHECKSUMS, READS, WRITES
from zmon.health.thresholds import Thresholds
from zmon.health.words import DISK_, DISK_LOCATION, POOL

HOST = ("instance", "job")
IN_PROGRESS = metric("zmon_pool_scan_in_progress")
ISSUED = metric("zmon_pool_scan_issued_bytes")
START = metric("zmon_pool_scan_start_time_seconds")
LAST_SCRUB_END = metric("zmon_pool_last_scrub_end_time_seconds")
SCRUB_AGE = time() - LAST_SCRUB_END
"""How long ago a pool's last scrub ended: what ZfsScrubOverdue judges and the pool dashboard
draws."""
# the bytes the scan has to get through: to issue, or to examine where zpool says no more
TOTAL = metric("zmon_pool_scan_to_issue_bytes").or_(metric("zmon_pool_scan_to_examine_bytes"))
RESILVER_FUNCTIONS = ("resilver", "rebuild")
"""The scans that restore redundancy (a rebuild is a dRAID's sequential resilver)."""
RESILVERING = metric("zmon_pool_scan_in_progress", function=one_of(RESILVER_FUNCTIONS)).eq(1)


def _running() -> Node:
    """The pools with a scan in progress."""
    return max_by(POOL_ID, IN_PROGRESS).eq(1)


SCAN_ELAPSED = Record.of(
    "zmon:pool_scan_elapsed:seconds", (time() - START).and_(_running(), on=POOL_ID)
)
"""How long the running scan of a pool has run."""


def scan_issued_rate(t: Thresholds) -> Record:
    """The running scan's issue rate over the last ``resilver_rate_window``."""
    return Record.of(
        "zmon:pool_scan_issued_bytes:rate",
        rate(ISSUED.at(t.resilver_rate_window)).and_(_running(), on=POOL_ID),
    )


def scan_eta(t: Thresholds) -> Record:
    """Seconds the running scan still needs at its rate over ``resilver_rate_window``."""
    return Record.of("zmon:pool_scan_eta:seconds", (TOTAL - ISSUED) / (scan_issued_rate(t) > 0))


def scan_records(t: Thresholds) -> list[Record]:
    """The records of the zmon-scans group, before the conditions that read them."""
    return [SCAN_ELAPSED, scan_issued_rate(t), scan_eta(t), GOOD_COPIES]


def resilver_stalled(t: Thresholds) -> Condition:
    """A resilver neither examining nor issuing bytes for the stall window, not paused, while
    zpool status answers (a stale zpool collector would freeze the counters too)."""
    stall = t.resilver_stall_window
    expr = (
        RESILVERING.unless(metric("zmon_pool_scan_paused").eq(1), on=POOL_ID)
        .and_(changes(ISSUED.at(stall)).eq(0), on=POOL_ID)
        .and_(ISSUED.shifted(stall), on=POOL_ID)
        .and_(time() - START > stall.seconds, on=POOL_ID)
        .unless(changes(metric("zmon_pool_scan_examined_bytes").at(stall)) > 0, on=POOL_ID)
        .unless(
            max_over_time(metric("zmon_collector_stale", collector="zpool").at(stall)).eq(1),
            on=HOST,
        )
    )
    return Condition(
        "ZfsResilverStalled",
        expr,
        "A ZFS resilver has stopped making progress.",
        f"The {{{{ $labels.function }}}} of {POOL} has neither examined nor issued any "
        f"bytes for {stall} and is not paused, while zpool status answers; the pool stays "
        "without redundancy until it completes.",
        t.resilver_stall_for,
    )


def resilver_slow(t: Thresholds) -> Condition:
    """A resilver whose projected duration at its recent rate is far above what its average
    rate so far predicts (past its noisy first part)."""
    elapsed = SCAN_ELAPSED
    projected = elapsed + scan_eta(t)
    predicted = t.resilver_slow_factor * elapsed * TOTAL / (ISSUED > 0)
    expr = (
        (projected > predicted)
        .and_(RESILVERING, on=POOL_ID)
        .and_(elapsed > t.resilver_slow_min_age.seconds, on=POOL_ID)
    )
    return Condition(
        "ZfsResilverSlow",
        expr,
        "A ZFS resilver will take far longer than its own average rate predicts.",
        f"At its rate over the last {t.resilver_rate_window}, the resilver of {POOL} "
        f"would take {{{{ $value | humanizeDuration }}}} in all, more than "
        f"{t.resilver_slow_factor:g} times what its average rate so far predicts. "
        "Look for a slow or failing disk and competing load.",
        t.resilver_slow_for,
    )


# ---- the last good copy a resilver reads

_VDEV_CLASS = (*VDEV_ID, "class")


STANDING_IN_TYPES = ("replacing", "spare")
"""The interior vdevs whose children are an old disk and the one resilvered in its place."""


def _good_copies() -> Record:
    leaves = max_by((*LEAF, "parent", "class"), metric("zmon_vdev_info", device="!="))
    groups = as_parent(metric("zmon_vdev_info", type=one_of(STANDING_IN_TYPES)))
    return Record.of(
        "zmon:vdev_good_copy:info",
        leaves.and_(metric("zmon_vdev_state", state="online").eq(1), on=_VDEV_CLASS)
        .unless(metric("zmon_vdev_note_info", kind="resilvering"), on=_VDEV_CLASS)
        .unless(groups, on=TOP),
    )


GOOD_COPIES = _good_copies()
"""The leaves a resilver can read a whole copy from (per leaf, with its ``parent``): ONLINE,
not being resilvered, and not in a ``replacing-N`` or ``spare-N`` (the new disk is being
written; the old one is leaving because it is suspect and may lack what was written while it
was away). As zmon status's ``last_good_copies`` counts them."""


PARITY_TYPES = ("raidz", "draid")
"""The top-level vdev types that keep parity columns (their parity is in their name)."""
DATA_CLASSES = ("normal", "special", "dedup")
"""The classes of top-level vdevs whose loss loses pool data (not log, cache or spare)."""


def _last_copies(good: Record) -> Node:
    """The top-level vdevs (as ``parent``) whose every read needs each of their good copies:
    a mirror with one, a raidz or dRAID of parity N with N columns or more not readable."""
    readable = count_by(TOP, good)
    columns = count_by(TOP, max_by((*TOP, "vdev"), metric("zmon_vdev_info", parent="!=")))
    data = {"class": one_of(DATA_CLASSES)}
    mirrors = (readable <= 1).and_(as_parent(metric("zmon_vdev_info", type="mirror", **data)))
    parity = [
        (readable + n).op("<=", columns, on=TOP).and_(
            as_parent(
                metric("zmon_vdev_info", type=one_of(PARITY_TYPES), vdev=f"=~{names}", **data)
            )
        )
        for n, names in ((1, "(raidz1?|draid1)[-:].*"), (2, "(raidz|draid)2[-:].*"),
                         (3, "(raidz|draid)3[-:].*"))
    ]  # fmt: skip
    return reduce(lambda a, b: a.or_(b), parity, mirrors)


def failing_disks() -> Node:
    """The disks SMART says FAILED, or with media defects: pending, reallocated or
    uncorrectable sectors, grown defects, NVMe media errors or kernel-logged medium errors."""
    counts = ("pending_sectors", "reallocated_sectors", "offline_uncorrectable_sectors",
              "scsi_grown_defects", "nvme_media_errors_total")  # fmt: skip
    medium = sum_by(DEVICE, metric("zmon_kernel_log_events_total", pattern="medium_error"))
    signs = [
        metric("zmon_disk_smart_passed").eq(0),
        *(metric(f"zmon_disk_{c}") > 0 for c in counts),
        medium > 0,
    ]
    return max_by(DEVICE, reduce(lambda a, b: a.or_(b), signs))


def resilver_source_failing(t: Thresholds) -> Condition:
    """A failing disk that holds the last good copy of its top-level vdev while the pool
    resilvers: pulling it, or its failure, loses the data the resilver copies."""
    good = GOOD_COPIES
    expr = max_by(
        LEAF,
        good.and_(_last_copies(good), on=TOP)
        .and_(failing_disks(), on=DEVICE)
        .and_(RESILVERING, on=POOL_ID),
    )
    return Condition(
        "ZfsResilverSourceFailing",
        expr,
        "A resilver reads the last good copy of a vdev from a failing disk.",
        f"{DISK_} is failing (SMART FAILED, or bad sectors or medium errors) and holds the "
        f"only good copy of its vdev while {POOL} resilvers: without it the pool loses the "
        "data the resilver copies. Do not pull it or take it offline; let the resilver "
        "finish, then replace it (zpool replace {{ $labels.pool }} {{ $labels.vdev }} "
        f"<new-disk-by-id>){DISK_LOCATION}.",
    )


def scrub_overdue(t: Thresholds) -> Condition:
    """No scrub completed within ``scrub_max_age``, or none ever on a pool older than that;
    not while a scrub runs."""
    limit = t.scrub_max_age.seconds
    never = (
        (time() - metric("zmon_pool_creation_time_seconds") > limit)
        .unless(LAST_SCRUB_END, on=POOL_ID)
        .and_(metric("zmon_pool_state"), on=POOL_ID)
    )
    expr = (
        (SCRUB_AGE > limit)
        .or_(never)
        .unless(metric("zmon_pool_scan_in_progress", function="scrub").eq(1), on=POOL_ID)
    )
    return Condition(
        "ZfsScrubOverdue",
        expr,
        "A ZFS pool has not been scrubbed recently, or never.",
        '{{ with printf "zmon_pool_last_scrub_end_time_seconds{instance=%q,pool=%q}" '
        "$labels.instance $labels.pool | query }}The last completed scrub of "
        f"{POOL} ended {{{{ $value | humanizeDuration }}}} ago{{{{ else }}}}ZFS {POOL} "
        "was created {{ $value | humanizeDuration }} ago and has never been scrubbed"
        f"{{{{ end }}}} (limit {t.scrub_max_age}). Run or schedule "
        f"zpool scrub {{{{ $labels.pool }}}}.",
        t.scrub_overdue_for,
    )


def scrub_found_errors(t: Thresholds) -> Condition:
    """The last scrub, finished within ``scrub_errors_max_age``, found or repaired errors, and
    the pool still counts them (zpool clear ends it)."""
    found = (metric("zmon_pool_scan_errors") > 0).or_(
        metric("zmon_pool_scan_processed_bytes") > 0, on=POOL_ID
    )
    still_counted = (
        (sum_by(POOL_ID, READS + WRITES + CHECKSUMS) > 0)
        .or_(metric("zmon_pool_data_errors") > 0)
        .or_(metric("zmon_pool_data_errors_present").eq(1))
    )
    expr = (
        found.and_(metric("zmon_pool_scan_info", function="scrub", state="finished"), on=POOL_ID)
        .and_(time() - LAST_SCRUB_END < t.scrub_errors_max_age.seconds, on=POOL_ID)
        .and_(still_counted, on=POOL_ID)
    )
    return Condition(
        "ZfsScrubFoundErrors",
        expr,
        "The last ZFS scrub found errors.",
        f"The last scrub of {POOL} found damaged data (repaired, or errors it could not "
        "repair). Check zpool status -v {{ $labels.pool }} and the vdev error counters. "
        "The alert ends when zpool clear resets them, or "
        f"{t.scrub_errors_max_age} after the scrub.",
    )


def scan_conditions(t: Thresholds) -> list[Condition]:
    return [
        resilver_stalled(t),
        resilver_slow(t),
        resilver_source_failing(t),
        scrub_overdue(t),
        scrub_found_errors(t),
    ]
