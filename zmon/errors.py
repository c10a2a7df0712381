"""Errors shared by parsers and collectors."""

from __future__ import annotations


class ParseError(ValueError):
    """Input that a parser cannot make sense of; names the 1-based line when it can."""

    def __init__(self, message: str, line_no: int | None = None, line: str | None = None) -> None:
        self.message = message
        self.line_no = line_no
        self.line = line
        where = f"line {line_no}: " if line_no is not None else ""
        shown = f": {line.strip()[:120]!r}" if line else ""
        super().__init__(f"{where}{message}{shown}")


class NoDataError(Exception):
    """This host has nothing for the collector (no ZFS module, no UPS configured): not a failure."""
