"""``zpool list`` and ``zpool get`` output, from zfs-fuse and ZoL 0.6 to OpenZFS 2.x.

``zpool list`` columns are known exactly when zmon passes ``-o``. Without ``-o`` they are
inferred: from the header line when there is one (``NAME SIZE ALLOC ...``), otherwise from the
number of fields, using the default column set each generation printed:

* 7:  name size allocated free capacity health altroot  (pre-dedup, 2009: SIZE USED AVAIL)
* 8:  name size allocated free capacity dedupratio health altroot  (zfs-fuse, ZoL <= 0.6.3)
* 10: name size allocated free expandsize fragmentation capacity dedupratio health altroot
  (ZoL 0.6.4-0.7, illumos; FreeBSD 10 printed FRAG before EXPANDSZ, which only the header
  or a ``%`` suffix can tell apart - ``-p`` output of that order is read as the common one)
* 11: name size allocated free checkpoint expandsize fragmentation capacity dedupratio health
  altroot  (ZoL 0.8+, OpenZFS 2.x, FreeBSD 12+)
* 12: the 11 above plus guid: the ``-o`` list the zpool_list collector asks for

Values may be exact (``-p``) or human (``1.38G``, ``15%``, ``1.00x``); ``-`` means absent.
``-v`` vdev rows (indented) and class rows (``logs``, ``cache``, ``spare`` ...) are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.common.units import ABSENT, parse_nice


def parse_percent_ratio(text: str) -> float | None:
    """``15`` or ``15%`` -> 0.15; ``-`` -> None."""
    text = text.strip().rstrip("%")
    if text in ABSENT:
        return None
    return float(text) / 100.0


def parse_x_ratio(text: str) -> float | None:
    """``1.00`` or ``1.00x`` -> 1.0; ``-`` -> None."""
    text = text.strip().rstrip("x")
    if text in ABSENT:
        return None
    return float(text)


COLUMNS_0_8 = (
    "name",
    "size",
    "allocated",
    "free",
    "checkpoint",
    "expandsize",
    "fragmentation",
    "capacity",
    "dedupratio",
    "health",
    "altroot",
)
DEFAULT_COLUMNS: dict[int, tuple[str, ...]] = {
    7: ("name", "size", "allocated", "free", "capacity", "health", "altroot"),
    8: ("name", "size", "allocated", "free", "capacity", "dedupratio", "health", "altroot"),
    10: tuple(c for c in COLUMNS_0_8 if c != "checkpoint"),  # before 0.8's checkpoint
    11: COLUMNS_0_8,
    12: (*COLUMNS_0_8, "guid"),  # the -o set zmon itself asks for
}
_ALIASES = {
    "alloc": "allocated", "used": "allocated", "avail": "free", "cap": "capacity",
    "dedup": "dedupratio", "frag": "fragmentation", "ckpoint": "checkpoint",
    "expandsz": "expandsize",
}  # fmt: skip
_CLASS_ROWS = frozenset({"logs", "log", "cache", "spare", "spares", "special", "dedup"})
_SIZES = ("size", "allocated", "free", "checkpoint", "expandsize")


def canonical_column(name: str) -> str:
    low = name.strip().lower()
    return _ALIASES.get(low, low)


@dataclass
class PoolListRow:
    """One pool row of ``zpool list`` (absent values are None)."""

    name: str
    size: float | None = None
    allocated: float | None = None
    free: float | None = None
    checkpoint: float | None = None
    expandsize: float | None = None
    fragmentation: float | None = None  # ratio 0-1
    capacity: float | None = None  # ratio 0-1
    dedupratio: float | None = None
    health: str | None = None
    altroot: str | None = None
    guid: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


def _row(columns: Sequence[str], fields: Sequence[str], no: int, line: str) -> PoolListRow:
    row = PoolListRow(name=fields[0])
    for col, raw in zip(columns, fields, strict=True):
        raw = raw.strip()
        try:
            if col == "name":
                continue
            if col in _SIZES:
                setattr(row, col, parse_nice(raw))
            elif col in ("fragmentation", "capacity"):
                setattr(row, col, parse_percent_ratio(raw))
            elif col == "dedupratio":
                row.dedupratio = parse_x_ratio(raw)
            elif col in ("health", "altroot", "guid"):
                setattr(row, col, None if raw in ABSENT else raw)
            else:
                row.extra[col] = raw
        except ValueError:
            raise ParseError(f"bad {col} value {raw!r}", no, line) from None
    return row


def _split(line: str) -> list[str]:
    return line.split("\t") if "\t" in line else line.split()


@refuses_hostile_input
def parse_zpool_list(data: bytes | str, columns: Sequence[str] | None = None) -> list[PoolListRow]:
    """Pool rows of ``zpool list`` (``-H``/``-p``/``-v``/``-o`` or the default table)."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    cols = tuple(canonical_column(c) for c in columns) if columns else None
    rows: list[PoolListRow] = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line[0] in " \t":
            continue  # blank, or a -v vdev row
        if line.strip() == "no pools available":
            continue
        fields = _split(line.rstrip("\n"))
        if fields[0] == "NAME" and cols is None:
            cols = tuple(canonical_column(c) for c in line.split())
            continue
        if fields[0] in _CLASS_ROWS and all(f.strip() == "-" for f in fields[1:]):
            continue  # -v class header row (logs/cache/spare)
        if cols is None:
            guess = DEFAULT_COLUMNS.get(len(fields))
            if guess is None:
                raise ParseError(
                    f"cannot infer zpool list columns from {len(fields)} fields", no, line
                )
            cols = _maybe_frag_first(guess, fields)
        if len(fields) != len(cols):
            raise ParseError(f"expected {len(cols)} columns, got {len(fields)}", no, line)
        rows.append(_row(cols, fields, no, line))
    return rows


