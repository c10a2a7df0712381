"""The scans family: a resilver that stalls or crawls, a scrub overdue or one that found
errors, and the records of a running scan's progress (declarations.py has the conventions).

zmon serves a scan's ``zmon_pool_scan_*`` values from zpool status while one is known; a
paused scrub is not in progress (``zmon_pool_scan_paused`` is 1).
"""

from __future__ import annotations

from zmon.judgment.conditions import Condition
from zmon.judgment.declarations import POOL_ID, one_of
from zmon.judgment.expr import (
    Node,
    Record,
    changes,
    max_by,
    max_over_time,
    metric,
    rate,
    sum_by,
    time,
)
from zmon.judgment.integrity import CHECKSUMS, READS, WRITES
from zmon.judgment.thresholds import Thresholds
from zmon.judgment.words import POOL

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
    return [SCAN_ELAPSED, scan_issued_rate(t), scan_eta(t)]


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
    return [resilver_stalled(t), resilver_slow(t), scrub_overdue(t), scrub_found_errors(t)]
