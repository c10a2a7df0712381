"""Where zmon reads the host from; every root can be pointed at a fixture tree."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Paths:
    """The procfs, sysfs and root trees and the state directory (``--path.*`` flags)."""

    procfs: Path = Path("/proc")
    sysfs: Path = Path("/sys")
    rootfs: Path = Path("/")
    state_dir: Path = Path("/var/lib/zmon")

    def proc(self, *parts: str) -> Path:
        return self.procfs.joinpath(*parts)

    def sys(self, *parts: str) -> Path:
        return self.sysfs.joinpath(*parts)

    def root(self, *parts: str) -> Path:
        return self.rootfs.joinpath(*[p.lstrip("/") for p in parts])
