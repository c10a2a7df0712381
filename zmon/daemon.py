"""Wiring: config -> collectors -> scheduler -> HTTP server, with SIGHUP reload and SIGTERM stop."""

from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from zmon import children, logs
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
        self._subreaper = False
        self.on_reload: Callable[[Config], Config] | None = None

    def start(self) -> None:
        # orphans of our tools come back to us, to be reaped (and the role ends with us)
        self._subreaper = children.become_subreaper()
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
            children.sweep("zmon")  # escapes of long-lived followers, between runs
        self.shutdown()

    def request_stop(self) -> None:
        self._stop.set()

    def reload(self) -> None:
        """Re-read the config and apply it; whatever fails, keep running with the old one.

        The new listen address is bound before anything is stopped, so a busy port rejects
        the reload instead of killing zmon. Collectors that a failed reload started are
        stopped again (their followers and commands with them).
        """
        if self._reload_config is None:
            return
        try:
            new = self._reload_config()
            if self.on_reload is not None:
                new = self.on_reload(new)
        except ConfigError as exc:
            log.error("reload rejected, keeping the running config", error=str(exc))
            return
        new_server: MetricsServer | None = None
        if new.listen_address != self.cfg.listen_address and self.server is not None:
            host, port = new.host_port
            try:
                new_server = MetricsServer(host, port, make_app(self.snapshot,
                                                                self.scheduler_healthy))
            except OSError as exc:
                log.error("reload rejected, keeping the running config",
                          error=f"cannot listen on {new.listen_address}: {exc.strerror or exc}")
                return
        try:
            self._swap_scheduler(new)
        except Exception as exc:  # noqa: BLE001 - a collector that cannot start: keep the old
            log.error("reload rejected, keeping the running config", error=repr(exc))
            if new_server is not None:
                new_server.close()
            try:
                self._swap_scheduler(self.cfg)
            except Exception as again:  # noqa: BLE001 - /healthz will show it
                log.error("cannot restart the running collectors", error=repr(again))
            return
        logs.setup(new.log_level, new.log_format)
        if new_server is not None:
            old_server, self.server = self.server, new_server
            new_server.start()
            if old_server is not None:
                old_server.stop()
        self.cfg = new
        log.info("config reloaded", collectors=sorted(self.scheduler.workers))

    def _swap_scheduler(self, new: Config) -> None:
        """Stop the running collectors and start those of ``new``; a new set that fails to
        start is stopped again before the error propagates."""
        self.scheduler.stop(keep_states=True)
        for name in list(self.scheduler.workers):
            if not new.collectors.get(name) or not new.collectors[name].enabled:
                self.snapshot.remove(name)
        scheduler = build_scheduler(new, self.snapshot)
        try:
            scheduler.start()
        except BaseException:
            scheduler.stop(keep_states=True)
            raise
        self.scheduler = scheduler

    def shutdown(self) -> None:
        log.info("shutting down")
        if self.server is not None:
            self.server.stop()
        self.scheduler.stop()
        if self._subreaper:
            children.sweep("zmon")
            children.set_subreaper(False)
            self._subreaper = False


def config_loader(path: str | None, ns: argparse.Namespace) -> Callable[[], Config]:
    return lambda: load(collectors(), path, ns)


def with_overrides(cfg: Config, **changes: Any) -> Config:
    return replace(cfg, **changes)
