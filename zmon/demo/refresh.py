"""Rebuild the demo host's data from a lab capture directory.

    python -m zmon.demo.refresh CAPTURES/2.3.2 [OUTDIR]

Copies, for each scenario in the demo timeline, the recorded command outputs zmon runs and the
kstat files it reads, with a ``commands.tsv`` naming the exact command of each file. Events are
split by event id in capture order so each phase carries only the events new in it (see
``split_in_capture_order``); likewise ``kernel-new.txt`` holds the kernel messages new in the
phase (see ``kernlog``). Commands the lab did not run verbatim are derived from what it
recorded, the smartctl reports of every disk included (see ``smartdata``).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from zmon.demo.fakebin import PHASE_ANCHOR, SNAPSHOT_TIMES
from zmon.demo.kernlog import SataDisk, cable_lines, last_time, media_lines, new_lines
from zmon.demo.smartdata import SharedWriter, smart_recordings
from zmon.demo.timeline import CABLE_FAULT_SERIAL, MEDIA_FAULT_SERIAL, PHASES, Phase
from zmon.demo.variants import write_variants

DATA = Path(__file__).parent / "data"
MAX_EVENTS_PER_PHASE = 400

# Capture files worth shipping: command outputs collectors may run.
KEEP = re.compile(
    r"^(zpool-status.*|zpool-list.*|zpool-get.*|zfs-list.*|zfs-get-Hp-all\.txt|zpool-iostat.*"
    r"|smartctl-.*|nvme-.*|lsblk\.json|zfs-version\.txt|zpool-version\.json"
    r"|module-parameters\.txt)$"
)
_EID = re.compile(r"^\s+eid = (0x[0-9a-f]+)\s*$", re.M)
_EVENT_TIME = re.compile(r"^\s+time = (0x[0-9a-f]+) ", re.M)


def split_events(text: str) -> list[tuple[int, str]]:
    """``zpool events -v`` text -> [(eid, block)], without the TIME CLASS header."""
    out: list[tuple[int, str]] = []
    for block in re.split(r"\n\s*\n", text):
        block = block.strip("\n")
        if not block or block.startswith("TIME "):
            if block.startswith("TIME "):
                block = block.split("\n", 1)[1] if "\n" in block else ""
            if not block:
                continue
        m = _EID.search(block)
        if m:
            out.append((int(m.group(1), 16), block + "\n\n"))
    return out


def split_in_capture_order(texts: dict[str, str]) -> dict[str, str]:
    """Scenario -> its new events: those with an id above every scenario captured before it.

    ``texts`` maps scenario names to their ``zpool events -v`` text. The lab captures its
    scenarios in the order of their names, in one boot, so event ids grow along the whole run:
    going by name gives each event to the first scenario that holds it. However the loop
    orders the phases (04b's scrub runs before 04's finishes in the story), each event is
    then replayed at most once a loop, and none is lost but the oldest ones beyond
    ``MAX_EVENTS_PER_PHASE``.
    """
    out: dict[str, str] = {}
    seen = -1
    for scenario in sorted(texts):
        events = split_events(texts[scenario])
        new = [block for eid, block in events if eid > seen][-MAX_EVENTS_PER_PHASE:]
        seen = max([seen, *(eid for eid, _ in events)])
        out[scenario] = "".join(new)
    return out


def write_kstats(scen: Path, dest: Path) -> None:
    """Per-pool kstat files and, where captured, the whole /proc/spl/kstat/zfs tree."""
    proc = dest / "proc" / "spl" / "kstat" / "zfs"
    tree = scen / "kstat-zfs-tree.txt"
    if tree.exists():
        current: Path | None = None
        chunks: dict[Path, list[str]] = {}
        for line in tree.read_text().splitlines(keepends=True):
            m = re.match(r"^==> /proc/spl/kstat/zfs/(.+) <==$", line.rstrip("\n"))
            if m:
                current = proc / m.group(1)
                chunks[current] = []
            elif current is not None:
                chunks[current].append(line)
        for path, lines in chunks.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(lines).rstrip("\n") + "\n")
    for f in scen.glob("kstat-*-*.txt"):
        if f.name == "kstat-zfs-tree.txt":
            continue
        pool, _, name = f.stem[len("kstat-") :].partition("-")
        out = proc / pool / name
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, out)


def _zfs_properties(text: str) -> dict[str, dict[str, str]]:
    """``zfs get -Hp all`` -> {dataset: {property: value}}."""
    props: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3:
            props.setdefault(parts[0], {})[parts[1]] = parts[2]
    return props


# The lab sets no quota. The demo host gives one dataset a quota and another a refquota, as
# `zfs set` would show them (available capped at what the limit leaves), so the quota
# panels and `zmon status` have something to show; both stay well below the alerts' limit.
MIB = 1 << 20
DEMO_LIMITS = {"rz/data": ("quota", 256 * MIB), "single/docs": ("refquota", 1 * MIB)}


def with_demo_limits(name: str, p: dict[str, str]) -> dict[str, str]:
    """``zfs get`` properties of dataset ``name`` with the demo's quota or refquota set."""
    if name not in DEMO_LIMITS:
        return p
    prop, limit = DEMO_LIMITS[name]
    used = int(p["used"] if prop == "quota" else p["referenced"])
    left = max(limit - used, 0)
    return {**p, prop: str(limit), "available": str(min(int(p["available"]), left))}


