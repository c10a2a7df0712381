"""Numbers, rates, durations and dates as the ZFS tools print them.

``zpool``/``zfs`` print human numbers with ``zfs_nicenum``: base 1024, one suffix letter
(``2.04K``, ``13.4M``, ``1.5T``), ``0B``/``512B`` for plain bytes, and exact integers with
``-p``. Older releases wrote ``80MB`` or ``6.1MB/s``. Dates come from ``ctime()`` in the local
time zone of the host that ran the command; the zone is an explicit argument here so that
callers (and tests) decide it.
"""

from __future__ import annotations

import calendar
import re
import time
from datetime import UTC, datetime, timedelta, timezone, tzinfo

SCALE: dict[str, int] = {
    "": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40,
    "P": 1 << 50, "E": 1 << 60, "Z": 1 << 70,
}  # fmt: skip
ABSENT = frozenset({"", "-", "none", "N/A"})

_NICE = re.compile(r"^(?P<num>\d+(?:\.\d+)?)(?P<unit>[BKMGTPEZ]?)(?:i?B)?$", re.IGNORECASE)
_RATE = re.compile(r"^(?P<num>.+?)/s(?:ec)?$")
_PERCENT = re.compile(r"^(?P<num>\d+(?:\.\d+)?)\s*%$")
_HM = re.compile(r"^(?:(?P<h>\d+)h)?(?:(?P<m>\d+)m)?(?:(?P<s>\d+)s)?$")
_DHMS = re.compile(r"^(?:(?P<d>\d+)\s+days?\s+)?(?P<h>\d+):(?P<m>\d{2}):(?P<s>\d{2})$")
_CTIME = re.compile(
    r"^(?:[A-Z][a-z]{2}\s+)?(?P<mon>[A-Z][a-z]{2})\s+(?P<day>\d{1,2})\s+"
    r"(?P<h>\d{1,2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:\s+(?P<zone>[A-Z]{1,5}|[+-]\d{4}))?"
    r"\s+(?P<year>\d{4})$"
)
_MONTHS = {m: i for i, m in enumerate(calendar.month_abbr) if m}
_UTC_NAMES = frozenset({"UTC", "GMT", "Z", "UT"})


def parse_nice(text: str) -> int | None:
    """``2.04K`` -> 2089, ``0B`` -> 0, ``12345`` -> 12345, ``-`` -> None (absent).

    The magnitude is rounded to a whole number, as the printed value stands for one.
    Raises ValueError for anything else (never returns NaN).
    """
    text = text.strip()
    if text in ABSENT:
        return None
    m = _NICE.match(text)
    if not m:
        raise ValueError(f"not a ZFS number: {text!r}")
    num = m.group("num")
    scale = SCALE[m.group("unit").upper()]
    if "." not in num:
        return int(num) * scale
    return round(float(num) * scale)


def try_nice(text: str | None) -> int | None:
    """Like ``parse_nice`` but None for anything unparseable."""
    if text is None:
        return None
    try:
        return parse_nice(text)
    except ValueError:
        return None


def is_nice(text: str) -> bool:
    """True for a token ``parse_nice`` accepts (``0``, ``2.04K``, ``13.4M``), not ``-``."""
    return bool(_NICE.match(text.strip()))


def parse_rate(text: str) -> float | None:
    """``6.1MB/s`` / ``2.81G/s`` / ``875K/s`` -> bytes per second; None if unparseable."""
    m = _RATE.match(text.strip())
    if not m:
        return None
    value = try_nice(m.group("num"))
    return None if value is None else float(value)


def parse_percent(text: str) -> float | None:
    """``17.81%`` -> 0.1781 (a ratio); None if unparseable."""
    m = _PERCENT.match(text.strip())
    return None if not m else float(m.group("num")) / 100.0


def parse_duration(text: str) -> tuple[int, bool] | None:
    """A ZFS duration -> (seconds, exact).

    ``00:01:04`` and ``4 days 00:32:32`` (OpenZFS 0.8+) are exact to the second; ``3h49m`` and
    ``0h0m`` (older releases) only to the minute, so ``exact`` is False for them.
    """
    text = " ".join(text.split())
    m = _DHMS.match(text)
    if m:
        days = int(m.group("d") or 0)
        secs = ((days * 24 + int(m.group("h"))) * 60 + int(m.group("m"))) * 60 + int(m.group("s"))
        return secs, True
    m = _HM.match(text)
    if m and text:
        h, mi, s = (int(m.group(k) or 0) for k in ("h", "m", "s"))
        return (h * 60 + mi) * 60 + s, m.group("s") is not None
    return None


def parse_ctime(text: str, tz: tzinfo | None = None) -> float | None:
    """A ``ctime()`` date (``Sun Nov 29 23:59:01 2026``) -> Unix seconds, or None.

    ``tz`` is the zone the date was printed in; None means this process's local zone
    (``time.mktime``, so daylight saving follows the system rules). A zone name inside
    the text (``Mon Nov 30 00:11:24 UTC 2026``, as ``zpool status -j`` prints) wins when it
    is UTC/GMT or a numeric offset; other abbreviations are ambiguous and fall back to ``tz``.
    """
    m = _CTIME.match(" ".join(text.split()))
    if not m:
        return None
    month = _MONTHS.get(m.group("mon"))
    if month is None:
        return None
    try:
        naive = datetime(
            int(m.group("year")),
            month,
            int(m.group("day")),
            int(m.group("h")),
            int(m.group("mi")),
            int(m.group("s")),
        )
    except ValueError:
        return None
    zone = m.group("zone")
    if zone in _UTC_NAMES:
        return naive.replace(tzinfo=UTC).timestamp()
    if zone and zone[0] in "+-":
        offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5]))
        sign = -1 if zone[0] == "-" else 1
        return naive.replace(tzinfo=timezone(sign * offset)).timestamp()
    if tz is not None:
        return naive.replace(tzinfo=tz).timestamp()
    return float(time.mktime(naive.timetuple()))
