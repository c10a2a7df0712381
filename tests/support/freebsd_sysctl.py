"""FreeBSD's sysctl view of a named kstat, derived from a Linux capture by text alone.

OpenZFS on FreeBSD exports each field of a named kstat as one sysctl, ``<oid>.<field>: <value>``
(the real capture ``tests/fixtures/arc/corpus/arcstats_08_freebsd_ZoF_2019_sysctl_PARTIAL.txt``
shows the shape). Only the lab VMs' Linux captures hold every kstat zmon reads, so the FreeBSD
tests rewrite those captures into that shape. The rewrite is plain text work, independent of
zmon's kstat parser: a parser bug cannot cancel itself out between the two sides of a test.
"""

from __future__ import annotations

import re

# A named kstat row: name (may hold spaces, as dmu_tx_assign's "1 ns"), numeric type, data.
_ROW = re.compile(r"^(?P<name>\S.*?)\s+(?P<type>\d+)\s+(?P<data>\S.*?)\s*$")
# What FreeBSD's sysctl prints for one numeric kstat field (the real capture's lines).
SYSCTL_LINE = re.compile(r"^kstat\.zfs\.[a-z0-9_.]+\.[a-z0-9_ ]+: -?\d+$")


def named_kstat_as_sysctl(linux_kstat: bytes | str, oid: str) -> str:
    """``/proc/spl/kstat/zfs/...`` text (kstat header, ``name type data``, rows) as the
    ``sysctl <oid>`` lines FreeBSD prints for the same kstat."""
    text = linux_kstat.decode() if isinstance(linux_kstat, bytes) else linux_kstat
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:3] == ["name", "type", "data"])
    out = []
    for line in lines[start + 1 :]:
        m = _ROW.match(line)
        assert m, f"not a named kstat row: {line!r}"
        out.append(f"{oid}.{m['name']}: {m['data']}\n")
    return "".join(out)
