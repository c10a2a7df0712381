"""Numbers in words: sizes, durations, ages, ratios (used by every status view)."""

from __future__ import annotations


def size(n: float | None) -> str:
    """1536 -> '1.5 KiB' (binary units, as zpool prints them)."""
    if n is None:
        return "?"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(value) < 1024 or unit == "PiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} PiB"  # pragma: no cover


def duration(seconds: float | None) -> str:
    """A rounded span: '45 s', '12 min', '3 h 20 min', '41 days'."""
    if seconds is None:
        return "?"
    s = max(0.0, float(seconds))
    if s < 90:
        return f"{s:.0f} s"
    if s < 90 * 60:
        return f"{s / 60:.0f} min"
    if s < 48 * 3600:
        hours, minutes = divmod(round(s / 60), 60)
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{s / 86400:.0f} days"


def latency(seconds: float) -> str:
    """An I/O latency: '41 ms', '2.5 ms', '850 µs', '1.2 s'."""
    if seconds >= 1:
        return f"{seconds:.1f} s"
    if seconds >= 0.01:
        return f"{seconds * 1000:.0f} ms"
    if seconds >= 0.001:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


def times(factor: float) -> str:
    """How many times: '6x', '2.5x'."""
    return f"{factor:.0f}x" if factor >= 9.5 else f"{factor:.1f}x"


def time_left(seconds: float) -> str:
    """'about 12 min to go', 'almost done'."""
    return "almost done" if seconds < 30 else f"about {duration(seconds)} to go"


def ago(when: float | None, now: float) -> str:
    """'41 days ago', 'just now'."""
    if when is None:
        return "never"
    delta = now - when
    if delta < 5:
        return "just now"
    return f"{duration(delta)} ago"


def percent(ratio: float | None) -> str:
    if ratio is None:
        return "?"
    return f"{ratio * 100:.0f} %" if ratio * 100 >= 9.5 or ratio == 0 else f"{ratio * 100:.1f} %"


def count(n: float, one: str, many: str | None = None) -> str:
    """'1 error', '37 errors'."""
    value = int(n) if float(n).is_integer() else n
    return f"{value} {one if value == 1 else (many or one + 's')}"


def join(parts: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def slot(enclosure: str, name: str) -> str:
    """Where a disk sits: 'enclosure 0:0:12:0 slot 3', 'enclosure ses0 Slot05'.

    The slot keeps the enclosure's own name for it (what its descriptor and often the tray
    label say); a bare number reads as 'slot 3'."""
    return f"enclosure {enclosure} {'slot ' + name if name.isdigit() else name}"
