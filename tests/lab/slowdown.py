"""Why is it slow, on real ZFS: a memory-bound slowdown and one slow disk, told apart.

A run of its own (tests/lab/guest/slowdown.sh) on a stripe pool `slow` of vdd, vde, vdf with
prefetch off: with zfs_arc_max at 64 MiB an 80 MiB working set (a hot file read twice per
stretch, a scan file read once) is read round and round (arc-large: the misses are ghost hits),
then a 4 MiB file (arc-small: hits), then zfs_arc_max goes to 512 MiB and the working set is
read again (arc-raised: hits); then `zinject -D 1000:16` slows vde and a file written before an
export and import of the pool and not read since is read once in 8 MiB reads (slow-disk: cold
misses, one top-level vdev slower than its siblings).

The host's Prometheus evaluates zmon's recording rules (zmon/health/memory.py, the ratios of
zmon/health/ratios.py) with the rate window shortened from 5 minutes to RATE_WINDOW, so that
each phase has a window of its own, and the minimum traffic below which latency is not judged
lowered to RULE_THRESHOLDS' (the TCG guest reads slowly). At each phase's end the signal must
say what the phase is: PHASE_CHECKS. The guest saves arcstats and `zpool iostat -p -w -v` at
every phase's start and end (`make lab-capture` keeps them in
tests/fixtures/lab/<version>/slowdown/); from them the run prints the estimate of what a larger
ARC would buy against the hit ratio measured after raising zfs_arc_max, and
tests/lab/test_slowdown.py checks both hermetically.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from tests.lab.checks import VERSIONS, pool_state
from tests.lab.engine import (
    AllCollectorsSucceed,
    Check,
    Expect,
    Result,
    Scrape,
    check,
    eq,
    evaluate,
    ge,
    gt,
    present,
)
from tests.lab.prometheus import AlertWatcher
from tests.lab.session import Sequence
from zmon.collecting.registry import collectors
from zmon.health import memory
from zmon.health.memory import (
    POOL_P99,
    POOL_VS_USUAL,
    VDEV_P99,
    VDEV_VS_SIBLINGS,
)
from zmon.health.ratios import (
    ARC_GHOST_HITS_PER_ACCESS,
    ARC_GHOST_HITS_PER_MISS,
    ARC_HIT,
    LargerArc,
)
from zmon.health.thresholds import DEFAULTS
from zmon.parsers.kstat.arcstats import parse_arcstats_kstat
from zmon.parsers.zpool.zpool_iostat import parse_zpool_iostat

ARC_PHASES = "01-arc-phases"
SLOW_DISK = "02-slow-disk"
STEPS = (ARC_PHASES, SLOW_DISK)
LARGE, SMALL, RAISED, SLOW = "arc-large", "arc-small", "arc-raised", "slow-disk"
PHASES = (LARGE, SMALL, RAISED, SLOW)
STEP_PHASES = {ARC_PHASES: (LARGE, SMALL, RAISED), SLOW_DISK: (SLOW,)}
POOL, SLOW_VDEV, SIBLINGS = "slow", "vde", ("vdd", "vdf")
ARC_SMALL, ARC_LARGE = 64 << 20, 512 << 20  # zfs_arc_max in slowdown.sh
WORKING_SET = 80 << 20  # the hot and the scan file
PHASE_S = 12  # each ARC phase's length (guest/slowdown.sh)
# The recording rules' 5m rate window in this run: one phase. Prometheus scrapes zmon every
# SCRAPE_INTERVAL, so that a window holds four samples
RATE_WINDOW = f"{PHASE_S}s"
SCRAPE_INTERVAL = "3s"
# A loaded TCG guest reads a few I/Os a second from a disk delayed by 1 s: latency is judged
# from 1 I/O per second here (production: slowdown_min_ops)
RULE_THRESHOLDS = {"slowdown_min_ops": 1.0}

T = DEFAULTS
GHOSTS_MAX = T.arc_ghost_hit_ratio_max  # ghost hits per access above this: memory-bound
MOSTLY = T.slowdown_ghost_share  # ghost hits per miss above this: the misses are memory's
SLOWER = 2.0  # a p99 this many times its usual (or its siblings' median) is slow
# The estimate's hit ratio bound against the hit ratio measured after raising zfs_arc_max
# (absolute). Where the ARC keeps a ghost of all it evicts (UNCAPPED) the bound is an upper
# one: a ghost hit says the block would have been found in an ARC larger by the ghost lists,
# and the lab's ARC grows past that, so it must come within TOLERANCE. Where it caps its ghost
# lists (CAPPED) the ghost hits undercount and the bound is a floor: the measured hit ratio
# must not fall more than TOLERANCE below it (the estimate never promises more than a larger
# ARC delivered) and may rise above it.
TOLERANCE = 0.10

HITS = ARC_HIT.record
GHOSTS = ARC_GHOST_HITS_PER_ACCESS.record
GHOSTS_PER_MISS = ARC_GHOST_HITS_PER_MISS.record
ARC_ACCESSES = memory.ARC_ACCESSES.name
ARC_GHOST_SIZE = memory.ARC_GHOST_SIZE.name
RECORDS = (HITS, GHOSTS, GHOSTS_PER_MISS, ARC_ACCESSES, ARC_GHOST_SIZE, POOL_P99, POOL_VS_USUAL,
           VDEV_P99, VDEV_VS_SIBLINGS)  # fmt: skip
# What a phase's capture keeps of Prometheus (prometheus.tsv): the records and what they read
SERIES = (
    *RECORDS,
    "zmon_arc_hits_total",
    "zmon_arc_misses_total",
    "zmon_arc_mru_ghost_hits_total",
    "zmon_arc_mfu_ghost_hits_total",
    'zmon_arc_state_size_bytes{state=~"mru_ghost|mfu_ghost"}',
    "zmon_arc_max_size_bytes",
    f'zmon_pool_io_latency_seconds_count{{pool="{POOL}",op="read"}}',
    f'zmon_vdev_io_latency_seconds_count{{pool="{POOL}",op="read"}}',
)


def quiet(limit: float) -> Expect:
    """At most `limit`, or no value (no access in the window: nothing to judge)."""
    return Expect(f"absent or <= {limit:g}", lambda v: v is None or v <= limit)


def below(limit: float) -> Expect:
    return Expect(f"< {limit:g}", lambda v: v is not None and v < limit)


# OpenZFS 2.2 and later keep each data ghost list at most half the size of the ARC's other
# three parts (arc_evict(): the MFU's data ghosts up to half of MRU data, MRU metadata and MFU
# metadata together): a working set the MFU list holds almost whole leaves it few ghosts. Of the
# misses the 64 MiB ARC takes on the 80 MiB working set, 2.3.2 counts 44 % as ghost hits where
# 2.1.11 counts all; slowdown_ghost_share (0.3) holds for both, the per-access ratio of
# ZfsArcGhostHitsHigh (arc_ghost_hit_ratio_max, 0.1) only where the ARC keeps all its ghosts.
CAPPED_GHOSTS = (
    "OpenZFS 2.2+ caps each data ghost list at half the ARC's other parts: a memory-bound working "
    "set counts fewer ghost hits per access (0.093 in the lab) than ZfsArcGhostHitsHigh's 0.1"
)
UNCAPPED = tuple(v for v in VERSIONS if not v.startswith("2.3"))
CAPPED = tuple(v for v in VERSIONS if v.startswith("2.3"))


def uncapped_only(row: Check) -> list[Check]:
    """A row that holds where the ARC keeps ghosts of all it evicts, pending where it caps
    them (CAPPED_GHOSTS)."""
    return [replace(row, versions=UNCAPPED), replace(row, versions=CAPPED, pending=CAPPED_GHOSTS)]


READ = {"pool": POOL, "op": "read"}
PHASE_CHECKS: list[Check] = [
    *uncapped_only(check(LARGE, GHOSTS, {}, gt(GHOSTS_MAX),
                         "memory-bound: ghost hits per access over the max")),
    check(LARGE, GHOSTS_PER_MISS, {}, gt(MOSTLY),
          "memory-bound: the misses' ghost-hit share over slowdown_ghost_share"),
    check(LARGE, ARC_ACCESSES, {}, ge(T.arc_min_ops), "enough ARC accesses to judge"),
    check(SMALL, GHOSTS, {}, quiet(GHOSTS_MAX), "working set in the ARC: no ghost-hit signal"),
    check(SMALL, HITS, {}, ge(0.5), "working set in the ARC: mostly hits"),
    check(RAISED, GHOSTS, {}, quiet(GHOSTS_MAX), "zfs_arc_max raised: no ghost-hit signal"),
    check(RAISED, HITS, {}, ge(0.9), "zfs_arc_max raised: the large working set hits"),
    check(SLOW, GHOSTS, {}, quiet(GHOSTS_MAX), "one slow disk: no ghost-hit signal"),
    check(SLOW, GHOSTS_PER_MISS, {}, quiet(MOSTLY), "one slow disk: the misses are cold reads"),
    check(SLOW, VDEV_VS_SIBLINGS, {**READ, "vdev": SLOW_VDEV}, ge(SLOWER),
          "one slow disk: its latency an outlier among its siblings"),
    *(check(SLOW, VDEV_VS_SIBLINGS, {**READ, "vdev": v}, below(SLOWER),
            f"one slow disk: sibling {v} is not") for v in SIBLINGS),
]  # fmt: skip

CHECKS: list[Check] = [
    check(ARC_PHASES, "zmon_arc_max_size_bytes", {}, eq(ARC_LARGE), "zfs_arc_max raised"),
    pool_state(STEPS, POOL, "online"),
    check(SLOW_DISK, "zmon_vdev_io_latency_seconds_count", {**READ, "vdev": SLOW_VDEV}, gt(0),
          "the slow vdev's read histogram served after the import"),
]  # fmt: skip


# ---------------------------------------------------------------- the captured raw outputs
def arcstats(path: Path) -> dict[str, float]:
    """Numeric arcstats fields of a captured /proc/spl/kstat/zfs/arcstats."""
    stats = parse_arcstats_kstat(path.read_bytes())
    return {k: float(e.value) for k, e in stats.fields.items() if isinstance(e.value, int)}


def increases(phase: Path) -> dict[str, float]:
    """arcstats counters' increases over a captured phase (start to end)."""
    start, end = arcstats(phase / "arcstats-start.txt"), arcstats(phase / "arcstats-end.txt")
    return {k: end[k] - start[k] for k in end if k in start}