def phase_anchor(scen: Path) -> list[str]:
    """The phase's ``time-anchors.tsv`` row: when its outputs were recorded.

    The lab logged no wall time per command; its newest ZFS event (``zpool events -v``
    ``time``), from the phase's last steps just before its outputs were captured, stands for
    it. Replayed with this anchor, each scrub, pool and snapshot is as old as it was on the
    lab host.
    """
    events = scen / "zpool-events-v.txt"
    if not events.exists():
        return []
    times = [int(m, 16) for m in _EVENT_TIME.findall(events.read_text(errors="replace"))]
    return [f"{PHASE_ANCHOR}\t{max(times)}"] if times else []


def time_anchors(dest: Path) -> list[str]:
    """``time-anchors.tsv`` rows: when each JSON status with a scan in progress was recorded.

    The lab did not log wall times per command, but its text status of the same moment
    prints the issue rate: the pass started at ``pass_start`` and had issued
    ``issued_bytes_per_scan`` bytes at that rate, which dates the recording.
    """
    from zmon.parsers.zpool.zpool_status import parse_zpool_status

    text, js = dest / "zpool-status-p-v-s.txt", dest / "zpool-status-int-flat.json"
    if not (text.exists() and js.exists()):
        return []
    rates = {
        p.name: p.scan.issue_rate
        for p in parse_zpool_status(text.read_bytes()).pools
        if p.scan is not None and p.scan.state == "in_progress" and p.scan.issue_rate
    }
    for pool in parse_zpool_status(js.read_bytes()).pools:
        scan = pool.scan
        rate = rates.get(pool.name)
        if scan is not None and rate and scan.pass_start and scan.pass_issued:
            return [f"{js.name}\t{scan.pass_start + scan.pass_issued / rate:.0f}"]
    return []


VDEV_HISTOGRAMS = "zpool-iostat-p-w-v.SYNTHETIC.txt"


def histogram_blocks(text: str) -> dict[str, list[str]]:
    """``zpool iostat -w`` output as name -> the lines of its block (header to last rule)."""
    blocks: dict[str, list[str]] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() and "total_wait" in lines[i]:
            name = lines[i].split()[0]
            end = i + 1
            while end < len(lines) and lines[end].strip():
                end += 1
            blocks[name] = lines[i:end]
            i = end
        i += 1
    return blocks


def _scaled_block(block: list[str], name: str, share: float) -> list[str]:
    """A copy of a histogram block for vdev ``name`` with every count times ``share``."""
    first = block[0]
    pad = max(len(first.split()[0]), len(name))
    out = [name.ljust(pad) + first[len(first.split()[0]) :]]
    for line in block[1:]:
        cells = line.split()
        if len(cells) > 1 and all(c.isdigit() for c in cells[1:]):
            width = len(line) - len(cells[0])
            numbers = [str(int(int(c) * share)) for c in cells[1:]]
            cols = "".join(n.rjust(7) for n in numbers)
            out.append(cells[0].ljust(len(line) - width) + cols.rjust(width))
        else:
            out.append(line)
    return out


