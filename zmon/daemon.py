"""Wiring: config -> HTTP server and collection worker, with SIGHUP reload and SIGTERM stop."""

from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from zmon import children, logs, memory
from zmon.chores import Chores
from zmon.config import Config, ConfigError, load
from zmon.registry import collectors
from zmon.server import HTTPFrontend, make_app
from zmon.snapshot import Snapshot
from zmon.supervisor import RemoteCollector, WorkerError, WorkerSupervisor
from zmon.webconfig import WebConfig, load_web_config

log = logs.get("daemon")
# /healthz fails once the worker, which reports every 5 s (zmon.worker.HEARTBEAT_SECONDS),
# has missed three reports; it is replaced only after zmon.supervisor.WEDGED_AFTER
SILENT_DEADLINE = 15.0


class Daemon:
    """The running zmon: HTTP in this process, collectors in a supervised worker process."""

    def __init__(self, cfg: Config, reload_config: Callable[[], Config] | None = None) -> None:
        self.cfg = cfg
        self._reload_config = reload_config
        memory.tune_malloc()  # before any thread starts (zmon/memory.py)
        self.snapshot = Snapshot()
        self.worker = WorkerSupervisor(self.snapshot, cfg)
        self.server: HTTPFrontend | None = None
        self._stop = threading.Event()
        self._reload = threading.Event()
        self._subreaper = False
        self.on_reload: Callable[[Config], Config] | None = None

    def start(self) -> None:
        """Listen first (OSError, ConfigError if the web config does not load), then collect
        (WorkerError if a collector cannot start)."""
        web = web_config(self.cfg)
        self.server = HTTPFrontend(
            lambda w: make_app(
                self.snapshot, self.scheduler_healthy, web=w, state_dir=self.cfg.paths.state_dir
            ),
            max_connections=self.cfg.max_connections,
            read_timeout=self.cfg.read_timeout,
            idle_timeout=self.cfg.idle_timeout,
        )
        try:
            self.server.serve(self.cfg.listen_addresses, web)
        except BaseException:
            self.server.stop()
            raise
        # what a killed worker's commands leave comes back to us, to be reaped
        self._subreaper = children.become_subreaper()
        memory.settle_gc()  # everything imported and configured: keep it out of collections
        try:
            self.worker.start()
        except BaseException:
            self.server.stop()
            raise
        log.info(
            "serving",
            addresses=self.server.ports(),
            tls=web.tls is not None,
            basic_auth=bool(web.users),
            collectors=sorted(self.collectors()),
            worker=self.worker.pid,
        )

    def scheduler_healthy(self) -> bool:
        return worker_answering(self.worker)

    def collectors(self) -> dict[str, RemoteCollector]:
        """The collectors running now (in the worker), by name."""
        return self.worker.collectors()

    def install_signal_handlers(self) -> None:
        signal.signal(signal.SIGTERM, lambda *_: self.request_stop())
        signal.signal(signal.SIGINT, lambda *_: self.request_stop())
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
        self.worker.expect_stop()  # (a worker that ends now is not replaced)
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
            self.worker.reload(new)  # the worker keeps its collectors if one cannot start
        except WorkerError as exc:
            log.error("reload rejected, keeping the running config", error=str(exc))
            try:
                if self.server is not None:
                    self.server.serve(self.cfg.listen_addresses, web_config(self.cfg))
            except Exception as again:  # noqa: BLE001 - /healthz will show it
                log.error("cannot restore the running config", error=repr(again))
            return
        logs.setup(new.log_level, new.log_format)
        self.cfg = new
        log.info(
            "config reloaded",
            collectors=sorted(self.collectors()),
            addresses=self.server.ports() if self.server else {},
        )

    def shutdown(self) -> None:
        log.info("shutting down")
        if self.server is not None:
            self.server.stop()
        self.worker.stop()  # it stops its collectors and their commands
        if self._subreaper:
            children.sweep("zmon")
            children.set_subreaper(False)
            self._subreaper = False


def worker_answering(worker: WorkerSupervisor, deadline: float = SILENT_DEADLINE) -> bool:
    """Whether a worker runs with every collector loop alive and was heard from within
    ``deadline`` seconds (on the supervisor's clock)."""
    return worker.healthy() and worker._clock() - worker._heard <= deadline


def web_config(cfg: Config) -> WebConfig:
    """The web config file the config names, loaded and checked (ConfigError if it is bad)."""
    return load_web_config(cfg.web_config_file) if cfg.web_config_file else WebConfig()


def config_loader(path: str | None, ns: argparse.Namespace) -> Callable[[], Config]:
    return lambda: load(collectors(), path, ns)


def with_overrides(cfg: Config, **changes: Any) -> Config:
    return replace(cfg, **changes)
