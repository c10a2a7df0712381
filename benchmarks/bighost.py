"""A seeded synthetic big storage host: the programs and trees zmon reads, at any scale.

``build_host(root, vdevs=1000)`` writes, under ``root``, what a host with that many leaf vdevs
shows to zmon, scaled from the full size (``vdevs=1000``):

- one pool ``big``: ``vdevs`` leaves in raidz2 groups of 10, a special mirror, a log mirror,
  two cache devices and spares (``zpool status -j``, ``zpool iostat`` tables and ``-w -v``
  histograms for every vdev, ``zpool get``/``zpool list``);
- 10 datasets and 50 snapshots per leaf (10,000 and 50,000 at full size), with objset kstats;
- SMART for half as many disks as leaves (500 at full size): SATA, SAS and NVMe mixed, one
  in ten in standby;
- a sysfs block tree and ``/dev/disk`` links for every disk, the ZFS kstats, an empty
  ``zpool events`` log and a kernel log file.

The tree is laid out by ``zmon.demo.fakehost``, as the demo host's is, and the programs are
the demo host's (``zmon/demo/fakebin.py``): each prints the recorded answer for its exact
command line from ``current/commands.tsv``. ``RecordedRunner`` answers the same
recordings in-process, to time zmon's own work without the cost of starting fake programs.
``write_kernel_log`` writes a large kernel log with bursts of disk faults.

The same seed gives the same host. Run ``python -m benchmarks.bighost ROOT --vdevs 100`` to
write one and print the ``zmon`` flags that point at it.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.iostat_cardinality import histogram_text, table_text
from benchmarks.kernel_log_bench import FAULTS, NOISE
from zmon.base.runner import CommandResult
from zmon.collecting.config import Config
from zmon.collectors.datasets import AUTO_SNAPSHOT_PROPERTY, columns_for
from zmon.collectors.smart import reads_sas_phys
from zmon.demo.disks import BlockTree
from zmon.demo.fakehost import FakeHost, programs

REPO = Path(__file__).resolve().parents[1]


DEMO = REPO / "zmon" / "demo" / "data" / "scenarios" / "01-healthy"
SYNTHETIC = REPO / "tests" / "fixtures" / "disks" / "synthetic"
POOL = "big"
GROUP_WIDTH = 10
KERN_LOG = "var/log/kern.log"
FULL_KERNEL_LOG = 1 << 30  # bytes at vdevs=1000


@dataclass(frozen=True)
class Shape:
    """How much of everything a host with ``vdevs`` leaf vdevs has."""

    vdevs: int

    @property
    def groups(self) -> int:
        return max(1, self.vdevs // GROUP_WIDTH)

    @property
    def spares(self) -> int:
        return max(1, self.vdevs // 100)

    @property
    def datasets(self) -> int:
        return 10 * self.vdevs

    @property
    def snapshots(self) -> int:
        return 50 * self.vdevs

    @property
    def smart_disks(self) -> int:
        return max(1, self.vdevs // 2)

    @property
    def kernel_log_bytes(self) -> int:
        return FULL_KERNEL_LOG * self.vdevs // 1000


def disk_name(index: int) -> str:
    """``sda`` .. ``sdz``, ``sdaa`` ..: the kernel's names for SCSI disks."""
    letters = ""
    n = index + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(ord("a") + rem) + letters
    return "sd" + letters


@dataclass
class Layout:
    """The pool's vdevs, by class, as disk names (leaves) in groups."""

    data: list[list[str]]  # raidz2 groups
    special: list[str]
    log: list[str]
    cache: list[str]
    spares: list[str]

    @property
    def disks(self) -> list[str]:
        extra = self.special + self.log + self.cache + self.spares
        return [d for g in self.data for d in g] + extra


