"""NUT (Network UPS Tools): ``upsc`` output, protocol lines, and variables to a ``UpsReading``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.ups.ups import (
    FLAGS,
    QUANTITIES,
    UpsInfo,
    UpsReading,
    checked,
    parse_number,
    text_lines,
)

#: ``upsc`` error texts (lower-cased) that mean "upsd has lost this UPS".
DOWN_ERRORS = frozenset({"data stale", "driver not connected"})

# A NUT variable name: dotted words (battery.charge, driver.parameter.port, outlet.1.desc).
_VAR_LINE = re.compile(r"([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+):(?: (.*))?")
_ERROR_LINE = re.compile(r"Error: (.+)")
# The top-level names of NUT's variable namespace (NUT's docs/nut-names.txt); output with none of
# them (a FreeBSD ``sysctl`` dump has dotted names too) is not upsc output.
NUT_ROOTS = frozenset(
    {
        "ambient",
        "battery",
        "device",
        "driver",
        "input",
        "outlet",
        "output",
        "server",
        "ups",
        "experimental",
    }
)


@dataclass(frozen=True)
class UpscOutput:
    """What ``upsc UPS@HOST`` printed: its variables, or the error it reported instead."""

    variables: dict[str, str]
    error: str | None = None


@refuses_hostile_input
def parse_upsc(text: str) -> UpscOutput:
    """Parse ``upsc`` output: ``name: value`` lines.

    Lines that are not variables (shell prompts, ``Init SSL without certificate database``)
    are skipped, and so is a leading byte-order mark; a line wrapped in markdown bold
    (``**ups.status: OL**``, as pasted in bug reports) is read without the stars.
    ``Error: Data stale`` or ``Error: Driver not connected`` means the UPS is down; any other
    ``Error:`` line, or no NUT variable at all, is a ParseError.
    """
    variables: dict[str, str] = {}
    first_line: tuple[int, str] | None = None
    for line_no, raw, line in text_lines(text):
        if first_line is None:
            first_line = (line_no, raw)
        if len(line) > 4 and line.startswith("**") and line.endswith("**"):
            line = line[2:-2].strip()
        error = _ERROR_LINE.fullmatch(line)
        if error:
            message = error.group(1).strip()
            if message.lower() in DOWN_ERRORS:
                return UpscOutput({}, message)
            raise ParseError(f"upsc reported an error: {message}", line_no, raw)
        match = _VAR_LINE.fullmatch(line)
        if match:
            variables[match.group(1)] = (match.group(2) or "").strip()
    if not variables:
        if first_line is None:
            raise ParseError("empty input: no upsc 'name: value' lines")
        raise ParseError("no upsc 'name: value' lines found", *first_line)
    if not any(name.split(".", 1)[0] in NUT_ROOTS for name in variables):
        assert first_line is not None
        raise ParseError("no NUT variable (ups.*, battery.*, input.* ...) found", *first_line)
    return UpscOutput(variables)


def status_flags(status: str | None) -> frozenset[str] | None:
    """The exported flags set in a ``ups.status`` value (``"OL CHRG"``); None when absent."""
    if status is None or not status.strip():
        return None
    words = {word.upper() for word in status.split()}
    return frozenset(flag for flag in FLAGS if flag in words)


def reading_from_vars(name: str, variables: Mapping[str, str], *, up: bool = True) -> UpsReading:
    """Build a reading from NUT variables (``LIST VAR`` or ``upsc``); odd values are dropped.

    ``ups.status: WAIT`` (the driver has no data from the device yet) counts as down.
    """
    info = UpsInfo(
        model=_first(variables, "device.model", "ups.model"),
        manufacturer=_first(variables, "device.mfr", "ups.mfr"),
        serial=_first(variables, "device.serial", "ups.serial"),
        driver=_first(variables, "driver.name"),
        firmware=_first(variables, "ups.firmware"),
    )
    if not up or (variables.get("ups.status") or "").split() == ["WAIT"]:
        return UpsReading(name=name, source="nut", up=False, info=info)
    values: dict[str, float] = {}
    for quantity in QUANTITIES:
        if quantity.nut is None:
            continue
        number = parse_number(variables.get(quantity.nut))
        if number is not None and quantity.dimension == "ratio":
            number /= 100.0
        value = checked(quantity, number)
        if value is not None:
            values[quantity.name] = value
    return UpsReading(
        name=name,
        source="nut",
        up=True,
        flags=status_flags(variables.get("ups.status")),
        values=values,
        info=info,
    )


def _first(variables: Mapping[str, str], *names: str) -> str:
    for name in names:
        value = (variables.get(name) or "").strip()
        if value:
            return value
    return ""


# ---- the upsd network protocol (TCP 3493): pure line handling ----


def split_protocol_line(line: str) -> list[str]:
    """Split one upsd reply line into words; ``"quoted words"`` with ``\\"`` and ``\\\\`` escapes.

    Raises ValueError on an unterminated quote or a dangling backslash.
    """
    words: list[str] = []
    i, n = 0, len(line)
    while i < n:
        if line[i] == " ":
            i += 1
            continue
        word: list[str] = []
        quoted = line[i] == '"'
        if quoted:
            i += 1
        while True:
            if i >= n:
                if quoted:
                    raise ValueError(f"unterminated quote in {line!r}")
                break
            ch = line[i]
            if ch == "\\":
                if i + 1 >= n:
                    raise ValueError(f"dangling backslash in {line!r}")
                word.append(line[i + 1])
                i += 2
                continue
            if quoted and ch == '"':
                i += 1
                break
            if not quoted and ch == " ":
                break
            word.append(ch)
            i += 1
        words.append("".join(word))
    return words


def quote_argument(word: str) -> str:
    """One command argument for upsd, quoted and escaped when needed."""
    if any(ch in word for ch in "\r\n\0"):
        raise ValueError("a NUT command argument cannot contain a line break or NUL")
    if word and not any(ch in word for ch in ' "\\\t'):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
