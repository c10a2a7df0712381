"""The demo host's kernel log: ``/var/log/kern.log`` growing with the story.

At refresh time each scenario gets ``kernel-new.txt``: the lines of the lab's ``dmesg`` that are
new since the previous phase of the loop, then libata's messages for the faulty cable (a
corrupted frame seen by the disk, ``ICRC ABRT``, or by the host, ``BadCRC``; link resets; the
link slowed down step by step), then the failing disk's uncorrectable reads (libata's ``UNC``
media error, the SCSI disk's ``Medium Error`` sense, the block layer's ``I/O error``), in the
formats Linux 6.1 prints them. Lines keep dmesg's ``[seconds] message`` form there. When the
demo enters a phase, the host appends them to ``kern.log`` as rsyslog writes kernel messages:
``Mon DD HH:MM:SS host kernel: [uptime] ...``.
"""

from __future__ import annotations

import math
import random
import re
import time
from collections.abc import Iterable
from typing import NamedTuple

from zmon.demo.timeline import Phase

HOSTNAME = "zfsvm"  # the lab VM
SPEEDS = (6.0, 3.0, 1.5)  # SATA generations 3, 2, 1
# SStatus / SControl libata prints for a link up at each speed (SControl limited below gen 3).
_LINK_UP = {6.0: ("133", "300"), 3.0: ("123", "320"), 1.5: ("113", "310")}
_DMESG = re.compile(r"^\[\s*(\d+(?:\.\d+)?)\](.*)$")
MAX_BLOCKS = 5
SECTORS_PER_READ = 8  # a failed 4 KiB read leaves its eight 512-byte sectors pending
# Where ZFS data lives on the lab's disks: partition 1 from sector 2048, 1014 MiB, less the
# vdev labels and boot area (4 MiB at the start, 512 KiB at the end).
DATA_SECTORS = (2048 + 8192, 2048 + 2076672 - 1024)
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def new_lines(current: str, previous: str) -> list[str]:
    """Lines of ``current`` (a dmesg capture) that ``previous`` does not have, in order."""
    seen = set(previous.splitlines())
    return [line for line in current.splitlines() if line.strip() and line not in seen]


def last_time(lines: Iterable[str]) -> float:
    """The timestamp of the last dmesg line that has one (0 when none does)."""
    stamp = 0.0
    for line in lines:
        m = _DMESG.match(line)
        if m:
            stamp = float(m.group(1))
    return stamp


def _speed_steps(before: float, after: float) -> list[float]:
    """The speeds libata limits the link to, one generation at a time, going down."""
    if after >= before:
        return []
    return [s for s in SPEEDS if after <= s < before]


def cable_lines(port: str, previous: Phase, phase: Phase, start: float) -> list[str]:
    """libata's messages (dmesg form, from ``start`` seconds) for the CRC errors new in ``phase``.

    One error-handler run per block: the disk or the host saw a corrupted frame, libata reset
    the link, slowing it down a generation when the errors repeat. Tags and sectors are drawn
    from a generator seeded with the phase name, so a refresh writes the same lines.
    """
    new = phase.crc_errors - previous.crc_errors
    if new <= 0:
        return []
    steps = _speed_steps(previous.link_gbps, phase.link_gbps)
    blocks = max(len(steps) + 1, min(MAX_BLOCKS, math.ceil(new / 5)))
    rng = random.Random(phase.name)
    out: list[str] = []
    t = start
    speed = previous.link_gbps if steps else phase.link_gbps
    for i in range(blocks):
        step_at = blocks - len(steps)
        slowdown = steps[i - step_at] if i >= step_at else None
        host_seen = slowdown is not None or i % 2 == 1
        lines = _block(port, rng, host_seen)
        if slowdown is not None:
            lines.append(f"{port}: limiting SATA link speed to {slowdown:.1f} Gbps")
            speed = slowdown
        status, control = _LINK_UP[speed]
        stamps = [t + k * 0.000004 for k in range(len(lines))]
        up = t + 0.31 + rng.random() * 0.05
        tail = [
            (stamps[-1] + 0.000006, f"{port}: hard resetting link"),
            (up, f"{port}: SATA link up {speed:.1f} Gbps (SStatus {status} SControl {control})"),
            (up + 0.0018, f"{port}.00: configured for UDMA/100"),
            (up + 0.0019, f"{port}: EH complete"),
        ]
        out += [_dmesg(s, line) for s, line in zip(stamps, lines, strict=True)]
        out += [_dmesg(s, line) for s, line in tail]
        t = up + 1.0 + rng.random() * 2.0
    return out