def _maybe_frag_first(cols: tuple[str, ...], fields: Sequence[str]) -> tuple[str, ...]:
    """FreeBSD 10 printed FRAG before EXPANDSZ; a ``%`` suffix on field 5 reveals it."""
    if len(cols) == 10 and fields[4].strip().endswith("%") and not fields[5].endswith("%"):
        swapped = list(cols)
        swapped[4], swapped[5] = "fragmentation", "expandsize"
        return tuple(swapped)
    return cols


# ---- zpool get ----

PoolProps = dict[str, dict[str, tuple[str, str]]]


@refuses_hostile_input
def parse_zpool_get(data: bytes | str) -> PoolProps:
    """``zpool get [-Hp] all`` -> {pool: {property: (value, source)}}.

    Scripted (``-H``) output is tab-separated. The human table is split on blanks: name and
    property are the first two words, source the last, and the value is what lies between.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    out: PoolProps = {}
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if "\t" in line:
            parts = line.split("\t")
            if len(parts) < 3:
                raise ParseError("expected 'pool property value source'", no, line)
            pool, prop, value = parts[0], parts[1], parts[2]
            source = parts[3] if len(parts) > 3 else "-"
        else:
            words = line.split()
            if words[:2] == ["NAME", "PROPERTY"]:
                continue
            if len(words) < 4:
                raise ParseError("expected 'pool property value source'", no, line)
            pool, prop, source = words[0], words[1], words[-1]
            value = " ".join(words[2:-1])
        out.setdefault(pool, {})[prop] = (value.strip(), source.strip())
    return out


def looks_like_zpool_get(data: bytes | str) -> bool:
    """True when the text is ``zpool get`` output rather than ``zpool list``."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.split()[:2] == ["NAME", "PROPERTY"]:
            return True
        parts = line.split("\t")
        return len(parts) == 4 and bool(re.match(r"^[a-z_@:.0-9]+$", parts[1]))
    return False
