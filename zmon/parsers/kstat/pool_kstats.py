"""Per-pool Linux kstats under ``/proc/spl/kstat/zfs/<pool>/``.

Formats (SPL kstat, Linux):

* named kstats (``iostats``, ``objset-0x*``, ``ddt_stats_*``): a header line
  ``<kid> <type> <flags> <ndata> <datasize> <crtime> <snaptime>``, then ``name type data``,
  then one ``name type value`` row per stat. Type 7 is a string (the rest of the line).
* the old I/O kstat ``io`` (ZoL 0.6.3 to OpenZFS 2.0, KSTAT_TYPE_IO): the same first line,
  a header row (``nread nwritten reads writes wtime wlentime wupdate rtime rlentime rupdate
  wcnt rcnt``) and one row of numbers (times in nanoseconds).
* ``state``: one word (``ONLINE``, ``SUSPENDED``...); ``guid``: one decimal number.
* ``txgs``: a table with a ``txg birth state ...`` header and one row per recent txg.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.kstat.kstat import parse_kstat, quick_named_values

_HEADER = re.compile(r"^\d+ \d+ 0x[0-9a-fA-F]+ \d+ \d+ \d+ \d+\s*$")


def _text(data: bytes | str) -> str:
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else data


@refuses_hostile_input
def parse_named_kstat(data: bytes | str) -> dict[str, int | str]:
    """Rows of a named kstat, keyed by name; numbers as int, type-7 strings as str.

    Delegates to the shared kstat parser (names and strings may contain spaces; the header
    line is optional).
    """
    quick = quick_named_values(data)
    return quick if quick is not None else parse_kstat(data).values()


@refuses_hostile_input
def parse_io_kstat(data: bytes | str) -> dict[str, int]:
    """The old KSTAT_TYPE_IO pool kstat (``/proc/spl/kstat/zfs/<pool>/io``)."""
    lines = [ln for ln in _text(data).splitlines() if ln.strip()]
    header_at = next(
        (i for i, ln in enumerate(lines) if ln.split()[:2] == ["nread", "nwritten"]), None
    )
    if header_at is None or header_at + 1 >= len(lines):
        raise ParseError("no 'nread nwritten ...' header followed by a row of values")
    names = lines[header_at].split()
    values = lines[header_at + 1].split()
    if len(values) != len(names):
        raise ParseError(f"expected {len(names)} values", header_at + 2, lines[header_at + 1])
    try:
        return {n: int(v) for n, v in zip(names, values, strict=True)}
    except ValueError:
        raise ParseError("non-numeric value", header_at + 2, lines[header_at + 1]) from None


@refuses_hostile_input
def parse_state(data: bytes | str) -> str | None:
    """The pool state word, lower-cased (``online``, ``suspended``...), or None when empty."""
    words = _text(data).split()
    return words[0].lower() if words else None


@refuses_hostile_input
def parse_guid(data: bytes | str) -> str | None:
    words = _text(data).split()
    return words[0] if words and words[0].isdigit() else None


@dataclass(frozen=True)
class TxgSummary:
    """A light summary of the ``txgs`` history kstat (full histograms are elsewhere)."""

    rows: int
    latest_txg: int | None
    latest_state: str | None


@refuses_hostile_input
def parse_txgs(data: bytes | str) -> TxgSummary:
    """Count the txg rows and find the newest txg and its state (O/Q/W/S/C)."""
    rows = 0
    latest: int | None = None
    state: str | None = None
    header_seen = False
    for no, line in enumerate(_text(data).splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "txg":
            header_seen = True
            continue
        if not header_seen:
            if _HEADER.match(line):
                continue
            raise ParseError("txgs kstat without a 'txg birth state' header", no, line)
        if not parts[0].isdigit() or len(parts) < 3:
            raise ParseError("expected a txg row", no, line)
        rows += 1
        txg = int(parts[0])
        if latest is None or txg >= latest:
            latest, state = txg, parts[2]
    return TxgSummary(rows, latest, state)


@dataclass(frozen=True)
class ObjsetStats:
    """Per-dataset I/O counters from ``objset-0x*`` (absent counters stay None)."""

    objset_id: str
    dataset: str
    writes: int | None = None
    nwritten: int | None = None
    reads: int | None = None
    nread: int | None = None
    nunlinks: int | None = None
    nunlinked: int | None = None
    zil_commit_count: int | None = None


@refuses_hostile_input
def parse_objset(objset_id: str, data: bytes | str) -> ObjsetStats:
    """One objset kstat; the dataset name comes from its ``dataset_name`` row."""
    rows = parse_named_kstat(data)
    name = rows.get("dataset_name")
    if not isinstance(name, str) or not name:
        raise ParseError(f"objset kstat {objset_id} has no dataset_name")

    def num(key: str) -> int | None:
        v = rows.get(key)
        return v if isinstance(v, int) else None

    return ObjsetStats(
        objset_id=objset_id,
        dataset=name,
        writes=num("writes"),
        nwritten=num("nwritten"),
        reads=num("reads"),
        nread=num("nread"),
        nunlinks=num("nunlinks"),
        nunlinked=num("nunlinked"),
        zil_commit_count=num("zil_commit_count"),
    )