def layout(shape: Shape) -> Layout:
    names = iter(disk_name(i) for i in range(10**6))
    width = GROUP_WIDTH if shape.vdevs >= GROUP_WIDTH else shape.vdevs
    data = [[next(names) for _ in range(width)] for _ in range(shape.groups)]
    pair = [[next(names) for _ in range(2)] for _ in range(3)]
    return Layout(data, *pair, [next(names) for _ in range(shape.spares)])


class Recorder:
    """Writes recordings and the ``commands.tsv`` that fakebin looks commands up in."""

    def __init__(self, phase_dir: Path) -> None:
        self.dir = phase_dir
        self.rows: list[str] = []
        self.count = 0

    def add(self, argv: Sequence[str], data: bytes | str, status: int = 0) -> None:
        self.count += 1
        name = f"out-{self.count:05d}"
        (self.dir / name).write_bytes(data.encode() if isinstance(data, str) else data)
        self.rows.append(f"{name}\t{status}\t0\t{shlex.join(argv)}")

    def close(self) -> None:
        (self.dir / "commands.tsv").write_text("\n".join(self.rows) + "\n")


# ---- zpool


def _leaf(rng: random.Random, name: str, parent: str, cls: str) -> dict[str, Any]:
    size = 16_000_900_661_248
    return {
        "name": name,
        "vdev_type": "disk",
        "guid": rng.getrandbits(63),
        "path": f"/dev/{name}1",
        "class": cls,
        "state": "ONLINE",
        "parent": parent,
        "rep_dev_size": size,
        "phys_space": size,
        "read_errors": 0,
        "write_errors": 0,
        "checksum_errors": 0,
        "slow_ios": 0,
        "trim_state": "UNTRIMMED",
        "trim_notsup": 0,
    }


def _group(rng: random.Random, name: str, typ: str, cls: str, disks: list[str]) -> dict[str, Any]:
    children = {d: _leaf(rng, d, name, cls) for d in disks}
    return {
        "name": name,
        "vdev_type": "disk",
        "guid": rng.getrandbits(63),
        "class": cls,
        "state": "ONLINE",
        "parent": POOL,
        "alloc_space": 90_000_000_000_000,
        "total_space": 128_000_000_000_000,
        "def_space": 96_000_000_000_000,
        "rep_dev_size": 128_000_000_000_000,
        "read_errors": 0,
        "write_errors": 0,
        "checksum_errors": 0,
        "vdevs": children,
    }


def zpool_status_json(rng: random.Random, lay: Layout) -> str:
    """``zpool status -j --json-int -p -s -t -i -v`` (OpenZFS 2.3) of the one pool."""
    guid = rng.getrandbits(63)
    top = {
        f"raidz2-{i}": _group(rng, f"raidz2-{i}", "raidz", "normal", g)
        for i, g in enumerate(lay.data)
    }
    root = {"name": POOL, "vdev_type": "root", "guid": guid, "class": "normal",
            "state": "ONLINE", "alloc_space": 9_000_000_000_000_000,
            "total_space": 12_800_000_000_000_000, "def_space": 9_600_000_000_000_000,
            "read_errors": 0, "write_errors": 0, "checksum_errors": 0, "vdevs": top}  # fmt: skip
    pool = {
        "name": POOL, "state": "ONLINE", "pool_guid": guid, "txg": 123456, "spa_version": 5000,
        "zpl_version": 5, "vdevs": {POOL: root},
        "special": {"mirror-s": _group(rng, "mirror-s", "mirror", "special", lay.special)},
        "logs": {"mirror-l": _group(rng, "mirror-l", "mirror", "log", lay.log)},
        "l2cache": {d: _leaf(rng, d, POOL, "l2cache") for d in lay.cache},
        "spares": {d: {**_leaf(rng, d, POOL, "spare"), "state": "AVAIL"} for d in lay.spares},
        "error_count": 0,
    }  # fmt: skip
    version = {"command": "zpool status", "vers_major": 0, "vers_minor": 1}
    return json.dumps({"output_version": version, "pools": {POOL: pool}}, indent=1)


