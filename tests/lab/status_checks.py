"""``zmon status`` at each lab step, on both OpenZFS versions: its exit code, its headline and
the diagnoses that must be among its findings, asked of the zmon serving in the VM as an admin
or a Nagios check would (``zmon status --url http://127.0.0.1:<forwarded port> --json``).

The expectations are those the hermetic tests hold on the lab's captures
(tests/status/test_lab_captures.py); ``LIVE`` lists what a live run may show differently.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from tests.lab import checks
from tests.lab.engine import Check, Result, present
from tests.status.test_lab_captures import BY_VERSION, EXPECTED

Run = Callable[[str], tuple[int, dict[str, Any] | None, str]]

# (version, step) -> (headline start, rules) replacing the captured expectation live.
LIVE: dict[tuple[str, str], tuple[str, set[str]]] = {
    # 2.1.11 retries the lost disk's writes forever and `zpool status` may hang: zmon then
    # serves the pools as they were (fragile may be missing), so only "critical" is certain
    ("2.1.11", checks.SUSPENDED): ("CRITICAL - pool ", {"data_errors"}),
}


# (version, step) -> other headline starts a live run may show, each as right as the first.
# Both versions: the I/O errors injected into the raidz's vdc during a scrub can leave
# checksum errors charged to every child of the raidz (seen on 2.1.11: 54, 42 and 48 on vda,
# vdb and vdc beside vdc's 589 read and 344 write errors). Both are warnings, and checksum
# errors rank first, so the headline may name any child's checksum errors; io_errors must
# still be among the findings.
_RAIDZ_CHECKSUMS = tuple(
    f"WARNING - {disk} (raidz1-0 of rz): data read back did not match its checksum"
    for disk in ("vda", "vdb", "vdc")
)
ALSO: dict[tuple[str, str], tuple[str, ...]] = {
    **{(version, checks.IO_ERRORS): _RAIDZ_CHECKSUMS for version in checks.VERSIONS},
    # 2.1.11's hung `zpool status` (see LIVE) is said as unknown, with the last known state
    # and the kstat signs that make it critical, whenever the hang outlasts a timeout
    ("2.1.11", checks.SUSPENDED): ("CRITICAL - zpool has not answered for ",),
}

_KERNEL_NAME = re.compile(r"\((?:sd[a-z]+|vd[a-z]+|nvme\d+n\d+), ")
# where the disk is (serial, WWN, port, slot): served live by the devices collector, absent
# from the older captures the expectations were written on
_PLACE = re.compile(r"(?<=[( ])(?:serial [^,)]+|WWN [^,)]+|ata\d+|enclosure [^,)]+), ")


def _others(version: str, step: str) -> str:
    n = len(ALSO.get((version, step), ()))
    return f" or {n} others" if n else ""


def _unnamed(headline: str) -> str:
    """The headline without the disk's kernel name (a VM boot may enumerate sdb as sdc) and
    without where the disk is."""
    return _KERNEL_NAME.sub("(", _PLACE.sub("", headline))


def run_status(url: str) -> tuple[int, dict[str, Any] | None, str]:
    """(exit code, the JSON report if any, stdout) of ``zmon status --url URL --json``."""
    proc = subprocess.run(
        [sys.executable, "-m", "zmon.cli", "status", "--url", url, "--json", "--timeout", "20"],
        capture_output=True,
        timeout=60,
    )
    out = proc.stdout.decode(errors="replace")
    try:
        report = json.loads(out)
    except ValueError:
        report = None
    return proc.returncode, report, out


def expected(step: str, version: str) -> tuple[int, str, set[str]]:
    code, head, rules = EXPECTED[step]
    head, rules = LIVE.get((version, step), (head, rules | BY_VERSION.get((version, step), set())))
    return code, head, rules


def status_results(
    step: str,
    version: str,
    url: str,
    run: Run = run_status,
    settle: float = 30.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> list[Result]:
    """Three rows for the step (exit code, headline, diagnoses), retried for ``settle`` s."""
    code, head, rules = expected(step, version)
    heads = [_unnamed(h) for h in (head, *ALSO.get((version, step), ()))]
    start = clock()
    while True:
        got_code, report, out = run(url)
        headline = report["headline"] if report else out.strip().splitlines()[0] if out else ""
        told = (report["findings"] + report.get("notes", [])) if report else []
        found = {f["rule"] for f in told}  # a note's rule (a resilver under way) counts too
        starts = any(_unnamed(headline).startswith(h) for h in heads)
        oks = (got_code == code, starts, rules <= found)
        if all(oks) or clock() - start >= settle:
            break
        sleep(3.0)

    def row(what: str, ok: bool, seen: str) -> Result:
        chk = Check((step,), "zmon status", {}, present(), what, versions=(version,))
        return Result(step, chk, f"zmon status: {what}", ok, seen)

    return [
        row(f"exit code {code}", oks[0], str(got_code)),
        row(f"headline starts {head!r}{_others(version, step)}", oks[1], repr(headline)),
        row(f"diagnoses include {sorted(rules)}", oks[2], str(sorted(found))),
    ]
