"""README.md as the docs tests read it: its lines, its tables and its generated blocks.

A generated block sits between ``<!-- NAME: begin -->`` and ``<!-- NAME: end -->``; a test
renders it from the code and compares, and under ``pytest --update-golden`` rewrites it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


@dataclass(frozen=True)
class Row:
    """One row of a Markdown table: its line number in README.md and its cells."""

    line: int
    cells: tuple[str, ...]


def text() -> str:
    return README.read_text()


def section(heading: str) -> tuple[int, list[str]]:
    """The lines under ``heading`` (a whole heading line) up to the next heading of any level
    outside a code fence, with the line number of the first."""
    lines = text().splitlines()
    start = lines.index(heading) + 1
    fenced = False
    for end in range(start, len(lines)):
        if lines[end].startswith("```"):
            fenced = not fenced
        elif not fenced and lines[end].startswith("#"):
            return start + 1, lines[start:end]
    return start + 1, lines[start:]


def table(heading: str, header: str) -> list[Row]:
    """The rows of the table under ``heading`` whose header line is ``header``; the table ends
    at its first line that is not a row, so a table split by a paragraph loses its tail."""
    first, lines = section(heading)
    start = lines.index(header)
    rows = []
    for offset, line in enumerate(lines[start + 2 :], start=start + 2):
        if not line.startswith("|"):
            break
        cells = tuple(c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1])
        rows.append(Row(first + offset, cells))
    return rows


def rows_after(heading: str, header: str) -> Iterator[int]:
    """Line numbers of table rows under ``heading`` that are not part of its table that starts
    with ``header`` (a table split by a paragraph)."""
    first, lines = section(heading)
    in_table = {r.line for r in table(heading, header)}
    start = lines.index(header)
    for offset, line in enumerate(lines[start + 2 :], start=start + 2):
        if line.startswith("| ") and first + offset not in in_table:
            yield first + offset


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}: begin -->\n", f"<!-- {name}: end -->\n"


def block(name: str) -> str:
    """The text between the markers of block ``name``."""
    begin, end = markers(name)
    body = text()
    assert begin in body and end in body, f"README.md lacks the markers of the {name} block"
    return body.split(begin, 1)[1].split(end, 1)[0]


def check_block(name: str, rendered: str, update: bool) -> None:
    """Compare block ``name`` with ``rendered``; rewrite it instead when ``update``."""
    shown = block(name)
    if shown == rendered:
        return
    if update:
        begin, end = markers(name)
        head, rest = text().split(begin, 1)
        README.write_text(head + begin + rendered + end + rest.split(end, 1)[1])
        return
    old, new = shown.splitlines(), rendered.splitlines()
    start = text().split(markers(name)[0], 1)[0].count("\n") + 2
    differ = next(i for i in range(max(len(old), len(new))) if old[i : i + 1] != new[i : i + 1])
    raise AssertionError(
        f"README.md line {start + differ}, in the {name} block, is out of date:\n"
        f"  README: {old[differ] if differ < len(old) else '(nothing)'}\n"
        f"  code:   {new[differ] if differ < len(new) else '(nothing)'}\n"
        "rerun with --update-golden (make golden) and review the diff"
    )


def line_of(offset: int) -> int:
    """The README line number of a character offset into its text."""
    return text().count("\n", 0, offset) + 1
