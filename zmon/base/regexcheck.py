"""Refuse regular expressions that cannot compile or can backtrack catastrophically.

Python's ``re`` cannot be interrupted, so a rule like ``(a+)+$`` on a long kernel-log line
can hold a collector forever. The shape behind that is a repeat inside a repeat (star height
above one) where both can repeat many times: the classic exponential case. We refuse it at
config time; such a pattern can always be written without the nesting.
"""

from __future__ import annotations

import re
from re import _constants as _sre_constants  # type: ignore[attr-defined]  # private: no stubs
from re import _parser as _sre_parser  # type: ignore[attr-defined]  # private: no stubs
from typing import Any

_REPEATS = {_sre_constants.MAX_REPEAT, _sre_constants.MIN_REPEAT}
_POSSESSIVE = getattr(_sre_constants, "POSSESSIVE_REPEAT", None)
_ATOMIC = getattr(_sre_constants, "ATOMIC_GROUP", None)
_MANY = 10  # a repeat allowing more than this many copies counts as "many"


def problem(pattern: str) -> str | None:
    """Why ``pattern`` must not be used, or None when it is fine."""
    try:
        re.compile(pattern)
    except (re.error, OverflowError, RecursionError) as exc:
        return f"invalid regular expression: {exc}"
    try:
        tree = _sre_parser.parse(pattern)
    except Exception:  # noqa: BLE001 - compiled above, so this is the parser's internals
        return None
    if _nested_repeat(tree, inside=False):
        return (
            "regular expression can backtrack catastrophically (a repeated group that itself "
            "repeats, like (a+)+); rewrite it without the nested repetition"
        )
    return None


def _nested_repeat(items: Any, inside: bool) -> bool:
    for op, av in _items(items):
        if op in _REPEATS:
            low, high, body = av
            many = high == _sre_constants.MAXREPEAT or high > _MANY
            if many and inside and low != high:
                return True
            if _nested_repeat(body, inside or many):
                return True
        elif op is _POSSESSIVE or op is _ATOMIC:
            continue  # no backtracking into these
        elif op is _sre_constants.SUBPATTERN:
            if _nested_repeat(av[-1], inside):
                return True
        elif op is _sre_constants.BRANCH:
            if any(_nested_repeat(branch, inside) for branch in av[1]):
                return True
        elif op in (_sre_constants.ASSERT, _sre_constants.ASSERT_NOT):
            if _nested_repeat(av[1], inside):
                return True
    return False


def _items(node: Any) -> list[tuple[Any, Any]]:
    try:
        return list(node)
    except TypeError:
        return []
