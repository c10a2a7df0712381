"""A Runner that answers from recorded outputs instead of running programs.

Used by tests and by the demo host, so collectors and parsers run unchanged on captures.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from zmon.base.runner import CommandError, CommandResult

Response = bytes | str | CommandResult | Callable[[Sequence[str]], CommandResult]


@dataclass
class StaticRunner:
    """Answers ``run(argv)`` from a table keyed by the argv tuple (logical binary name first).

    A value may be bytes/str (stdout, exit 0), a CommandResult, or a callable taking argv.
    An argv with no entry raises CommandError, as a missing program would.
    """

    responses: Mapping[tuple[str, ...], Response] = field(default_factory=dict)
    calls: list[tuple[str, ...]] = field(default_factory=list)

    def binary(self, name: str) -> str:
        return name

    def run(
        self, argv: Sequence[str], *, timeout: float | None = None, stdin: bytes | None = None
    ) -> CommandResult:
        key = tuple(argv)
        self.calls.append(key)
        start = time.monotonic()
        if key not in self.responses:
            raise CommandError(
                f"cannot run {argv[0]}: no recorded output for {' '.join(key)}", errno=errno.ENOENT
            )
        resp = self.responses[key]
        if callable(resp) and not isinstance(resp, CommandResult):
            return resp(argv)
        if isinstance(resp, CommandResult):
            return resp
        data = resp.encode() if isinstance(resp, str) else resp
        return CommandResult(key, 0, data, b"", time.monotonic() - start)
