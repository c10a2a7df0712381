"""The typed model of ``zpool status`` that the text and the JSON parsers both produce."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

POOL_STATES = ("online", "degraded", "faulted", "offline", "removed", "unavail", "suspended")
VDEV_STATES = ("online", "degraded", "faulted", "offline", "removed", "unavail")
SPARE_STATES = VDEV_STATES + ("avail", "inuse")
# States zpool can print for a vdev row; anything else is unknown (never healthy).
KNOWN_VDEV_STATES = frozenset(s.upper() for s in SPARE_STATES) | {"SPLIT", "UNKNOWN"}
KNOWN_POOL_STATES = frozenset(s.upper() for s in POOL_STATES)

SCAN_FUNCTIONS = ("scrub", "resilver", "rebuild")
INTERIOR_TYPES = frozenset({"root", "mirror", "raidz", "draid", "replacing", "spare"})

# The pool label of config rows pasted without the pool's name (ZFS pool names cannot
# contain parentheses, so it never clashes with a real pool).
UNNAMED_POOL = "(unnamed)"

_MSG_ID = re.compile(r"\b(ZFS-\d{4}-[0-9A-Z]{2,3})\b")


@dataclass
class Scan:
    """One scrub, resilver or rebuild as ``zpool status`` reports it.

    ``state`` is in_progress, paused, finished, canceled or unknown. Times are Unix seconds.
    ``processed`` is what was repaired (scrub) or resilvered. ``to_issue`` is the total to issue
    (``to_examine`` less what was skipped). Rates are bytes per second; ``progress`` is 0-1.
    """

    function: str
    state: str
    start_time: float | None = None
    end_time: float | None = None
    pause_time: float | None = None
    examined: int | None = None
    issued: int | None = None
    to_examine: int | None = None
    to_issue: int | None = None
    processed: int | None = None
    examine_rate: float | None = None
    issue_rate: float | None = None
    progress: float | None = None
    errors: int | None = None
    duration: int | None = None
    remaining: int | None = None
    vdev: str | None = None
    text: str = ""
    # This pass's start and byte counts, as JSON gives them (text prints rates instead).
    pass_start: float | None = None
    pass_examined: int | None = None
    pass_issued: int | None = None
    pass_paused_seconds: float | None = None

    @property
    def active(self) -> bool:
        """Started and not finished or canceled (running or paused)."""
        return self.state in ("in_progress", "paused")

    def estimate(self, now: float) -> None:
        """Fill rates and time left from this pass's counts, as ``zpool status`` does.

        zpool divides the pass's bytes by the pass's running time (pauses excluded) and only
        prints "N to go" from 10 MiB/s on; below that it says "no estimated completion
        time", and so does this (``remaining`` stays None). JSON output carries the counts
        but no rates, so this is how a JSON reading gets the same estimate.
        """
        if self.state != "in_progress" or self.pass_start is None or self.pass_issued is None:
            return
        elapsed = max(1.0, now - self.pass_start - (self.pass_paused_seconds or 0.0))
        self.issue_rate = self.pass_issued / elapsed
        if self.pass_examined is not None:
            self.examine_rate = self.pass_examined / elapsed
        if self.to_issue is not None and self.issued is not None and self.to_issue >= self.issued:
            if self.issue_rate >= ESTIMATE_MIN_RATE:
                self.remaining = int((self.to_issue - self.issued) / self.issue_rate)


ESTIMATE_MIN_RATE = 10 * 1024 * 1024  # zpool prints no estimate below 10 MiB/s


@dataclass
class Vdev:
    """One row of the config table (or one JSON vdev object).

    ``note`` is the text after the counters; ``printed`` the counters as printed (``2.04K``).
    ``trim_progress``/``initialize_progress`` are 0-1 while a TRIM/initialize is under way.
    """

    name: str
    state: str | None
    vdev_class: str = "normal"
    type: str = "disk"
    read_errors: int | None = None
    write_errors: int | None = None
    checksum_errors: int | None = None
    slow_ios: int | None = None
    note: str = ""
    children: list[Vdev] = field(default_factory=list)
    parent: str | None = None
    depth: int = 0
    path: str | None = None
    was_path: str | None = None
    guid: str | None = None
    device: str | None = None
    trim_progress: float | None = None
    initialize_progress: float | None = None
    printed: dict[str, str] = field(default_factory=dict)

    @property
    def is_leaf(self) -> bool:
        """A device (disk, file, dRAID spare, missing device), not a grouping vdev."""
        return self.type not in INTERIOR_TYPES and not self.children

    @property
    def state_known(self) -> bool:
        return self.state is not None and self.state.upper() in KNOWN_VDEV_STATES

    def walk(self) -> Iterator[Vdev]:
        """This vdev and all below it, depth first in printed order."""
        yield self
        for child in self.children:
            yield from child.walk()


# libzfs reports these only for a pool whose I/O is suspended: ZPOOL_STATUS_IO_FAILURE_WAIT
# (failmode=wait), _CONTINUE (failmode=continue) and _MMP (multihost writes failed).
SUSPENDED_MSG_IDS = frozenset({"ZFS-8000-HC", "ZFS-8000-JQ", "ZFS-8000-MM"})
# zpool status prints for them: "One or more devices are faulted in response to IO failures."
# (wait and continue), "The pool is suspended because multihost writes failed or were delayed"
_SUSPENDED_STATUS = re.compile(
    r"faulted in response to IO failures|pool is suspended", re.IGNORECASE
)


@dataclass
class Pool:
    """One pool from ``zpool status``.

    ``state`` is the raw ``state:`` word (``ONLINE``, ``SUSPENDED`` ...) or None when absent.
    ``root`` is the pool-named row with the normal vdevs below it; ``classes`` holds the
    top-level vdevs of the other sections (special, dedup, log, cache, spare) in order.
    ``extra`` keeps the other sections (``expand:``, ``remove:``, ``trim:`` ...) as text.
    ``data_errors`` is None when unknown (not 0); ``incomplete`` lists why the output cannot
    be trusted as a whole (truncation, unknown states, missing sections).
    """

    name: str
    state: str | None = None
    guid: str | None = None
    status: str = ""
    action: str = ""
    see: str = ""
    msg_id: str | None = None
    scans: list[Scan] = field(default_factory=list)
    root: Vdev | None = None
    classes: dict[str, list[Vdev]] = field(default_factory=dict)
    errors_seen: bool = False
    data_errors: int | None = None
    data_errors_present: bool | None = None
    error_files: list[str] = field(default_factory=list)
    errors_unavailable: bool = False
    errors_unavailable_reason: str = ""
    upgrade_available: bool = False
    extra: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)

    @property
    def scan(self) -> Scan | None:
        """The scan the pool-wide scan metrics describe: the first active one, else the first."""
        for s in self.scans:
            if s.active:
                return s
        return self.scans[0] if self.scans else None

    @property
    def complete(self) -> bool:
        return not self.incomplete

    @property
    def state_known(self) -> bool:
        return self.state is not None and self.state.upper() in KNOWN_POOL_STATES

    @property
    def io_suspended(self) -> bool:
        """The pool's I/O is suspended: state SUSPENDED, the error list says so, or the status
        is one libzfs gives only a suspended pool (ZFS-8000-HC, -JQ, -MM)."""
        return (
            (self.state or "").upper() == "SUSPENDED"
            or "suspended" in self.errors_unavailable_reason.lower()
            or self.msg_id in SUSPENDED_MSG_IDS
            or bool(_SUSPENDED_STATUS.search(" ".join(self.status.split())))
        )

    def top_levels(self) -> Iterator[Vdev]:
        """The root row, then each class section's top-level vdevs."""
        if self.root is not None:
            yield self.root
        for members in self.classes.values():
            yield from members

    def vdevs(self) -> Iterator[Vdev]:
        """Every vdev, root first, depth first, class sections after the main tree."""
        for top in self.top_levels():
            yield from top.walk()

    def set_see(self, text: str) -> None:
        self.see = text.strip()
        m = _MSG_ID.search(self.see)
        if m:
            self.msg_id = m.group(1)


