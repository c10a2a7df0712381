"""More real `zpool status` samples (dRAID rebuilds and distributed spares, illumos, macOS,
full paths, pastes) give the facts of their EXPECTED.md."""

from __future__ import annotations

from datetime import UTC

import pytest

from tests.helpers import fixture_path
from tests.support.expected import load_expected
from zmon.parsers.zpool.zpool_status import parse_zpool_status

DIR = fixture_path("zpool_status", "wider")
EXPECTED = load_expected(DIR / "EXPECTED.md")


def test_every_sample_has_facts():
    assert sorted(p.name for p in DIR.glob("*.txt")) == sorted(EXPECTED)


def _counter(value: int | None) -> str:
    return "-" if value is None else str(value)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_gives_its_facts(name):
    facts = EXPECTED[name]
    status = parse_zpool_status((DIR / name).read_bytes(), tz=UTC)
    assert len(status.pools) == 1
    pool = status.pools[0]
    assert f"{pool.name} {pool.state}" == facts["pool"]
    assert pool.msg_id == facts.get("msg")
    scan_fact = facts["scan"].split()
    if scan_fact == ["none"]:
        assert pool.scans == []
    else:
        (scan,) = pool.scans
        assert [scan.function, scan.state] == scan_fact[:2]
        for item in scan_fact[2:]:
            key, _, value = item.partition("=")
            got = getattr(scan, key)
            if key == "vdev":
                assert got == value
            else:
                assert got == pytest.approx(float(value)), key
    vdevs = list(pool.vdevs())
    rows = [
        " ".join(
            [
                str(v.depth),
                v.name,
                v.state or "-",
                _counter(v.read_errors),
                _counter(v.write_errors),
                _counter(v.checksum_errors),
                v.note,
            ]
        ).rstrip()
        for v in vdevs
        if v.vdev_class != "spare"
    ]
    assert rows == facts["row"].split("; ")
    spares = [f"{v.name} {v.state}" for v in vdevs if v.vdev_class == "spare"]
    assert spares == (facts["spare"].split("; ") if "spare" in facts else [])
