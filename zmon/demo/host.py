"""The demo host: a temporary tree that looks like a ZFS host, driven through the timeline."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from zmon.base.logs import get
from zmon.collecting.config import Config, ConfigError
from zmon.collecting.registry import Paths
from zmon.demo.disks import BlockTree
from zmon.demo.fakebin import LIVE, POOL_AGE_FILE
from zmon.demo.fakehost import FakeHost
from zmon.demo.kernlog import syslog_lines
from zmon.demo.refresh import VDEV_HISTOGRAMS, histogram_blocks, write_vdev_histograms
from zmon.demo.timeline import LATENCY, PHASES, STORIES, Phase, starts
from zmon.demo.upsd import DemoUpsd, base_variables
from zmon.demo.variants import recorded_scenario

DATA = Path(__file__).parent / "data"
log = get("demo")

# Counters advanced per phase: field -> (rate attribute, share of that rate).
_ARC_COUNTERS = {
    "hits": ("arc_hits", 1.0),
    "demand_data_hits": ("arc_hits", 0.62),
    "demand_metadata_hits": ("arc_hits", 0.33),
    "prefetch_data_hits": ("arc_hits", 0.04),
    "prefetch_metadata_hits": ("arc_hits", 0.01),
    "mru_hits": ("arc_hits", 0.35),
    "mfu_hits": ("arc_hits", 0.65),
    "misses": ("arc_misses", 1.0),
    "demand_data_misses": ("arc_misses", 0.7),
    "demand_metadata_misses": ("arc_misses", 0.2),
    "prefetch_data_misses": ("arc_misses", 0.08),
    "prefetch_metadata_misses": ("arc_misses", 0.02),
    "mru_ghost_hits": ("mru_ghost_hits", 1.0),
    "mfu_ghost_hits": ("mfu_ghost_hits", 1.0),
    "l2_hits": ("l2_hits", 1.0),
    "l2_misses": ("l2_misses", 1.0),
}
# ``zpool iostat -w`` columns the demo's I/Os land in: total_wait and disk_wait, read and write.
_READ_COLUMNS, _WRITE_COLUMNS = (0, 2), (1, 3)
IO_POOL = "tank"  # the pool whose I/Os the phases drive
POOL_HISTOGRAMS = "zpool-iostat-p-w.txt"
VDEV_TABLE = "zpool-iostat-v-p-l.txt"
_KSTAT_ROW = re.compile(r"^(\S+)(\s+)(\d+)(\s+)(-?\d+)\s*$")
KERN_LOG = "/var/log/kern.log"  # under the demo's rootfs
HANG_MARKER = "zpool-hangs"  # in the demo root while a pool is suspended (fakebin reads it)
UPTIME_AT_START = 300.0  # the demo host booted five minutes before the story starts
# The collector that shows what each phase is (pool states, scans, resilvers): a phase shorter
# than its interval can pass between two of its runs and never be served.
PHASE_READER = "zpool"


def check_pace(cfg: Config, phase_seconds: float, phases: Sequence[Phase]) -> None:
    """Refuse a phase unit that makes the shortest of ``phases`` last less than the zpool
    collector's interval (ConfigError on ``demo.phase_seconds``): with 10 s phases and
    ``zpool status`` read every 15 s, the scrub phase passes unseen ("no scrub recorded").
    The SMART collector needs no such limit: the demo reads it twice a phase (``apply``)."""
    reader = cfg.collectors.get(PHASE_READER)
    if reader is None or not reader.enabled:
        return
    units = min(p.length for p in phases)
    lasts = units * max(1.0, phase_seconds)
    if lasts < reader.interval:
        shortest = ", ".join(dict.fromkeys(p.name for p in phases if p.length == units))
        least = math.ceil(reader.interval / units)
        raise ConfigError(
            "demo.phase_seconds",
            f"{phase_seconds:g} s makes the shortest phases ({shortest}) last {lasts:g} s, less "
            f"than the {PHASE_READER} collector's interval ({reader.interval:g} s): they could "
            f"pass between two of its runs and never be served; give --demo.phase-seconds "
            f"{least} or more, or a shorter --collector.{PHASE_READER}.interval",
        )


class DemoHost:
    """Builds the demo tree, then advances it through the story.

    ``apply(cfg)`` points a config's paths and binaries at the tree, so the ordinary
    collectors run unchanged against it.

    The host keeps its own clock (``now()``). By default it is the wall clock (``clock``,
    injectable), and ``start()`` ticks the host forward every second. A ``stepped`` host's
    clock stands still at the start of a phase until ``step()`` moves it to the start of the
    next one: a test decides when the story moves on, so what it sees does not depend on how
    fast the machine runs.
    """

    def __init__(
        self,
        phase_seconds: float = 60.0,
        root: Path | None = None,
        first_phase: int = 0,
        stepped: bool = False,
        story: str = "demo",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._clock = clock
        self.phase_seconds = max(1.0, float(phase_seconds))
        self.stepped = stepped
        self.phases = STORIES[story]
        self.loops = story == "demo"  # the other stories stay in their last phase
        self._starts = starts(self.phases)
        self._units = sum(p.length for p in self.phases)
        self._own_root = root is None
        self.root = Path(tempfile.mkdtemp(prefix="zmon-demo-")) if root is None else root
        self.tree = FakeHost(self.root)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # one tick or step at a time
        self._t0 = clock()
        self._position = first_phase  # stepped: phases since the story began, loops included
        self._phase_index = -1
        self._eid = 0
        self._arc_base = (DATA / "arcstats.txt").read_text()
        self._arc_acc: dict[str, float] = {}
        self._io_acc: dict[tuple[str, int], float] = {}  # (iostat -w row, column) -> I/Os
        self._io_base = (DATA / "scenarios" / PHASES[0].scenario / POOL_HISTOGRAMS).read_text()
        self._ups_vars = base_variables()
        self._ups_charge = 100.0
        self._ups_lock = threading.Lock()
        self.upsd = DemoUpsd(self.ups_variables)
        self._build(first_phase)
        self._last_now = self.now()

    # ---- layout

    @property
    def paths(self) -> Paths:
        return self.tree.paths

    def apply(self, cfg: Config) -> Config:
        """The same config, pointed at this host."""
        options: dict[str, dict[str, object]] = {
            # The demo's disks answer at once: no pause between disks that spares real ones.
            "smart": {"jitter": 0.0},
            "kernel_log": {"source": "file", "files": [KERN_LOG]},
        }
        datasets = cfg.collectors.get("datasets")
        if not datasets or not datasets.options.get("snapshot_expected"):
            # the demo's scheduled snapshots: tank/data should be snapshotted
            options["datasets"] = {"snapshot_expected": ["tank/data"]}
        ups = cfg.collectors.get("ups")
        if not ups or not ups.options.get("nut"):  # unless the config names a UPS server
            options["ups"] = {"nut": [self.upsd.address]}
        # The demo's story moves in phases: read SMART at least twice a phase.
        return self.tree.point(cfg, options, max_intervals={"smart": self.phase_seconds / 2})

    def reapply(self, cfg: Config) -> Config:
        """``apply`` for a reloaded config: a moving host keeps its pace, so the config must
        suit it (``check_pace``; its ConfigError rejects the reload)."""
        if not self.stepped:
            check_pace(cfg, self.phase_seconds, self.phases)
        return self.apply(cfg)

    def ups_variables(self) -> dict[str, str]:
        """What the demo UPS reports now."""
        with self._ups_lock:
            return dict(self._ups_vars)

    def _advance_ups(self, dt: float) -> None:
        phase = self.phases[max(self._phase_index, 0)]
        # Drains to about 20 % over the on-battery phases, recharges over one phase.
        on_battery_units = sum(p.length for p in self.phases if p.on_battery) or 1
        drain = 80.0 / (on_battery_units * self.phase_seconds)
        charge_rate = 80.0 / self.phase_seconds
        if phase.on_battery:
            self._ups_charge = max(5.0, self._ups_charge - drain * dt)
        else:
            self._ups_charge = min(100.0, self._ups_charge + charge_rate * dt)
        low = float(self._ups_vars.get("battery.charge.low", "20"))
        if phase.on_battery:
            status = "OB DISCHRG" + (" LB" if self._ups_charge < low else "")
        else:
            status = "OL CHRG" if self._ups_charge < 99.5 else "OL"
        full_runtime = 3618.0
        with self._ups_lock:
            self._ups_vars["ups.status"] = status
            self._ups_vars["battery.charge"] = str(int(self._ups_charge))
            self._ups_vars["battery.runtime"] = str(int(full_runtime * self._ups_charge / 100))
            self._ups_vars["input.voltage"] = "0.0" if phase.on_battery else "232.0"
            self._ups_vars["ups.load"] = "9" if "resilver" in phase.name else "5"

    def _build(self, first_phase: int) -> None:
        self.tree.create()
        self._write_sysfs()
        self._write_disks()
        (self.root / "events.log").write_bytes(b"")
        kern_log = self.paths.root(KERN_LOG)
        kern_log.parent.mkdir(parents=True, exist_ok=True)
        kern_log.write_bytes(b"")
        self._t0 -= self._starts[first_phase] * self.phase_seconds
        self._boot_time = self._t0 - UPTIME_AT_START
        for index in range(first_phase + 1):  # history: every earlier phase's events
            self._enter_phase(index, now=self._t0 + self._starts[index] * self.phase_seconds)
        self._write_arcstats(0.0, elapsed=0.0)
        self._write_iostat(0.0)
        self._advance_ups(0.0)

    def _write_sysfs(self) -> None:
        params = self.root / "sys" / "module" / "zfs" / "parameters"
        params.mkdir(parents=True, exist_ok=True)
        src = DATA / "scenarios" / PHASES[0].scenario / "module-parameters.txt"
        values = _module_parameters(src.read_text()) if src.exists() else {}
        for name, value in values.items():
            (params / name).write_text(value + "\n")
        write_module_tree(params.parent, src.with_name("zfs-version.txt"))

    def _write_disks(self) -> None:
        """sysfs block devices and /dev/disk links as the lab VM had them."""
        scen = DATA / "scenarios" / PHASES[0].scenario
        lsblk = json.loads((scen / "lsblk.json").read_text())
        firmware = ""
        nvme = scen / "smartctl-a-j-nvme0.json"
        if nvme.exists():
            firmware = str(json.loads(nvme.read_text()).get("firmware_version") or "")
        BlockTree(self.root, nvme_firmware=firmware).build(lsblk)

    # ---- time

    def start(self) -> None:
        """Serve the demo UPS and, unless stepped, tick the host forward every second."""
        self.upsd.start()
        if not self.stepped:
            self._thread = threading.Thread(target=self._run, name="zmon-demo", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.upsd.stop()
        if self._thread is not None:
            self._thread.join(2.0)
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self.tick()

    def now(self) -> float:
        """The host's time: the wall clock, or a stepped host's current phase start."""
        if not self.stepped:
            return self._clock()
        loop, index = divmod(self._position, len(self.phases))
        return self.time_of(index, loop)

    def tick(self, now: float | None = None) -> None:
        """Advance the host to ``now`` (default ``now()``): move the ARC counters and the UPS
        battery over the time gone by, then switch phase when due."""
        with self._lock:
            now = self.now() if now is None else now
            dt, self._last_now = max(0.0, now - self._last_now), now
            self._write_arcstats(dt, elapsed=now - self._t0)  # the phase that was on
            self._advance_ups(dt)
            self._write_iostat(dt)
            if self.stepped:
                index = self._position % len(self.phases)
            else:
                unit = int((now - self._t0) // self.phase_seconds)
                unit = unit % self._units if self.loops else min(unit, self._units - 1)
                index = max(i for i, start in enumerate(self._starts) if start <= unit)
            if self._phase_index != index:
                while self._phase_index != index:  # through every phase due, none skipped
                    self._enter_phase((self._phase_index + 1) % len(self.phases), now=now)
                self._advance_ups(0.0)  # the new phase's mains power
                self._write_arcstats(0.0, elapsed=now - self._t0)  # its ghost lists' size
                self._write_iostat(0.0)  # the new phase's recordings under the same counts

    def step(self) -> Phase:
        """A stepped host: move the clock to the start of the next phase and enter it.

        A story that does not loop stays in its last phase."""
        if not self.stepped:
            raise RuntimeError("step() needs a stepped demo host")
        with self._lock:
            if self.loops or self._position < len(self.phases) - 1:
                self._position += 1
        self.tick()
        return self.phase

    @property
    def phase(self) -> Phase:
        return self.phases[self._phase_index]

    @property
    def loop(self) -> int:
        """How many times a stepped host went through the whole story."""
        return self._position // len(self.phases)

    @property
    def events_written(self) -> int:
        """ZFS events in the host's event log so far."""
        return self._eid

    def kernel_log_lines(self) -> int:
        """Lines in the host's kern.log so far."""
        with self.paths.root(KERN_LOG).open("rb") as f:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 16), b""))

    def time_of(self, index: int, loop: int = 0) -> float:
        """Wall time at which phase ``index`` of the ``loop``-th pass through the story starts."""
        return self._t0 + (loop * self._units + self._starts[index]) * self.phase_seconds

    def _enter_phase(self, index: int, now: float | None = None) -> None:
        phase = self.phases[index]
        scen = DATA / "scenarios" / phase.scenario
        _symlink(str(scen), self.root / "current")
        self._copy_kstats(recorded_scenario(scen))
        self._suspend(phase.stuck_pool, self._clock() if now is None else now)
        age = self.root / POOL_AGE_FILE
        if phase.pool_age_days:
            age.write_text(f"{phase.pool_age_days * 86400:.0f}\n")
        else:
            age.unlink(missing_ok=True)
        if phase.new_events:
            self._append_events(recorded_scenario(scen) / "events-new.txt")
            self._append_kernel_log(scen / "kernel-new.txt", self.now() if now is None else now)
        self._phase_index = index
        log.info("demo phase", phase=phase.name, scenario=phase.scenario)

    def _suspend(self, pool: str, now: float) -> None:
        """ZFS suspended ``pool`` (none: nothing is): its kstat state says so, the kernel logs
        it, and every ``zpool`` command but the events follower hangs (OpenZFS 2.1)."""
        marker = self.root / HANG_MARKER
        if not pool:
            marker.unlink(missing_ok=True)
            return
        (self.root / "proc" / "spl" / "kstat" / "zfs" / pool / "state").write_text("SUSPENDED\n")
        seconds = now - self._boot_time
        line = (
            f"[{seconds:12.6f}] WARNING: Pool '{pool}' has encountered an uncorrectable I/O "
            "failure and has been suspended.\n"
        )
        with self.paths.root(KERN_LOG).open("a") as f:
            f.write(syslog_lines(line, self._boot_time, now))
        marker.write_text(pool + "\n")

    def _copy_kstats(self, scen: Path) -> None:
        src = scen / "proc" / "spl" / "kstat" / "zfs"
        dst = self.root / "proc" / "spl" / "kstat" / "zfs"
        dst.mkdir(parents=True, exist_ok=True)
        if not src.is_dir():
            return
        for item in src.iterdir():
            if item.name == "arcstats":
                continue
            target = dst / item.name
            if item.is_dir():
                tmp = dst / f".{item.name}.new"
                shutil.rmtree(tmp, ignore_errors=True)
                shutil.copytree(item, tmp)
                shutil.rmtree(target, ignore_errors=True)
                os.replace(tmp, target)
            else:
                shutil.copyfile(item, target)

    def _append_kernel_log(self, path: Path, now: float) -> None:
        """Append the phase's new kernel messages to kern.log, stamped as rsyslog does."""
        try:
            text = path.read_text(errors="replace")
        except OSError:
            return
        lines = syslog_lines(text, self._boot_time, now)
        if lines:
            with self.paths.root(KERN_LOG).open("a") as f:
                f.write(lines)

    def _append_events(self, path: Path) -> None:
        """Append the phase's new events with fresh, increasing event ids."""
        if not path.exists():
            return
        text = path.read_text()

        def renumber(m: re.Match[str]) -> str:
            self._eid += 1
            return f"{m.group(1)}eid = {hex(self._eid)}"

        text = re.sub(r"(?m)^([ \t]+)eid = 0x[0-9a-f]+[ \t]*$", renumber, text)
        with (self.root / "events.log").open("a") as f:
            f.write(text)

    def _write_arcstats(self, dt: float, elapsed: float) -> None:
        phase = self.phases[max(self._phase_index, 0)]
        for field, (attr, share) in _ARC_COUNTERS.items():
            self._arc_acc[field] = self._arc_acc.get(field, 0.0) + getattr(phase, attr) * share * dt
        wobble = 0.97 + 0.03 * math.sin(elapsed / 30.0)
        out = []
        values: dict[str, int] = {}
        for line in self._arc_base.splitlines():
            m = _KSTAT_ROW.match(line)
            if m:
                values[m.group(1)] = int(m.group(5))
        for line in self._arc_base.splitlines():
            m = _KSTAT_ROW.match(line)
            if not m:
                out.append(line)
                continue
            name, value = m.group(1), int(m.group(5))
            if name in self._arc_acc:
                value += int(self._arc_acc[name])
            elif name in _GHOST_SHARE and phase.ghost_bytes is not None:
                value = int(phase.ghost_bytes * _GHOST_SHARE[name])
            elif name == "size" and "c" in values:
                value = int(values["c"] * wobble)
            out.append(f"{name}{m.group(2)}{m.group(3)}{m.group(4)}{value}")
        target = self.root / "proc" / "spl" / "kstat" / "zfs" / "arcstats"
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(".arcstats.new")
        tmp.write_text("\n".join(out) + "\n")
        os.replace(tmp, target)

    def _write_iostat(self, dt: float) -> None:
        """Add ``dt`` seconds of the phase's I/Os on tank to its recorded ``zpool iostat -w``
        histograms, and write them (and the per-vdev ones made from them) where the demo's
        ``zpool`` serves them from."""
        phase = self.phases[max(self._phase_index, 0)]
        for columns, rate in ((_READ_COLUMNS, phase.reads), (_WRITE_COLUMNS, phase.writes)):
            for row, share in LATENCY[phase.latency]:
                for column in columns:
                    key = (row, column)
                    self._io_acc[key] = self._io_acc.get(key, 0.0) + rate * share * dt
        live = self.root / LIVE
        live.mkdir(exist_ok=True)
        current = self.root / "current"
        try:
            recorded = (current / POOL_HISTOGRAMS).read_text()
            table = (current / VDEV_TABLE).read_bytes()
        except OSError:  # a scenario without histograms: serve what it recorded
            for name in (POOL_HISTOGRAMS, VDEV_HISTOGRAMS):
                (live / name).unlink(missing_ok=True)
            return
        # tank's reads and writes are the story's: its healthy recording's plus the phases'
        # (the lab's later recordings count its few reads, its scrubs' slow ones among them);
        # its queues (sync, async, scrub, trim, rebuild) stay as each phase recorded them
        base = histogram_blocks(self._io_base).get(IO_POOL)
        if base is not None:
            recorded = _with_columns(recorded, IO_POOL, base, _READ_COLUMNS + _WRITE_COLUMNS)
        _replace(live / VDEV_TABLE, table)
        _replace(live / POOL_HISTOGRAMS, _added(recorded, IO_POOL, self._io_acc).encode())
        write_vdev_histograms(live)


