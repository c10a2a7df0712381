"""What the shipped systemd unit (packaging/zmon.service) grants zmon, as ``setpriv`` flags:
the tests that start zmon as the unit does (tests/e2e/test_privileges.py, the lab guest) read
the capabilities from the unit itself, so they follow it."""

from __future__ import annotations

from pathlib import Path

UNIT = Path(__file__).resolve().parents[2] / "packaging" / "zmon.service"


def unit_setting(key: str) -> list[str]:
    """The words a setting of the shipped unit lists (capabilities, secure bits)."""
    for line in UNIT.read_text().splitlines():
        if line.startswith(f"{key}="):
            return line.split("=", 1)[1].split()
    raise AssertionError(f"the unit sets no {key}")


def setpriv_flags() -> list[str]:
    """setpriv (util-linux) flags giving what the unit gives: its bounding set, the same set
    inheritable and ambient (with SecureBits=noroot root gains nothing else on exec), the
    noroot securebits and no_new_privs."""
    caps = ",".join(
        "+" + c.removeprefix("CAP_").lower() for c in unit_setting("CapabilityBoundingSet")
    )
    return [
        f"--bounding-set=-all,{caps}",
        f"--inh-caps=-all,{caps}",
        f"--ambient-caps=-all,{caps}",
        "--securebits=" + ",".join("+" + b.replace("-", "_") for b in unit_setting("SecureBits")),
        "--no-new-privs",
    ]