def write_vdev_histograms(dest: Path) -> bool:
    """Write ``zpool iostat -p -w -v`` as the demo replays it, from the lab's pool histograms
    (``-w`` without ``-v``) and its vdev tree (``-v -p -l``). SYNTHETIC: the lab did not record
    per-vdev histograms, so each normal-class vdev gets its pool's counts split evenly among
    its siblings (mirror and raidz members alike); log, cache and spare vdevs get none."""
    from zmon.parsers.zpool.zpool_iostat import parse_zpool_iostat

    pools_w, tree = dest / "zpool-iostat-p-w.txt", dest / "zpool-iostat-v-p-l.txt"
    if not (pools_w.exists() and tree.exists()):
        return False
    blocks = histogram_blocks(pools_w.read_text())
    out: list[str] = []
    for pool in parse_zpool_iostat(tree.read_bytes()).pools:
        block = blocks.get(pool.name)
        if block is None:
            continue
        share: dict[int, float] = {0: 1.0}  # depth -> share of the pool's I/O of this row
        rows = pool.rows
        for row in rows:
            if row.depth > 0:
                siblings = sum(
                    1
                    for r in rows
                    if r.depth == row.depth
                    and r.vdev_class == "normal"
                    and _parent(rows, r) is _parent(rows, row)
                )
                parent_share = share.get(row.depth - 1, 1.0)
                share[row.depth] = parent_share / max(1, siblings)
            portion = share[row.depth] if row.vdev_class == "normal" or row.depth == 0 else 0.0
            out += _scaled_block(block, row.name, portion) + [""]
    (dest / VDEV_HISTOGRAMS).write_text("\n".join(out))
    return True


def _parent(rows: list[Any], row: Any) -> Any:
    index = rows.index(row)
    for earlier in reversed(rows[:index]):
        if earlier.depth < row.depth:
            return earlier
    return None


def derived_recordings(dest: Path) -> list[str]:
    """Recordings for commands the lab did not run verbatim, made from what it did record.

    Returns commands.tsv rows. ``zfs list -o COLUMNS`` is rebuilt from ``zfs get -Hp all``
    (the same properties, in the columns the datasets collector asks for).
    """
    from zmon.parsers.zfs.zfs_datasets import COLUMNS

    rows = []
    aliases = {
        # The lab ran -t -D -p; -t only adds per-vdev trim notes, which the dedup parser skips.
        "zpool-status-t-D.txt": "zpool status -D -p",
        # The lab's JSON capture used --json-flat-vdevs --json-pool-key-guid; the JSON parser
        # reads nested and flat vdevs and name or guid keys alike, so it stands for this one.
        "zpool-status-int-flat.json": "zpool status -j --json-int -p -s -t -i -v",
        "zpool-status-P-L.txt": "zpool status -P -L",
        # Options in the order the zpool collector gives them when it reads text.
        "zpool-status-p-v-s.txt": "zpool status -p -s -v",
        # The iostat parser reads the -H table (the tree inferred) like the aligned one.
        "zpool-iostat-H-p-v-l-q.txt": "zpool iostat -v -p -l -q",
    }
    # The lab ran -w without -v: pool histograms only. The per-vdev ones are made from them.
    if write_vdev_histograms(dest):
        aliases[VDEV_HISTOGRAMS] = "zpool iostat -p -w -v"
    elif (dest / "zpool-iostat-p-w.txt").exists():
        aliases["zpool-iostat-p-w.txt"] = "zpool iostat -p -w -v"
    for file, command in aliases.items():
        if (dest / file).exists():
            rows.append(f"{file}\t0\t0\t{command}")
    pool_get = dest / "zpool-get-Hp-all.txt"
    if pool_get.exists():
        guids = [ln for ln in pool_get.read_text().splitlines() if ln.split("\t")[1:2] == ["guid"]]
        (dest / "derived-zpool-get-guid.txt").write_text("".join(x + "\n" for x in guids))
        rows.append("derived-zpool-get-guid.txt\t0\t0\tzpool get -Hp guid")
    get_all = dest / "zfs-get-Hp-all.txt"
    pool_list = dest / "zpool-list-Hp-o-cols.txt"
    if get_all.exists() and pool_list.exists():
        # the pools' root datasets' creation, as the zpool_list collector asks for it
        pools = [ln.split("\t")[0] for ln in pool_list.read_text().splitlines() if ln.strip()]
        created = [
            ln
            for ln in get_all.read_text().splitlines()
            if ln.split("\t")[:2] in ([p, "creation"] for p in pools)
        ]
        (dest / "derived-zfs-get-creation.txt").write_text("".join(x + "\n" for x in created))
        rows.append(f"derived-zfs-get-creation.txt\t0\t0\tzfs get -Hp creation {' '.join(pools)}")
    if get_all.exists():
        props = _zfs_properties(get_all.read_text())
        lines, snaps = [], []
        for name, p in props.items():
            kind = p.get("type", "")
            if kind in ("filesystem", "volume"):
                p = with_demo_limits(name, p)
                lines.append("\t".join(name if c == "name" else p.get(c, "-") for c in COLUMNS))
            elif kind == "snapshot":
                snaps.append(f"{name}\t{p['creation']}")
        (dest / "derived-zfs-list-datasets.txt").write_text("".join(x + "\n" for x in lines))
        (dest / SNAPSHOT_TIMES).write_text("".join(x + "\n" for x in snaps))
        rows.append(
            "derived-zfs-list-datasets.txt\t0\t0\tzfs list -Hp -t filesystem,volume -o "
            + ",".join(COLUMNS)
        )
        rows.append(f"{SNAPSHOT_TIMES}\t0\t0\tzfs list -Hp -t snapshot -o name,creation")
    return rows


