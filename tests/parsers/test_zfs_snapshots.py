"""Snapshot listings -> count and newest creation time per dataset, on real outputs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.pool_lab import LAB, snapshot_times
from zmon.base.errors import ParseError
from zmon.parsers.zfs.zfs_snapshots import DatasetSnapshots, parse_snapshot_times

FUSE = LAB / "zfs-fuse-0.7.0"


@pytest.mark.parametrize(
    ("scenario", "tank", "rz"),
    [("2.3.2-01-healthy", 1795997199, 1795997200), ("2.1.11-01-healthy", 1795996519, 1795996519)],
)
def test_openzfs_list_p_name_creation(scenario: str, tank: int, rz: int) -> None:
    """`zfs list -Hp -t snapshot -o name,creation` as OpenZFS 2.3.2 and 2.1.11 print it (the
    lab's `zfs get -Hp all` in that form)."""
    text = snapshot_times((LAB / scenario / "zfs-get-Hp-all-filtered.txt").read_text())
    got = parse_snapshot_times(text.encode())
    assert got == {
        "tank": DatasetSnapshots("tank", 1, tank),
        "tank/big": DatasetSnapshots("tank/big", 1, tank),
        "tank/data": DatasetSnapshots("tank/data", 1, tank),
        "tank/vol": DatasetSnapshots("tank/vol", 1, tank),
        "rz/data": DatasetSnapshots("rz/data", 1, rz),
    }


def test_zfs_fuse_get_p_creation_skips_the_datasets() -> None:
    """zfs-fuse 0.7 has neither `zfs list -p` nor `zfs get -t`: `zfs get -Hp -o name,value
    creation` lists filesystems too, which are not snapshots."""
    got = parse_snapshot_times(
        (FUSE / "snapshots" / "zfs-get-Hp-o-name-value-creation.txt").read_bytes()
    )
    assert got == {
        "dsq": DatasetSnapshots("dsq", 1, 1796282837),
        "dsq/home": DatasetSnapshots("dsq/home", 1, 1796282837),
        # daily-1 at ...835, daily-2 and rec at ...837: the newest wins, all are counted
        "dsq/home/alice": DatasetSnapshots("dsq/home/alice", 3, 1796282837),
    }


def test_dates_instead_of_seconds_are_refused_naming_the_line() -> None:
    """zfs-fuse's `zfs list -H -o name,creation` (no -p): a local date, minute precision."""
    text = (FUSE / "snapshots" / "zfs-list-H-t-snapshot-o-name-creation.txt").read_bytes()
    with pytest.raises(ParseError) as exc:
        parse_snapshot_times(text)
    assert exc.value.line_no == 1
    assert "not Unix seconds" in str(exc.value) and "dsq@rec" in str(exc.value)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("", {}),
        ("\n\n", {}),
        ("no datasets available\n", {}),
        ("tank@a\t100\r\ntank@b\t50\r\n", {"tank": DatasetSnapshots("tank", 2, 100)}),
        ("tank/my data@x y\t7\n", {"tank/my data": DatasetSnapshots("tank/my data", 1, 7)}),
        ("tank#book\t9\ntank\t3\n", {}),  # a bookmark, a filesystem
    ],
)
def test_edge_forms(text: str, want: dict[str, DatasetSnapshots]) -> None:
    assert parse_snapshot_times(text.encode()) == want


@pytest.mark.parametrize(
    ("text", "line_no"),
    [
        ("tank@a\n", 1),  # one column
        ("tank@a\t100\ntank@b\t\n", 2),  # empty value
        ("tank@a\t-\n", 1),
        ("tank@a\t1.5e9\n", 1),
        ("tank@a\t-100\n", 1),
    ],
)
def test_bad_lines_raise_with_their_number(text: str, line_no: int) -> None:
    with pytest.raises(ParseError) as exc:
        parse_snapshot_times(text.encode())
    assert exc.value.line_no == line_no


_NAMES = st.sampled_from(["tank", "tank/a", "rz/b c", "p/é"])


@given(st.lists(st.tuples(_NAMES, st.text("abc123", min_size=1, max_size=4),
                          st.integers(0, 2**40)), max_size=40))  # fmt: skip
def test_counts_and_newest_match_a_plain_reading(rows: list[tuple[str, str, int]]) -> None:
    text = "".join(f"{d}@{s}\t{t}\n" for d, s, t in rows)
    want: dict[str, DatasetSnapshots] = {}
    for d, _, t in rows:
        old = want.get(d)
        want[d] = (
            DatasetSnapshots(d, 1, t)
            if old is None
            else (DatasetSnapshots(d, old.count + 1, max(old.newest_creation, t)))
        )
    assert parse_snapshot_times(text.encode()) == want
