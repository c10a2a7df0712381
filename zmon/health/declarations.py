"""The declared alert conditions and the records they share, built from one thresholds table.

Each condition is declared here once: alert_rules/ renders the Prometheus rule from it, and
``zmon.health.conditions.evaluate_conditions`` evaluates it over zmon's own history. The
families here are the pool states and the suspect cable (SATA CRC errors, kernel-log link
events and SAS PHY error counters), with the records and scopes others
join with; the other families have modules of their own (integrity.py, scans.py,
capacity.py, memory.py, disks.py, host.py, self_watch.py), and shipped.py lists them all.
"""

from __future__ import annotations

from functools import reduce

from zmon.health.conditions import Condition
from zmon.health.expr import (
    Node,
    Range,
    Record,
    count_by,
    increase,
    label_replace,
    max_by,
    max_over_time,
    metric,
    min_by,
    min_over_time,
    sum_by,
)
from zmon.health.thresholds import Duration, Thresholds, format_seconds
from zmon.health.words import DISK_, DISK_LOCATION, POOL, SAS_LINK, VDEV, VDEV_DISK

POOL_UNAVAILABLE = ("faulted", "unavail", "removed", "suspended")
"""The pool states in which its data cannot be read or written (ZfsPoolFaulted)."""
VDEV_LOST = ("faulted", "unavail", "removed")
"""The states of a vdev ZFS no longer uses (ZfsVdevFaulted)."""


def one_of(values: tuple[str, ...]) -> str:
    """A regex matcher value (``metric``'s) for any of ``values``."""
    return "=~" + "|".join(values)


DEVICE = ("instance", "job", "device")
POOL_ID = ("instance", "job", "pool")
VDEV_ID = ("instance", "job", "pool", "vdev")
LEAF = ("instance", "job", "pool", "vdev", "device")

# ---- records several families join with

VDEV_INFO = Record.of("zmon:vdev_device:info", max_by(LEAF, metric("zmon_vdev_info", device="!=")))


def disk_pool(t: Thresholds) -> Record:
    """Each disk's pools over the last ``disk_pool_memory``."""
    remembered = max_over_time(VDEV_INFO.at(t.disk_pool_memory))
    by = ("instance", "job", "device", "pool")
    return Record.of("zmon:disk_pool:info", max_by(by, remembered))


def disk_vdev(t: Thresholds) -> Record:
    """Each disk's pools and leaf vdevs over the last ``disk_pool_memory``."""
    remembered = max_over_time(VDEV_INFO.at(t.disk_pool_memory))
    return Record.of(
        "zmon:disk_vdev:info", max_by(("instance", "job", "device", "pool", "vdev"), remembered)
    )


def _redundancy() -> Node:
    built = metric("zmon_vdev_redundancy", **{"class": "!=log"})
    return built.and_(metric("zmon_vdev_state", state="online").eq(1), on=VDEV_ID)


TOP = ("instance", "job", "pool", "parent")  # a vdev's parent, by the parent's name


def as_parent(expr: Node) -> Node:
    """``expr`` (vdevs) with each vdev's name as ``parent``: to join with its children."""
    return max_by(TOP, label_replace(expr, "parent", "$1", "vdev", "(.+)"))


DISK_REDUNDANCY = Record.of(
    "zmon:disk_vdev_redundancy:min",
    min_by(
        LEAF,
        (info := max_by((*LEAF, "parent"), metric("zmon_vdev_info", device="!=")))
        .op("*", as_parent(_redundancy()), on=TOP, group_left=())
        .or_(info.op("*", max_by(VDEV_ID, _redundancy()), on=VDEV_ID, group_left=())),
    ),
)
"""Per pool disk: how many more member failures the top-level vdev it sits in directly
survives (``zmon_vdev_redundancy``; a disk that is a top-level vdev itself: its own), while that
vdev is ONLINE: the redundancy it was built with. A vdev already DEGRADED is told by
ZfsPoolDegraded and ZfsPoolRedundancyLost; a link blip on another of its disks (a neighbour
touched while one is swapped) pages only when it keeps coming or ZFS counts errors. A disk
under ``replacing-N`` or ``spare-N`` has none: it is being resilvered in and carries no
redundancy yet. Log vdevs are left out: losing one does not lose the pool."""


def cannot_lose(t: Thresholds) -> Node:
    """The pool disks whose loss would leave their vdev without redundancy (a raidz1 member,
    a side of a two-way mirror, a single-disk vdev): they page at their first fault."""
    return DISK_REDUNDANCY <= t.page_redundancy


def shared_records(t: Thresholds) -> list[Record]:
    """The records of the zmon-recording group, in order."""
    return [VDEV_INFO, disk_pool(t), disk_vdev(t), DISK_REDUNDANCY]


