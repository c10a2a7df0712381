"""Read arcstats in any of its text forms, and the ARC size module parameters.

Forms accepted (detected from the first line):

- Linux ``/proc/spl/kstat/zfs/arcstats`` (``name type data`` rows under a kstat header);
- FreeBSD ``sysctl kstat.zfs.misc.arcstats`` (``kstat.zfs.misc.arcstats.hits: 123``) and
  ``sysctl -e`` (``...hits=123``);
- ``grep -H . DIR/*`` over one-file-per-field trees (zfs-fuse ``/zfs-kstat/zfs/arcstats/hits:1``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.kstat.kstat import (
    KstatEntry,
    KstatHeader,
    looks_like_sysctl,
    parse_int,
    parse_keyvals,
    parse_kstat,
    parse_sysctl,
)

SYSCTL_PREFIX = "kstat.zfs.misc.arcstats"


@dataclass
class ArcStats:
    """arcstats fields in source order; ``header`` only for the Linux kstat form."""

    source: Literal["kstat", "sysctl"]
    fields: dict[str, KstatEntry] = field(default_factory=dict)
    header: KstatHeader | None = None

    def value(self, name: str) -> int | str | None:
        entry = self.fields.get(name)
        return None if entry is None else entry.value


@refuses_hostile_input
def parse_arcstats_kstat(data: bytes | str) -> ArcStats:
    """The Linux kstat file."""
    kstat = parse_kstat(data)
    return ArcStats("kstat", kstat.entries, kstat.header)


@refuses_hostile_input
def parse_arcstats_sysctl(data: bytes | str, prefix: str | None = SYSCTL_PREFIX) -> ArcStats:
    """FreeBSD ``sysctl kstat.zfs.misc.arcstats`` output (``prefix=None``: key's last part)."""
    return ArcStats("sysctl", parse_sysctl(data, prefix))


_STAT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@refuses_hostile_input
def parse_arcstats(data: bytes | str) -> ArcStats:
    """Any supported form, detected from the first non-blank line.

    Raises ParseError when no field is a named counter (``hits 4 8772612`` or
    ``kstat.zfs.misc.arcstats.hits: 8772612``): JSON or other ``key: value`` text is refused.
    """
    if not looks_like_sysctl(data):
        stats = parse_arcstats_kstat(data)
    else:
        first_key = parse_keyvals(data)[0][1]
        prefix = SYSCTL_PREFIX if first_key.startswith(SYSCTL_PREFIX + ".") else None
        stats = parse_arcstats_sysctl(data, prefix)
    if not any(
        _STAT_NAME.fullmatch(name) and isinstance(entry.value, int)
        for name, entry in stats.fields.items()
    ):
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        lines = text.splitlines()
        first = next((i for i, line in enumerate(lines) if line.strip()), None)
        if first is None:
            raise ParseError("empty input: no arcstats rows")
        raise ParseError(
            "no arcstats 'name type value' row or sysctl line", first + 1, lines[first]
        )
    return stats


# ---- ARC module parameters ----


@dataclass(frozen=True)
class ArcParam:
    """An ARC size module parameter: its Linux name and FreeBSD sysctl names, preferred first."""

    name: str
    sysctls: tuple[str, ...]


ARC_PARAMS: tuple[ArcParam, ...] = (
    ArcParam("zfs_arc_max", ("vfs.zfs.arc.max", "vfs.zfs.arc_max")),
    ArcParam("zfs_arc_min", ("vfs.zfs.arc.min", "vfs.zfs.arc_min")),
)

FREEBSD_PARAM_SYSCTLS: tuple[str, ...] = tuple(s for p in ARC_PARAMS for s in p.sysctls)


def parse_param_value(text: str) -> int | None:
    """A sysfs parameter file's content as a non-negative integer, or None."""
    value = parse_int(text.strip())
    return value if value is not None and value >= 0 else None


@refuses_hostile_input
def parse_freebsd_params(data: bytes | str) -> dict[str, int]:
    """``sysctl vfs.zfs.arc.max ...`` output -> {Linux parameter name: value}."""
    found = {key: parse_param_value(raw) for _, key, raw, _ in parse_keyvals(data)}
    params: dict[str, int] = {}
    for param in ARC_PARAMS:
        for sysctl in param.sysctls:
            value = found.get(sysctl)
            if value is not None:
                params[param.name] = value
                break
    return params


@refuses_hostile_input
def parse_module_parameters(data: bytes | str, module: str = "zfs") -> dict[str, str]:
    """``grep -H . /sys/module/*/parameters/*`` output -> {parameter: raw value} for ``module``."""
    want = f"/sys/module/{module}/parameters/"
    params: dict[str, str] = {}
    for line_no, key, raw, line in parse_keyvals(data):
        if "/parameters/" not in key:
            raise ParseError("not a /sys/module/*/parameters/* line", line_no, line)
        if key.startswith(want):
            params[key[len(want) :]] = raw
    return params
