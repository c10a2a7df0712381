"""Runs INSIDE the lab VM (slowdown.sh): read files for a while, in 1 MiB reads, 8 MiB
stretch after stretch, going round each file.

--twice reads each stretch of the file twice, the second time 0.1 s later: the second read
hits and moves the stretch to the ARC's most-frequently-used (MFU) list (a hit within 62 ms
would not). --scan FILE reads a stretch of a second file once after each stretch of the
first: a hot set in the MFU list and a scan in the most-recently-used one, the mix with which
both OpenZFS 2.1 and 2.3 keep ghosts of what they evict (2.3 caps a list's ghosts at half the
other lists' size, so a lone scan or a lone hot set leaves few). The reading stops after
--seconds, or after --passes passes over the first file. --read-mib sets the size of each
read: ZFS issues a read's blocks at once, so 8 MiB keeps 64 block reads in flight.
Python's standard library only.
"""

from __future__ import annotations

import argparse
import os
import time

MIB = 1 << 20
STRETCH = 8 * MIB


class Stretches:
    """A file's 8 MiB stretches, read round and round."""

    def __init__(self, path: str, read: int) -> None:
        self.chunk = read
        self.fd = os.open(path, os.O_RDONLY)
        self.size = os.path.getsize(path)
        self.count = (self.size + STRETCH - 1) // STRETCH

    def read(self, step: int, times: int) -> None:
        start = (step % self.count) * STRETCH
        for n in range(times):
            if n:
                time.sleep(0.1)
            for off in range(start, min(self.size, start + STRETCH), self.chunk):
                os.pread(self.fd, self.chunk, off)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--seconds", type=float, default=0.0)
    p.add_argument("--passes", type=int, default=0)
    p.add_argument("--twice", action="store_true")
    p.add_argument("--scan")
    p.add_argument("--read-mib", type=int, default=1)
    a = p.parse_args()
    end = time.monotonic() + a.seconds if a.seconds else None
    first = Stretches(a.file, a.read_mib * MIB)
    scan = Stretches(a.scan, a.read_mib * MIB) if a.scan else None
    steps = 0
    while end is None or time.monotonic() < end:
        if a.passes and steps >= a.passes * first.count:
            break
        first.read(steps, 2 if a.twice else 1)
        if scan is not None:
            scan.read(steps, 1)
        steps += 1


if __name__ == "__main__":
    main()
