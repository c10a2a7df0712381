"""The collection worker process: the scheduler and every collector, away from the HTTP process.

``zmon serve`` forks it, or starts this module (``python -m zmon.runtime.worker FD``) to replace
one, with one end of a socket pair (zmon/runtime/channel.py). The main process sends the config and
the collectors' last status; the worker runs the collectors, owns their state, and reports
each change: every collector's status, and a run's rendered, compressed families (only the
pieces the receiving side does not hold) with the families the status views read. Parsing
and rendering use this process's interpreter and memory, so a scrape never waits for them,
and a worker that crashes, leaks or wedges is replaced without the HTTP process noticing more
than staleness (zmon/runtime/supervisor.py).

The messages are those of zmon/runtime/channel.py, checked on arrival: a message from the main
process that is not a valid one of ``TO_WORKER`` ends the worker (status 3), as a lost main
process does.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
from typing import NamedTuple

from prometheus_client.core import Metric

from zmon.base import children, durable, logs, memory
from zmon.base.runner import CommandRunner
from zmon.collecting.config import Config
from zmon.collecting.registry import Board, Context, collectors
from zmon.collecting.scheduler import RunHook, Scheduler
from zmon.exposition.snapshot import Collector, CollectorState, Snapshot
from zmon.host.devices import DeviceMapCache
from zmon.runtime.channel import (
    TO_WORKER,
    Beat,
    Channel,
    Closed,
    Message,
    ProtocolError,
    Reload,
    Reloaded,
    RunData,
    Running,
    Start,
    Started,
    Stop,
    Trigger,
    Update,
)

log = logs.get("worker")
BAD_MESSAGE = 3  # the exit status after a message from the main process that is not a valid one
HEARTBEAT_SECONDS = 5.0  # the main process restarts a worker it has not heard from in a while
# Collection can wait: where both processes want the CPU, scrapes go first. Ten steps of
# niceness give the HTTP process about ten times the worker's share of a contended core.
NICENESS = 10
# A collector's families for the views once the receiving sides hold them: dropped here (on
# a big host they are a large share of this process), this list is left in its state's ``kept``.
SENT: list[Metric] = []


class Held(NamedTuple):
    """What the receiving sides hold of a collector's data, by (family name, digest): its
    pieces, and the families the status views read."""

    pieces: frozenset[tuple[str, bytes]]
    views: frozenset[tuple[str, bytes]]


def build_scheduler(
    cfg: Config,
    snapshot: Snapshot | None = None,
    one_shot: bool = False,
    on_update: RunHook | None = None,
    on_start: RunHook | None = None,
) -> Scheduler:
    """Instantiate every enabled collector with its context and add it to a new scheduler."""
    runner = CommandRunner(binaries=cfg.binaries, default_timeout=cfg.command_timeout)
    scheduler = Scheduler(snapshot, on_update=on_update, on_start=on_start)
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


class CollectionWorker:
    """The worker's side of the channel: runs the scheduler, reports every change."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.snapshot = Snapshot()  # the collectors' states; the HTTP process renders
        self.scheduler: Scheduler | None = None
        self.cfg: Config | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()  # one reload at a time
        self._report_lock = threading.Lock()  # reports leave in the order they are made
        # What the receiving sides hold of each collector's data: changed only by an update
        # sent, under the report lock, as they take it (zmon.runtime.channel.HeldCollectors). None
        # (no entry) until a run here changed it: a replacement worker does not know.
        self._held: dict[str, Held] = {}
        self._status = 0  # the exit status

    def run(self) -> int:
        signal.signal(signal.SIGTERM, lambda *_: self._stop.set())
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides when we stop
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # the main process reloads us
        try:
            start = self.channel.recv()
        except Closed:
            return 0
        except ProtocolError as exc:
            log.error("invalid message from the main process", error=str(exc))
            return BAD_MESSAGE
        if not isinstance(start, Start):
            log.error("expected start from the main process", got=type(start).__name__)
            return BAD_MESSAGE
        cfg, seeds = start.config, start.collectors
        logs.setup(cfg.log_level, cfg.log_format)
        with contextlib.suppress(OSError):
            os.nice(NICENESS)  # (its commands inherit it)
        memory.tune_malloc()  # before any collector thread starts (zmon/base/memory.py)
        children.carry_leaked({s.name: s.leaked_children for s in seeds})
        durable.carry_failures({s.name: s.state_write_failures for s in seeds})
        for seed in seeds:  # the scheduler's states go on from them (Scheduler.add)
            self.snapshot.add(seed)
        children.become_subreaper()  # what our tools' children leave comes back to us
        try:
            self._start(cfg)
        except Exception as exc:  # noqa: BLE001 - told to the main process, which reports it
            self._send(Started(repr(exc), False))
            return 1
        memory.settle_gc()
        self._report(None)  # the main process knows the collectors before it hears they started
        self._send(Started(None, self._healthy()))
        threading.Thread(target=self._commands, name="zmon-worker-commands", daemon=True).start()
        chores = children.Chores()
        while not self._stop.wait(HEARTBEAT_SECONDS):
            with contextlib.suppress(Closed):
                self._send(Beat(self._healthy()))
            chores.run_due()
        self._shutdown()
        return self._status

    def _start(self, cfg: Config) -> None:
        """Start ``cfg``'s collectors, going on from the states of those it keeps."""
        for state in self.snapshot.states():  # (those of a set that failed to start, too)
            settings = cfg.collectors.get(state.name)
            if settings is None or not settings.enabled:
                self.snapshot.remove(state.name)  # (the receivers drop it at the next update)
        scheduler = build_scheduler(
            cfg, self.snapshot, on_update=self._report, on_start=self._run_started
        )
        try:
            scheduler.start()
        except BaseException:
            scheduler.stop(keep_states=True)
            raise
        self.scheduler = scheduler
        self.cfg = cfg

    def _healthy(self) -> bool:
        return self.scheduler is not None and self.scheduler.healthy()

    def _send(self, message: Message) -> None:
        try:
            self.channel.send(message)
        except Closed:
            self._stop.set()  # the main process is gone: so are we
            raise

    def _commands(self) -> None:
        while not self._stop.is_set():
            try:
                message = self.channel.recv()
            except Closed:
                self._stop.set()
                return
            except ProtocolError as exc:
                log.error("invalid message from the main process; stopping", error=str(exc))
                self._status = BAD_MESSAGE
                self._stop.set()
                return
            if isinstance(message, Stop):
                self._stop.set()
                return
            with contextlib.suppress(Closed):
                if isinstance(message, Trigger):
                    self._trigger(message.names)
                elif isinstance(message, Reload):
                    error = self._reload(message.config)
                    self._report(None)
                    self._send(Reloaded(error, self._healthy()))
                else:
                    log.error(
                        "unexpected message from the main process; stopping",
                        got=type(message).__name__,
                    )
                    self._status = BAD_MESSAGE
                    self._stop.set()
                    return

    def _trigger(self, names: tuple[str, ...]) -> None:
        scheduler = self.scheduler
        if scheduler is None:
            return
        for name, w in scheduler.workers.items():
            if not names or name in names:
                w.trigger()

    def _reload(self, new: Config) -> str | None:
        """Move to ``new``'s collectors; on any error keep (or restore) the running ones."""
        with self._lock:
            old = self.cfg
            try:
                self._swap(new)
            except Exception as exc:  # noqa: BLE001 - a collector that cannot start
                if old is None:
                    return repr(exc)
                try:
                    self._swap(old)
                except Exception as again:  # noqa: BLE001 - /healthz will show it
                    log.error("cannot restore the running config", error=repr(again))
                return repr(exc)
            logs.setup(new.log_level, new.log_format)
            return None

    def _swap(self, new: Config) -> None:
        """Stop the running collectors and start those of ``new``; a new set that fails to
        start is stopped again (its followers and commands with it) before the error
        propagates."""
        if self.scheduler is not None:
            self.scheduler.stop(keep_states=True)
            self.scheduler = None
        self._start(new)

    def _run_started(self, state: CollectorState) -> None:
        """A run started: the HTTP process shows it as running from its next rendering on (it
        renders after runs end, not when they start)."""
        with contextlib.suppress(Closed):
            self._send(Running(state.name, state.running_since))

    def _report(self, ran: CollectorState | None) -> None:
        """Tell the receiving sides every collector's status, and what ``ran``'s run changed
        of its data (``ran`` only while it is the collector's state: a loop that outlived a
        reload's stop reports none). Called in ``ran``'s loop, which publishes its runs."""
        with self._report_lock:
            states = [s for s in self.snapshot.states() if isinstance(s, CollectorState)]
            runs: dict[str, RunData] = {}
            held = None
            if ran is not None and any(s is ran for s in states):
                data, held = self._run_data(ran)
                if data is not None:
                    runs[ran.name] = data
            with contextlib.suppress(Closed):
                self._send(Update(tuple(Collector.of(s) for s in states), runs))
                names = {s.name for s in states}  # (the receivers drop the others)
                self._held = {n: h for n, h in self._held.items() if n in names}
                if ran is not None and held is not None:
                    self._held[ran.name] = held
                    ran.kept = SENT

    def _run_data(self, state: CollectorState) -> tuple[RunData | None, Held | None]:
        """What the receiving sides lack of ``state``'s data (None: nothing), and what they
        hold once they took it (None: not known, while no run here published)."""
        held = self._held.get(state.name)
        if held is None and not state.success:
            return None, None  # a replacement's runs failed so far: they keep what they hold
        rendered, kept = state.rendered, state.kept
        pieces = frozenset((name, digest) for name, digest, _ in rendered)
        if kept is SENT and held is not None:
            views = held.views
        else:
            viewed = {fam.name for fam in kept}
            views = frozenset((n, d) for n, d, _ in rendered if n in viewed)
        now = Held(pieces, views)
        if now == held:
            return None, now
        have = held.pieces if held is not None else frozenset()
        same_views = held is not None and views == held.views
        rows = state.summary_rows
        return RunData(
            tuple((n, d, None if (n, d) in have else piece) for n, d, piece in rendered),
            None if same_views else tuple(kept),
            None if same_views or rows is None else tuple(rows),
        ), now

    def _shutdown(self) -> None:
        if self.scheduler is not None:
            self.scheduler.stop()  # kills the commands still running (the runner's kill_all)
        children.sweep("zmon")  # and whatever escaped from them
        children.set_subreaper(False)


def run_worker(sock: socket.socket) -> int:
    """The worker's life, talking to the privileged side over ``sock`` (its end of the
    channel): forked from the main process (``zmon.runtime.supervisor.fork_worker``) or started
    with exec (``main``)."""
    children.name_process("zmon-worker")
    return CollectionWorker(Channel(sock, TO_WORKER)).run()


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].isdigit():
        print("usage: python -m zmon.runtime.worker FD (started by zmon serve)", file=sys.stderr)
        return 2
    return run_worker(socket.socket(fileno=int(argv[0])))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