def arc_size(phase: Path) -> float:
    """The ARC's size at a captured phase's end (it may exceed c_max by up to 16 MiB)."""
    return arcstats(phase / "arcstats-end.txt")["size"]


def estimate(phase: Path) -> LargerArc | None:
    """What a larger ARC would have bought over a captured phase."""
    end = arcstats(phase / "arcstats-end.txt")
    return LargerArc.of(increases(phase), (end["mru_ghost_size"], end["mfu_ghost_size"]))


def read_latencies(phase: Path) -> dict[str, tuple[int, ...]]:
    """Per vdev and pool, the read latency histogram's increase over a captured phase (total
    wait, `zpool iostat -w` buckets)."""

    def blocks(name: str) -> dict[str, tuple[int, ...]]:
        parsed = parse_zpool_iostat((phase / name).read_bytes())
        return {b.name: b.columns["total_wait_read"] for b in parsed.histograms}

    start = blocks("zpool-iostat-p-w-v-start.txt")
    end = blocks("zpool-iostat-p-w-v-end.txt")
    return {
        name: tuple(e - s for e, s in zip(counts, start.get(name, (0,) * len(counts)), strict=True))
        for name, counts in end.items()
    }


def p99_ns(counts: tuple[int, ...]) -> float | None:
    """The upper bound (ns) of the bucket holding the 99th percentile; None without I/O.
    `zpool iostat -w` bucket i holds latencies up to 2**(i+1) - 1 ns: 2**(i+1) here."""
    total = sum(counts)
    if total == 0:
        return None
    seen = 0
    for i, n in enumerate(counts):
        seen += n
        if seen >= 0.99 * total:
            return float(2 ** (i + 1))
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class Verdict:
    """What a captured phase says: memory (the misses mostly ghost hits), one disk slower
    than its siblings, or neither."""

    ghost_share_of_misses: float
    slowest: str
    slowest_vs_siblings: float

    @property
    def memory_bound(self) -> bool:
        return self.ghost_share_of_misses > MOSTLY

    @property
    def one_slow_disk(self) -> bool:
        """More than SLOWER: `zpool iostat -w` buckets double, so a p99 one bucket above its
        siblings' (2x) is within their noise."""
        return self.slowest_vs_siblings > SLOWER


