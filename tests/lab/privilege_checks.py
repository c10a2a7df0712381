"""zmon in the lab guest runs as packaging/zmon.service runs it (guest/common.sh
``start_zmon``): what each of its processes holds, read from the guest's /proc.

The guest publishes, at the first step of every run, one fact per process (``zmon_processes``
in guest/common.sh, by the processes' names): ``zmon.main``, ``zmon.http`` and ``zmon.worker``, each
``pid=P uid=R,E,S,F CapEff=HEX CapPrm=HEX CapBnd=HEX``. The HTTP process must run as the web
user with nothing; the collecting side (the main process and its worker) as root with exactly
the collecting set zmon/runtime/privileges.py documents. Collection itself under that set (SMART
through SG_IO and NVMe admin commands, ``zpool events``, /dev/kmsg) is the fault sequence's
rows at 01-healthy and every collector's success (tests/lab/checks.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tests.lab.engine import Check, Result, present
from zmon.runtime.privileges import COLLECTING, mask_of

WEB_USER = "zmon"  # `--web.user` in the lab (session.zmon_args); the guest creates the user
FACT = "zmon."


@dataclass(frozen=True)
class Process:
    """One zmon process as the guest's /proc/PID/status showed it."""

    role: str
    pid: int
    uids: tuple[int, ...]  # real, effective, saved, filesystem
    eff: int
    prm: int
    bnd: int

    @classmethod
    def parse(cls, role: str, fact: str) -> Process:
        """From ``pid=P uid=R,E,S,F CapEff=HEX CapPrm=HEX CapBnd=HEX`` (ValueError if not)."""
        kv = dict(word.partition("=")[::2] for word in fact.split())
        return cls(
            role,
            int(kv["pid"]),
            tuple(int(u) for u in kv["uid"].split(",")),
            int(kv["CapEff"], 16),
            int(kv["CapPrm"], 16),
            int(kv["CapBnd"], 16),
        )

    def seen(self) -> str:
        uids = ",".join(map(str, self.uids))
        return (
            f"pid {self.pid} uid {uids} CapEff {self.eff:#x} CapPrm {self.prm:#x} "
            f"CapBnd {self.bnd:#x}"
        )


def published(facts: Mapping[str, str]) -> bool:
    """Whether the guest published zmon's processes at this step."""
    return any(k.startswith(FACT) for k in facts)


def expectations() -> dict[str, tuple[str, Callable[[Process], bool]]]:
    """role -> (what must hold, predicate over a Process)."""
    collecting = mask_of(COLLECTING)
    names = "+".join(sorted(COLLECTING))
    return {
        "http": (
            "HTTP process: a non-root uid, no capability (CapEff, CapPrm, CapBnd all 0)",
            lambda p: all(u != 0 for u in p.uids) and p.eff == p.prm == p.bnd == 0,
        ),
        **{
            role: (
                f"collecting side ({role} process): root, CapEff = CapPrm = CapBnd = "
                f"{names} ({collecting:#x})",
                lambda p: p.uids == (0, 0, 0, 0) and p.eff == p.prm == p.bnd == collecting,
            )
            for role in ("main", "worker")
        },
    }


def privilege_results(step: str, facts: Mapping[str, str]) -> list[Result]:
    """One result per zmon process: it holds what its role may hold, and no more."""
    out = []
    for role, (what, holds) in expectations().items():
        chk = Check((step,), f"/proc/<zmon {role}>/status", {}, present(), what)
        fact = facts.get(FACT + role)
        if fact is None:
            out.append(Result(step, chk, what, False, f"no {role} process"))
            continue
        try:
            proc = Process.parse(role, fact)
        except (KeyError, ValueError):
            out.append(Result(step, chk, what, False, f"unreadable: {fact!r}"))
            continue
        out.append(Result(step, chk, what, holds(proc), proc.seen()))
    return out
