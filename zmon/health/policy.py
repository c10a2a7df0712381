"""The paging policy: every alert zmon ships, how loud it is, and why.

One row per alert. The alert rules (alert_rules/rules.py) take their ``severity`` label from
here, ``zmon status`` takes the severity of each diagnosis that names an alert from here, the
Alertmanager configuration routes on that label, and alert_rules/POLICY.md is rendered from
this table. Tests hold all four to it.

Severities:

- ``critical`` pages: it wakes a human. Data is lost or unreachable, or one more failure
  would lose it (no redundancy left), or that is about to happen, or the host is blind.
- ``warning`` is a ticket for the working day: redundancy is reduced but some is left, an
  error was repaired and is not rising, something will need doing.
- ``info`` is tuning advice, also a ticket.

``page_once``: the alert pages when it starts and is a ticket from then on until it is cleared
(the Alertmanager configuration gives it its own route: one page, tickets after).
"""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("critical", "warning", "info")


@dataclass(frozen=True)
class Policy:
    alert: str
    severity: str
    why: str  # in words of redundancy left
    page_once: bool = False

    @property
    def pages(self) -> bool:
        return self.severity == "critical"

    @property
    def notification(self) -> str:
        """What reaches a human: "page", "page once, then ticket" or "ticket"."""
        if not self.pages:
            return "ticket"
        return "page once, then ticket until cleared" if self.page_once else "page"


def _p(alert: str, severity: str, why: str, page_once: bool = False) -> Policy:
    if severity not in SEVERITIES:
        raise ValueError(f"{alert}: unknown severity {severity!r}")
    return Policy(alert, severity, " ".join(why.split()), page_once)