# ---- scopes


def per_vdev(expr: Node, *extra: str) -> Node:
    """``expr`` with the vdev's identity only (instance, job, pool, vdev): no ``device``, no
    ``class``. A label that can change during one incident (the ``device`` of a disk replaced
    or re-enumerated under a slot-named vdev) would resolve the alert and fire it again under
    new labels: a second notification."""
    return max_by((*VDEV_ID, *extra), expr)


def with_disk_scope(expr: Node, scope: Record) -> Node:
    """Per-device ``expr`` with the labels ``scope`` remembers for the disk (its pool, or its
    pool and leaf vdev, over ``disk_pool_memory``), or none if it served no pool.

    A disk replaced out of its pool keeps its label set, so its alert does not resolve and fire
    again (a second page). The pool and vdev labels let a cause outrank the same disk's vdev
    alerts in Alertmanager (inhibition on instance, pool and vdev)."""
    per_device = max_by(DEVICE, expr)
    return per_device.op("*", scope, on=DEVICE, group_right=()).or_(per_device, on=DEVICE)


def rise(name: str, window: Duration) -> Node:
    """How far a gauge stands above its lowest value in ``window`` (exact, unlike delta)."""
    return metric(name) - min_over_time(metric(name).at(window))


def _shifted(r: Range, offset: int | None) -> Range:
    return r.shifted(format_seconds(offset)) if offset else r


# ---- SAS links: the PHY error counters as cable evidence (the cable conditions read them
# through sas_link_errors; the expander condition through sas_phy_link_errors)


def sas_counters(t: Thresholds, prefix: str) -> list[str]:
    """The link error counters of ``prefix`` (``zmon_sas_phy``: the HBA's or expander's side,
    ``zmon_disk_sas_phy``: the disk's own)."""
    return [f"{prefix}_{name}_total" for name in t.sas_link_counters.split("|")]


def _rose(
    metrics: list[str], by: tuple[str, ...], window: int, offset: int, **matchers: str
) -> Node:
    """``by`` where any of ``metrics`` rose in ``window`` seconds (ending ``offset`` ago)."""
    rises = [
        increase(_shifted(metric(m, **matchers).at(format_seconds(window)), offset or None)) > 0
        for m in metrics
    ]
    return max_by(by, reduce(lambda a, b: a.or_(b), rises))


