"""Snapshot listings -> per dataset, how many snapshots it has and when the newest was taken.

Reads the output of ``zfs list -Hp -t snapshot -o name,creation`` or, where ``zfs list`` has
no ``-p`` (zfs-fuse 0.7), ``zfs get -Hp -o name,value creation``: one ``name<TAB>seconds``
line per snapshot. ``zfs get`` also lists filesystems and volumes (zfs-fuse's has no ``-t``);
names without ``@`` are skipped, and so are bookmarks (``#``), which ``-t snapshot`` never
lists anyway. ``creation`` is exact Unix seconds with ``-p``; a date (``-p`` forgotten) or any
other text is a ParseError naming the line, never a silently wrong age.

A host that takes hourly snapshots of many datasets lists 100,000 of them; only a count and
the newest time per dataset are kept (benchmarks/snapshots.py measures the cost).
"""

from __future__ import annotations

from dataclasses import dataclass

from zmon.base.errors import ParseError


@dataclass(frozen=True)
class DatasetSnapshots:
    """The snapshots of one dataset: how many, and the creation time of the newest."""

    dataset: str
    count: int
    newest_creation: int  # Unix seconds


def parse_snapshot_times(data: bytes | str) -> dict[str, DatasetSnapshots]:
    """``name<TAB>creation`` lines -> {dataset: DatasetSnapshots}; see the module docstring."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    counts: dict[str, int] = {}
    newest: dict[str, int] = {}
    for no, line in enumerate(text.split("\n"), 1):
        name, tab, value = line.rstrip("\r").rpartition("\t")
        if not tab:
            if not line.strip() or line.strip() == "no datasets available":
                continue
            raise ParseError("expected name<TAB>creation", no, line)
        dataset, at, _ = name.partition("@")
        if not at or "#" in name:
            continue  # a filesystem or volume (zfs get lists them too), or a bookmark
        if not (value.isascii() and value.isdigit()):
            raise ParseError(
                f"creation {value!r} is not Unix seconds (zfs must be run with -p)", no, line
            )
        when = int(value)
        if dataset in counts:
            counts[dataset] += 1
            if when > newest[dataset]:
                newest[dataset] = when
        else:
            counts[dataset] = 1
            newest[dataset] = when
    return {name: DatasetSnapshots(name, counts[name], newest[name]) for name in counts}
