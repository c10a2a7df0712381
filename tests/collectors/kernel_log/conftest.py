"""Fixtures of the kernel_log collector tests: a log file under a private root, collectors."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.collectors.kernel_log.test_collector import make_ctx, wait_for
from zmon.collectors.kernel_log import KernelLogCollector


@pytest.fixture
def kern_log(tmp_path: Path) -> Path:
    path = tmp_path / "root" / "var" / "log" / "kern.log"
    path.parent.mkdir(parents=True)
    path.write_text("May  1 00:00:00 h kernel: ata1: hard resetting link\n")  # before start
    return path


@pytest.fixture
def collector_factory(tmp_path: Path) -> Iterator[Callable[..., KernelLogCollector]]:
    made: list[KernelLogCollector] = []

    def make(**options: Any) -> KernelLogCollector:
        options.setdefault("poll_interval", 0.05)
        c = KernelLogCollector(make_ctx(tmp_path, **options))
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()


@pytest.fixture
def following(
    collector_factory: Callable[..., KernelLogCollector],
) -> Callable[..., KernelLogCollector]:
    """A started collector, once it follows its source (the first read is done)."""

    def make(**options: Any) -> KernelLogCollector:
        c = collector_factory(**options)
        c.start()
        wait_for(lambda: c.collect().sample_value("zmon_kernel_log_following") == 1)
        return c

    return make