def iostat_rows(lay: Layout) -> list[tuple[int, str]]:
    rows = [(0, POOL)]
    for i, group in enumerate(lay.data):
        rows.append((1, f"raidz2-{i}"))
        rows += [(2, d) for d in group]
    return rows


def zpool_get_all(template: str) -> str:
    """The demo's ``zpool get -Hp all`` of its first pool, renamed to ours."""
    first = template.split("\t", 1)[0]
    rows = [
        line.split("\t", 1)[1] for line in template.splitlines() if line.startswith(first + "\t")
    ]
    return "".join(f"{POOL}\t{row}\n" for row in rows)


def zpool_list_cols() -> str:
    size, alloc = 12_800_000_000_000_000, 9_000_000_000_000_000
    return (
        f"{POOL}\t{size}\t{alloc}\t{size - alloc}\t-\t-\t12\t70\t1.00\tONLINE\t-\t"
        "15239731439872754938\n"
    )


# ---- datasets


SNAPSHOT_EPOCH = 1_790_000_000  # the first generated snapshot's creation time


def datasets(shape: Shape, rng: random.Random) -> tuple[list[str], str, str]:
    """Names, ``zfs list`` of filesystems and volumes, and ``zfs list -t snapshot`` names and
    creation times."""
    names = [POOL]
    per_parent = 100
    while len(names) < shape.datasets:
        parent = names[(len(names) - 1) // per_parent]
        names.append(f"{parent}/ds{len(names)}")
    rows = []
    for i, name in enumerate(names):
        kind = "volume" if i % 50 == 49 else "filesystem"
        used = rng.randrange(1 << 30, 1 << 40)
        volsize = str(1 << 40) if kind == "volume" else "-"
        rows.append(
            f"{name}\t{kind}\t{used}\t{1 << 50}\t{used}\t1.35\t1.35\t0\t0\t0\t0\t"
            f"{used * 2}\t{used * 2}\t{used // 10}\t{used // 20}\t{used}\t0\t0\t"
            f"{volsize}\t{objset_id(i)}\t{SNAPSHOT_EPOCH - 86400}\ttrue\n"
        )
    snaps = [
        f"{names[i % len(names)]}@auto-{i // len(names):04d}\t{SNAPSHOT_EPOCH + i}"
        for i in range(shape.snapshots)
    ]
    return names, "".join(rows), "".join(s + "\n" for s in snaps)


def objset_id(index: int) -> int:
    """The objset id of the dataset ``datasets`` lists at ``index`` (its kstat file is
    ``objset-0x<id>``)."""
    return 0x100 + index


def objset_kstat(template: str, name: str, rng: random.Random) -> str:
    out = []
    for line in template.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "dataset_name":
            line = f"{'dataset_name':<32}7    {name}"
        elif (
            len(parts) == 3
            and parts[1] == "4"
            and parts[0] in ("writes", "reads", "nread", "nwritten")
        ):
            line = f"{parts[0]:<32}4    {rng.randrange(1 << 40)}"
        out.append(line)
    return "\n".join(out) + "\n"


# ---- SMART


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def smart_disks(shape: Shape, lay: Layout) -> list[tuple[str, str, str]]:
    """(device path, -d type, template kind) for each SMART disk: SATA, SAS, NVMe mixed."""
    out = []
    for i in range(shape.smart_disks):
        kind = ("sat", "scsi", "nvme")[i % 3]
        if i % 10 == 9:
            kind = "standby"
        if kind == "nvme":
            out.append((f"/dev/nvme{i}", "nvme", kind))
        else:
            out.append((f"/dev/{lay.disks[i]}", "scsi" if kind == "scsi" else "sat", kind))
    return out


def smart_argv(path: str, dtype: str) -> list[str]:
    """The smart collector's command for one disk (SAS-capable types also read -l sasphy)."""
    sas = ["-l", "sasphy"] if reads_sas_phys(dtype) else []
    return ["smartctl", "--json=c", "--nocheck=standby", "--all", *sas, "-d", dtype, path]


def smart_report(template: dict[str, Any], path: str, dtype: str, serial: str) -> str:
    doc = json.loads(json.dumps(template))
    argv = smart_argv(path, dtype)
    doc["smartctl"]["argv"] = argv
    doc["device"] = {
        **doc.get("device", {}),
        "name": path,
        "info_name": path + (" [SAT]" if dtype == "sat" else ""),
    }
    if "serial_number" in doc:
        doc["serial_number"] = serial
    return json.dumps(doc, separators=(",", ":"))


# ---- the tree


@dataclass
class BigHost(FakeHost):
    """A written big host: where it is and how to point zmon at it."""

    shape: Shape
    layout: Layout

    @property
    def kernel_log(self) -> Path:
        return self.paths.root(KERN_LOG)

    def apply(self, cfg: Config) -> Config:
        """``cfg`` pointed at this host: paths, programs, the kernel log file."""
        return self.point(cfg, {"kernel_log": {"source": "file", "files": ["/" + KERN_LOG]}})

    def config_toml(self, listen: str = "127.0.0.1:0", state_dir: Path | None = None) -> str:
        """A ``zmon serve`` configuration for this host: default intervals and options (and
        a state directory of its own, for several servers on one host)."""
        lines = ["[web]", f'listen_address = "{listen}"', "[paths]"]
        for key in ("procfs", "sysfs", "rootfs"):
            lines.append(f'{key} = "{getattr(self.paths, key)}"')
        lines.append(f'state_dir = "{state_dir or self.paths.state_dir}"')
        lines.append("[binaries]")
        lines += [f'{b} = "{self.program(b)}"' for b in programs()]
        lines += ["[collectors.kernel_log]", 'source = "file"', f'files = ["/{KERN_LOG}"]']
        return "\n".join(lines) + "\n"

    def runner(self) -> RecordedRunner:
        return RecordedRunner(self.root)


def build_host(root: Path, vdevs: int = 1000, seed: int = 17, kernel_log_bytes: int = 0) -> BigHost:
    """Write a big host with ``vdevs`` leaf vdevs under ``root`` (made if missing)."""
    shape = Shape(vdevs)
    rng = random.Random(seed)
    lay = layout(shape)
    big = BigHost(root, shape, lay)
    big.create(skip_site=True)
    (root / "current").mkdir(exist_ok=True)
    rec = Recorder(root / "current")

    # zpool
    status = zpool_status_json(rng, lay)
    for verbose in ((), ("-v",)):
        rec.add(["zpool", "status", "-j", "--json-int", "-p", "-s", "-t", "-i", *verbose], status)
    rows = iostat_rows(lay)
    rec.add(["zpool", "iostat", "-v", "-p", "-l", "-q"], table_text(rows))
    rec.add(["zpool", "iostat", "-p", "-w", "-v"], histogram_text(rows))
    rec.add(["zpool", "iostat", "-p", "-w"], histogram_text(rows[:1]))
    get_all = zpool_get_all((DEMO / "zpool-get-Hp-all.txt").read_text())
    rec.add(["zpool", "get", "-Hp", "all"], get_all)
    rec.add(["zpool", "get", "-Hp", "guid"], f"{POOL}\tguid\t15239731439872754938\t-\n")
    cols = (
        "name,size,allocated,free,checkpoint,expandsize,fragmentation,capacity,dedupratio,"
        "health,altroot,guid"
    )
    rec.add(["zpool", "list", "-Hp", "-o", cols], zpool_list_cols())
    rec.add(
        ["zpool", "status", "-D", "-p"],
        f"  pool: {POOL}\n state: ONLINE\n\nerrors: No known data errors\n\n"
        " dedup: no DDT entries\n",
    )
    rec.add(["zpool", "version", "-j"], (DEMO / "zpool-version.json").read_text())
    rec.add(["zfs", "version"], (DEMO / "zfs-version.txt").read_text())
    rec.add(["zfs", "get", "-Hp", "creation", POOL], f"{POOL}\tcreation\t{SNAPSHOT_EPOCH}\t-\n")

    # datasets
    names, listing, snaps = datasets(shape, rng)
    # every dataset is in the snapshot policy (com.sun:auto-snapshot=true, inherited)
    dcols = ",".join(columns_for(AUTO_SNAPSHOT_PROPERTY))
    rec.add(["zfs", "list", "-Hp", "-t", "filesystem,volume", "-o", dcols], listing)
    rec.add(["zfs", "list", "-Hp", "-t", "snapshot", "-o", "name,creation"], snaps)

    # kstats: the demo's global ones, one pool directory like the demo's first pool
    src = DEMO / "proc" / "spl" / "kstat" / "zfs"
    dst = root / "proc" / "spl" / "kstat" / "zfs"
    dst.mkdir(parents=True, exist_ok=True)
    for item in src.iterdir():
        if item.is_file():
            shutil.copyfile(item, dst / item.name)
    pool_dir = dst / POOL
    pool_dir.mkdir(exist_ok=True)
    for item in (src / "rz").iterdir():
        if not item.name.startswith("objset-"):
            shutil.copyfile(item, pool_dir / item.name)
    objset = (src / "rz" / "objset-0x36").read_text()
    for i, name in enumerate(names):
        (pool_dir / f"objset-0x{objset_id(i):x}").write_text(objset_kstat(objset, name, rng))
    params = root / "sys" / "module" / "zfs" / "parameters"
    params.mkdir(parents=True, exist_ok=True)
    for param in ("zfs_arc_max", "zfs_arc_min", "zfs_arc_meta_limit", "zfs_dirty_data_max"):
        (params / param).write_text("0\n")
    (root / "sys" / "module" / "zfs" / "version").write_text("2.3.2-1\n")

    # disks: sysfs and /dev/disk
    devices = []
    for i, name in enumerate(lay.disks):
        host = i
        devices.append(
            {
                "name": name,
                "type": "disk",
                "tran": "sata",
                "hctl": f"{host}:0:0:0",
                "model": "BIG HDD 16TB",
                "serial": f"BIG{i:06d}",
                "rev": "SN04",
                "vendor": "ATA",
                "maj:min": f"{8 + i // 16}:{(i % 16) * 16}",
                "size": 16_000_900_661_248,
                "rota": True,
                "log-sec": 512,
                "phy-sec": 4096,
                "children": [
                    {
                        "name": name + "1",
                        "maj:min": f"{8 + i // 16}:{(i % 16) * 16 + 1}",
                        "size": 16_000_898_564_096,
                    }
                ],
            }
        )
    BlockTree(root).build({"blockdevices": devices})

    # SMART
    templates = {"sat": _load(DEMO / "derived-smartctl-sda.json"),
                 "nvme": _load(DEMO / "derived-smartctl-nvme0.json"),
                 "scsi": _load(SYNTHETIC / "sas_seagate_grown12_selftest_failed_7.3.json"),
                 "standby": _load(SYNTHETIC / "ata_standby_nocheck_7.3.json")}  # fmt: skip
    version = (DEMO / "derived-smartctl-version.txt").read_text()
    rec.add(["smartctl", "--version"], version)
    scan = _load(DEMO / "derived-smartctl-scan-open.json")
    scan["devices"] = []
    for path, dtype, kind in smart_disks(shape, lay):
        proto = {"sat": "ATA", "scsi": "SCSI", "nvme": "NVMe"}[dtype]
        info = path + (" [SAT]" if dtype == "sat" else "")
        scan["devices"].append({"name": path, "info_name": info, "type": dtype, "protocol": proto})
        report = smart_report(templates[kind], path, dtype, f"S{rng.getrandbits(40):010X}")
        status = int(templates[kind]["smartctl"].get("exit_status", 0))
        rec.add(smart_argv(path, dtype), report, status)
    rec.add(["smartctl", "--scan-open", "--json=c"], json.dumps(scan, separators=(",", ":")))
    rec.close()

    # events, kernel log
    (root / "events.log").write_bytes(b"")
    log = root / "rootfs" / KERN_LOG
    log.parent.mkdir(parents=True, exist_ok=True)
    if kernel_log_bytes:
        write_kernel_log(log, kernel_log_bytes, seed=seed)
    else:
        log.write_bytes(b"")
    return big


# ---- the kernel log


def write_kernel_log(path: Path, size: int, seed: int = 17, fault_ratio: float = 0.01) -> int:
    """Write about ``size`` bytes of syslog kernel lines, faults in bursts; return the lines.

    One line in ``1 / fault_ratio`` is a fault on average, but they come in bursts of 5-50
    lines on one disk, as a failing disk logs them. A block of distinct lines is generated
    with the seed and repeated with changing timestamps, so gigabytes are written quickly.
    """
    rng = random.Random(seed)
    block: list[str] = []
    while len(block) < min(200_000, size // 50):
        if rng.random() < fault_ratio / 25:
            p, letter = rng.randrange(8), "abcdefgh"[rng.randrange(8)]
            for _ in range(rng.randrange(5, 50)):
                block.append(
                    rng.choice(FAULTS).format(n=rng.randrange(100000), h="00", p=p, l=letter)
                )
        else:
            block.append(
                rng.choice(NOISE).format(
                    n=rng.randrange(100000),
                    h=f"{rng.randrange(256):02x}",
                    p=rng.randrange(8),
                    l="abcdefgh"[rng.randrange(8)],
                )
            )
    written = lines = 0
    with open(path, "w") as fh:
        rep = 0
        while written < size:
            stamp = f"May  {2 + rep % 27:2d} "
            chunk = "".join(
                f"{stamp}{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d} nas {body}\n"
                for i, body in enumerate(block)
            )
            if written + len(chunk) > size:
                chunk = chunk[: chunk.rfind("\n", 0, size - written) + 1]
                if not chunk:
                    break
            fh.write(chunk)
            written += len(chunk)
            lines += chunk.count("\n")
            rep += 1
    return lines


# ---- in-process answers


class RecordedRunner:
    """Answers commands from the host's recordings in-process, as its programs would."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.table: dict[tuple[str, ...], tuple[Path, int]] = {}
        self.missing: list[tuple[str, ...]] = []
        phase = root / "current"
        for line in (phase / "commands.tsv").read_text().splitlines():
            file, status, _, command = line.split("\t")[:4]
            self.table[tuple(shlex.split(command))] = (phase / file, int(status))

    def binary(self, name: str) -> str:
        return str(self.root / "bin" / name)

    def run(
        self, argv: Sequence[str], *, timeout: float | None = None, stdin: bytes | None = None
    ) -> CommandResult:
        key = tuple(argv)
        found = self.table.get(key)
        if found is None:
            self.missing.append(key)
            return CommandResult(key, 2, b"", b"no recording of this command\n", 0.0)
        path, status = found
        return CommandResult(key, status, path.read_bytes(), b"", 0.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--vdevs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--kernel-log-bytes", type=int, default=0)
    args = ap.parse_args(argv)
    host = build_host(args.root, args.vdevs, args.seed, args.kernel_log_bytes)
    flags = [
        f"--path.procfs={host.paths.procfs}",
        f"--path.sysfs={host.paths.sysfs}",
        f"--path.rootfs={host.paths.rootfs}",
    ]
    flags += [f"--binary.{b}={host.program(b)}" for b in programs()]
    print(" ".join(flags))
    return 0


if __name__ == "__main__":
    sys.exit(main())
