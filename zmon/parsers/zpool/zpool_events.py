"""``zpool events`` text: the short list and the ``-v`` blocks, with or without ``-H``.

Each event starts with ``<time> <class>`` (``-H`` puts a tab between them); the time is
``ctime``-style local time, ``Oct  3 2020 03:53:40.724065519``. With ``-v`` the event's
nvlist follows, one ``name = value`` per line indented by 8 spaces (a tab is accepted too),
and a blank line ends the block. Nested nvlists (``detector = (embedded nvlist)`` ...
``(end detector)``) are indented deeper and are skipped. Values are quoted strings, hex
numbers (``0x6e``), hex numbers with a decoded note (``0x7000b0 [SCRUB ...]``) or
space-separated arrays (``time = 0x5 0x6``).
``zpool events`` also prints ``dropped N events`` when the kernel queue overflowed.

A pasted capture may start inside a record (indented ``name = value`` lines before the first
header) or stop inside one (a ``-v`` record without its closing ``time`` and ``eid``). The
leading lines are skipped; a cut record still counts with what it names (its class, and its
pool and vdev if those lines made it); either way the capture is marked incomplete.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from zmon.base.errors import ParseError, refuses_hostile_input

_TIME = r"[A-Z][a-z]{2} [ \d]\d \d{4} \d\d:\d\d:\d\d\.\d{1,9}"
HEADER = re.compile(rf"^(?P<time>{_TIME})[ \t]+(?P<cls>[A-Za-z0-9_.\-]+)\s*$")
_TOP_PAIR = re.compile(r"^(?: {8}|\t)(?P<name>[A-Za-z_][\w@.:\-]*) = ?(?P<value>.*)$")
_DROPPED = re.compile(r"^dropped (?P<n>\d+) events?\s*$")
_COLUMN_HEADER = re.compile(r"^TIME\s+CLASS\s*$")
_PROMPT = re.compile(r"^\S*[$#] |zpool events")
# What zpool or sudo print instead of events when the caller lacks the rights; not an event.
_REFUSAL = re.compile(r"^cannot get event: |^\[sudo\] password for ")
CLASS_MARKER = "fs.zfs."


@dataclass
class ZfsEvent:
    """One event; ``fields`` holds the top-level nvlist values as printed (``-v`` only)."""

    time_text: str
    event_class: str
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def short_class(self) -> str:
        """The part after ``fs.zfs.``: ``checksum``, ``statechange``, ``scrub_finish``..."""
        idx = self.event_class.find(CLASS_MARKER)
        return self.event_class[idx + len(CLASS_MARKER) :] if idx >= 0 else self.event_class

    @property
    def pool(self) -> str:
        return _unquote(self.fields.get("pool", ""))

    @property
    def vdev(self) -> str:
        """Basename of ``vdev_path``, or "" when the event names no vdev path."""
        path = _unquote(self.fields.get("vdev_path", ""))
        return path.rstrip("/").rsplit("/", 1)[-1] if path else ""

    @property
    def eid(self) -> int | None:
        return _int(self.fields.get("eid"))

    @property
    def time_ns(self) -> int | None:
        """Event time from the ``time = <sec> <nsec>`` pair, in ns since the epoch."""
        raw = self.fields.get("time", "").split()
        if len(raw) != 2:
            return None
        sec, nsec = _int(raw[0]), _int(raw[1])
        if sec is None or nsec is None or sec >= 1 << 62:
            return None
        return sec * 1_000_000_000 + nsec

    @property
    def timestamp(self) -> float | None:
        """Unix time: from the ``time`` pair, else from the header read as local time."""
        ns = self.time_ns
        if ns is not None:
            return ns / 1e9
        return header_time_to_unix(self.time_text)


def _unquote(value: str) -> str:
    value = value.strip()
    if value.startswith('"'):
        end = value.rfind('"')
        return value[1:end] if end > 0 else value[1:]
    return value


def _int(text: str | None) -> int | None:
    if not text:
        return None
    word = text.split()[0]
    try:
        return int(word, 16) if word.lower().startswith("0x") else int(word)
    except ValueError:
        return None


def header_time_to_unix(text: str) -> float | None:
    """``Nov 30 2026 00:06:26.124000000`` (local time, as zpool prints it) -> Unix time."""
    main, _, frac = text.partition(".")
    try:
        parsed = time.strptime(" ".join(main.split()), "%b %d %Y %H:%M:%S")
    except ValueError:
        return None
    return time.mktime(parsed) + (float("0." + frac) if frac else 0.0)


class EventStreamParser:
    """Incremental parser: feed lines, get completed events (used on a live ``-f`` stream).

    Lenient: lines it does not understand are counted in ``unknown_lines`` and skipped.
    """

    def __init__(self) -> None:
        self._current: ZfsEvent | None = None
        self.dropped = 0
        self.unknown_lines = 0
        self._in_nested = 0

    def feed(self, line: str) -> list[ZfsEvent]:
        line = line.rstrip("\r\n")
        done: list[ZfsEvent] = []
        m = HEADER.match(line)
        if m:
            done.extend(self.flush())
            self._current = ZfsEvent(m.group("time"), m.group("cls"))
            return done
        if not line.strip():
            return self.flush()
        if self._current is not None and line[0] in " \t":
            self._add_field(line)
            return done
        d = _DROPPED.match(line)
        if d:
            done.extend(self.flush())
            self.dropped += int(d.group("n"))
            return done
        if _COLUMN_HEADER.match(line):
            return done
        self.unknown_lines += 1
        return done

    def _add_field(self, line: str) -> None:
        assert self._current is not None
        m = _TOP_PAIR.match(line)
        if m is None:
            return  # nested nvlist content or "(end x)"
        name, value = m.group("name"), m.group("value").strip()
        if "[" in name:
            return
        self._current.fields.setdefault(name, value)

    def flush(self) -> list[ZfsEvent]:
        ev, self._current = self._current, None
        return [ev] if ev is not None else []


@dataclass
class EventCapture:
    """All events of a captured ``zpool events`` output.

    ``skipped_lines`` are record lines before the first header (the paste began mid-record);
    ``cut_events`` are ``-v`` records that stop before their closing field (the paste ended
    mid-record; they are in ``events`` with what they name). Either makes it incomplete.
    """

    events: list[ZfsEvent]
    dropped: int = 0
    skipped_lines: int = 0
    cut_events: int = 0

    @property
    def complete(self) -> bool:
        return not self.skipped_lines and not self.cut_events


@refuses_hostile_input
def parse_zpool_events(data: bytes | str) -> EventCapture:
    """Parse a whole ``zpool events [-H] [-v]`` capture; raise ParseError on foreign lines."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    parser = EventStreamParser()
    events: list[ZfsEvent] = []
    skipped = 0
    started = False
    for no, line in enumerate(text.splitlines(), 1):
        if not started:
            if HEADER.match(line) or _DROPPED.match(line) or _COLUMN_HEADER.match(line):
                started = True
            elif line[:1] in (" ", "\t") and line.strip():
                skipped += 1  # the paste began inside a record
                continue
        before = parser.unknown_lines
        events.extend(parser.feed(line))
        if parser.unknown_lines != before:
            if (
                not events
                and parser._current is None
                and (_PROMPT.search(line) or _REFUSAL.match(line))
            ):
                continue  # a shell prompt, the command line, or a refusal above the output
            raise ParseError("not a zpool events line", no, line)
    events.extend(parser.flush())
    if not events and text.strip() and parser.dropped == 0:
        if not any(_COLUMN_HEADER.match(ln) for ln in text.splitlines()):
            raise ParseError("no zpool events found", 1, text.splitlines()[0])
    verbose = any(ev.fields for ev in events)
    # A -v record ends with time, then eid: without eid it was cut (or comes from a zfs without
    # event ids, which is then merely reported as partial).
    cut = sum(1 for ev in events if verbose and "eid" not in ev.fields)
    return EventCapture(events, parser.dropped, skipped, cut)
