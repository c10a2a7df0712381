"""Why a collector run failed, as one of a few fixed reasons (the ``reason`` label).

``zmon_collector_last_error_info{collector,reason}`` carries it, so an alert can tell "zmon may
not run zpool" from "zpool hung" without parsing log lines. The set is closed (bounded
cardinality); the full message goes to the log and the status page.
"""

from __future__ import annotations

import errno

from zmon.base.errors import ParseError
from zmon.base.runner import CommandError, CommandTimeout

TIMEOUT = "timeout"
PERMISSION_DENIED = "permission_denied"  # EACCES/EPERM: a tool or file zmon may not use
FD_EXHAUSTED = "fd_exhausted"  # EMFILE/ENFILE: out of file descriptors
CANNOT_EXECUTE = "cannot_execute"  # ENOEXEC and other errors starting a program
OUTPUT_INVALID = "output_invalid"  # a parser refused what a tool printed
COMMAND_FAILED = "command_failed"  # a tool exited with an error status
IO_ERROR = "io_error"  # reading a file or socket failed
ERROR = "error"  # anything else (a bug: see the log)

REASONS = (
    TIMEOUT,
    PERMISSION_DENIED,
    FD_EXHAUSTED,
    CANNOT_EXECUTE,
    OUTPUT_INVALID,
    COMMAND_FAILED,
    IO_ERROR,
    ERROR,
)

_FD = {errno.EMFILE, errno.ENFILE}
_PERM = {errno.EACCES, errno.EPERM}


def error_numbers(exc: BaseException) -> set[int]:
    """Every errno found on ``exc`` and the exceptions it was raised from."""
    found: set[int] = set()
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        number = getattr(cur, "errno", None)
        if isinstance(number, int):
            found.add(number)
        cur = cur.__cause__ or cur.__context__
    return found


def classify(exc: BaseException) -> str:
    """The reason for a failed run that raised ``exc``."""
    numbers = error_numbers(exc)
    if numbers & _FD:
        return FD_EXHAUSTED
    if isinstance(exc, CommandTimeout | TimeoutError):
        return TIMEOUT
    if numbers & _PERM:
        return PERMISSION_DENIED
    if isinstance(exc, ParseError):
        return OUTPUT_INVALID
    if isinstance(exc, CommandError):
        return COMMAND_FAILED if exc.result is not None else CANNOT_EXECUTE
    if isinstance(exc, OSError):
        return IO_ERROR
    return ERROR


def is_missing_program(exc: CommandError) -> bool:
    """A program that is not installed (ENOENT): the one start failure that means "no data".

    Only the default (a bare name on PATH) counts: a path the admin configured that is gone
    is a failure with a reason, never "no ZFS here".
    """
    return exc.result is None and exc.errno == errno.ENOENT and not exc.configured
