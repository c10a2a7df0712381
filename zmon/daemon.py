"""Wiring: config -> collectors -> scheduler -> HTTP server, with SIGHUP reload and SIGTERM stop."""

from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from zmon import logs
from zmon.config import Config, ConfigError, load
from zmon.host.devices import DeviceMapCache
from zmon.registry import Board, Context, collectors
from zmon.runner import CommandRunner
from zmon.scheduler import Scheduler
from zmon.server import MetricsServer, make_app
from zmon.snapshot import Snapshot

log = logs.get("daemon")


def build_scheduler(
    cfg: Config, snapshot: Snapshot | None = None, one_shot: bool = False
) -> Scheduler:
    """Instantiate every enabled collector with its context and add it to a new scheduler."""
    runner = CommandRunner(binaries=cfg.binaries, default_timeout=cfg.command_timeout)
    scheduler = Scheduler(snapshot)
    scheduler.on_stop.append(runner.kill_all)
    board = Board()  # products collectors exchange (declared in provides/needs)
    devices = DeviceMapCache(cfg.paths, cfg.platform, runner)  # one device map for all
    for name, cls in collectors().items():
        settings = cfg.collectors[name]
        if not settings.enabled:
            continue
        ctx = Context(
            paths=cfg.paths,
            runner=runner,
            options=settings.options,
            platform=cfg.platform,
            interval=settings.interval,
            timeout=settings.timeout,
            one_shot=one_shot,
            board=board,
            devices=devices,
        )
        scheduler.add(cls(ctx), settings.interval, settings.timeout)
    return scheduler


class Daemon:
    """The running zmon: collectors in the background, HTTP in front."""

    def __init__(self, cfg: Config, reload_config: Callable[[], Config] | None = None) -> None:
        self.cfg = cfg
        self._reload_config = reload_config
        self.snapshot = Snapshot()
        self.scheduler = build_scheduler(cfg, self.snapshot)
        self.server: MetricsServer | None = None
        self._stop = threading.Event()
        self._reload = threading.Event()
        self.on_reload: Callable[[Config], Config] | None = None

    def start(self) -> None:
        self.scheduler.start()
        host, port = self.cfg.host_port
        app = make_app(self.snapshot, self.scheduler_healthy)
        self.server = MetricsServer(host, port, app)
        self.server.start()
        log.info("serving", address=f"{host or '*'}:{self.server.port}",
                 collectors=sorted(self.scheduler.workers))  # fmt: skip

    def scheduler_healthy(self) -> bool:
        return self.scheduler.healthy()

    def install_signal_handlers(self) -> None:
        signal.signal(signal.SIGTERM, lambda *_: self._stop.set())
        signal.signal(signal.SIGINT, lambda *_: self._stop.set())
        signal.signal(signal.SIGHUP, lambda *_: self._reload.set())

    def run_forever(self) -> None:
        while not self._stop.is_set():
            if self._reload.wait(0.5):
                self._reload.clear()
                self.reload()
        self.shutdown()

    def request_stop(self) -> None:
        self._stop.set()

    def reload(self) -> None:
        """Re-read the config; on error keep running with the old one."""
        if self._reload_config is None:
            return
        try:
            new = self._reload_config()
            if self.on_reload is not None:
                new = self.on_reload(new)
        except ConfigError as exc:
            log.error("reload rejected, keeping the running config", error=str(exc))
            return
        logs.setup(new.log_level, new.log_format)
        old_listen = self.cfg.listen_address
        self.scheduler.stop(keep_states=True)
        for name in list(self.scheduler.workers):
            if not new.collectors.get(name) or not new.collectors[name].enabled:
                self.snapshot.remove(name)
        self.scheduler = build_scheduler(new, self.snapshot)
        self.scheduler.start()
        self.cfg = new
        if new.listen_address != old_listen and self.server is not None:
            self.server.stop()
            host, port = new.host_port
            self.server = MetricsServer(host, port, make_app(self.snapshot, self.scheduler_healthy))
            self.server.start()
        log.info("config reloaded", collectors=sorted(self.scheduler.workers))

    def shutdown(self) -> None:
        log.info("shutting down")
        if self.server is not None:
            self.server.stop()
        self.scheduler.stop()


def config_loader(path: str | None, ns: argparse.Namespace) -> Callable[[], Config]:
    return lambda: load(collectors(), path, ns)


def with_overrides(cfg: Config, **changes: Any) -> Config:
    return replace(cfg, **changes)