def sata_disk(lsblk: dict[str, Any], serial: str) -> SataDisk | None:
    """The kernel's names of the SATA disk with this serial: ``sdb``, ``1:0:0:0``, ``ata2``."""
    for dev in lsblk.get("blockdevices") or []:
        if dev.get("serial") == serial and dev.get("hctl"):
            host = int(dev["hctl"].split(":")[0])
            return SataDisk(dev["name"], dev["hctl"], f"ata{host + 1}")
    return None


def kernel_new(captures: Path, index: int) -> str:
    """Kernel messages new in phase ``index`` (dmesg form).

    The dmesg lines the previous phase of the loop did not have, then libata's messages for
    the cable fault's CRC errors new in the phase, then the failing disk's failed reads.
    """
    phase: Phase = PHASES[index]
    previous: Phase = PHASES[index - 1]  # the loop: healthy follows resilvered

    def dmesg(p: Phase) -> str:
        path = captures / p.scenario / "dmesg.txt"
        return path.read_text(errors="replace") if path.exists() else ""

    lines = new_lines(dmesg(phase), dmesg(previous))
    lsblk_path = captures / PHASES[0].scenario / "lsblk.json"
    lsblk = json.loads(lsblk_path.read_text()) if lsblk_path.exists() else {}
    start = last_time(dmesg(phase).splitlines()) + 2.0
    cable = sata_disk(lsblk, CABLE_FAULT_SERIAL)
    if cable is not None:
        lines += cable_lines(cable.port, previous, phase, start)
    media = sata_disk(lsblk, MEDIA_FAULT_SERIAL)
    if media is not None:
        lines += media_lines(media, previous, phase, max(start, last_time(lines) + 1.5))
    return "".join(line + "\n" for line in lines)


def refresh(captures: Path, outdir: Path = DATA) -> None:
    scen_root = outdir / "scenarios"
    if scen_root.exists():
        shutil.rmtree(scen_root)
    events = split_in_capture_order(
        {p.scenario: (captures / p.scenario / "zpool-events-v.txt").read_text() for p in PHASES}
    )
    for index, phase in enumerate(PHASES):
        scen = captures / phase.scenario
        dest = scen_root / phase.scenario
        if dest.exists():
            continue
        dest.mkdir(parents=True)
        rows = []
        for line in (scen / "COMMANDS.tsv").read_text().splitlines():
            file = line.split("\t", 1)[0]
            if KEEP.match(file) and (scen / file).exists():
                shutil.copyfile(scen / file, dest / file)
                rows.append(line)
        rows += derived_recordings(dest)
        anchors = time_anchors(dest) + phase_anchor(scen)
        if anchors:
            (dest / "time-anchors.tsv").write_text("\n".join(anchors) + "\n")
        earlier = [scen_root / p.scenario for p in PHASES[:index]]
        shared = SharedWriter(dest, earlier)
        rows += smart_recordings(shared, captures / PHASES[0].scenario, phase)
        (dest / "commands.tsv").write_text("\n".join(rows) + "\n")
        kernel = kernel_new(captures, index)
        if kernel:
            (dest / "kernel-new.txt").write_text(kernel)
        write_kstats(scen, dest)
        (dest / "events-new.txt").write_text(events[phase.scenario])
    base = captures / PHASES[0].scenario / "arcstats.txt"
    shutil.copyfile(base, outdir / "arcstats.txt")
    write_variants(scen_root)  # they point into the scenarios just rewritten


if __name__ == "__main__":  # pragma: no cover
    refresh(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else DATA)
