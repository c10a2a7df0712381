"""Waiting for what another thread or process does: poll a check, never time the work."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def poll(check: Callable[[], T], timeout: float = 30.0, step: float = 0.02) -> T:
    """Call ``check`` until it returns something truthy or ``timeout`` seconds have passed;
    its last value, falsy when it never came. The timeout only bounds a failing test."""
    deadline = time.monotonic() + timeout
    value = check()
    while not value and time.monotonic() < deadline:
        time.sleep(step)
        value = check()
    return value


def wait_for(check: Callable[[], T], timeout: float = 30.0, step: float = 0.02) -> T:
    """``poll``, failing the test when ``check`` never returns something truthy."""
    value = poll(check, timeout, step)
    assert value, f"not reached within {timeout} s: {check}"
    return value
