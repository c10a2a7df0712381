"""Hermetic: the lab's check of what each zmon process holds (tests/lab/privilege_checks.py),
on facts as guest/common.sh's ``zmon_processes`` writes them; every guest driver publishes
them at its first step, and the guest starts zmon with the unit's privileges."""

from __future__ import annotations

import re

from tests.lab.conftest import SEQUENCES
from tests.lab.labvm import GUEST_DIR
from tests.lab.privilege_checks import WEB_USER, expectations, privilege_results, published
from tests.lab.session import zmon_args
from zmon.runtime.privileges import COLLECTING, FOR_THE_DROP, mask_of

ROOT, USER = "0,0,0,0", "998,998,998,998"
KEPT = f"{mask_of(COLLECTING):016x}"
UNIT_SET = f"{mask_of({**COLLECTING, **FOR_THE_DROP}):016x}"
NONE = "0" * 16


def facts(**override: str) -> dict[str, str]:
    out = {
        "zfs_version": "2.3.2-2~bpo12+2",
        "zmon.main": f"pid=401 uid={ROOT} CapEff={KEPT} CapPrm={KEPT} CapBnd={KEPT}",
        "zmon.http": f"pid=402 uid={USER} CapEff={NONE} CapPrm={NONE} CapBnd={NONE}",
        "zmon.worker": f"pid=403 uid={ROOT} CapEff={KEPT} CapPrm={KEPT} CapBnd={KEPT}",
    }
    return {**out, **override}


def verdicts(f: dict[str, str]) -> dict[str, bool]:
    """role -> whether its process passed"""
    return dict(
        zip(expectations(), (r.ok for r in privilege_results("01-healthy", f)), strict=True)
    )


def test_the_unit_s_privileges_pass() -> None:
    results = privilege_results("01-healthy", facts())
    assert [r.ok for r in results] == [True, True, True], [r.line() for r in results]
    assert "CapEff 0x0" in next(r.observed for r in results if "HTTP" in r.description)
    assert published(facts())


def test_a_capability_too_many_fails_its_process() -> None:
    http_caps = f"pid=402 uid={USER} CapEff={KEPT} CapPrm={KEPT} CapBnd={NONE}"
    assert verdicts(facts(**{"zmon.http": http_caps})) == {
        "main": True, "http": False, "worker": True}  # fmt: skip
    # the worker still holding the capabilities of the drop (the parent's keep_only undone)
    worker = f"pid=403 uid={ROOT} CapEff={UNIT_SET} CapPrm={UNIT_SET} CapBnd={UNIT_SET}"
    assert verdicts(facts(**{"zmon.worker": worker}))["worker"] is False
    # the HTTP process as root, even with no capability
    root_http = f"pid=402 uid={ROOT} CapEff={NONE} CapPrm={NONE} CapBnd={NONE}"
    assert verdicts(facts(**{"zmon.http": root_http}))["http"] is False
    # a collecting side short of one capability (SMART would fail without CAP_SYS_RAWIO)
    short = f"{mask_of(COLLECTING) & ~(1 << COLLECTING['CAP_SYS_RAWIO']):016x}"
    main = f"pid=401 uid={ROOT} CapEff={short} CapPrm={short} CapBnd={short}"
    assert verdicts(facts(**{"zmon.main": main}))["main"] is False


def test_a_missing_or_unreadable_process_fails() -> None:
    f = facts()
    del f["zmon.worker"]
    results = privilege_results("01-healthy", f)
    assert [r.ok for r in results] == [True, True, False]
    assert results[2].observed == "no worker process"
    assert not any(r.ok for r in privilege_results("01-healthy", {"zmon.main": "pid=1"}))
    assert not published({"zfs_version": "2.1.11"})


def test_every_driver_publishes_zmon_s_processes_at_its_first_step() -> None:
    for sequence, _prefix in SEQUENCES.values():
        script = (GUEST_DIR / sequence.driver).read_text()
        first = re.search(r"^ready (\S+)(.*)$", script, re.M)
        assert first is not None and first[1] == sequence.steps[0], sequence.driver
        assert '"${ZMON_PROCS[@]}"' in first[2], first[0]
        before = script[: first.start()]
        assert before.rstrip().endswith("zmon_processes"), sequence.driver


def test_the_guest_starts_zmon_as_the_unit_does() -> None:
    args = zmon_args()
    assert args[args.index("--web.user") + 1] == WEB_USER
    common = (GUEST_DIR / "common.sh").read_text()
    assert 'setpriv "${priv[@]}" -- python3' in common
    assert "useradd --system" in common
