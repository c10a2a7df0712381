"""Parse kstat text: Linux ``/proc/spl/kstat/...`` files and FreeBSD ``sysctl kstat...`` output.

Both give an ordered mapping ``name -> KstatEntry(type, value)``. Linux named kstats carry
the kstat data type (``KSTAT_DATA_*``); sysctl output does not, so its entries have type None.

Linux named kstat layout (SPL ``kstat_seq_show_named``)::

    6 1 0x01 91 4368 5266997922 97951858082072      <- kid type flags ndata size crtime snaptime
    name                            type data
    hits                            4    8772612
    demand_iohit_predictive_prefetch 4    221984     <- a long name leaves a single space
    1 ns                            4    0          <- names may contain spaces (dmu_tx_assign)
    dataset_name                    7    tank/my data  <- string values too

The header's ``ndata`` is not trusted: a file may be partial. Columns are found by splitting on
whitespace, never by position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum
from typing import NamedTuple

from zmon.base.errors import ParseError, refuses_hostile_input


class KstatType(IntEnum):
    """``ks_type`` from the header line."""

    RAW = 0
    NAMED = 1
    INTR = 2
    IO = 3
    TIMER = 4


class KstatDataType(IntEnum):
    """``KSTAT_DATA_*``: the type column of a named kstat row."""

    CHAR = 0
    INT32 = 1
    UINT32 = 2
    INT64 = 3
    UINT64 = 4
    LONG = 5
    ULONG = 6
    STRING = 7


_STRING_TYPES = frozenset((KstatDataType.CHAR, KstatDataType.STRING))
_SIGNED_TYPES = frozenset((KstatDataType.INT32, KstatDataType.INT64, KstatDataType.LONG))
_TYPES = {str(t.value): t for t in KstatDataType}


class KstatEntry(NamedTuple):
    """One kstat field: its data type (None when the source does not say) and its value."""

    type: KstatDataType | None
    value: int | str


@dataclass(frozen=True)
class KstatHeader:
    """The first line of a Linux kstat file."""

    kid: int
    ks_type: int
    flags: int
    ndata: int
    data_size: int
    crtime: int
    snaptime: int


@dataclass
class Kstat:
    """A parsed kstat: the header when present and the fields in file order."""

    header: KstatHeader | None = None
    entries: dict[str, KstatEntry] = field(default_factory=dict)

    def values(self) -> dict[str, int | str]:
        """Field name -> value, without the types."""
        return {name: entry.value for name, entry in self.entries.items()}


# kid type flags ndata data_size crtime snaptime
_N = r"([0-9]+)"
_HEADER_RE = re.compile(rf"{_N} {_N} 0x([0-9a-fA-F]+) {_N} {_N} (-?[0-9]+) (-?[0-9]+)")
_UINT_RE = re.compile(r"[0-9]+")
# A candidate type column: a single digit 0-7 standing alone between whitespace.
_TYPE_COL_RE = re.compile(r"\s([0-7])(?:\s|$)")
# sysctl ``key: value`` (default), ``key=value`` (``sysctl -e``); also ``grep -H`` ``path:value``.
_KEYVAL_RE = re.compile(r"([^\s:=]+)(?::[ \t]?|=)(.*)")
_LAST_COMPONENT_RE = re.compile(r"[./]")


def decode(data: bytes | str) -> str:
    """Text of the input; undecodable bytes become U+FFFD (and then fail validation)."""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


# A 64-bit kstat prints at most 20 digits; a much longer number is damaged output, and int()
# refuses more than 4300 digits with a ValueError (and takes quadratic time below that).
MAX_INT_DIGITS = 40
# The longest real row is a dataset name (at most 256 bytes) with its key and type.
MAX_ROW_CHARS = 4096


def parse_int(token: str) -> int | None:
    """A strict ASCII decimal integer of at most MAX_INT_DIGITS digits, or None (``int()``
    would accept ``1_0`` and ``+1``)."""
    digits = token[1:] if token.startswith("-") else token  # -?[0-9]+, without a regex
    ok = digits.isascii() and digits.isdigit() and len(digits) <= MAX_INT_DIGITS
    return int(token) if ok else None


def parse_header(line: str) -> KstatHeader | None:
    """The kstat header line, or None if ``line`` is not one."""
    m = _HEADER_RE.fullmatch(line.strip())
    if m is None:
        return None
    kid, ks_type, flags, ndata, size, crtime, snaptime = m.groups()
    return KstatHeader(
        int(kid), int(ks_type), int(flags, 16), int(ndata), int(size), int(crtime), int(snaptime)
    )


def _typed_value(dtype: KstatDataType, raw: str) -> int | str | None:
    if dtype in _STRING_TYPES:
        return raw.rstrip()
    value = parse_int(raw.strip())
    if value is None or (value < 0 and dtype not in _SIGNED_TYPES):
        return None
    return value


def parse_named_row(line: str) -> tuple[str, KstatEntry] | None:
    """Split one ``name type data`` row, or return None if it is not one.

    Fast path: exactly three tokens. Otherwise the type column is the first lone digit 0-7
    after the first token whose data parses for that type, so names and string values may
    contain spaces.
    """
    parts = line.split()
    if len(parts) == 3:
        dtype = _TYPES.get(parts[1])
        if dtype is not None:
            value = _typed_value(dtype, parts[2])
            if value is not None:
                return parts[0], KstatEntry(dtype, value)
    text = line.strip()
    if len(text) > MAX_ROW_CHARS:  # each candidate column below costs a copy of the row
        return None
    pos = 0
    while (m := _TYPE_COL_RE.search(text, pos)) is not None:
        pos = m.start() + 1
        dtype = KstatDataType(int(m.group(1)))
        raw = text[m.end() :].strip()
        if not raw and dtype not in _STRING_TYPES:
            continue
        value = _typed_value(dtype, raw)
        if value is not None:
            return text[: m.start()].rstrip(), KstatEntry(dtype, value)
    return None


def quick_named_values(data: bytes | str) -> dict[str, int | str] | None:
    """``parse_kstat(data).values()`` of a plain named kstat, or None if it is not plain.

    Plain: the header, the ``name type data`` line, then one ``name type value`` row of
    three tokens per field, no duplicates. That is every kstat the kernel writes, and reading
    it this way skips the general parser's per-row checks (a host with thousands of datasets
    has as many objset kstats); anything else returns None, and ``parse_kstat`` gives the
    answer or the error.
    """
    lines = decode(data).splitlines()
    if len(lines) < 2 or lines[1].split() != ["name", "type", "data"]:
        return None
    header = parse_header(lines[0])
    if header is None or header.ks_type != KstatType.NAMED:
        return None
    out: dict[str, int | str] = {}
    types = _TYPES
    for line in lines[2:]:
        parts = line.split()
        if len(parts) != 3:
            return None
        name, code, raw = parts
        dtype = types.get(code)
        if dtype is None:
            return None
        value = _typed_value(dtype, raw)
        if value is None or name in out:
            return None
        out[name] = value
    return out


@refuses_hostile_input
def parse_kstat(data: bytes | str) -> Kstat:
    """Parse a Linux kstat file of type NAMED (or IO) into a Kstat.

    The header and the ``name type data`` line are optional; rows may stop early (a partial
    file), and up to four pasted lines (a prompt, the ``cat`` command) before the header are
    skipped. Raises ParseError naming the first line that is not a valid row.
    """
    text = decode(data)
    result = Kstat()
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        raise ParseError("empty input: no kstat header or rows")
    i = _start(lines)
    header = parse_header(lines[i])
    if header is not None:
        result.header = header
        i += 1
        if header.ks_type == KstatType.IO:
            return _parse_io(lines, i, result)
        if header.ks_type != KstatType.NAMED:
            kind = _kstat_type_name(header.ks_type)
            raise ParseError(f"kstat type {kind} is not a named kstat", i, lines[i - 1])
    entries = result.entries
    for line_no, line in enumerate(lines[i:], start=i + 1):
        if not line or line.isspace():
            continue
        row = parse_named_row(line)
        if row is None:
            if line.split() == ["name", "type", "data"] and not entries:
                continue
            raise ParseError("not a 'name type data' kstat row", line_no, line)
        name, entry = row
        if name in entries:
            raise ParseError(f"duplicate kstat field {name!r}", line_no, line)
        entries[name] = entry
    return result


_LEAD_LINES = 5  # a pasted shell prompt, `cat` command or markup above the file


def _start(lines: list[str]) -> int:
    """Index of the kstat header (or ``name type data`` line) when a few pasted lines come
    before it, else of the first non-blank line."""
    seen = 0
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        if parse_header(line) is not None or line.split() == ["name", "type", "data"]:
            return i
        seen += 1
        if seen >= _LEAD_LINES:
            break
    return next(i for i, line in enumerate(lines) if line.strip())


def _kstat_type_name(ks_type: int) -> str:
    try:
        return KstatType(ks_type).name
    except ValueError:
        return str(ks_type)


def _parse_io(lines: list[str], i: int, result: Kstat) -> Kstat:
    """The IO kstat: a column-name line then one row of unsigned integers."""
    rows = [(n, line) for n, line in enumerate(lines[i:], start=i + 1) if line.strip()]
    if not rows:
        return result
    n, names_line = rows[0]
    names = names_line.split()
    if not names or any(parse_int(t) is not None for t in names):
        raise ParseError("expected the IO kstat column names", n, names_line)
    for n, line in rows[1:2]:
        tokens = line.split()
        if len(tokens) != len(names) or not all(_UINT_RE.fullmatch(t) for t in tokens):
            raise ParseError(f"expected {len(names)} unsigned integers", n, line)
        for name, token in zip(names, tokens, strict=True):
            result.entries[name] = KstatEntry(KstatDataType.UINT64, int(token))
    if len(rows) > 2:
        n, line = rows[2]
        raise ParseError("unexpected line after the IO kstat row", n, line)
    return result


@refuses_hostile_input
def parse_keyvals(data: bytes | str) -> list[tuple[int, str, str, str]]:
    """Split ``key: value``/``key=value`` lines into (line number, key, raw value, line).

    Blank lines are skipped; any other line that is not ``key: value`` raises ParseError.
    """
    rows = []
    for line_no, line in enumerate(decode(data).splitlines(), start=1):
        if not line or line.isspace():
            continue
        m = _KEYVAL_RE.fullmatch(line.strip())
        if m is None:
            raise ParseError("not a 'name: value' line", line_no, line)
        rows.append((line_no, m.group(1), m.group(2).strip(), line))
    return rows


@refuses_hostile_input
def parse_sysctl(data: bytes | str, prefix: str | None = None) -> dict[str, KstatEntry]:
    """Parse ``sysctl`` output (``key: value`` or ``-e`` ``key=value``) into kstat entries.

    With ``prefix`` (``kstat.zfs.misc.arcstats``) every key must start with ``prefix.`` and the
    rest is the field name. Without it the name is the key's last ``.`` or ``/`` component, which
    also reads ``grep -H . DIR/*`` output (``DIR/name:value``). Integer values get type None,
    other values are strings (type STRING). Raises ParseError naming a line it cannot read.
    """
    rows = parse_keyvals(data)
    if not rows:
        raise ParseError("empty input: no sysctl lines")
    want = None if prefix is None else prefix.rstrip(".") + "."
    entries: dict[str, KstatEntry] = {}
    for line_no, key, raw, line in rows:
        if want is None:
            name = _LAST_COMPONENT_RE.split(key)[-1]
        elif key.startswith(want):
            name = key[len(want) :]
        else:
            raise ParseError(f"sysctl name does not start with {want!r}", line_no, line)
        if not name:
            raise ParseError("empty field name", line_no, line)
        if name in entries:
            raise ParseError(f"duplicate field {name!r}", line_no, line)
        value = parse_int(raw)
        entries[name] = (
            KstatEntry(None, value) if value is not None else KstatEntry(KstatDataType.STRING, raw)
        )
    return entries


def looks_like_sysctl(data: bytes | str) -> bool:
    """True if the first non-blank line is ``key: value``/``key=value`` rather than kstat text."""
    for line in decode(data).splitlines():
        if line.strip():
            return _KEYVAL_RE.fullmatch(line.strip()) is not None
    return False
