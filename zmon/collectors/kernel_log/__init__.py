"""Collector ``kernel_log``: disk and ZFS fault patterns in the kernel log, counted per disk.

A background thread (started by ``start()``) follows the source and counts matching lines;
``collect()`` only snapshots the counters, so it never blocks on the log.

After each read the thread writes one checkpoint (``<state_dir>/kernel_log/checkpoint.json``):
every source's position with the counts of all lines before it, and the events still waiting
for their context. ``collect()`` serves the counts of the last checkpoint written, so a counter
Prometheus has seen is never above what a restart continues from: after a crash or a stop the
counters go on from the checkpoint, the lines after it are read, and none is lost or counted
twice.
"""

from __future__ import annotations

import io
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from zmon.base import logs, regexcheck
from zmon.base.errors import ParseError
from zmon.collecting.products import VDEV_NAMES
from zmon.collecting.registry import (
    Collector,
    Context,
    NoDataError,
    Option,
    OptionError,
    register,
    register_parse_kind,
    register_parse_stream,
)
from zmon.collectors.kernel_log.metrics import (
    ALERTED_PATTERNS,
    Resolver,
    Tally,
    TallySnapshot,
    kernel_log_metrics,
    name_only_resolver,
    zero_series,
)
from zmon.exposition.metrics import MetricSet
from zmon.host.follow import Follower, LineSink
from zmon.host.kernelsources import JournalFollower, KmsgFollower
from zmon.host.logfollow import FileFollower
from zmon.host.statestore import Checkpoint, StateStore
from zmon.host.watch import ChangeWatcher, PollLoop
from zmon.parsers.kernel_log import (
    PatternError,
    PatternSet,
    Rule,
    Scanner,
    default_rules,
    merge_rules,
    rules_from_table,
    rules_from_toml,
)

log = logs.get("kernel_log")

DEFAULT_FILES = {
    "linux": ("/var/log/kern.log", "/var/log/messages"),
    "freebsd": ("/var/log/messages",),
}
CONTEXT_WAIT = 2.0  # seconds an event waits for the line after it that names its disk
# Seconds between checkpoint writes while lines keep arriving: a flood of lines costs at most
# one write (two fsyncs) a second; served fault counts lag the log by at most this much.
CHECKPOINT_EVERY = 1.0
# ... and while the lines hold no fault (only the lines read and the positions move): a write
# a second would keep a chatty host's disk busy with fsyncs for no fault counted.
# A restart reads such lines again from the last position either way.
QUIET_CHECKPOINT_EVERY = 10.0


@dataclass
class _Source:
    label: str
    scanner: Scanner
    follower: Follower | None = None
    errors_seen: int = 0
    lost_seen: int = 0
    last_data: float = field(default_factory=time.monotonic)
    told_closed: bool = False  # a warning said it cannot be followed (said once)


def load_rules(options: dict[str, Any]) -> list[Rule]:
    """Site rules (``patterns_file``, then the ``patterns`` table) before the built-in ones."""
    extra: list[Rule] = []
    path = options.get("patterns_file") or ""
    if path:
        try:
            text = Path(path).read_text("utf-8")
        except OSError as exc:
            raise PatternError(f"patterns_file {path}: {exc.strerror or exc}") from None
        extra.extend(rules_from_toml(text, f"patterns_file {path}"))
    extra.extend(rules_from_table(options.get("patterns") or {}))
    return merge_rules(extra, default_rules(), options.get("disable_patterns") or ())


def host_resolver(ctx: Context) -> Resolver:
    """Resolve through the host's shared device map (sysfs and /dev/disk, or geom/camcontrol)."""

    def resolve(name: str) -> str | None:
        return ctx.device_map().resolve(name)

    return resolve


