"""Replay helpers: build the commands' outputs and a procfs tree from the lab captures."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.helpers import fixture_path
from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Context, Paths

POOLS = fixture_path("pools")
LAB = POOLS / "lab"
_KSTAT_NAME = re.compile(
    r"^kstat-(?P<pool>.+?)-(?P<file>state|guid|iostats|txgs|io|objset-0x[0-9a-f]+|"
    r"ddt_stats_\w+)\.txt$"
)


def lab(scenario: str, name: str) -> bytes:
    return (LAB / scenario / name).read_bytes()


def build_procfs(src: Path, root: Path) -> Path:
    """Lay ``kstat-<pool>-<file>.txt`` captures out as ``<root>/spl/kstat/zfs/<pool>/<file>``."""
    base = root / "spl" / "kstat" / "zfs"
    base.mkdir(parents=True, exist_ok=True)
    for f in sorted(src.glob("kstat-*.txt")):
        m = _KSTAT_NAME.match(f.name)
        if not m:
            continue
        pool_dir = base / m.group("pool")
        pool_dir.mkdir(exist_ok=True)
        (pool_dir / m.group("file")).write_bytes(f.read_bytes())
    return root


def zfs_get_values(get_text: str) -> dict[str, dict[str, str]]:
    """``zfs get -Hp`` lines -> {dataset: {property: value}}."""
    out: dict[str, dict[str, str]] = {}
    for line in get_text.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3:
            out.setdefault(parts[0], {})[parts[1]] = parts[2]
    return out


def zfs_list_output(
    get_text: str, columns: Sequence[str], types: Sequence[str] = ("filesystem", "volume")
) -> str:
    """What ``zfs list -Hp -t <types> -o <columns>`` would print for the same datasets."""
    rows = []
    for name, props in zfs_get_values(get_text).items():
        if props.get("type") not in types:
            continue
        values = {**props, "name": name}
        rows.append("\t".join(values.get(c, "-") for c in columns))
    return "".join(r + "\n" for r in rows)


def snapshot_times(get_text: str) -> str:
    """What ``zfs list -Hp -t snapshot -o name,creation`` would print for the same snapshots."""
    return zfs_list_output(get_text, ("name", "creation"), types=("snapshot",))


def context(
    runner: StaticRunner | object,
    tmp: Path,
    options: Mapping[str, object] | None = None,
    procfs: Path | None = None,
    sysfs: Path | None = None,
) -> Context:
    paths = Paths(
        procfs=procfs or tmp / "noproc",
        sysfs=sysfs or tmp / "nosys",
        rootfs=tmp,
        state_dir=tmp / "state",
    )
    return Context(paths=paths, runner=runner, options=dict(options or {}))  # type: ignore[arg-type]