def verdict(phase: Path, vdevs: tuple[str, ...] = (SLOW_VDEV, *SIBLINGS)) -> Verdict:
    """The captured phase's ghost share of the misses, and its slowest top-level vdev's read
    p99 over the phase against the median of the others'."""
    inc = increases(phase)
    share = ARC_GHOST_HITS_PER_MISS.of(inc) or 0.0
    p99s = {v: p99_ns(c) for v, c in read_latencies(phase).items() if v in vdevs}
    known = sorted((p, v) for v, p in p99s.items() if p is not None)
    if len(known) < 2:
        return Verdict(share, "", 0.0)
    slowest_p99, slowest = known[-1]
    others = known[:-1]  # against the others' median (the lower middle of an even count)
    return Verdict(share, slowest, slowest_p99 / others[(len(others) - 1) // 2][0])


def estimate_lines(version: str, phases: Path) -> list[str]:
    """The estimate over arc-large against the hit ratio measured over arc-raised."""
    est, raised = estimate(phases / LARGE), ARC_HIT.of(increases(phases / RAISED))
    if est is None or raised is None:
        return [f"ARC estimate on OpenZFS {version}: no ARC accesses captured"]
    off = raised - est.hit_ratio_bound
    grew = arcstats(phases / RAISED / "arcstats-end.txt")["size"] - arc_size(phases / LARGE)
    return [
        f"ARC estimate on OpenZFS {version} (zfs_arc_max {ARC_SMALL >> 20} MiB, "
        f"a {WORKING_SET >> 20} MiB working set): hit ratio {est.hit_ratio:.1%}, "
        f"{est.ghost_share or 0.0:.1%} of the misses ghost hits: {est.words()} "
        f"(a hit ratio of up to {est.hit_ratio_bound:.1%})",
        f"  measured after raising zfs_arc_max to {ARC_LARGE >> 20} MiB: hit ratio "
        f"{raised:.1%} ({off:+.1%} against the estimate; {tolerance_words(version)}); "
        f"the ARC grew by {grew / 2**20:.0f} MiB",
    ]


def tolerance_words(version: str) -> str:
    """How close the measured hit ratio must come to the estimate's bound on ``version``."""
    if version in CAPPED:
        return f"a floor where ghost lists are capped: at most {TOLERANCE:.0%} below it"
    return f"tolerance {TOLERANCE:.0%}"


def within_tolerance(version: str, bound: float, measured: float) -> bool:
    """The measured hit ratio against the estimate's bound (TOLERANCE)."""
    if version in CAPPED:
        return measured >= bound - TOLERANCE
    return abs(measured - bound) <= TOLERANCE


# ---------------------------------------------------------------- the live run
def _scrape_at(watcher: AlertWatcher, at: float) -> Scrape:
    """The records' values at host time `at`, as a scrape (instance and job dropped)."""
    lines = []
    for record in RECORDS:
        for item in watcher.at(record, at):
            labels = {
                k: v for k, v in item["metric"].items() if k not in ("__name__", "job", "instance")
            }
            body = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
            lines.append(f"{record}{{{body}}} {item['value'][1]}")
    return Scrape("\n".join(lines) + "\n")


def _series_tsv(watcher: AlertWatcher, start: float, end: float) -> str:
    """What Prometheus held over a phase (host times), seconds from the phase's start."""
    out = ["# seconds since the phase began\tseries\tvalue"]
    for expr in SERIES:
        for item in watcher.series(expr, start, end, 2.0):
            labels = {k: v for k, v in item["metric"].items() if k not in ("job", "instance")}
            name = labels.pop("__name__", expr.partition("{")[0])
            body = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
            for t, value in item["values"]:
                out.append(f"{float(t) - start:.1f}\t{name}{{{body}}}\t{value}")
    return "\n".join(out) + "\n"


def after_step(
    version: str, step: str, facts: Mapping[str, str], watcher: AlertWatcher | None, run_dir: Path
) -> tuple[list[Result], list[str]]:
    """Each phase's signal, from the recording rules at the phase's end; the estimate."""
    phases_dir = run_dir / "ctl" / "slowdown"
    summary = estimate_lines(version, phases_dir) if step == ARC_PHASES else []
    if watcher is None:
        chk = Check((step,), "slowdown signal", {}, present(), "recording rules evaluated",
                    pending="ZMON_LAB_PROMETHEUS=0")  # fmt: skip
        return [Result(step, chk, chk.what, False, "not measured")], summary
    offset = float(facts["host_time"]) - float(facts["guest_time"])
    results = []
    for phase in STEP_PHASES[step]:
        start = float(facts[f"{phase}.start"]) + offset
        end = float(facts[f"{phase}.end"]) + offset
        while time.time() < end + 5:  # one more rule evaluation after the phase's last scrape
            time.sleep(1)
        scrape = _scrape_at(watcher, end)
        for chk in PHASE_CHECKS:
            if chk.applies(phase, version):
                ok, seen = evaluate(chk, scrape, facts, {})
                results.append(Result(step, chk, f"{phase}: {chk.describe(facts)}", ok, seen))
        if (phases_dir / phase).is_dir():
            (phases_dir / phase / "prometheus.tsv").write_text(_series_tsv(watcher, start, end))
    return results, summary


QUIET = ("zpool", "zpool_events", "zpool_list", "kernel_log", "hotplug", "txg", "pool_kstats",
         "zfs_kstats", "zfs_module", "sas_phy", "ups")  # fmt: skip

SLOWDOWN = Sequence(
    "slowdown",
    "slowdown.sh",
    STEPS,
    CHECKS,
    # the collectors' health is the fault sequence's to check: here the reads take the slow
    # guest's CPU, and a collector on a long interval may time out now and then
    AllCollectorsSucceed(
        {name: [("the slowdown run does not judge collectors", (), ())] for name in collectors()}
    ),
    [],
    # the ARC counters and the latency histograms are read often enough for 12 s phases; the
    # rest rarely, to leave the slow guest's CPU to the reads
    zmon_intervals={"arc": 2.0, "iostat": 3.0, **{c: 30.0 for c in QUIET}},
    after_step=after_step,
    rate_window=RATE_WINDOW,
    scrape_interval=SCRAPE_INTERVAL,
    thresholds=RULE_THRESHOLDS,
)
