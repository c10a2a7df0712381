"""ZFS numbers (base 1024), rates, durations and ctime dates, with explicit time zones."""

from __future__ import annotations

import math
import os
import time
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zmon.parsers.common.units import (
    is_nice,
    parse_ctime,
    parse_duration,
    parse_nice,
    parse_percent,
    parse_rate,
    try_nice,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("0B", 0),
        ("512B", 512),
        ("12345", 12345),
        ("2.04K", 2089),
        ("4.09K", 4188),
        ("13.2K", 13517),
        ("13.4M", round(13.4 * 2**20)),
        ("1.5T", round(1.5 * 2**40)),
        ("1.00G", 2**30),
        ("80MB", 80 * 2**20),
        ("447MB", 447 * 2**20),
        ("5KiB", 5 * 1024),
        ("16E", 16 * 2**60),
        (" 7 ", 7),
        ("18446744073709551615", 2**64 - 1),
    ],
)
def test_parse_nice(text: str, value: int) -> None:
    assert parse_nice(text) == value
    assert isinstance(parse_nice(text), int)


@pytest.mark.parametrize("text", ["-", "", "none", "N/A"])
def test_absent_values(text: str) -> None:
    assert parse_nice(text) is None


@pytest.mark.parametrize("text", ["nan", "inf", "1.2.3", "K", "12Q", "-5", "1e5", "0x10"])
def test_garbage_is_rejected_not_nan(text: str) -> None:
    with pytest.raises(ValueError):
        parse_nice(text)
    assert try_nice(text) is None
    assert not is_nice(text)


@given(st.text(max_size=12))
def test_try_nice_never_raises_or_returns_nan(text: str) -> None:
    value = try_nice(text)
    assert value is None or (isinstance(value, int) and not math.isnan(value))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("6.1MB/s", round(6.1 * 2**20)),
        ("875K/s", 875 * 1024),
        ("2.81G/s", round(2.81 * 2**30)),
        ("0B/s", 0),
        ("fast", None),
        ("1.2X/s", None),
    ],
)
def test_parse_rate(text: str, value: float | None) -> None:
    assert parse_rate(text) == value


def test_parse_percent() -> None:
    assert parse_percent("17.81%") == pytest.approx(0.1781)
    assert parse_percent("100.00%") == 1.0
    assert parse_percent("done") is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3h49m", (13740, False)),
        ("0h0m", (0, False)),
        ("11h58m", (43080, False)),
        ("00:01:04", (64, True)),
        ("07:58:49", (28729, True)),
        ("0 days 00:00:01", (1, True)),
        ("4 days 00:32:32", (4 * 86400 + 1952, True)),
        ("1 day 01:00:00", (90000, True)),
        ("whenever", None),
        ("", None),
    ],
)
def test_parse_duration(text: str, value: tuple[int, bool] | None) -> None:
    assert parse_duration(text) == value


def test_ctime_in_an_explicit_zone() -> None:
    text = "Sun Nov 29 23:59:01 2026"
    assert parse_ctime(text, UTC) == datetime(2026, 11, 29, 23, 59, 1, tzinfo=UTC).timestamp()
    berlin = parse_ctime(text, ZoneInfo("Europe/Berlin"))
    assert berlin == datetime(2026, 11, 29, 22, 59, 1, tzinfo=UTC).timestamp()
    fixed = parse_ctime(text, timezone(timedelta(hours=-5)))
    assert fixed == datetime(2026, 11, 30, 4, 59, 1, tzinfo=UTC).timestamp()


def test_ctime_daylight_saving_follows_the_zone() -> None:
    ny = ZoneInfo("America/New_York")
    winter = parse_ctime("Mon Jan 12 12:00:00 2026", ny)
    summer = parse_ctime("Sun Jul 12 12:00:00 2026", ny)
    assert winter == datetime(2026, 1, 12, 17, 0, tzinfo=UTC).timestamp()
    assert summer == datetime(2026, 7, 12, 16, 0, tzinfo=UTC).timestamp()


def test_ctime_padded_day_and_zone_names() -> None:
    padded = parse_ctime("Sat Apr  6 00:51:24 2013", UTC)
    assert padded == datetime(2013, 4, 6, 0, 51, 24, tzinfo=UTC).timestamp()
    # zpool status -j prints the zone; UTC wins over the zone given by the caller.
    with_zone = parse_ctime("Mon Nov 30 00:11:24 UTC 2026", ZoneInfo("Asia/Tokyo"))
    assert with_zone == datetime(2026, 11, 30, 0, 11, 24, tzinfo=UTC).timestamp()
    # An ambiguous abbreviation falls back to the caller's zone.
    cet = parse_ctime("Mon Nov 30 00:11:24 CET 2026", UTC)
    assert cet == datetime(2026, 11, 30, 0, 11, 24, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    "text",
    [
        "",
        "yesterday",
        "Sun Foo 29 23:59:01 2026",
        "Sun Feb 30 23:59:01 2026",
        "Sun Nov 29 25:59:01 2026",
    ],
)
def test_bad_dates_are_none(text: str) -> None:
    assert parse_ctime(text, UTC) is None


def test_ctime_without_zone_uses_the_process_local_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Sun Jul 12 12:00:00 2026"
    try:
        monkeypatch.setenv("TZ", "America/New_York")
        time.tzset()
        assert parse_ctime(text) == datetime(2026, 7, 12, 16, 0, tzinfo=UTC).timestamp()
        monkeypatch.setenv("TZ", "UTC")
        time.tzset()
        assert parse_ctime(text) == datetime(2026, 7, 12, 12, 0, tzinfo=UTC).timestamp()
    finally:
        monkeypatch.undo()
        time.tzset()
    assert os.environ.get("TZ") != "America/New_York"
