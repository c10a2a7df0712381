"""Wiring: config -> the privileged side (it collects, through a supervised worker) and the
HTTP process (it serves), with SIGHUP reload and SIGTERM stop.

The tree, in start order: this process reads the config and the web config (TLS keys
included), binds the listening sockets and forks the HTTP process (zmon/runtime/front.py) before any
thread starts; with ``web.user`` set that child drops to the user, with no capability, and
this process then gives up CAP_SETUID, CAP_SETGID and CAP_SETPCAP (zmon/runtime/privileges.py). Then
it forks the collection worker, still before any thread starts (zmon/runtime/supervisor.py; a
replacement is started with exec), and relays what the worker reports to the HTTP process.
The HTTP process can only answer whether a ``Serve`` took effect.
"""

from __future__ import annotations

import argparse
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path

from zmon.base import children, logs, memory
from zmon.collecting.config import Config, ConfigError, load
from zmon.collecting.registry import collectors
from zmon.host.last_pools import FILE as LAST_POOLS_FILE
from zmon.host.last_pools import load_last_pools
from zmon.runtime.channel import Health, Pools
from zmon.runtime.front import FrontProcess
from zmon.runtime.privileges import FOR_THE_DROP, Account, account, keep_only
from zmon.runtime.supervisor import RemoteCollector, WorkerError, WorkerSupervisor
from zmon.runtime.worker import run_worker
from zmon.status.published import prepare_dir, report_file
from zmon.web.listen import Listeners, Listening
from zmon.web.webconfig import WebConfig, load_web_config

log = logs.get("daemon")
# /healthz fails once the worker, which reports every 5 s (zmon.runtime.worker.HEARTBEAT_SECONDS),
# has missed three reports; it is replaced only after zmon.runtime.supervisor.WEDGED_AFTER
SILENT_DEADLINE = 15.0


class FrontDoor(Listening):
    """The listening sockets (bound here, by the privileged side) and the HTTP process that
    serves them. ``serve`` moves to new addresses and a new web config bind-first: added
    addresses are bound and the HTTP process has started serving them before the old
    sockets close; if either fails, nothing changes (OSError)."""

    def __init__(self, front: FrontProcess) -> None:
        self.front = front
        self._listeners = Listeners()
        self._lock = threading.Lock()

    def serve(self, addresses: list[str], web: WebConfig) -> None:
        with self._lock:
            sockets = self._listeners.prepare(addresses)  # ListenError: nothing changed
            try:
                self.front.serve(list(sockets), list(sockets.values()), web)
            except BaseException:
                self._listeners.discard(sockets)
                raise
            self._listeners.commit(sockets)

    def stop(self) -> None:
        self.front.stop()
        with self._lock:
            self._listeners.close()


class Daemon:
    """The running zmon: collection in this process's supervised worker, HTTP in its child."""

    def __init__(
        self,
        cfg: Config,
        reload_config: Callable[[], Config] | None = None,
        demo: bool = False,
    ) -> None:
        self.cfg = cfg
        self.demo = demo
        self._reload_config = reload_config
        memory.tune_malloc()  # before any thread starts (zmon/base/memory.py)
        self.worker = WorkerSupervisor(cfg)
        self.server: FrontDoor | None = None
        self._stop = threading.Event()
        self._reload = threading.Event()
        self._subreaper = False
        self._pools_seen: tuple[int, int] | None = None
        self._web = WebConfig()
        self.failed = False  # the HTTP process ended on its own: zmon exits with an error
        self.on_reload: Callable[[Config], Config] | None = None

    def listen(self) -> None:
        """Bind the listening sockets and start the HTTP process serving them (OSError, and
        ConfigError if the web config does not load). Call before any thread starts."""
        if self.server is not None:
            return
        children.name_process("zmon")  # (its children name themselves zmon-http, zmon-worker)
        user = account(self.cfg.web_user) if self.cfg.web_user else None
        if user is not None and user.uid == os.geteuid():
            user = None  # (already that user: a unit run without root, with its ExecStart)
        if user is not None and os.geteuid() != 0:
            raise ConfigError("web.user", "dropping to another user needs zmon started as root")
        web = self._web = web_config(self.cfg)
        front = FrontProcess(
            self.cfg, user, on_exit=self._front_ended, status_file=self._status_file(user)
        )
        front.fork()
        door = FrontDoor(front)
        try:
            if user is not None:  # held only to make the child: gone before any thread starts
                keep_only(list(FOR_THE_DROP.values()))
            elif os.geteuid() == 0:
                log.warning("the HTTP process runs as root: set web.user (the packages do)")
            # the first worker, forked before any thread starts, shares this process's pages
            # (zmon/runtime/supervisor.py); it must not hold this end of the HTTP process's channel
            self.worker.fork_first(run_worker, drop=[front.channel_fd()])
            front.start_reader()
            door.serve(self.cfg.listen_addresses, web)
        except BaseException:
            door.stop()
            raise
        self.server = door

    def _status_file(self, user: Account | None) -> Path | None:
        """Where the HTTP process publishes its judged report (its directory made writable
        for it now, while this process may still set its group), or None."""
        if not self.cfg.status_dir:
            return None
        path = report_file(self.cfg.status_dir, self.demo)
        try:
            prepare_dir(path.parent, user.gid if user is not None else None)
        except OSError as exc:
            say = log.info if self.demo else log.warning  # (a demo run without root)
            say(
                "cannot publish the status report: zmon status on this host will collect once "
                "instead",
                path=str(path.parent),
                error=exc.strerror or str(exc),
            )
            return None
        return path

    def start(self) -> None:
        """Listen first (OSError, ConfigError if the web config does not load), then collect
        (WorkerError if a collector cannot start)."""
        self.listen()
        assert self.server is not None
        # what a killed worker's commands leave comes back to us, to be reaped
        self._subreaper = children.become_subreaper()
        memory.settle_gc()  # everything imported and configured: keep it out of collections
        self.worker.relay = self.server.front.relay
        self.worker.on_tick = self._tick
        try:
            self.worker.start()
        except BaseException:
            self.server.stop()
            raise
        log.info(
            "serving",
            addresses=self.server.ports(),
            tls=self._web.tls is not None,
            basic_auth=bool(self._web.users),
            collectors=sorted(self.collectors()),
            worker=self.worker.pid,
            http=self.server.front.pid,
            http_user=self.cfg.web_user or None,
        )

    def _tick(self) -> None:
        """About once a second: the worker's health to the HTTP process, and the pools' last
        states when their file changed."""
        front = self.server.front if self.server is not None else None
        if front is None:
            return
        front.relay(Health(self.scheduler_healthy(), self.worker.restarts))
        path = Path(self.cfg.paths.state_dir) / LAST_POOLS_FILE
        try:
            st = os.stat(path)
            seen: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            seen = None
        if seen != self._pools_seen:
            self._pools_seen = seen
            front.relay(Pools(load_last_pools(self.cfg.paths.state_dir) if seen else None))

    def _front_ended(self) -> None:
        self.failed = True
        self.request_stop()

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
        chores = children.Chores()
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
            if new.web_user != self.cfg.web_user:
                log.warning("web.user takes effect at the next start", running=self.cfg.web_user)
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