@register
class KernelLogCollector(Collector):
    name = "kernel_log"
    binaries = ("journalctl", "geom", "camcontrol")
    help = "disk and ZFS fault patterns in the kernel log (/dev/kmsg, journal or log file)"
    needs = (VDEV_NAMES,)  # the pools, for their zero-initialised pool_suspended counters
    default_interval = 15.0
    default_timeout = 5.0
    options = (
        Option("source", str, "auto", "where to read kernel messages: auto picks /dev/kmsg on "
               "Linux, else the first log file that exists",
               ("auto", "kmsg", "journal", "file")),
        Option("files", list, [], "log files to follow with source=file (default "
               "/var/log/kern.log or /var/log/messages; FreeBSD /var/log/messages)"),
        Option("patterns_file", str, "", "TOML file of extra rules, tried before the built-in "
               "ones"),
        Option("patterns", dict, {}, "extra rules: a table of pattern name -> {regex, keywords, "
               "context, help}, tried before the built-in ones"),
        Option("disable_patterns", list, [], "built-in pattern names not to count"),
        Option("max_unresolved_devices", int, 32, "distinct unresolved device names (and pools) "
               "kept as labels; more are counted as device=\"other\""),
        Option("poll_interval", float, 1.0, "seconds between reads when no change is notified"),
        Option("watch", bool, True, "wake on file changes (watchdog/inotify) instead of only "
               "polling"),
    )  # fmt: skip

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self._config_error: str | None = None
        try:
            rules = load_rules(self._options())
        except PatternError as exc:
            self._config_error = str(exc)
            rules = default_rules()
        self.patterns = PatternSet(rules)
        limit = int(self.option("max_unresolved_devices"))
        self.tally = Tally(resolver=host_resolver(ctx), max_unresolved=limit)
        self._sources: list[_Source] = []
        self._store: StateStore | None = None
        self._checkpoint: Checkpoint | None = None
        self._served: TallySnapshot | None = None  # the counts of the last checkpoint written
        self._commit_failed = False
        self._last_commit = float("-inf")
        self._faults_written: dict[str, Any] | None = None  # the counts but lines, last written
        self._clock: Callable[[], float] = time.monotonic
        self._watcher: ChangeWatcher | None = None
        self._loop: PollLoop | None = None
        self._started = False
        self._lock = threading.Lock()

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        """Compile the site patterns now, so ``check-config`` names a bad rule."""
        merged = {o.name: options.get(o.name, o.default) for o in cls.options}
        try:
            rules = load_rules(merged)
        except PatternError as exc:
            key = (
                "patterns_file"
                if merged.get("patterns_file") and "patterns_file" in str(exc)
                else "patterns"
            )
            raise OptionError(key, str(exc)) from None
        for rule in rules:  # the built-in library is checked by its tests; these are the site's
            why = regexcheck.problem(rule.regex.pattern)
            if why is not None:
                key = "patterns_file" if merged.get("patterns_file") else "patterns"
                raise OptionError(key, f"pattern {rule.pattern!r}: {why}")

    def _options(self) -> dict[str, Any]:
        return {o.name: self.option(o.name) for o in self.options}

    # ---- lifecycle

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
            if self._config_error:
                log.error("kernel_log patterns are invalid", error=self._config_error)
                return
            kind, files = self._choose_source()
            if kind == "none":
                return
            if not self.ctx.one_shot:  # a one-shot run must not move the daemon's positions
                self._store = StateStore.open_locked(
                    self.ctx.paths.state_dir / "kernel_log", owner=self.name
                )
            if self._store is None and not self.ctx.one_shot:
                log.warning(
                    "kernel_log positions will not be saved (state dir not writable "
                    "or used by another zmon)",
                    state_dir=str(self.ctx.paths.state_dir),
                )
            if self._store is not None:
                self._checkpoint = Checkpoint(self._store)
            self._sources = self._make_sources(kind, files)
            self._restore_counts()
            watched = [f.path for s in self._sources if isinstance(f := s.follower, FileFollower)]
            wake = threading.Event()
            if watched and self.option("watch"):
                self._watcher = ChangeWatcher(watched, wake)
                if not self._watcher.start():
                    log.info("kernel_log falls back to polling", files=[str(f) for f in watched])
            interval = max(0.05, float(self.option("poll_interval")))
            self._loop = PollLoop(self._step, interval, "zmon-kernel-log", wake, self._loop_error)
            try:  # the first read now, so the first collection knows what is being followed
                self._step()
            except Exception as exc:  # noqa: BLE001 - the loop retries
                self._loop_error(exc)
            self._loop.start()

    def close(self) -> None:
        with self._lock:
            if self._loop is not None:
                self._loop.stop()
            if self._watcher is not None:
                self._watcher.stop()
            now = time.time()
            for src in self._sources:
                if src.follower is not None:
                    src.follower.close()
                self.tally.add_all(src.scanner.flush(), now)
            self._commit(force=True)
            if self._store is not None:
                self._store.close()
            self._loop = self._watcher = self._store = self._checkpoint = None
            self._sources = []

    def collect(self) -> MetricSet:
        if not self._started:
            self.start()
        if self._config_error:
            raise ValueError(self._config_error)
        if not self._sources:
            raise NoDataError("no kernel log source: /dev/kmsg unreadable and no log file")
        served = self._served if self._served is not None else self.tally.snapshot()
        return kernel_log_metrics(self._with_known_names(served))

    def _with_known_names(self, snap: TallySnapshot) -> TallySnapshot:
        """Counters the alert rules use, at 0 for every disk and pool known so far."""
        try:
            disks = [d.name for d in self.ctx.device_map().disks()]
        except Exception as exc:  # noqa: BLE001 - counting must go on without the map
            log.debug("no device map for zero-initialised series", error=repr(exc))
            disks = []
        known = self.ctx.product(VDEV_NAMES) or {}
        pools = set(known) | set(_kstat_pools(self.ctx))
        patterns = ALERTED_PATTERNS.get(self.ctx.platform, ALERTED_PATTERNS["linux"])
        return zero_series(snap, patterns, disks, pools)

    # ---- sources

    def _choose_source(self) -> tuple[str, list[str]]:
        """(kind, files): kind is kmsg, journal, file or none."""
        kind = self.option("source")
        paths = self.ctx.paths
        files = list(self.option("files"))
        if not files:  # one default only: kernel lines often go to both kern.log and messages
            defaults = DEFAULT_FILES.get(self.ctx.platform, ())
            files = [f for f in defaults if paths.root(f).exists()][:1]
            if kind == "file" and not files and defaults:
                files = [defaults[0]]  # wait for it to appear
        if kind == "auto":
            if self.ctx.platform == "linux" and _readable(paths.root("dev/kmsg")):
                kind = "kmsg"
            else:
                kind = "file" if files else "none"
        return kind, files

    def _make_sources(self, kind: str, files: list[str]) -> list[_Source]:
        paths = self.ctx.paths
        if kind == "kmsg":
            boot_id = self._boot_id()
            return [
                self._source(
                    "kmsg",
                    lambda sink: KmsgFollower(
                        paths.root("dev/kmsg"), sink, store=self._checkpoint, boot_id=boot_id
                    ),
                )
            ]
        if kind == "journal":
            binary = self.ctx.runner.binary("journalctl")
            return [
                self._source(
                    "journal", lambda sink: JournalFollower(binary, sink, store=self._checkpoint)
                )
            ]
        if kind == "file":
            return [self._source(f, self._file_follower(f)) for f in files]
        return []

    def _file_follower(self, name: str) -> Callable[[LineSink], Follower]:
        def make(sink: LineSink) -> Follower:
            path = self.ctx.paths.root(name)
            return FileFollower(path, sink, store=self._checkpoint, key=f"file-{name}")

        return make

    def _source(self, label: str, make: Callable[[LineSink], Follower]) -> _Source:
        src = _Source(label, Scanner(self.patterns))
        src.follower = make(lambda text: self._on_lines(src, text))
        self.tally.set_following(label, False)
        return src

    def _boot_id(self) -> str | None:
        try:
            return self.ctx.paths.proc("sys", "kernel", "random", "boot_id").read_text().strip()
        except OSError:
            return None

    # ---- the checkpoint

    def _restore_counts(self) -> None:
        """Continue from the checkpoint's counts (and the events it left waiting)."""
        if self._checkpoint is None or not self._checkpoint.counts:
            return
        saved = self._checkpoint.counts
        try:
            self.tally.restore(saved["tally"], [src.label for src in self._sources])
            for src in self._sources:
                state = saved["scanners"].get(src.label)
                if state is not None:
                    self.tally.add_all(src.scanner.restore(state), time.time())
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            log.warning(
                "ignoring the saved kernel-log counts: counting starts again from 0",
                path=str(self._checkpoint.store.path(self._checkpoint.key)),
                error=repr(exc),
            )
            self.tally.restore(Tally().export(), [])  # none of it, not a part
            for src in self._sources:
                src.scanner.restore({"carry": "", "pending": []})
        for src in self._sources:
            self.tally.set_following(src.label, False)
        self._served = self.tally.snapshot()

    def _commit(self, force: bool = False) -> float | None:
        """Write positions and counts as one checkpoint; serve the counts written.

        At most once every ``CHECKPOINT_EVERY`` seconds, and every ``QUIET_CHECKPOINT_EVERY``
        while no count but the lines read has changed, unless ``force``d: returns the seconds
        until a deferred write may be made, else None. When it cannot be written the live
        counts are served instead (an event must page even when the state directory is
        broken), with a warning."""
        if self._checkpoint is None:
            return None
        now = self._clock()
        if not force and now - self._last_commit < CHECKPOINT_EVERY:
            return self._last_commit + CHECKPOINT_EVERY - now
        tally = self.tally.export()
        faults = {k: v for k, v in tally.items() if k != "lines"}
        if (
            not force
            and faults == self._faults_written
            and now - self._last_commit < QUIET_CHECKPOINT_EVERY
        ):
            return self._last_commit + QUIET_CHECKPOINT_EVERY - now
        self._last_commit = now
        counts = {
            "tally": tally,
            "scanners": {src.label: src.scanner.state() for src in self._sources},
        }
        try:
            self._checkpoint.commit(counts)
        except OSError as exc:
            if not self._commit_failed:
                log.warning(
                    "cannot write the kernel-log checkpoint: serving counts that a restart "
                    "may not continue from",
                    error=exc.strerror or str(exc),
                )
            self._commit_failed = True
            self._served = None
            return None
        if self._commit_failed:
            log.info("kernel-log checkpoint written again")
        self._commit_failed = False
        self._faults_written = faults
        self._served = self.tally.snapshot()
        return None

    # ---- the follower thread

    def _on_lines(self, src: _Source, text: str) -> None:
        self.tally.add_lines(src.label, text.count("\n"))
        self.tally.add_all(src.scanner.feed(text), time.time())

    def _step(self) -> float | None:
        """Read every source, count, checkpoint; the seconds until a deferred checkpoint."""
        now = time.monotonic()
        for src in self._sources:
            follower = src.follower
            assert follower is not None
            if follower.poll():
                src.last_data = now
            elif src.scanner.pending and now - src.last_data >= CONTEXT_WAIT:
                self.tally.add_all(src.scanner.flush(), time.time())
            if follower.read_errors > src.errors_seen:
                self.tally.add_read_error(src.label, follower.read_errors - src.errors_seen)
                src.errors_seen = follower.read_errors
                log.warning("kernel log read error", source=src.label, error=follower.last_error)
            if follower.lines_lost > src.lost_seen:
                self.tally.add_lost(src.label, follower.lines_lost - src.lost_seen)
                src.lost_seen = follower.lines_lost
            self.tally.set_following(src.label, follower.is_open)
            self._tell_following(src, follower)
        return self._commit()

    def _tell_following(self, src: _Source, follower: Follower) -> None:
        """A log file that cannot be followed (missing, unreadable) is warned of once, and
        its coming back told; ``zmon_kernel_log_following`` shows it meanwhile."""
        if not isinstance(follower, FileFollower):
            return
        if not follower.is_open and not src.told_closed:
            src.told_closed = True
            why = "does not exist" if not follower.path.exists() else follower.last_error
            log.warning(
                "kernel log file cannot be followed: no kernel events are counted from it",
                path=str(follower.path),
                error=why or "not readable",
            )
        elif follower.is_open and src.told_closed:
            src.told_closed = False
            log.info("kernel log file followed again", path=str(follower.path))

    def _loop_error(self, exc: Exception) -> None:
        log.error("kernel log follower step failed", error=repr(exc))


