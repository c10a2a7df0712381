"""The ``scan:`` (and old ``scrub:``) section of ``zpool status``, in every known wording.

Handled generations (first line, then the indented progress lines):

* Solaris / zfs-fuse: ``scrub completed after 0h0m with 0 errors on DATE``,
  ``scrub in progress for 0h1m, 12.34% done, 0h5m to go``, ``resilver completed ...``.
* ZoL 0.6/0.7: ``scrub repaired 0 in 3h49m with 1937 errors on DATE``; in progress
  ``80MB scanned out of 447MB at 6.1MB/s, 0h0m to go`` / ``0B repaired, 17.81% done``.
* OpenZFS 0.8-2.2: ``199M scanned at 9.95M/s, 35.2M issued at 1.76M/s, 199M total`` /
  ``0B repaired, 17.70% done, no estimated completion time``; finished ``... in 00:01:06 ...``.
* OpenZFS 2.3+: ``200M / 200M scanned, 33.5M / 200M issued at 2.10M/s``.
* ``scrub paused since DATE`` + ``scrub started on DATE``; ``... canceled on DATE``;
  sequential resilver (dRAID rebuild) ``resilver (draid2:8d:90c:2s-0) in progress since``;
  ``thorough scrub ...`` and error scrub (``error scrub ...``, ``scrubbed N error blocks``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import tzinfo

from zmon.base.errors import refuses_hostile_input
from zmon.parsers.common.units import (
    parse_ctime,
    parse_duration,
    parse_percent,
    parse_rate,
    try_nice,
)
from zmon.parsers.zpool.zpool_status_model import Scan

_FUNC = r"(?P<func>(?:thorough |error )?scrub|resilver)"
_VDEV = r"(?: \((?P<vdev>[^)]+)\))?"
_HEADS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (state, re.compile(pattern))
    for state, pattern in (
        ("finished", r"^(?P<func>(?:thorough )?scrub) repaired (?P<proc>\S+) in (?P<dur>.+?) "
                     r"with (?P<err>\d+) errors on (?P<date>.+)$"),
        ("finished", r"^(?P<func>resilver)ed" + _VDEV + r" (?P<proc>\S+) in (?P<dur>.+?) "
                     r"with (?P<err>\d+) errors on (?P<date>.+)$"),
        ("finished", r"^(?P<func>scrub|resilver) completed after (?P<dur>\S+) "
                     r"with (?P<err>\d+) errors on (?P<date>.+)$"),
        ("canceled", r"^(?P<func>scrub|resilver) stopped after (?P<dur>\S+) "
                     r"with (?P<err>\d+) errors on (?P<date>.+)$"),
        ("finished", r"^(?P<func>scrub)bed (?P<errblocks>\d+) error blocks in (?P<dur>.+?) "
                     r"on (?P<date>.+)$"),
        ("canceled", r"^" + _FUNC + _VDEV + r" canceled on (?P<date>.+)$"),
        ("in_progress", r"^" + _FUNC + _VDEV + r" in progress since (?P<date>.+)$"),
        ("paused", r"^" + _FUNC + r" paused since (?P<date>.+)$"),
        ("in_progress", r"^(?P<func>scrub|resilver) in progress for (?P<elapsed>[^,]+)"
                        r"(?:, (?P<rest>.*))?$"),
    )
)  # fmt: skip

_COMMA = re.compile(r", (?![^()]*\))")  # a comma not inside "(...)"
_N = r"(?P<a>[\d.]+[A-Za-z]*)"
_M = r"(?P<b>[\d.]+[A-Za-z]*)"
_R = r"(?P<r>[\d.]+[A-Za-z]*/s)"
_CLAUSES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("scanned_of", rf"^{_N} / {_M} scanned(?: at {_R})?$"),
        ("issued_of", rf"^{_N} / {_M} issued(?: (?:at )?{_R})?$"),
        ("scanned_out_of", rf"^{_N} scanned out of {_M}(?: at {_R})?$"),
        ("scanned", rf"^{_N} scanned(?: at {_R})?$"),
        ("issued", rf"^{_N} issued(?: (?:at )?{_R})?$"),
        ("total", rf"^{_N} total$"),
        ("processed", rf"^{_N} (?:repaired|resilvered)$"),
        ("percent", r"^(?P<a>[\d.]+%) done$"),
        ("to_go", r"^(?P<a>.+) to go$"),
        ("no_eta", r"^(?:no estimated completion time|\(scan is slow, no estimated time\))$"),
        ("started", r"^(?:thorough |error )?scrub started on (?P<a>.+)$"),
        ("error_blocks", r"^issued I/O for (?P<a>\d+) error blocks$"),
    )
)  # fmt: skip


@refuses_hostile_input
def parse_scan(lines: Sequence[str], tz: tzinfo | None = None) -> tuple[Scan | None, list[str]]:
    """Parse a scan section; return (scan or None for ``none requested``, warnings).

    An unrecognised first line gives a Scan with state ``unknown`` (never "finished").
    """
    texts = [" ".join(line.split()) for line in lines if line.strip()]
    if not texts:
        return None, ["empty scan line"]
    head, rest = texts[0], texts[1:]
    if head.lower().startswith("none requested"):
        return None, []
    for state, pattern in _HEADS:
        m = pattern.match(head)
        if m:
            scan = _from_head(state, m, tz)
            scan.text = "\n".join(texts)
            warnings = _apply_clauses(scan, _split_clauses(rest, m.groupdict().get("rest")), tz)
            return scan, warnings
    function = "resilver" if "resilver" in head else "scrub" if "scrub" in head else "unknown"
    return Scan(function, "unknown", text="\n".join(texts)), [f"unrecognised scan line: {head!r}"]


def _function(func: str, vdev: str | None, error_blocks: str | None) -> str:
    if func.startswith("error") or error_blocks is not None:
        return "error_scrub"
    if func.endswith("scrub"):
        return "scrub"
    return "rebuild" if vdev else "resilver"


def _from_head(state: str, m: re.Match[str], tz: tzinfo | None) -> Scan:
    groups = m.groupdict()
    vdev = groups.get("vdev")
    scan = Scan(_function(groups["func"], vdev, groups.get("errblocks")), state, vdev=vdev)
    date = parse_ctime(groups["date"], tz) if groups.get("date") else None
    if state == "in_progress":
        scan.start_time = date
    elif state == "paused":
        scan.pause_time = date
    else:
        scan.end_time = date
    if groups.get("proc") is not None:
        scan.processed = try_nice(groups["proc"])
    if groups.get("err") is not None and scan.function != "error_scrub":
        scan.errors = int(groups["err"])
    duration = parse_duration(groups["dur"]) if groups.get("dur") else None
    if duration is not None:
        scan.duration = duration[0]
        # Only an exact "end - start" duration gives the start; a rebuild's is scan time only.
        exact = duration[1] and scan.function != "rebuild"
        if exact and scan.end_time is not None and state == "finished":
            scan.start_time = scan.end_time - duration[0]
    return scan


def _split_clauses(lines: Sequence[str], first_rest: str | None) -> list[str]:
    clauses: list[str] = []
    for text in ([first_rest] if first_rest else []) + list(lines):
        clauses.extend(part.strip() for part in _COMMA.split(text) if part.strip())
    return clauses


def _apply_clauses(scan: Scan, clauses: Sequence[str], tz: tzinfo | None) -> list[str]:
    warnings: list[str] = []
    for clause in clauses:
        for kind, pattern in _CLAUSES:
            m = pattern.match(clause)
            if m:
                _apply(scan, kind, m.groupdict(), tz)
                break
        else:
            warnings.append(f"unrecognised scan detail: {clause!r}")
    return warnings


def _apply(scan: Scan, kind: str, g: dict[str, str | None], tz: tzinfo | None) -> None:
    a, b, r = g.get("a") or "", g.get("b"), g.get("r")
    if kind in ("scanned_of", "scanned_out_of", "scanned"):
        scan.examined = try_nice(a)
        if b is not None:
            scan.to_examine = try_nice(b)
        scan.examine_rate = parse_rate(r) if r else scan.examine_rate
    elif kind in ("issued_of", "issued"):
        scan.issued = try_nice(a)
        if b is not None:
            scan.to_issue = try_nice(b)
        scan.issue_rate = parse_rate(r) if r else scan.issue_rate
    elif kind == "total":
        scan.to_examine = try_nice(a)
    elif kind == "processed":
        scan.processed = try_nice(a)
    elif kind == "percent":
        scan.progress = parse_percent(a)
    elif kind == "to_go":
        duration = parse_duration(a)
        scan.remaining = duration[0] if duration else None
    elif kind == "started":
        scan.start_time = parse_ctime(a, tz)
