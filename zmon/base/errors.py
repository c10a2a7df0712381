"""Errors shared by parsers and collectors."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar


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


P = ParamSpec("P")
R = TypeVar("R")

# int() refuses decimal strings longer than sys.get_int_max_str_digits() (4300 by default)
# with a ValueError that says so; no real counter comes near it.
_INT_DIGITS_MESSAGE = "integer string conversion"


def refuses_hostile_input(func: Callable[P, R]) -> Callable[P, R]:
    """Make a parser raise ParseError, never a traceback, for input that breaks Python itself.

    Numbers past Python's integer-conversion limit or past a float's range, and nesting past
    the recursion limit, are refused with a ParseError naming the cause; any other exception is
    left alone, since it is a parser bug that should be seen.
    """

    @functools.wraps(func)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except ParseError:
            raise
        except RecursionError:
            raise ParseError("input nested too deeply") from None
        except OverflowError:
            raise ParseError("a number out of range") from None
        except ValueError as exc:
            if _INT_DIGITS_MESSAGE not in str(exc):
                raise
            raise ParseError(
                f"a number of more than {sys.get_int_max_str_digits()} digits"
            ) from None

    return guarded
