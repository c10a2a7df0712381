"""Wiring: config -> collectors -> scheduler -> HTTP server, with SIGHUP reload and SIGTERM stop."""

from __future__ import annotations

import argparse
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from zmon import children, logs, memory
from zmon.config import Config, ConfigError, load
from zmon.host.devices import DeviceMapCache
from zmon.registry import Board, Context, collectors
from zmon.runner import CommandRunner
from zmon.scheduler import Scheduler
from zmon.server import HTTPFrontend, make_app
from zmon.snapshot import Snapshot
from zmon.webconfig import WebConfig, load_web_config

log = logs.get("daemon")
TRIM_SECONDS = 10.0  # how often freed memory is given back
# How often the main thread looks for escapes of long-lived followers: a look reads a
# /proc file per thread (26 on a big host), 0.6 ms; every 0.5 s it was 0.1 % of a core.
# Commands' own escapes are swept as each command ends (zmon/runner.py).
SWEEP_SECONDS = 5.0


class Chores:
    """The main thread's periodic work, each chore when due: the sweep for escaped
    processes (``children.sweep``) and giving freed memory back (``memory.trim``)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._swept = self._trimmed = clock()

    def run_due(self) -> None:
        now = self._clock()
        if now - self._swept >= SWEEP_SECONDS:
            children.sweep("zmon")
            self._swept = now
        if now - self._trimmed >= TRIM_SECONDS:
            memory.trim()  # what finished runs freed goes back (zmon/memory.py)
            self._trimmed = now


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
        memory.tune_malloc()  # before any thread starts (zmon/memory.py)
        self.snapshot = Snapshot()
        self.scheduler = build_scheduler(cfg, self.snapshot)
        self.server: HTTPFrontend | None = None
        self._stop = threading.Event()
        self._reload = threading.Event()
        self._subreaper = False
        self.on_reload: Callable[[Config], Config] | None = None

    def start(self) -> None:
        """Listen first (OSError, ConfigError if the web config does not load), then collect."""
        web = web_config(self.cfg)
        self.server = HTTPFrontend(
            lambda w: make_app(self.snapshot, self.scheduler_healthy, web=w),
            max_connections=self.cfg.max_connections,
            read_timeout=self.cfg.read_timeout,
            idle_timeout=self.cfg.idle_timeout,
        )
        try:
            self.server.serve(self.cfg.listen_addresses, web)
        except BaseException:
            self.server.stop()
            raise
        # orphans of our tools come back to us, to be reaped (and the role ends with us)
        self._subreaper = children.become_subreaper()
        memory.settle_gc()  # everything imported and configured: keep it out of collections
        self.scheduler.start()
        log.info(
            "serving",
            addresses=self.server.ports(),
            tls=web.tls is not None,
            basic_auth=bool(web.users),
            collectors=sorted(self.scheduler.workers),
        )

    def scheduler_healthy(self) -> bool:
        return self.scheduler.healthy()

    def install_signal_handlers(self) -> None:
        signal.signal(signal.SIGTERM, lambda *_: self._stop.set())
        signal.signal(signal.SIGINT, lambda *_: self._stop.set())
        signal.signal(signal.SIGHUP, lambda *_: self._reload.set())

    def run_forever(self) -> None:
        chores = Chores()
        while not self._stop.is_set():
            if self._reload.wait(0.5):  # signals are seen within half a second
                self._reload.clear()
                self.reload()
            chores.run_due()
        self.shutdown()

    def request_stop(self) -> None:
        self._stop.set()

    def reload(self) -> None:
        """Re-read the config and the web config; on any error keep running with the old ones.

        The HTTP side goes first: new addresses are bound and TLS files loaded before anything
        changes, so a reload to a busy port or a broken certificate leaves zmon as it was."""
        if self._reload_config is None:
            return
        try:
            new = self._reload_config()
            if self.on_reload is not None:
                new = self.on_reload(new)
            web = web_config(new)
            if self.server is not None:
                self.server.serve(new.listen_addresses, web)
        except (ConfigError, OSError) as exc:
            log.error("reload rejected, keeping the running config", error=str(exc))
            return
        try:
            self._swap_scheduler(new)
        except Exception as exc:  # noqa: BLE001 - a collector that cannot start: keep the old
            log.error("reload rejected, keeping the running config", error=repr(exc))
            try:
                if self.server is not None:
                    self.server.serve(self.cfg.listen_addresses, web_config(self.cfg))
                self._swap_scheduler(self.cfg)
            except Exception as again:  # noqa: BLE001 - /healthz will show it
                log.error("cannot restore the running config", error=repr(again))
            return
        logs.setup(new.log_level, new.log_format)
        self.cfg = new
        log.info(
            "config reloaded",
            collectors=sorted(self.scheduler.workers),
            addresses=self.server.ports() if self.server else {},
        )

    def _swap_scheduler(self, new: Config) -> None:
        """Stop the running collectors and start those of ``new``; a new set that fails to
        start is stopped again (its followers and commands with it) before the error
        propagates."""
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


def web_config(cfg: Config) -> WebConfig:
    """The web config file the config names, loaded and checked (ConfigError if it is bad)."""
    return load_web_config(cfg.web_config_file) if cfg.web_config_file else WebConfig()


def config_loader(path: str | None, ns: argparse.Namespace) -> Callable[[], Config]:
    return lambda: load(collectors(), path, ns)


def with_overrides(cfg: Config, **changes: Any) -> Config:
    return replace(cfg, **changes)