@dataclass
class ZpoolStatus:
    """Everything one ``zpool status`` run printed."""

    pools: list[Pool] = field(default_factory=list)
    source: str = "text"
    no_pools: bool = False
    warnings: list[str] = field(default_factory=list)


# ---- things derived from text, shared by both parsers ----

_UPGRADE = re.compile(
    r"features are not enabled|legacy on-disk format|older on-disk format"
    r"|formatted using an? (?:older|legacy)|can be upgraded",
    re.IGNORECASE,
)


def upgrade_suggested(status: str) -> bool:
    """True when the status text is one of the 'run zpool upgrade' notices."""
    return bool(_UPGRADE.search(status))


# (kind, pattern) in priority order; the kind is a bounded label value.
_STATUS_KINDS: tuple[tuple[str, str], ...] = (
    ("io_failure", r"in response to IO failures|is suspended|I/O failures"),
    ("features_disabled", r"features are not enabled"),
    ("legacy_format", r"legacy on-disk format|older on-disk format|formatted using an? older"),
    ("newer_version", r"newer, incompatible on-disk version"),
    ("unsupported_features", r"feature\(s\) not supported|features? (?:are )?not supported"),
    ("resilvering", r"currently being resilvered"),
    ("rebuild_scrub", r"sequentially resilvered"),
    ("corrupt_data", r"error resulting in data\s+corruption"),
    ("corrupt_pool", r"metadata is incomplete or corrupted"),
    ("label_missing", r"label is missing"),
    ("missing_device", r"could not be opened"),
    ("faulted_device", r"faulted in response to persistent errors|failure domains are faulted"),
    ("unrecoverable_error", r"experienced an unrecoverable error"),
    ("offline_device", r"taken offline by the administrator"),
    ("removed_device", r"been removed"),
    ("bad_log", r"intent log record"),
    ("non_native_ashift", r"non-native block size"),
    ("hostid_mismatch", r"hostid"),
    ("errata", r"Errata #"),
    ("compatibility", r"compatibility"),
)
_STATUS_RES = tuple((kind, re.compile(pat, re.IGNORECASE)) for kind, pat in _STATUS_KINDS)


