"""Per-pool transaction-group kstats: the ``txgs`` history ring and the ``dmu_tx_assign`` histogram.

``/proc/spl/kstat/zfs/<pool>/txgs`` (FreeBSD: ``sysctl -n kstat.zfs.<pool>.txgs``) holds the
last ``zfs_txg_history`` txgs (default 100; 0 on ZoL 0.6, which leaves only the header), one row
each: ``txg birth state ndirty nread nwritten reads writes otime qtime wtime stime``. Times are
nanoseconds (``birth`` is hrtime; ``otime``..``stime`` are how long the txg was open, quiescing,
waiting for sync and syncing); state is B(irth) O(pen) Q(uiesced) W(ait for sync) S(ynced)
C(ommitted). Only committed rows are final. Older kernels print a kstat header line first.

``dmu_tx_assign`` is a named kstat of power-of-two rows ``<2^i> ns`` (``2^(i-1) < t <= 2^i``):
how long transactions waited in ``dmu_tx_wait()``. Rows after the last non-zero one are not
printed, so a pool that never waited has an empty file.
FreeBSD names them ``kstat.zfs.<pool>.misc.dmu_tx_assign.<2^i> ns``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.kstat.kstat import decode, parse_header, parse_int, parse_kstat

TXG_STATES = "BOQWSC?"
_REQUIRED = ("txg", "state", "stime")
_INT_COLUMNS = (
    "birth",
    "ndirty",
    "nread",
    "nwritten",
    "reads",
    "writes",
    "otime",
    "qtime",
    "wtime",
    "stime",
)
_SYSCTL_PREFIX = re.compile(r"^kstat\.\S+?:\s?")
_SECTION = re.compile(r"^==> (?P<path>.+) <==$")
_BUCKET_NAME = re.compile(r"^(?P<ns>\d+) ns$")
_FREEBSD_BUCKET = re.compile(
    r"^kstat\.zfs\.(?P<pool>.+)\.misc\.dmu_tx_assign\.(?P<ns>\d+) ns(?::\s?|=)(?P<value>\S+)$"
)


@dataclass(frozen=True)
class TxgRow:
    """One txg of the history; absent columns (an older layout) are None."""

    txg: int
    state: str
    stime_ns: int
    birth_ns: int | None = None
    ndirty: int | None = None
    nread: int | None = None
    nwritten: int | None = None
    reads: int | None = None
    writes: int | None = None
    otime_ns: int | None = None
    qtime_ns: int | None = None
    wtime_ns: int | None = None

    @property
    def committed(self) -> bool:
        return self.state == "C"


@refuses_hostile_input
def parse_txgs(data: bytes | str) -> list[TxgRow]:
    """Rows of a txgs kstat in file order; an empty history gives []. Raises ParseError."""
    lines = decode(data).splitlines()
    if lines:
        lines[0] = _SYSCTL_PREFIX.sub("", lines[0])
    columns: list[str] | None = None
    rows: list[TxgRow] = []
    for no, line in enumerate(lines, 1):
        words = line.split()
        if not words:
            continue
        if columns is None:
            if words[0] == "txg":
                columns = ["ndirty" if w == "nreserved" else w for w in words]
                missing = [c for c in _REQUIRED if c not in columns]
                if missing or len(set(columns)) != len(columns):
                    raise ParseError(f"txgs header lacks {', '.join(missing)}", no, line)
            elif parse_header(line) is None:
                raise ParseError("txgs kstat without a 'txg birth state ...' header", no, line)
            continue
        rows.append(_row(columns, words, no, line))
    if columns is None:
        raise ParseError("txgs kstat without a 'txg birth state ...' header")
    return rows


def _row(columns: list[str], words: list[str], no: int, line: str) -> TxgRow:
    if len(words) != len(columns):
        raise ParseError(f"expected {len(columns)} columns", no, line)
    cells = dict(zip(columns, words, strict=True))
    if len(cells["state"]) != 1 or cells["state"] not in TXG_STATES:
        raise ParseError("unknown txg state", no, line)
    ints: dict[str, int | None] = {}
    for name in ("txg", *_INT_COLUMNS):
        raw = cells.get(name)
        value = None if raw is None else parse_int(raw)
        if raw is not None and (value is None or value < 0):
            raise ParseError(f"txg column {name} is not a count", no, line)
        ints[name] = value
    return TxgRow(
        txg=ints["txg"] or 0,
        state=cells["state"],
        stime_ns=ints["stime"] or 0,
        birth_ns=ints["birth"],
        ndirty=ints["ndirty"],
        nread=ints["nread"],
        nwritten=ints["nwritten"],
        reads=ints["reads"],
        writes=ints["writes"],
        otime_ns=ints["otime"],
        qtime_ns=ints["qtime"],
        wtime_ns=ints["wtime"],
    )


@dataclass(frozen=True)
class TxAssign:
    """``dmu_tx_assign`` rows as exponent i -> count (``2^(i-1) < t <= 2^i`` ns)."""

    buckets: dict[int, int]
    pool: str | None = None


@refuses_hostile_input
def parse_dmu_tx_assign(data: bytes | str) -> TxAssign:
    """The Linux kstat file or FreeBSD ``sysctl kstat.zfs.<pool>.misc.dmu_tx_assign`` output.

    An empty file (or a header without rows) is a pool that has not waited yet: every row is
    zero, so none is printed.
    """
    text = decode(data)
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if not first:
        return TxAssign({})
    if first.startswith("kstat."):
        return _tx_assign_sysctl(text)
    buckets: dict[int, int] = {}
    for name, entry in parse_kstat(text).entries.items():
        m = _BUCKET_NAME.match(name)
        exp = _exponent(m.group("ns")) if m else None
        if exp is None or not isinstance(entry.value, int) or entry.value < 0:
            raise ParseError(f"{name!r} is not a dmu_tx_assign bucket")
        buckets[exp] = entry.value
    return TxAssign(buckets)


def _tx_assign_sysctl(text: str) -> TxAssign:
    buckets: dict[int, int] = {}
    pools: set[str] = set()
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _FREEBSD_BUCKET.match(line.strip())
        exp = _exponent(m.group("ns")) if m else None
        value = parse_int(m.group("value")) if m else None
        if m is None or exp is None or value is None or value < 0 or exp in buckets:
            raise ParseError("not a dmu_tx_assign sysctl line", no, line)
        pools.add(m.group("pool"))
        buckets[exp] = value
    if len(pools) != 1:
        raise ParseError("dmu_tx_assign sysctl output mixes pools")
    return TxAssign(buckets, pools.pop())


def _exponent(ns: str) -> int | None:
    value = int(ns)
    if value <= 0 or value & (value - 1):
        return None
    return value.bit_length() - 1


def split_sections(data: bytes | str) -> list[tuple[str | None, str]]:
    """Split ``tail -n +1 FILE...``/``head`` output on its ``==> path <==`` lines.

    Input without such lines is one section with path None.
    """
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in decode(data).splitlines():
        m = _SECTION.match(line.strip())
        if m:
            sections.append((m.group("path"), []))
        else:
            sections[-1][1].append(line)
    out = [(path, "\n".join(lines) + "\n") for path, lines in sections]
    if out[0][0] is None and not out[0][1].strip() and len(out) > 1:
        out = out[1:]
    return out


def pool_of(path: str | None, name: str) -> str | None:
    """The pool of a per-pool kstat path ``.../zfs/<pool>/<name>``, or None."""
    if path is None:
        return None
    parts = path.rstrip("/").split("/")
    if len(parts) >= 2 and parts[-1] == name:
        return parts[-2]
    return None
