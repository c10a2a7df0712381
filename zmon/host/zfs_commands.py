"""Running ``zpool``/``zfs`` for the pool-side collectors: no-ZFS detection, column fallback."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol

from zmon.base.errors import NoDataError
from zmon.base.failures import is_missing_program
from zmon.base.runner import CommandError, CommandResult, Runner


class _HasRunner(Protocol):
    """What these helpers need of a collector's context: its command runner."""

    @property
    def runner(self) -> Runner: ...


# The host has no ZFS: nothing to collect. A permission problem is not in this list on
# purpose: zmon running without the rights it needs is a failure to see, not "no data".
_NO_ZFS = re.compile(
    r"modules are not loaded|/dev/zfs and /proc/self/mounts are required"
    r"|Failed to initialize the libzfs library|failed to initialize ZFS library"
    r"|zfs-fuse daemon is running|no such file or directory.*/dev/zfs",
    re.IGNORECASE,
)
_INVALID_PROP = re.compile(r"invalid (?:property|column)(?: name)? '([^']+)'")
_BAD_OPTION = re.compile(r"invalid option|unrecognized option|illegal option|usage:", re.I)


def run(ctx: _HasRunner, argv: Sequence[str], timeout: float | None = None) -> CommandResult:
    """Run a command; a missing program or an absent ZFS module raises NoDataError.

    Any other start failure (EACCES on a non-executable binary, EMFILE) is a failure, never
    "no data": a host that has ZFS but that zmon cannot read must show as failing.
    """
    try:
        result = ctx.runner.run(list(argv), timeout=timeout)
    except CommandError as exc:
        if is_missing_program(exc):
            raise NoDataError(str(exc)) from exc
        raise
    if result.returncode != 0 and not result.timed_out:
        err = result.stderr.decode("utf-8", "replace") + result.stdout.decode("utf-8", "replace")
        if _NO_ZFS.search(err):
            raise NoDataError(err.strip().splitlines()[0] if err.strip() else "no ZFS")
    return result


def output(ctx: _HasRunner, argv: Sequence[str], timeout: float | None = None) -> bytes:
    """Stdout of a command that must succeed."""
    return run(ctx, argv, timeout).check().stdout


def invalid_property(result: CommandResult) -> str | None:
    """The property an old zfs/zpool refused (``bad property list: invalid property 'x'``)."""
    text = result.stderr.decode("utf-8", "replace") + result.stdout.decode("utf-8", "replace")
    m = _INVALID_PROP.search(text)
    return m.group(1) if m else None


def rejected_option(result: CommandResult) -> bool:
    """True when the command failed on its usage (an option this version lacks)."""
    if result.returncode == 0 or result.timed_out:
        return False
    text = result.stderr.decode("utf-8", "replace") + result.stdout.decode("utf-8", "replace")
    return bool(_BAD_OPTION.search(text)) or result.returncode == 2


def negotiate_columns(
    ctx: _HasRunner,
    build: Callable[[Sequence[str]], list[str]],
    columns: Sequence[str],
    required: Sequence[str],
    timeout: float | None = None,
) -> tuple[bytes, list[str]]:
    """Run ``build(columns)``, dropping each property this version calls invalid, and retry.

    Returns the output and the columns that worked. A refused required column, or a failure
    that names no property, raises CommandError.
    """
    cols = list(columns)
    while True:
        result = run(ctx, build(cols), timeout)
        if result.returncode == 0 and not result.timed_out:
            return result.stdout, cols
        bad = invalid_property(result)
        if bad is None or bad not in cols or bad in required:
            result.check()
            raise CommandError(f"{result.argv[0]} failed", result)  # pragma: no cover
        cols.remove(bad)