def status_kind(status: str) -> str:
    """A short, bounded name for the ``status:`` text ("" when there is none, else "other")."""
    text = " ".join(status.split())
    if not text:
        return ""
    for kind, pattern in _STATUS_RES:
        if pattern.search(text):
            return kind
    return "other"


_NOTE_KINDS: tuple[tuple[str, str], ...] = (
    ("too_many_errors", r"too many errors"),
    ("too_many_slow_ios", r"too many slow I/Os"),
    ("resilvering", r"\(resilvering\)|\(awaiting resilver\)"),
    ("repairing", r"\(repairing\)"),
    ("was", r"\bwas \S"),
    ("insufficient_replicas", r"insufficient replicas"),
    ("corrupted_data", r"corrupted data"),
    ("external_fault", r"external device fault"),
    ("in_use", r"currently in use|in use by pool"),
    ("cannot_open", r"cannot open"),
    ("missing_device", r"missing device"),
    ("io_failures", r"experienced I/O failures"),
    ("trimming", r"\(trimming(?:, suspended)?\)|\(\d+% trimmed, (?:suspended, )?started"),
    (
        "initializing",
        r"\(initializing(?:, suspended)?\)|\(\d+% initialized, (?:suspended, )?started",
    ),
    ("removing", r"\(removing\)"),
    ("repaired", r"\b\S+ repaired\b"),
    ("resilvered", r"\b\S+ resilvered\b"),
)
_NOTE_RES = tuple((kind, re.compile(pat, re.IGNORECASE)) for kind, pat in _NOTE_KINDS)
# Notes that carry no health information and need no label of their own.
_QUIET_NOTE = re.compile(
    r"\((?:untrimmed|uninitialized|trim unsupported|non-allocating|"
    r"\d+% (?:trimmed|initialized), completed at [^)]*)\)"
)