# Of the ghost lists' size (Phase.ghost_bytes), the MRU's and the MFU's shares.
_GHOST_SHARE = {"mru_ghost_size": 0.75, "mfu_ghost_size": 0.25}


def _rewrite_rows(text: str, pool: str, row: Callable[[str, list[str]], list[str]]) -> str:
    """``zpool iostat -w`` output with each number row of ``pool``'s block rewritten:
    ``row(name, cells)`` gives the row's new numbers (as text)."""
    out, in_pool = [], False
    for line in text.splitlines():
        cells = line.split()
        if "total_wait" in line:
            in_pool = cells[0] == pool
        elif in_pool and len(cells) > 1 and all(c.isdigit() for c in cells[1:]):
            numbers = row(cells[0], cells[1:])
            line = cells[0].ljust(10) + "".join(" " + n.rjust(6) for n in numbers)
        out.append(line)
    return "\n".join(out) + "\n"


def _added(text: str, pool: str, counts: dict[tuple[str, int], float]) -> str:
    """``zpool iostat -w`` output with ``counts`` ((row, column) -> I/Os) added to ``pool``'s
    block."""
    return _rewrite_rows(
        text,
        pool,
        lambda name, cells: [
            str(int(n) + int(counts.get((name, column), 0.0))) for column, n in enumerate(cells)
        ],
    )


