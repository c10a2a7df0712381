"""The shipped systemd unit: hardened below 5.0, every remaining exposure explained, valid.

systemd-analyze works on the unit file offline; systemd need not run here. The .deb test
(test_deb.py) verifies the unit again as installed, with its real ExecStart.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers import require_tool
from tests.packaging.unit import unit_setting

pytestmark = pytest.mark.real

UNIT = Path(__file__).parents[2] / "packaging" / "zmon.service"


def _security() -> tuple[float, list[str]]:
    tool = require_tool("systemd-analyze", "rates and verifies the unit")
    out = subprocess.run(
        [tool, "security", "--offline=true", "--no-pager", str(UNIT)],
        capture_output=True,
        text=True,
    ).stdout
    score = re.search(r"Overall exposure level for zmon.service: ([\d.]+)", out)
    assert score, out
    exposed = [line.split()[1] for line in out.splitlines() if line.startswith("✗")]
    return float(score.group(1)), exposed


def test_exposure_is_below_5() -> None:
    score, _ = _security()
    assert score < 5.0
    readme = (UNIT.parents[1] / "README.md").read_text()
    stated = re.findall(r"rates \*\*([\d.]+) ", readme)
    assert stated == [f"{score:.1f}"], f"README.md says the unit rates {stated}, it rates {score}"


def test_every_remaining_exposure_is_explained_in_a_comment() -> None:
    _, exposed = _security()
    comments = "\n".join(line for line in UNIT.read_text().splitlines() if line.startswith("#"))
    for setting in exposed:  # e.g. "User=/DynamicUser=", "CapabilityBoundingSet=~CAP_SYS_RAWIO"
        name, _, value = setting.partition("=")
        value = value.replace("CAP_(", "CAP_").replace("AF_(", "AF_")  # CAP_(DAC_*|...) groups
        words = re.findall(r"CAP_\w+|AF_\w+|@[a-z-]+", value) or [name]
        for word in words:
            word = word.rstrip("_")
            assert word in comments, f"exposure {setting} is not explained in {UNIT.name}"


def test_verify_passes(tmp_path: Path) -> None:
    tool = require_tool("systemd-analyze")
    text = UNIT.read_text()
    assert re.search(
        r"^ExecStart=/usr/bin/zmon serve --config /etc/zmon/zmon.toml --web.user zmon$", text, re.M
    )
    # verify checks that ExecStart exists: point it at a stand-in (the .deb test checks the
    # installed unit with the real binary)
    stand_in = tmp_path / "zmon"
    stand_in.write_text("#!/bin/sh\n")
    stand_in.chmod(0o755)
    unit = tmp_path / "zmon.service"
    unit.write_text(text.replace("ExecStart=/usr/bin/zmon", f"ExecStart={stand_in}"))
    r = subprocess.run([tool, "verify", str(unit)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "zmon.service" not in r.stderr, r.stderr  # no warnings about the unit either


def test_limit_nofile_and_reload() -> None:
    text = UNIT.read_text()
    assert re.search(r"^LimitNOFILE=\d{4,}$", text, re.M)
    assert "ExecReload=/bin/kill -HUP $MAINPID" in text


def test_root_gains_no_capability_on_exec_and_cannot_take_it_back() -> None:
    """``noroot`` sets the bit, ``noroot-locked`` keeps it set: the lock alone would lock the
    bit off (systemd.exec SecureBits=)."""
    assert set(unit_setting("SecureBits")) == {"noroot", "noroot-locked"}