POLICY: tuple[Policy, ...] = (
    # ---- pools: what is left of the data's redundancy
    _p("ZfsPoolFaulted", "critical", """The pool is unavailable or suspended: no redundancy
       serves its data, reads and writes fail or hang."""),
    _p("ZfsPoolStuck", "critical", """ZFS cannot commit writes to the pool: applications
       hang on it, whatever redundancy is left. A hung zpool pages here, once it timed out
       twice and a source that does not hang with it (the pool's kstat state, txg commits,
       the kernel log) shows the pool stuck; a hung zpool alone is a ticket
       (ZmonCollectorFailing, ZmonCollectorNoData), since a slow disk or a long import also
       holds it."""),
    _p("ZfsPoolRedundancyLost", "critical", """A vdev of the pool has no redundancy left (a
       2-way mirror or raidz1 with one disk out, raidz2 with two): one more failure loses
       the pool."""),
    _p("ZfsPoolDegraded", "warning", """A disk is out, but every vdev can still lose another
       one; ZfsPoolRedundancyLost pages when one cannot."""),
    _p("ZfsVdevFaulted", "warning", """ZFS stopped using a disk. Its vdev's redundancy is
       reduced; the pool alerts page when none is left."""),
    _p("ZfsSpareInUse", "warning", """A hot spare took over a failed disk: redundancy is back,
       the spare is spent until the failed disk is replaced."""),
    _p("ZfsVdevFailing", "critical", """Errors keep coming on one disk's path (read/write
       errors or slow I/Os rising, link errors with ZFS errors): ZFS is about to fault it and
       its vdev will lose redundancy. Page now, while it can still be fixed."""),
    # ---- data integrity
    _p("ZfsPoolDataErrors", "critical", """Data is lost: blocks no copy could repair. It pages
       once; restoring files is day work, so it is a ticket until zpool clear.""",
       page_once=True),
    _p("ZfsVdevChecksumErrors", "warning", """ZFS repaired bad data from redundancy (one
       scrub's worth is normal wear). Repeated errors page as ZfsVdevFailing."""),
    _p("ZfsVdevIOErrors", "warning", """ZFS retried or repaired failed reads or writes from
       redundancy. Rising errors page as ZfsVdevFailing."""),
    _p("ZfsPoolErrorsNotCleared", "warning", """Old error counts on an ONLINE pool: nothing is
       lost now, but they hide new errors until cleared."""),
    _p("ZfsErrorEvents", "warning", """ZFS posted error events it repaired from redundancy;
       the vdev alerts page if they keep coming."""),
    _p("ZfsDeadmanEvents", "critical", """An I/O hung for minutes: the pool's writes stall
       behind it, whatever redundancy is left."""),
    # ---- scans
    _p("ZfsResilverStalled", "warning", """The resilver that restores redundancy does not move;
       ZfsPoolRedundancyLost pages if none is left meanwhile."""),
    _p("ZfsResilverSlow", "warning", """Redundancy comes back later than it should; the pool
       alerts page if none is left meanwhile."""),
    _p("ZfsResilverSourceFailing", "critical", """The resilver that restores redundancy reads
       the only good copy of a vdev from a failing disk (SMART FAILED, bad sectors, medium
       errors): if that disk is pulled, taken offline or dies before the resilver ends, the
       pool loses the data it copies. Page so that a human keeps it in and watches the
       resilver; its media and SMART tickets tell the same disk and are muted."""),
    _p("ZfsScrubOverdue", "warning", """No scrub for too long (or never): latent errors go
       unseen until a disk fails and redundancy is needed."""),
    _p("ZfsScrubFoundErrors", "warning", """The scrub found and repaired (or listed) bad data;
       redundancy did its job, the cause needs finding."""),
    # ---- capacity and memory
    _p("ZfsPoolCapacityCritical", "critical", """The pool is nearly full: writes slow down
       sharply and will fail, an outage of its own."""),
    _p("ZfsPoolCapacityWarning", "warning", """The pool is filling up: days, not hours, to
       act. No redundancy is involved."""),
    # ---- datasets
    _p("ZfsDatasetQuotaNearlyFull", "warning", """A dataset nears its quota: writes to it and
       its children will fail (EDQUOT), the pool and its redundancy are untouched."""),
    _p("ZfsDatasetRefquotaNearlyFull", "warning", """A dataset nears its refquota: writes to
       it will fail (EDQUOT), the pool and its redundancy are untouched."""),
    _p("ZfsDatasetSnapshotOverdue", "warning", """No new snapshot for a day: nothing recent to
       roll back to and replication falls behind, but no data is lost."""),
    _p("ZfsPoolFragmentationHigh", "info", """Free space is fragmented: slower writes, no
       risk to data."""),
    _p("ZfsDedupTableTooLarge", "warning", """The dedup table crowds the ARC: slower I/O, no
       risk to data."""),
    _p("ZfsArcGhostHitsHigh", "info", """The ARC looks too small: tuning, no risk to data."""),
    _p("ZfsArcSlowdown", "warning", """Reads are slower than usual and many of the misses
       behind them are ghost hits: the ARC is too small for what is read. Users feel it, no data
       is at risk, and the fix (zfs_arc_max, RAM) is day work: a ticket. A scrub or resilver
       competing, a slow disk or the write throttle raise no ARC ticket."""),
    _p("ZfsL2arcErrors", "warning", """The cache device fails: ZFS reads the pool instead, no
       data is at risk."""),
    # ---- disks
    # A suspect cable is two rows, a ticket and a page, because one kernel-log line is not a
    # reason to wake anyone: a reseated disk's CRC error, a link reset at boot or hotplug, a
    # timeout while a standby disk spins up come once and stop. The page needs a reason to
    # act now that the ticket cannot wait for.
    _p("DiskCableFault", "warning", """Link errors on a disk with healthy media: a cable or
       port may be failing. ZFS still repairs from redundancy, nothing more is at risk while
       they stay rare; DiskLinkFailing pages when they cannot wait. It mutes the checksum and
       error-event alerts that follow from it."""),
    _p("DiskLinkFailing", "critical", """Link errors on a pool disk with healthy media, and
       no time to wait: losing the disk would leave its vdev without redundancy, or ZFS
       already counts errors on its vdev, or the errors keep coming. A reseat now keeps the
       redundancy; ZFS faults the disk if the errors go on."""),
    _p("DiskSasExpanderLinkErrors", "warning", """Link errors on several links of one SAS
       expander or HBA at once: the expander, the HBA or the cable that feeds it, not each
       disk's cable. ZFS still repairs from redundancy; one ticket for the part, and it mutes
       the cable tickets of the disks behind it (a disk whose cable page cannot wait still
       pages as DiskLinkFailing)."""),
    _p("DiskSmartFailed", "critical", """The disk predicts its own failure: its vdev is about
       to lose a member. Page while redundancy is still there to resilver from."""),
    _p("DiskReallocatedSectorsRising", "warning", """The disk remaps sectors: it still serves
       its data, plan its replacement."""),
    _p("DiskPendingSectorsRising", "warning", """Sectors the disk cannot read; ZFS repairs them
       from redundancy."""),
    _p("DiskNvmeMediaErrors", "warning", """Media errors the drive reported; ZFS repairs what
       it reads from redundancy."""),
    _p("DiskMediumErrors", "warning", """The disk could not read sectors; ZFS repairs them from
       redundancy."""),
    _p("DiskTemperatureHigh", "warning", """A hot disk ages and fails sooner; nothing is lost
       now."""),
    _p("DiskNvmeCriticalWarning", "critical", """The drive reports spare exhausted, read-only or
       failing reliability: its vdev is about to lose a member."""),
    _p("DiskNvmeWearHigh", "warning", """The drive nears its rated endurance: months, not
       hours."""),
    _p("DiskLinkSpeedDegraded", "warning", """The link renegotiated down, often a bad cable:
       slower, no data at risk."""),
    # ---- power
    _p("UpsOnBattery", "critical", """Mains power is out: page while there is time to act
       (restore power, shed load or shut down cleanly)."""),
    _p("UpsLowBattery", "critical", """The UPS is about to cut power: hosts shut down now.
       Outranks UpsOnBattery for the same UPS."""),
    _p("UpsRuntimeLow", "warning", """The battery would not last long in a power cut: replace
       it or shed load, in working hours."""),
    _p("UpsOnBatteryDuringScan", "warning", """A scrub or resilver drains the battery faster;
       UpsOnBattery already pages for the power cut."""),
    _p("UpsUnreachable", "warning", """zmon cannot read the UPS: a power cut would go unseen,
       nothing has failed yet."""),
    # ---- zmon itself
    _p("ZmonTargetDown", "critical", """The host does not answer: it may be dead, and every
       ZFS, disk and UPS alert for it is blind."""),
    _p("ZmonTargetMissing", "warning", """Prometheus scrapes no zmon at all: a configuration
       error, fixed in working hours."""),
    _p("ZmonCollectorFailing", "warning", """One collector fails: the alerts on its metrics are
       blind, the others still watch."""),
    _p("ZmonCollectorDataStale", "warning", """One collector's data is old: the alerts on its
       metrics are blind, the others still watch."""),
    _p("ZmonCollectorNoData", "warning", """A collector has not finished one good run since zmon
       started (a zpool that hangs from the start): the alerts on its metrics have seen
       nothing, the others still watch. A stuck pool behind a hung zpool pages as
       ZfsPoolStuck."""),
    *(  # ---- zmon's own state: what it cannot see or keep (alert_rules/zmon_state.py)
        _p("ZmonKernelLogNotFollowed", "warning", """zmon cannot follow a kernel log source
           (a configured file missing or unreadable): faults logged there go uncounted,
           nothing has failed yet."""),
        _p("ZmonStateNotWritable", "warning", """zmon cannot write its state files (the
           directory is full or read-only): it still watches, but forgets log positions,
           counts and scrub history at the next restart."""),
    ),
)  # fmt: skip

POLICY_BY_ALERT = {p.alert: p for p in POLICY}


def severity(alert: str) -> str:
    """The severity of ``alert``; a KeyError names an alert the policy does not list."""
    try:
        return POLICY_BY_ALERT[alert].severity
    except KeyError:
        raise KeyError(f"{alert} is not in the paging policy (zmon/health/policy.py)") from None
