"""Helpers for the demo host tests: run one collector against a demo tree, in-process."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from zmon.base.runner import CommandError, CommandResult, CommandRunner, Runner
from zmon.collecting.config import Config, load
from zmon.collecting.registry import Board, Collector, Context, collectors
from zmon.demo.fakebin import replay
from zmon.demo.host import DemoHost
from zmon.exposition.metrics import MetricSet
from zmon.host.devices import DeviceMapCache


def demo_config(host: DemoHost) -> Config:
    """zmon's default configuration pointed at ``host``, as ``--demo`` does it."""
    return host.apply(load(collectors(), None))


class PhaseRunner:
    """Answers commands from the demo's current phase in-process, as fakebin does (replayed
    at ``clock``'s time).

    Only for tests that go through many phases: it reads the same ``commands.tsv`` the demo
    programs read, without starting a process per command.
    """

    def __init__(self, host: DemoHost, clock: Callable[[], float] = time.time) -> None:
        self.host = host
        self.clock = clock
        self.calls: list[tuple[str, ...]] = []

    def binary(self, name: str) -> str:
        return str(self.host.root / "bin" / name)

    def run(
        self, argv: Sequence[str], *, timeout: float | None = None, stdin: bytes | None = None
    ) -> CommandResult:
        self.calls.append(tuple(argv))
        replayed = replay(self.host.root, list(argv), self.clock())
        if replayed is None:
            raise CommandError(f"no recording of {' '.join(argv)}")
        data, status = replayed
        return CommandResult(tuple(argv), status, data, b"", 0.0)


def make_collector(
    host: DemoHost,
    name: str,
    *,
    runner: Runner | None = None,
    one_shot: bool = True,
    board: Board | None = None,
    devices: DeviceMapCache | None = None,
    options: dict | None = None,  # type: ignore[type-arg]
) -> Collector:
    """Collector ``name`` as the demo configures it, ``options`` overriding its options."""
    cfg = demo_config(host)
    settings = cfg.collectors[name]
    ctx = Context(
        paths=cfg.paths,
        runner=runner or CommandRunner(binaries=cfg.binaries, default_timeout=10.0),
        options={**settings.options, **(options or {})},
        platform=cfg.platform,
        interval=settings.interval,
        timeout=settings.timeout,
        one_shot=one_shot,
        board=board or Board(),
        devices=devices,
    )
    return collectors()[name](ctx)


def collect(
    host: DemoHost, name: str, runner: Runner | None = None, **options: object
) -> MetricSet:
    """One run of collector ``name`` against ``host`` (``options`` override the demo's)."""
    collector = make_collector(host, name, runner=runner, options=options)
    try:
        return collector.collect()
    finally:
        collector.close()


@pytest.fixture
def demo_host(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A demo host at its first phase (stopped and removed after the test)."""
    host = DemoHost(root=tmp_path / "host", stepped=True)
    yield host
    host.stop()