def _kstat_pools(ctx: Context) -> list[str]:
    """Pools named by the Linux kstat directory (a pool's has a ``state`` file): known even
    while ``zpool`` hangs."""
    base = ctx.paths.proc("spl", "kstat", "zfs")
    try:
        return sorted(d.name for d in base.iterdir() if (d / "state").is_file())
    except OSError:
        return []


def _readable(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    os.close(fd)
    return True


@register_parse_kind(
    "kernel-log", "dmesg, syslog or journal text (short-iso or json), Linux or FreeBSD"
)
def parse_kernel_log(data: bytes) -> MetricSet:
    """Count fault patterns per device in a captured kernel log (built-in patterns only)."""
    return parse_kernel_log_stream(io.BytesIO(data))


@register_parse_stream("kernel-log")
def parse_kernel_log_stream(stream: BinaryIO, chunk_size: int = 1 << 20) -> MetricSet:
    """``parse_kernel_log`` reading ``stream`` in chunks of whole lines: memory stays bounded
    by the chunk size (and the longest line), whatever the size of the log."""
    tally = Tally(resolver=name_only_resolver)
    scanner = Scanner(PatternSet(default_rules()), line_timestamps=True)
    rest = b""
    lines = 0
    while True:
        chunk = stream.read(chunk_size)
        data = rest + chunk if rest else chunk
        cut = data.rfind(b"\n") + 1 if chunk else len(data)
        whole, rest = data[:cut], data[cut:]
        nul = whole.find(b"\x00")
        if nul >= 0:
            raise ParseError(
                "binary data (NUL byte): expected log text, e.g. journalctl -k -o short-iso",
                lines + whole.count(b"\n", 0, nul) + 1,
            )
        if whole:
            lines += whole.count(b"\n")
            tally.add_all(scanner.feed(whole.decode("utf-8", "replace")))
        if not chunk:
            break
    tally.add_all(scanner.flush())
    tally.add_lines("input", lines + (1 if cut and not whole.endswith(b"\n") else 0))
    return kernel_log_metrics(tally.snapshot())
