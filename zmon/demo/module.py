"""The demo host's ``/sys/module/zfs``: version and supported pool features of the lab's module.

The version is the ``zfs-kmod-`` line of the first phase's ``zfs version`` recording. The
supported features are ``data/derived-features-pool.txt`` (``grep -H .`` lines of
``features.pool/<guid>/uname``): OpenZFS 2.3.2's pool feature table, which lists the same
features as the recorded ``zpool get all``. The parameters are written by the host itself.
"""

from __future__ import annotations

from pathlib import Path

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