def _block(port: str, rng: random.Random, host_seen: bool) -> list[str]:
    """One failed NCQ command: seen by the host (BadCRC) or reported by the disk (ICRC)."""
    dev = f"{port}.00"
    tag = rng.randrange(32)
    lba = rng.randrange(2048, 2076672) & ~7
    write = rng.random() < 0.5
    op, name, way = ("61", "WRITE", "out") if write else ("60", "READ", "in")
    lo = f"{lba & 0xFF:02x}:{(lba >> 8) & 0xFF:02x}:{(lba >> 16) & 0xFF:02x}"
    cmd = f"{dev}: cmd {op}/08:{tag << 3:02x}:{lo}/00:00:00:00:00/40 tag {tag} ncq dma 4096 {way}"
    if host_seen:
        return [
            f"{dev}: exception Emask 0x10 SAct 0x{1 << tag:x} SErr 0x280100 action 0x6 frozen",
            f"{dev}: irq_stat 0x08000000, interface fatal error",
            f"{port}: SError: {{ UnrecovData 10B8B BadCRC }}",
            f"{dev}: failed command: {name} FPDMA QUEUED",
            cmd,
            f"         res 40/00:{tag << 3:02x}:{lo}/00:00:00:00:00/40 Emask 0x10 (ATA bus error)",
            f"{dev}: status: {{ DRDY }}",
        ]
    return [
        f"{dev}: exception Emask 0x10 SAct 0x{1 << tag:x} SErr 0x0 action 0x6",
        f"{dev}: failed command: {name} FPDMA QUEUED",
        cmd,
        f"         res 41/84:08:{lo}/00:00:00:00:00/40 Emask 0x10 (ATA bus error)",
        f"{dev}: status: {{ DRDY ERR }}",
        f"{dev}: error: {{ ICRC ABRT }}",
    ]


class SataDisk(NamedTuple):
    """A SATA disk as the kernel names it: ``sda``, its SCSI address ``0:0:0:0``, ``ata1``."""

    name: str
    hctl: str
    port: str


def media_lines(disk: SataDisk, previous: Phase, phase: Phase, start: float) -> list[str]:
    """The kernel's messages (dmesg form, from ``start``) for sectors newly pending in ``phase``.

    One failed NCQ read of 4 KiB per ``SECTORS_PER_READ`` sectors: libata's error handler
    reports the disk's uncorrectable error (``UNC``, a media error), the SCSI disk driver the
    sense data libata made of it, the block layer the failed request. Tags and sectors are
    drawn from a generator seeded with the phase name, so a refresh writes the same lines.
    """
    new = phase.pending_sectors - previous.pending_sectors
    if new <= 0:
        return []
    rng = random.Random(f"{phase.name} media")
    out: list[str] = []
    t = start
    for _ in range(math.ceil(new / SECTORS_PER_READ)):
        lines = _unc_block(disk, rng)
        out += [_dmesg(t + k * 0.000004, line) for k, line in enumerate(lines)]
        t += 2.0 + rng.random() * 3.0
    return out


def _unc_block(disk: SataDisk, rng: random.Random) -> list[str]:
    """One READ FPDMA QUEUED the disk could not read, as libata, sd and the block layer log it."""
    dev, sd = f"{disk.port}.00", f"sd {disk.hctl}: [{disk.name}]"
    tag = rng.randrange(32)
    lba = rng.randrange(*DATA_SECTORS) & ~(SECTORS_PER_READ - 1)
    lo = f"{lba & 0xFF:02x}:{(lba >> 8) & 0xFF:02x}:{(lba >> 16) & 0xFF:02x}"
    cdb = " ".join(f"{b:02x}" for b in lba.to_bytes(4, "big"))
    return [
        f"{dev}: exception Emask 0x0 SAct 0x{1 << tag:x} SErr 0x0 action 0x0",
        f"{dev}: irq_stat 0x40000008",
        f"{dev}: failed command: READ FPDMA QUEUED",
        f"{dev}: cmd 60/08:{tag << 3:02x}:{lo}/00:00:00:00:00/40 tag {tag} ncq dma 4096 in",
        f"         res 41/40:08:{lo}/00:00:00:00:00/40 Emask 0x409 (media error) <F>",
        f"{dev}: status: {{ DRDY ERR }}",
        f"{dev}: error: {{ UNC }}",
        f"{dev}: configured for UDMA/100",
        f"{sd} tag#{tag} FAILED Result: hostbyte=DID_OK driverbyte=DRIVER_OK cmd_age=0s",
        f"{sd} tag#{tag} Sense Key : Medium Error [current] ",
        f"{sd} tag#{tag} Add. Sense: Unrecovered read error - auto reallocate failed",
        f"{sd} tag#{tag} CDB: Read(10) 28 00 {cdb} 00 00 08 00",
        f"I/O error, dev {disk.name}, sector {lba} op 0x0:(READ) flags 0x700 phys_seg 1 "
        "prio class 2",
        f"{disk.port}: EH complete",
    ]


def _dmesg(stamp: float, message: str) -> str:
    return f"[{stamp:12.6f}] {message}"


def syslog_lines(text: str, boot_time: float, now: float | None = None) -> str:
    """``kernel-new.txt`` lines as rsyslog writes them to kern.log, the first one at ``now``.

    The kernel timestamps become the demo's uptime (seconds since ``boot_time``), keeping the
    spacing of the recorded ones; the syslog time is when the line reached the log.
    """
    now = time.time() if now is None else now
    out = []
    first: float | None = None
    for line in text.splitlines():
        m = _DMESG.match(line)
        if not m:
            continue
        stamp = float(m.group(1))
        first = stamp if first is None else first
        offset = max(0.0, stamp - first)
        wall = time.localtime(now + offset)
        prefix = f"{_MONTHS[wall.tm_mon - 1]} {wall.tm_mday:2d} {time.strftime('%H:%M:%S', wall)}"
        uptime = now - boot_time + offset
        out.append(f"{prefix} {HOSTNAME} kernel: [{uptime:12.6f}]{m.group(2)}\n")
    return "".join(out)
