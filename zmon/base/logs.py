"""Structured logging: JSON when not on a TTY, readable console output on a TTY."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


def setup(level: str = "info", fmt: str = "auto", stream: Any = None) -> None:
    """Configure structlog once for the process."""
    stream = stream or sys.stderr
    if fmt == "auto":
        fmt = "console" if getattr(stream, "isatty", lambda: False)() else "json"
    renderer: Any = (
        structlog.dev.ConsoleRenderer(colors=False)
        if fmt == "console"
        else structlog.processors.JSONRenderer(sort_keys=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS.get(level, logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )


def get(name: str) -> Any:
    """A logger bound to a component name, configured lazily (after ``setup`` runs)."""
    return structlog.get_logger(component=name)


class StateChangeLog:
    """Logs a condition only when it changes, never once per repeated failure."""

    def __init__(self, logger: Any) -> None:
        self._log = logger
        self._last: dict[str, str] = {}

    def report(self, key: str, state: str, level: str = "warning", **fields: Any) -> bool:
        """Log ``state`` for ``key`` if it differs from the last one; return whether it logged."""
        if self._last.get(key) == state:
            return False
        self._last[key] = state
        getattr(self._log, level)(state, key=key, **fields)
        return True
