"""The generic kstat parser: Linux named/IO kstat files and sysctl output."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import fixture_path
from zmon.base.errors import ParseError
from zmon.parsers.kstat.kstat import (
    KstatDataType,
    KstatEntry,
    KstatHeader,
    looks_like_sysctl,
    parse_keyvals,
    parse_kstat,
    parse_named_row,
    parse_sysctl,
)

U64 = KstatDataType.UINT64
HEADER = "6 1 0x01 3 144 5266997922 97951858082072\nname                            type data\n"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("hits                            4    8772612", ("hits", KstatEntry(U64, 8772612))),
        # a 32-character name leaves a single space before the type column
        (
            "demand_iohit_predictive_prefetch 4    221984",
            ("demand_iohit_predictive_prefetch", KstatEntry(U64, 221984)),
        ),
        ("1 ns                            4    0", ("1 ns", KstatEntry(U64, 0))),
        ("1024 ns                         4    17", ("1024 ns", KstatEntry(U64, 17))),
        (
            "memory_available_bytes          3    -12345",
            ("memory_available_bytes", KstatEntry(KstatDataType.INT64, -12345)),
        ),
        (
            "dataset_name                    7    tank/my data",
            ("dataset_name", KstatEntry(KstatDataType.STRING, "tank/my data")),
        ),
        (
            "dataset_name                    7    ",
            ("dataset_name", KstatEntry(KstatDataType.STRING, "")),
        ),
        ("hits\t4\t5", ("hits", KstatEntry(U64, 5))),
        ("hits 4 5\r", ("hits", KstatEntry(U64, 5))),
        (
            "odd 2 name                      2    7",
            ("odd 2 name", KstatEntry(KstatDataType.UINT32, 7)),
        ),
        # not rows
        ("hash_chai", None),
        ("hits                            4", None),
        ("hits                            4    12abc", None),
        ("hits                            4    -1", None),  # unsigned type, negative value
        ("hits                            9    1", None),  # no such data type
        ("hits                            4    1_000", None),
        ("hits                            4    +5", None),
        ("name                            type data", None),
    ],
)
def test_named_row(line: str, expected: tuple[str, KstatEntry] | None) -> None:
    assert parse_named_row(line) == expected


@pytest.mark.parametrize(
    ("text", "entries"),
    [
        (HEADER + "hits 4 1\nmisses 4 2\n", {"hits": 1, "misses": 2}),
        ("name type data\nhits 4 1\n", {"hits": 1}),  # no kstat header line
        ("hits 4 1\n", {"hits": 1}),  # rows only
        (HEADER, {}),  # header only: a valid kstat with no rows
        (HEADER + "hits 4 1\n\n\nmisses 4 2\n", {"hits": 1, "misses": 2}),  # blank lines
        ("\n\n" + HEADER + "hits 4 1", {"hits": 1}),  # leading blank lines, no final newline
        (HEADER.replace("\n", "\r\n") + "hits 4 1\r\n", {"hits": 1}),  # CRLF
        # header says 3 rows, only one present: ndata is not trusted
        ("6 1 0x01 3 144 1 2\nname type data\nhits 4 1\n", {"hits": 1}),
    ],
)
def test_parse_kstat_valid(text: str, entries: dict[str, int]) -> None:
    assert parse_kstat(text).values() == entries


@pytest.mark.parametrize(
    ("text", "line_no", "fragment"),
    [
        ("", None, "empty"),
        ("   \n\n", None, "empty"),
        (HEADER + "hits 4 1\nhash_chai", 4, "hash_chai"),  # truncated last line
        (HEADER + "hits 4 1\ngarbage here\n", 4, "garbage here"),
        (HEADER + "hits 4 1\nhits 4 2\n", 4, "duplicate"),
        (HEADER + "hits 4 1\nname type data\n", 4, "name type data"),  # header after rows
        (HEADER + "hits 4 abc\n", 3, "hits"),
        ("<html>not a kstat</html>\n", 1, "html"),
        ("5 0 0x01 1 0 1 2\nraw data\n", 1, "RAW"),  # raw kstat
    ],
)
def test_parse_kstat_errors_name_the_line(text: str, line_no: int | None, fragment: str) -> None:
    with pytest.raises(ParseError) as err:
        parse_kstat(text)
    assert err.value.line_no == line_no
    assert fragment in str(err.value)


def test_header_is_parsed() -> None:
    kstat = parse_kstat(
        fixture_path("arc", "corpus", "arcstats_02_linux_zol_0.6.5_91rows.txt").read_bytes()
    )
    assert kstat.header == KstatHeader(6, 1, 1, 91, 4368, 5266997922, 97951858082072)
    assert len(kstat.entries) == 91


def test_io_kstat() -> None:
    text = (
        "3 3 0x00 1 80 1 2\n"
        "nread    nwritten reads    writes   wtime    wlentime wupdate  rtime    rlentime "
        "rupdate  wcnt     rcnt\n"
        "1024     2048     3        4        5        6        7        8        9        "
        "10       0        1\n"
    )
    values = parse_kstat(text).values()
    assert values["nread"] == 1024 and values["rcnt"] == 1 and len(values) == 12


def test_io_kstat_bad_row() -> None:
    with pytest.raises(ParseError) as err:
        parse_kstat("3 3 0x00 1 80 1 2\nnread nwritten\n1 x\n")
    assert err.value.line_no == 3


@pytest.mark.parametrize(
    ("name", "count", "first", "check"),
    [
        ("dmu_tx_assign.txt", 30, "1 ns", ("536870912 ns", 4)),
        ("objset-0x85.txt", 27, "dataset_name", ("dataset_name", "tank/data")),
        ("iostats.txt", 26, "trim_extents_written", ("simple_trim_bytes_written", 0)),
    ],
)
def test_other_real_kstats(name: str, count: int, first: str, check: tuple[str, object]) -> None:
    kstat = parse_kstat(fixture_path("arc", "kstat", name).read_bytes())
    assert len(kstat.entries) == count == kstat.header.ndata  # type: ignore[union-attr]
    assert next(iter(kstat.entries)) == first
    assert kstat.values()[check[0]] == check[1]


def test_raw_kstat_is_rejected_with_its_line() -> None:
    with pytest.raises(ParseError) as err:
        parse_kstat(fixture_path("arc", "kstat", "txgs.txt").read_bytes())
    assert err.value.line_no == 1


# ---- sysctl ----

SYSCTL = "kstat.zfs.misc.arcstats.hits: 5\nkstat.zfs.misc.arcstats.misses: 6\n"


@pytest.mark.parametrize(
    ("text", "prefix", "expected"),
    [
        (SYSCTL, "kstat.zfs.misc.arcstats", {"hits": 5, "misses": 6}),
        (SYSCTL, "kstat.zfs.misc.arcstats.", {"hits": 5, "misses": 6}),
        (SYSCTL, None, {"hits": 5, "misses": 6}),
        ("kstat.zfs.misc.arcstats.hits=5\n", "kstat.zfs.misc.arcstats", {"hits": 5}),  # -e
        ("kstat.zfs.misc.arcstats.x: -3\n", "kstat.zfs.misc.arcstats", {"x": -3}),
        ("/zfs-kstat/zfs/arcstats/c:104857600\n", None, {"c": 104857600}),  # grep -H
        (
            "kstat.zfs.tank.dataset.objset-0x36.dataset_name: tank/a b\n",
            None,
            {"dataset_name": "tank/a b"},
        ),
        ("\n" + SYSCTL + "\n\n", None, {"hits": 5, "misses": 6}),
    ],
)
def test_parse_sysctl(text: str, prefix: str | None, expected: dict[str, object]) -> None:
    entries = parse_sysctl(text, prefix)
    assert {k: v.value for k, v in entries.items()} == expected
    for entry in entries.values():
        assert entry.type is (None if isinstance(entry.value, int) else KstatDataType.STRING)


@pytest.mark.parametrize(
    ("text", "prefix", "line_no", "fragment"),
    [
        ("", None, None, "empty"),
        (SYSCTL + "kstat.zfs.misc.a", None, 3, "kstat.zfs.misc.a"),  # cut-off line
        (SYSCTL + "kstat.zfs.misc.zfetchstats.hits: 1\n", "kstat.zfs.misc.arcstats", 3, "zfetch"),
        (SYSCTL + SYSCTL, "kstat.zfs.misc.arcstats", 3, "duplicate"),
        ("sysctl: unknown oid 'kstat.zfs.misc.arcstats'\n", "kstat.zfs.misc.arcstats", 1, "sysctl"),
        ("kstat.zfs.misc.arcstats.: 1\n", "kstat.zfs.misc.arcstats", 1, "empty field"),
    ],
)
def test_parse_sysctl_errors(
    text: str, prefix: str | None, line_no: int | None, fragment: str
) -> None:
    with pytest.raises(ParseError) as err:
        parse_sysctl(text, prefix)
    assert err.value.line_no == line_no
    assert fragment in str(err.value)


def test_keyvals_keep_values_with_separators() -> None:
    rows = parse_keyvals("/sys/module/zfs/parameters/icp_aes_impl:cycle [fastest] generic \n")
    assert rows[0][1:3] == ("/sys/module/zfs/parameters/icp_aes_impl", "cycle [fastest] generic")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SYSCTL, True),
        ("kstat.x=1", True),
        ("/a/b:1", True),
        (HEADER, False),
        ("hits 4 1", False),
        ("name type data", False),
        ("", False),
    ],
)
def test_looks_like_sysctl(text: str, expected: bool) -> None:
    assert looks_like_sysctl(text) is expected


def test_bytes_with_invalid_utf8_fail_cleanly() -> None:
    with pytest.raises(ParseError):
        parse_kstat(HEADER.encode() + b"hits 4 \xff\xfe\n")


# ---- properties ----

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,39}|[0-9]{1,10} ns", fullmatch=True)


@given(NAMES, st.sampled_from(list(KstatDataType)), st.data())
def test_spl_formatted_rows_round_trip(name: str, dtype: KstatDataType, data) -> None:  # type: ignore[no-untyped-def]
    """Rows printed as SPL prints them (``%-31s %-4d <value>``) parse back exactly."""
    if dtype in (KstatDataType.CHAR, KstatDataType.STRING):
        value = data.draw(
            st.from_regex(r"[a-z0-9/_.:-]([a-z0-9/_.: -]{0,30}[a-z0-9/_.:-])?", fullmatch=True)
        )
    elif dtype in (KstatDataType.INT32, KstatDataType.INT64, KstatDataType.LONG):
        value = data.draw(st.integers(-(2**63), 2**63 - 1))
    else:
        value = data.draw(st.integers(0, 2**64 - 1))
    line = f"{name:<31} {dtype.value:<4} {value}"
    assert parse_named_row(line) == (name, KstatEntry(dtype, value))


@given(st.text(max_size=300))
def test_any_text_parses_or_raises_parse_error(text: str) -> None:
    for parse in (parse_kstat, parse_sysctl):
        try:
            parse(text)
        except ParseError:
            pass
