"""Why zmon reads smartctl itself: pySMART measured on the same saved outputs.

These pin pySMART 1.4.x behaviour documented in zmon/collectors/smart/README.md. If pySMART
changes, these fail and the document gets updated. pySMART is a test dependency
(pyproject.toml), so a missing pySMART fails here rather than hiding the comparison.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import fixture_path
from zmon.parsers.smartctl.smartctl import parse_smartctl


def test_pysmart_is_installed() -> None:
    assert importlib.util.find_spec("pySMART") is not None, "pip install -e '.[test]'"


FILES = {
    "txt_04": ("corpus/smartctl_txt_04_ssd_sandforce_odd_raw_values_7.1.txt", "sat"),
    "txt_06": ("corpus/smartctl_txt_06_standby_nocheck_7.3.txt", "sat"),
    "txt_08": ("corpus/smartctl_txt_08_ata_FAILED_health_hgst_PARTIAL.txt", "sat"),
    "txt_10": ("corpus/smartctl_txt_10_ata_seagate_7200.11_realloc3_known_problems_macos_6.2.txt",
               "sat"),
    "txt_14": ("corpus/smartctl_txt_14_ata_HiA_pending14_offline_unc14_crc5_marginal_5.38_"
               "forum.txt", "sat"),
    "qemu_sata": ("qemu/smartctl-x-sata0.txt", "sat"),
    "sas": ("synthetic/sas_seagate_grown12_selftest_failed_7.3.txt", "scsi"),
    "nvme": ("synthetic/nvme_samsung_worn_media_errors_selftest_failed_7.3.txt", "nvme"),
}  # fmt: skip


@pytest.fixture(scope="module")
def probe() -> dict:
    args = [f"{fixture_path('disks', rel)}={iface}" for rel, iface in FILES.values()]
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run(
        [sys.executable, "-m", "tests.collectors.smart.pysmart_probe", *args],
        cwd=root,
        capture_output=True,
        timeout=120,
        check=True,
        env={"LANG": "en_US.UTF-8", "PATH": "/usr/bin:/bin"},
    )
    facts = json.loads(out.stdout)
    facts["by_key"] = dict(zip(FILES, facts["results"], strict=True))
    return facts


def test_pysmart_runs_smartctl_itself_without_timeout_or_json(probe):
    assert probe["exec_has_timeout"] is False  # a hung smartctl hangs the caller
    assert probe["uses_json"] is False  # text scraping only
    assert probe["lang_forced_to"] == "C"  # importing it rewrites os.environ["LANG"]


def test_pysmart_crashes_on_the_brief_flags_table(probe):
    # smartctl -x (and 7.x -a on many drives) prints FLAGS as "PO--CK", not "0x0033".
    assert probe["by_key"]["txt_04"]["exception"] == "ValueError"
    assert probe["by_key"]["qemu_sata"]["exception"] == "ValueError"
    assert parse_smartctl(fixture_path("disks", FILES["txt_04"][0]).read_bytes()).attributes


def test_pysmart_crashes_when_the_attribute_table_ends_the_output(probe):
    assert probe["by_key"]["txt_14"]["exception"] == "StopIteration"


def test_pysmart_drops_the_first_four_lines(probe):
    r = probe["by_key"]["txt_08"]
    assert r["model"] is None and r["serial"] is None  # "Device Model" is on line 4
    ours = parse_smartctl(fixture_path("disks", FILES["txt_08"][0]).read_bytes())
    assert ours.model == "HGST HTS725050A7E630"


def test_pysmart_sends_extra_commands_without_the_standby_check(probe):
    """Calls beyond the first --all do not carry -n standby: they can spin a sleeping disk up."""
    for key in ("txt_08", "sas"):
        calls = probe["by_key"][key]["calls"]
        extra = [c for c in calls if "--all" not in c]
        assert extra and all("standby" not in c for c in extra)
    assert len(probe["by_key"]["sas"]["calls"]) == 7  # one SAS disk, seven smartctl runs


def test_pysmart_cannot_tell_standby_from_no_data(probe):
    r = probe["by_key"]["txt_06"]
    assert r["assessment"] is None and r["model"] is None
    assert "power" not in json.dumps(r).lower()


def test_pysmart_raw_values_are_strings(probe):
    raw = probe["by_key"]["txt_10"]["raw"]
    assert raw["190"] == "40 (Min/Max 24/40)"  # zmon: 40


def test_pysmart_misses_nvme_self_test_entries(probe):
    assert probe["by_key"]["nvme"]["tests"] == 1
    ours = parse_smartctl(fixture_path("disks", FILES["nvme"][0]).read_bytes())
    assert len(ours.self_tests) == 2
