"""``zfs list -H -o <columns>`` and ``zfs get -Hp`` dataset rows (snapshots: zfs_snapshots).

zmon asks for the columns itself (``-o``), so the parser is told them. Values are exact with
``-p`` (zfs-fuse still prints ``1.00x`` ratios); ``-`` means the property does not apply
(``volsize`` of a filesystem) and stays absent.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.common.units import ABSENT, parse_nice
from zmon.parsers.zpool.zpool_list import parse_x_ratio

# Properties that are sizes in bytes, ratios, or counts; anything else is kept as text.
SIZE_PROPS = frozenset({
    "used", "available", "referenced", "quota", "refquota", "reservation", "refreservation",
    "logicalused", "logicalreferenced", "written", "usedbysnapshots", "usedbydataset",
    "usedbychildren", "usedbyrefreservation", "volsize",
})  # fmt: skip
RATIO_PROPS = frozenset({"compressratio", "refcompressratio"})
COUNT_PROPS = frozenset({"snapshot_count", "filesystem_count"})
UINT64_MAX = (1 << 64) - 1  # "not tracked" for snapshot_count/filesystem_count
# The user property that says a dataset should be snapshotted ("true"/"false", inherited by
# its children), as zfs-auto-snapshot reads it; the datasets collector's default.
AUTO_SNAPSHOT_PROPERTY = "com.sun:auto-snapshot"
# The columns zmon asks ``zfs list -o`` for, in that order (older zfs may refuse some); the
# last is the snapshot policy's user property, which the collector may name otherwise.
COLUMNS = (
    "name", "type", "used", "available", "referenced", "compressratio", "refcompressratio",
    "quota", "refquota", "reservation", "refreservation", "logicalused", "logicalreferenced",
    "written", "usedbysnapshots", "usedbydataset", "usedbychildren", "usedbyrefreservation",
    "volsize", "objsetid", "creation", AUTO_SNAPSHOT_PROPERTY,
)  # fmt: skip


@dataclass
class Dataset:
    """One filesystem or volume; ``values`` holds numeric properties, absent ones omitted."""

    name: str
    type: str
    values: dict[str, float] = field(default_factory=dict)
    text: dict[str, str] = field(default_factory=dict)

    @property
    def pool(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def depth(self) -> int:
        return self.name.count("/")

    @property
    def creation(self) -> float | None:
        """Unix time the dataset was created (``creation`` with ``-p``); None if unread."""
        text = self.text.get("creation", "")
        return float(text) if text.isascii() and text.isdigit() else None

    @property
    def objsetid(self) -> int | None:
        """The objset id (``objsetid``, OpenZFS 0.8 and later), which names the dataset's
        kstat file ``objset-0x<id>`` in its pool's directory; None where zfs lacks it."""
        text = self.text.get("objsetid", "")
        return int(text) if text.isascii() and text.isdigit() else None


def _value(prop: str, raw: str) -> float | None:
    if raw in ABSENT:
        return None
    if prop in RATIO_PROPS:
        return parse_x_ratio(raw)
    if prop in COUNT_PROPS:
        n = int(raw)
        return None if n >= UINT64_MAX else float(n)
    value = parse_nice(raw)
    return None if value is None else float(value)


@refuses_hostile_input
def parse_zfs_list(data: bytes | str, columns: Sequence[str]) -> list[Dataset]:
    """Rows of ``zfs list -H [-p] -o <columns>``; ``name`` and ``type`` must be columns."""
    if "name" not in columns:
        raise ValueError("columns must include name")
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    out: list[Dataset] = []
    for no, line, fields in zfs_list_rows(text, len(columns)):
        row = dict(zip(columns, (f.strip() for f in fields), strict=True))
        out.append(_dataset(row, no, line))
    return out


def zfs_list_rows(text: str, columns: int) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, line, fields) of each row of ``zfs list -H`` output; blank lines and
    ``no datasets available`` skipped, every row's column count checked."""
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.strip() == "no datasets available":
            continue
        fields = line.split("\t")
        if len(fields) != columns:
            raise ParseError(
                f"expected {columns} tab-separated columns, got {len(fields)}", no, line
            )
        yield no, line, fields


def _dataset(row: dict[str, str], no: int, line: str) -> Dataset:
    ds = Dataset(name=row["name"], type=row.get("type", "filesystem"))
    for prop, raw in row.items():
        if prop in ("name", "type"):
            continue
        if prop in SIZE_PROPS or prop in RATIO_PROPS or prop in COUNT_PROPS:
            try:
                value = _value(prop, raw)
            except ValueError:
                raise ParseError(f"bad {prop} value {raw!r}", no, line) from None
            if value is not None:
                ds.values[prop] = value
        elif raw not in ABSENT:
            ds.text[prop] = raw
    return ds


@refuses_hostile_input
def parse_zfs_get(data: bytes | str, columns: Sequence[str]) -> list[Dataset]:
    """Filesystems and volumes from ``zfs get -Hp -o name,property,value <columns>``.

    The form for a ``zfs`` whose ``list`` has no ``-p`` (zfs-fuse 0.7): one line per dataset
    and property, every dataset and snapshot listed. Snapshots are left out (``type`` column,
    or an ``@`` in the name); properties outside ``columns`` are ignored.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    rows: dict[str, dict[str, str]] = {}
    first_line: dict[str, tuple[int, str]] = {}
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.strip() == "no datasets available":
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise ParseError(f"expected 3 tab-separated columns, got {len(fields)}", no, line)
        name, prop, value = (f.strip() for f in fields)
        if "@" in name or prop not in columns:
            continue
        rows.setdefault(name, {"name": name})[prop] = value
        first_line.setdefault(name, (no, line))
    return [
        _dataset(row, *first_line[name])
        for name, row in rows.items()
        if row.get("type", "filesystem") in ("filesystem", "volume")
    ]