def _both_halves(
    metrics: list[str],
    by: tuple[str, ...],
    window: Duration,
    offset: int | None = None,
    **matchers: str,
) -> Node:
    """``by`` where ``metrics`` rose in each half of ``window`` (ending ``offset`` seconds
    ago): errors that keep coming. A PHY's counters also rise once at boot and at a link reset
    (link training); that one step falls in one half only."""
    half = max(1, window.seconds // 2)
    end = offset or 0
    newer = _rose(metrics, by, half, end, **matchers)
    older = _rose(metrics, by, half, end + half, **matchers)
    return newer.and_(older, on=by)


def sas_link_errors(t: Thresholds, window: Duration, offset: int | None = None) -> Node:
    """The disks whose SAS link took errors in both halves of ``window``: on the HBA or
    expander PHY that links the disk (sysfs), or on the disk's own PHYs (smartctl)."""
    host_side = _both_halves(sas_counters(t, "zmon_sas_phy"), DEVICE, window, offset, device="!=")
    disk_side = _both_halves(sas_counters(t, "zmon_disk_sas_phy"), DEVICE, window, offset)
    return host_side.or_(disk_side)


def sas_link_errors_record(t: Thresholds) -> Record:
    """The disks whose SAS link took errors that kept coming in the cable window (the cable
    ticket and page read it; the page's shorter periods compute their own)."""
    return Record.of("zmon:disk_sas_link_errors:rising", sas_link_errors(t, t.cable_window))


def sas_phy_link_errors(t: Thresholds, window: Duration) -> Node:
    """The HBA and expander PHYs (sysfs) with link errors in both halves of ``window``."""
    return _both_halves(sas_counters(t, "zmon_sas_phy"), ("instance", "job", "phy"), window)


def _sas_parent_record() -> Record:
    info = label_replace(
        metric("zmon_sas_phy_info", attached="disk", device="!="),
        "sas_parent", "$1", "parent", "(.+)",
    )  # fmt: skip
    parents = max_by((*DEVICE, "sas_parent"), info)
    return Record.of(
        "zmon:disk_sas_parent:info", parents.and_(count_by(DEVICE, parents).eq(1), on=DEVICE)
    )


SAS_PARENT = _sas_parent_record()
"""Per disk that one HBA or expander PHY links (sysfs): that HBA or expander, as
``sas_parent``, the label the expander alert mutes the disk's cable ticket by. A disk seen
through PHYs of two parents has none."""


def sas_records(t: Thresholds) -> list[Record]:
    """The SAS records of the zmon-disks group, before the cable conditions that read them."""
    return [SAS_PARENT, sas_link_errors_record(t)]


def with_sas_parent(expr: Node) -> Node:
    """``expr`` (per device) with the disk's ``sas_parent`` where it has one."""
    return expr.op("*", SAS_PARENT, on=DEVICE, group_left=("sas_parent",)).or_(expr, on=DEVICE)


def link_errors(t: Thresholds, window: Duration, offset: int | None = None) -> Node:
    """The disks with new CRC errors or kernel-log link events (resets, link down, timeouts)
    in ``window`` (ending ``offset`` seconds ago, if given), or SAS PHY errors that kept
    coming (the cable window's from its record)."""
    crc = _shifted(metric("zmon_disk_crc_errors_total").at(window), offset)
    logged = metric("zmon_kernel_log_events_total", pattern="=~" + t.cable_patterns)
    recorded = window.seconds == t.cable_window.seconds and not offset
    sas = sas_link_errors_record(t) if recorded else sas_link_errors(t, window, offset)
    return (
        (sum_by(DEVICE, increase(crc)) > 0)
        .or_(sum_by(DEVICE, increase(_shifted(logged.at(window), offset))) > 0)
        .or_(sas)
    )


def media_rising(t: Thresholds) -> Node:
    """The disks whose sector counts rose in ``sector_window``: the media, not the link."""
    w = t.sector_window
    counts = ("reallocated_sectors", "pending_sectors", "offline_uncorrectable_sectors",
              "scsi_grown_defects")  # fmt: skip
    return reduce(lambda a, b: a.or_(b), [rise(f"zmon_disk_{c}", w) > 0 for c in counts])


# ---- pools


def pool_conditions(t: Thresholds) -> list[Condition]:
    state_for = t.pool_state_for
    return [
        Condition(
            "ZfsPoolDegraded",
            metric("zmon_pool_state", state="degraded").eq(1),
            "A ZFS pool is degraded and runs with reduced redundancy.",
            f"ZFS {POOL} is DEGRADED: a vdev is faulted, offline, removed or unavailable. "
            "Another failure in the same vdev may lose data. "
            "Run zpool status -x {{ $labels.pool }} to find the vdev.",
            state_for,
        ),
        Condition(
            "ZfsPoolFaulted",
            metric("zmon_pool_state", state=one_of(POOL_UNAVAILABLE)).eq(1),
            "A ZFS pool is faulted, unavailable or suspended.",
            f"ZFS {POOL} is {{{{ $labels.state | toUpper }}}}: its data cannot be read or "
            "written. Run zpool status -v {{ $labels.pool }} now.",
            state_for,
        ),
        Condition(
            "ZfsPoolRedundancyLost",
            max_by(
                POOL_ID,
                metric("zmon_vdev_redundancy")
                .eq(0)
                .and_(metric("zmon_vdev_state", state="degraded").eq(1), on=(*VDEV_ID, "class")),
            ),
            "A ZFS pool has no redundancy left: one more failure loses it.",
            f"ZFS {POOL} has a vdev with no redundancy left"
            '{{ with printf "zmon_vdev_redundancy{instance=%q,pool=%q} == 0 and on(instance, '
            'pool, vdev, class) zmon_vdev_state{state=\\"degraded\\"} == 1" $labels.instance '
            "$labels.pool | query }} ({{ range . }}{{ .Labels.vdev }} {{ end }}is DEGRADED)"
            "{{ end }}: one more disk failure in it loses the pool. Replace or bring back the "
            "missing disk now (zpool status -x {{ $labels.pool }}), and do not take another "
            "disk of it offline.",
            state_for,
        ),
        Condition(
            "ZfsVdevFaulted",
            per_vdev(
                metric("zmon_vdev_state", state=one_of(VDEV_LOST))
                .eq(1)
                .unless(metric("zmon_vdev_info", type="root"), on=VDEV_ID),
                "state",
            ),
            "A ZFS vdev is faulted, unavailable or removed.",
            f"ZFS {VDEV} is {{{{ $labels.state | toUpper }}}}. Replace or reattach it.",
            state_for,
        ),
        Condition(
            "ZfsSpareInUse",
            per_vdev(metric("zmon_vdev_state", state="inuse").eq(1)),
            "A ZFS hot spare has replaced a failed disk.",
            f"Hot spare {{{{ $labels.vdev }}}}{VDEV_DISK} of pool {{{{ $labels.pool }}}} on "
            "{{ $labels.instance }} is in use. "
            "Replace the failed disk, then detach the spare to make it available again.",
            state_for,
        ),
    ]


# ---- a suspect cable


def cable_fault(t: Thresholds) -> Condition:
    """The ticket for link errors on a disk with healthy media."""
    cw = t.cable_window
    flaps = sum_by(
        DEVICE, increase(metric("zmon_disk_hotplug_events_total", action="remove").at(cw))
    )
    expr = (
        link_errors(t, cw).or_(flaps >= t.hotplug_flaps_max + 1).unless(media_rising(t), on=DEVICE)
    )
    return Condition(
        "DiskCableFault",
        with_sas_parent(with_disk_scope(expr, disk_vdev(t))),
        "Link errors on a disk whose media is healthy: suspect the cable or port.",
        f"{DISK_} shows CRC errors, link resets, command timeouts, hotplug flaps or SAS "
        f"PHY errors in the last {cw}{SAS_LINK}, while its reallocated, pending and "
        "uncorrectable sector counts are steady. Reseat or replace the cable, or move "
        f"the disk to another port{DISK_LOCATION}.",
    )


def link_failing(t: Thresholds) -> Condition:
    """Page for a suspect cable only when a human is needed now (DiskCableFault is the
    ticket for every other link error): the disk's loss would leave its vdev with no
    redundancy, ZFS already counts errors on its vdev, or the errors keep coming."""
    slice_seconds, sl, n = t.cable_page_slice.seconds, t.cable_page_slice, t.cable_page_slices
    window = t.cable_window
    suspect = link_errors(t, window).unless(media_rising(t), on=DEVICE)
    slices = reduce(
        lambda a, b: a.and_(b, on=DEVICE),
        [link_errors(t, sl, i * slice_seconds or None) for i in range(n)],
    )
    zfs_errors = (
        increase(metric("zmon_vdev_read_errors_total").at(window))
        + increase(metric("zmon_vdev_write_errors_total").at(window))
        + increase(metric("zmon_vdev_checksum_errors_total").at(window))
        > 0
    )
    expr = max_by(
        LEAF,
        cannot_lose(t)
        .or_(VDEV_INFO.and_(max_by(VDEV_ID, zfs_errors), on=VDEV_ID), on=VDEV_ID)
        .or_(VDEV_INFO.and_(slices, on=DEVICE), on=DEVICE)
        .and_(suspect, on=DEVICE),
    )
    where = "instance=%q,pool=%q,vdev=%q"
    args = "$labels.instance $labels.pool $labels.vdev"
    zfs_counted = " + ".join(
        f"sum(increase(zmon_vdev_{kind}_errors_total{{{where}}}[{window}]))"
        for kind in ("read", "write", "checksum")
    )
    why = (
        f'{{{{ with printf "{DISK_REDUNDANCY.name}{{{where}}} <= {t.page_redundancy}" '
        f"{args} | query }}}}{{{{ with . | first }}}}; losing it would leave its vdev without "
        "redundancy (further failures the vdev survives now: {{ .Value }}){{ end }}{{ else }}"
        f'{{{{ with printf "({zfs_counted}) > 0" {args} {args} {args} | query }}}}'
        f"{{{{ with . | first | value }}}}; ZFS counted {{{{ . | humanize }}}} read, write or "
        f"checksum errors on its vdev in the same {window}{{{{ end }}}}{{{{ else }}}}; the "
        f"errors came in each of the last {n} periods of {sl}, and keep coming"
        "{{ end }}{{ end }}"
    )
    return Condition(
        "DiskLinkFailing",
        expr,
        "Link errors on a pool disk with healthy media that cannot wait: suspect the cable "
        "or port.",
        f"{DISK_} shows CRC errors, link resets, command timeouts or SAS PHY errors in the "
        f"last {window}{SAS_LINK}{why}. Reseat or replace the cable now, or move the disk to "
        f"another port{DISK_LOCATION}; ZFS faults the disk if the errors go on.",
    )


def sas_expander(t: Thresholds) -> Condition:
    """One ticket for an expander or HBA whose PHYs take link errors on several links at
    once: the disks' cables are not the cause (their cable tickets are muted by it)."""
    cw = t.cable_window
    info = label_replace(metric("zmon_sas_phy_info"), "sas_parent", "$1", "parent", "(.+)")
    expr = (
        count_by(
            ("instance", "job", "sas_parent"),
            info.and_(sas_phy_link_errors(t, cw), on=("instance", "job", "phy")),
        )
        >= t.sas_expander_phys
    )
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
    return Condition(
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


def cable_conditions(t: Thresholds) -> list[Condition]:
    return [cable_fault(t), link_failing(t), sas_expander(t)]