def note_kinds(note: str) -> list[str]:
    """The bounded kinds found in a vdev's note; "other" for text no rule knows."""
    kinds = [kind for kind, pattern in _NOTE_RES if pattern.search(note)]
    if not kinds:
        rest = _QUIET_NOTE.sub("", note).strip()
        if rest:
            kinds.append("other")
    return kinds


_PROGRESS = re.compile(r"\((\d+)% (trimmed|initialized)")


def note_progress(note: str, what: str) -> float | None:
    """The ``(N% trimmed ...)``/``(N% initialized ...)`` fraction in a note, as a 0-1 ratio."""
    for pct, kind in _PROGRESS.findall(note):
        if kind == what:
            return int(pct) / 100.0
    return None


_WAS = re.compile(r"\bwas (\S+)")


def was_path(note: str) -> str | None:
    """The former path in a ``was /dev/...`` note (a device shown by GUID)."""
    m = _WAS.search(note)
    return m.group(1) if m else None


_TYPE_BY_NAME = (
    (re.compile(r"^mirror(?:-\d+)?$"), "mirror"),
    (re.compile(r"^raidz[123]?(?:-\d+)?$"), "raidz"),
    (re.compile(r"^draid[123]?(?::[^-\s]*)?(?:-\d+)?$"), "draid"),
    (re.compile(r"^draid\d+-\d+-\d+$"), "dspare"),
    (re.compile(r"^replacing(?:-\d+)?$"), "replacing"),
    (re.compile(r"^spare(?:-\d+)?$"), "spare"),
    (re.compile(r"^(?:hole|indirect)(?:-\d+)?$"), "hole"),
)


def vdev_type_from_name(name: str) -> str:
    """The vdev type zpool's naming implies (``mirror-0`` -> mirror, ``draid2-0-1`` -> dspare).

    Uses the type names of ``zpool status -j`` (``raidz`` for all parities). A leaf is a
    ``file`` when its name is a path outside ``/dev``, else a ``disk``.
    """
    for pattern, typ in _TYPE_BY_NAME:
        if pattern.match(name):
            return typ
    if name.startswith("/") and not name.startswith("/dev/"):
        return "file"
    return "disk"


@dataclass(frozen=True)
class DraidLayout:
    """What a dRAID vdev name says: ``draid2:8d:90c:2s-0`` is parity 2, 8 data disks per
    group, 90 children, 2 distributed spares, top-level index 0."""

    parity: int
    data: int | None
    children: int | None
    spares: int | None
    index: int | None


_DRAID = re.compile(
    r"^draid(?P<p>[123])?(?::(?P<d>\d+)d)?(?::(?P<c>\d+)c)?(?::(?P<s>\d+)s)?(?:-(?P<i>\d+))?$"
)
_DSPARE = re.compile(r"^draid(?P<p>\d+)-(?P<top>\d+)-(?P<spare>\d+)$")


def _opt_int(text: str | None) -> int | None:
    return int(text) if text is not None else None


def parse_draid_name(name: str) -> DraidLayout | None:
    """The layout in a dRAID top-level vdev name, or None for other names."""
    m = _DRAID.match(name)
    if not m:
        return None
    return DraidLayout(
        int(m.group("p") or 1),
        _opt_int(m.group("d")),
        _opt_int(m.group("c")),
        _opt_int(m.group("s")),
        _opt_int(m.group("i")),
    )


def parse_draid_spare(name: str) -> tuple[int, int, int] | None:
    """``draid2-0-1`` -> (parity 2, top-level vdev 0, spare 1); None for other names."""
    m = _DSPARE.match(name)
    return (int(m.group("p")), int(m.group("top")), int(m.group("spare"))) if m else None
