"""Shared helpers for the disk tests: the fake Linux host and smartctl responses."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tests.helpers import fixture_path
from zmon.base.runner import CommandResult, Response, StaticRunner
from zmon.collecting.registry import Context, Paths
from zmon.collectors.smart import reads_sas_phys

LINUX_HOST = fixture_path("disks", "linux-host")
VERSION_73 = (
    b"smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.1.0-18-amd64] (local build)\n"
    b"Copyright (C) 2002-22, Bruce Allen, Christian Franke, www.smartmontools.org\n"
)


def host_paths(root: Path = LINUX_HOST) -> Paths:
    return Paths(procfs=root / "proc", sysfs=root / "sys", rootfs=root, state_dir=root / "state")


def fixture_bytes(*parts: str) -> bytes:
    return fixture_path("disks", *parts).read_bytes()


def result(argv: tuple[str, ...], stdout: bytes, code: int = 0) -> CommandResult:
    return CommandResult(argv, code, stdout, b"", 0.05)


def smart_argv(dtype: str, dev: str, json: bool = True) -> tuple[str, ...]:
    """The argv the collector must use for one disk."""
    head = ("smartctl", "--json=c") if json else ("smartctl",)
    sasphy = ("-l", "sasphy") if reads_sas_phys(dtype) else ()
    return (*head, "--nocheck=standby", "--all", *sasphy, "-d", dtype, dev)


def make_ctx(
    responses: Mapping[tuple[str, ...], Response],
    *,
    options: dict | None = None,
    platform: str = "linux",
    paths: Paths | None = None,
) -> Context:
    fixed = {  # recorded outputs get a fixed duration, so expositions are reproducible
        argv: result(argv, resp) if isinstance(resp, bytes) else resp
        for argv, resp in responses.items()
    }
    return Context(
        paths=paths or host_paths(),
        runner=StaticRunner(fixed),
        options={"jitter": 0.0, **(options or {})},
        platform=platform,
    )