def _with_columns(text: str, pool: str, block: list[str], columns: tuple[int, ...]) -> str:
    """``zpool iostat -w`` output whose ``pool`` block takes ``columns`` from ``block``."""
    base = {c[0]: c[1:] for c in (line.split() for line in block) if len(c) > 1}

    def row(name: str, cells: list[str]) -> list[str]:
        recorded = base.get(name, [])
        return [
            recorded[i] if i in columns and i < len(recorded) else n for i, n in enumerate(cells)
        ]

    return _rewrite_rows(text, pool, row)


def _replace(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.new")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _symlink(target: str, link: Path) -> None:
    """Create or atomically replace a symlink."""
    tmp = link.with_name(f".{link.name}.tmp")
    try:
        tmp.unlink()
    except FileNotFoundError:
        pass
    os.symlink(target, tmp)
    os.replace(tmp, link)


def _module_parameters(text: str) -> dict[str, str]:
    """Parse the lab's module-parameters dump (``name value`` or ``path:value`` lines)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if ":" in line and line.startswith("/"):
            path, _, value = line.partition(":")
            out[path.rsplit("/", 1)[-1]] = value.strip()
        else:
            parts = line.split(None, 1)
            if len(parts) == 2 and re.fullmatch(r"[a-z0-9_]+", parts[0]):
                out[parts[0]] = parts[1].strip()
    return out


# ---- the demo host's /sys/module/zfs

FEATURES = Path(__file__).parent / "data" / "derived-features-pool.txt"


def kmod_version(zfs_version: str) -> str | None:
    """``zfs version`` output -> the module's version (``zfs-kmod-2.3.2-2`` -> ``2.3.2-2``)."""
    for line in zfs_version.splitlines():
        if line.startswith("zfs-kmod-"):
            return line.removeprefix("zfs-kmod-").strip()
    return None


def write_module_tree(module: Path, zfs_version: Path) -> None:
    """Write ``version`` and ``features.pool/<guid>/uname`` under ``module`` (sys/module/zfs)."""
    module.mkdir(parents=True, exist_ok=True)
    version = kmod_version(zfs_version.read_text()) if zfs_version.exists() else None
    if version:
        (module / "version").write_text(version + "\n")
    for line in FEATURES.read_text().splitlines():
        head, sep, uname = line.partition("/uname:")
        if not sep:
            continue
        guid = head.rpartition("/")[2]
        (module / "features.pool" / guid).mkdir(parents=True, exist_ok=True)
        (module / "features.pool" / guid / "uname").write_text(uname + "\n")
