"""The smart collector: scan, per-disk isolation, standby cache, fallbacks, exposition."""

from __future__ import annotations

import itertools
import os
import sys
import time

import pytest

from tests.support.disks import (
    VERSION_73,
    fixture_bytes,
    host_paths,
    make_ctx,
    result,
    smart_argv,
)
from zmon.base.runner import CommandRunner, run_deadline
from zmon.collecting.registry import Context, NoDataError
from zmon.collectors.smart import SmartCollector
from zmon.exposition.formats import render
from zmon.host.devices import BlockDevice, DeviceMap

SATA = fixture_bytes("qemu", "smartctl-a-j-sata0.json")
NVME = fixture_bytes("qemu", "smartctl-a-j-nvme0.json")
SAS = fixture_bytes("synthetic", "sas_seagate_grown12_selftest_failed_7.3.json")
STANDBY = fixture_bytes("synthetic", "ata_standby_nocheck_7.3.json")
VDA = fixture_bytes("qemu", "smartctl-a-j-vda.json")
SCAN = ("smartctl", "--scan-open", "--json=c")
VERSION = ("smartctl", "--version")


def nas_responses() -> dict:
    bus = smart_argv("megaraid,0", "/dev/bus/0")
    usb = smart_argv("usbjmicron", "/dev/sdu")
    return {
        VERSION: VERSION_73,
        SCAN: fixture_bytes("synthetic", "scan-open-nas.json"),
        smart_argv("sat", "/dev/sda"): SATA,
        smart_argv("sat", "/dev/sdb"): result(smart_argv("sat", "/dev/sdb"), STANDBY, 2),
        smart_argv("sat", "/dev/sdc"): SATA,
        smart_argv("scsi", "/dev/sdq"): result(smart_argv("scsi", "/dev/sdq"), SAS, 128),
        usb: result(usb, VDA, 1),
        bus: SATA,
        smart_argv("nvme", "/dev/nvme0"): NVME,
    }


def collector(ctx: Context) -> SmartCollector:
    c = SmartCollector(ctx)
    c.clock = lambda: 1700000000.0
    return c


def status(ms, device):
    for s in ("ok", "standby", "timeout", "open_failed", "unsupported", "error"):
        if ms.sample_value("zmon_disk_smart_check_status", {"device": device, "status": s}) == 1:
            return s
    return None


def test_scan_then_one_smartctl_per_disk_with_type_and_nocheck(golden):
    ctx = make_ctx(nas_responses())
    c = collector(ctx)
    ms = c.collect()
    calls = ctx.runner.calls
    assert calls[0] == VERSION and calls[1] == SCAN
    per_disk = calls[2:]
    assert len(per_disk) == 7
    for argv in per_disk:
        assert "--nocheck=standby" in argv
        assert argv[argv.index("-d") + 1] in ("sat", "scsi", "nvme", "usbjmicron", "megaraid,0")
    # /dev/sdv could not be opened at scan time and is no known disk: not checked at all.
    assert not any("/dev/sdv" in a for a in per_disk)
    assert [status(ms, d) for d in ("sda", "sdb", "sdc", "sdq", "sdu", "nvme0n1")] == [
        "ok",
        "standby",
        "ok",
        "ok",
        "unsupported",
        "ok",
    ]
    assert status(ms, "bus0_megaraid_0") == "ok"  # no kernel name, no serial match
    assert ms.sample_value("zmon_disk_smart_passed", {"device": "nvme0n1"}) == 1
    assert ms.sample_value("zmon_disk_standby", {"device": "sdb"}) == 1
    assert ms.sample_value("zmon_disk_smart_passed", {"device": "sdb"}) is None  # never read
    assert ms.sample_value("zmon_disk_scsi_grown_defects", {"device": "sdq"}) == 12
    assert ms.sample_value("zmon_disk_smart_up", {"device": "sdu"}) == 0
    golden("disks/smart-collector-nas.prom", render(ms.families()))


def test_scan_is_cached_between_runs():
    ctx = make_ctx(nas_responses())
    c = collector(ctx)
    c.collect()
    c.collect()
    assert ctx.runner.calls.count(SCAN) == 1
    assert ctx.runner.calls.count(VERSION) == 1


def test_scan_is_redone_when_disks_come_or_go():
    ctx = make_ctx(nas_responses())
    c = collector(ctx)
    c.collect()
    # A hotplug event replaced the shared map with one that has another disk set.
    assert ctx.devices is not None
    ctx.devices.put(DeviceMap([BlockDevice("sda", hardware=True, transport="sata")], host_paths()))
    c.collect()
    assert ctx.runner.calls.count(SCAN) == 2


def test_standby_keeps_the_last_values():
    sdc = smart_argv("sat", "/dev/sdc")
    answers = itertools.chain([result(sdc, SATA)], [result(sdc, STANDBY, 2)], [result(sdc, b"", 2)])
    responses = {
        VERSION: VERSION_73,
        SCAN: b'{"smartctl":{"exit_status":0},"devices":[{"name":"/dev/sdc","type":"sat"}]}',
        sdc: lambda argv: next(answers),
    }
    ctx = make_ctx(responses)
    c = collector(ctx)
    first = c.collect()
    assert status(first, "sdc") == "ok"
    c.clock = lambda: 1700001800.0
    second = c.collect()
    dev = {"device": "sdc"}
    assert status(second, "sdc") == "standby"
    assert second.sample_value("zmon_disk_standby", dev) == 1
    assert second.sample_value("zmon_disk_smart_up", dev) == 1
    for name in (
        "zmon_disk_smart_passed",
        "zmon_disk_temperature_celsius",
        "zmon_disk_power_on_seconds_total",
    ):
        assert second.sample_value(name, dev) == first.sample_value(name, dev) is not None
    # The values shown are the ones read before the disk went to sleep.
    assert second.sample_value("zmon_disk_smart_last_success_timestamp_seconds", dev) == 1700000000
    assert second.sample_value("zmon_disk_smartctl_exit_status", dev) == 2
    third = c.collect()  # empty output: an error, and the old values are no longer shown
    assert status(third, "sdc") == "error"
    assert third.sample_value("zmon_disk_smart_passed", dev) is None
    assert third.sample_value("zmon_disk_smart_up", dev) == 0


def write_fake_smartctl(tmp_path, hang_on: str) -> str:
    """A smartctl stand-in: answers --version/--scan-open, hangs on one disk."""
    sata = tmp_path / "sata.json"
    sata.write_bytes(SATA)
    scan = (
        '{"smartctl":{"exit_status":0},"devices":[{"name":"/dev/sda","type":"sat"},'
        '{"name":"/dev/sdb","type":"sat"},{"name":"/dev/sdc","type":"sat"}]}'
    )
    script = tmp_path / "smartctl"
    script.write_text(
        "#!/bin/sh\n"
        "for last; do :; done\n"
        'case "$1" in\n'
        f"  --version) echo 'smartctl 7.3 2022-02-28 r5338 [x86_64-linux] (local build)';;\n"
        f"  --scan-open) echo '{scan}';;\n"
        "  *)\n"
        f'    if [ "$last" = "{hang_on}" ]; then sleep 30; fi\n'
        f"    cat {sata};;\n"
        "esac\n"
    )
    os.chmod(script, 0o755)
    return str(script)


def test_a_hung_smartctl_is_killed_and_the_other_disks_are_reported(tmp_path):
    ctx = Context(
        paths=host_paths(),
        runner=CommandRunner(binaries={"smartctl": write_fake_smartctl(tmp_path, "/dev/sdb")}),
        options={"jitter": 0.0, "device_timeout": 1.0},
        platform="linux",
    )
    c = SmartCollector(ctx)
    ms = c.collect()  # returns: the hung smartctl was killed at its device timeout
    assert status(ms, "sdb") == "timeout"
    assert ms.sample_value("zmon_disk_smart_up", {"device": "sdb"}) == 0
    assert ms.sample_value("zmon_disk_smartctl_duration_seconds", {"device": "sdb"}) >= 1.0
    assert status(ms, "sda") == status(ms, "sdc") == "ok"
    assert ms.sample_value("zmon_disk_smart_passed", {"device": "sdc"}) == 1


def test_scan_failure_falls_back_to_the_device_map_transports():
    responses = {VERSION: VERSION_73, SCAN: result(SCAN, b"garbage\n", 1)}
    for dev, dtype in [
        ("sda", "sat"),
        ("sdb", "sat"),
        ("sdc", "sat"),
        ("sdd", "sat"),
        ("sde", "sat"),
        ("sdq", "scsi"),
        ("sdr", "sat"),
        ("sdu", "sat"),
        ("nvme0", "nvme"),
        ("nvme1", "nvme"),
    ]:
        responses[smart_argv(dtype, f"/dev/{dev}")] = NVME if dtype == "nvme" else SATA
    ctx = make_ctx(responses)
    ms = collector(ctx).collect()
    checked = sorted(a[-1] for a in ctx.runner.calls[2:])
    assert "/dev/vda" not in checked  # virtio has no SMART
    assert len(checked) == 10
    assert status(ms, "nvme1n1") == "ok" and status(ms, "sdr") == "ok"


def test_no_smartctl_means_no_data():
    ctx = make_ctx({})
    with pytest.raises(NoDataError):
        collector(ctx).collect()


def test_no_disk_means_no_data(tmp_path):
    responses = {VERSION: VERSION_73, SCAN: b'{"smartctl":{"exit_status":0},"devices":[]}'}
    ctx = make_ctx(responses, paths=host_paths(tmp_path))
    with pytest.raises(NoDataError):
        collector(ctx).collect()


def test_smartctl_6_is_read_as_text():
    scan_text = b"/dev/sda -d sat # /dev/sda [SAT], ATA device\n"
    responses = {
        VERSION: b"smartctl 6.6 2016-05-31 r4324 [x86_64-linux-4.9.0] (local build)\n",
        ("smartctl", "--scan-open"): scan_text,
        smart_argv("sat", "/dev/sda", json=False): fixture_bytes("qemu", "smartctl-x-sata0.txt"),
    }
    ctx = make_ctx(responses)
    ms = collector(ctx).collect()
    assert status(ms, "sda") == "ok"
    assert ms.sample_value("zmon_disk_temperature_celsius", {"device": "sda"}) == 31
    assert ms.sample_value("zmon_disk_smartctl_exit_status", {"device": "sda"}) == 0


def test_explicit_devices_skip_the_scan_and_exclude_filters():
    responses = {
        VERSION: VERSION_73,
        smart_argv("sat", "/dev/sda"): SATA,
        smart_argv("megaraid,3", "/dev/bus/0"): SATA,
    }
    opts = {
        "devices": ["/dev/sda=sat", "/dev/bus/0=megaraid,3", "/dev/sdc=sat"],
        "exclude": "^sdc$",
    }
    ctx = make_ctx(responses, options=opts)
    ms = collector(ctx).collect()
    assert SCAN not in ctx.runner.calls
    assert status(ms, "sda") == "ok" and status(ms, "bus0_megaraid_3") == "ok"
    assert status(ms, "sdc") is None


def test_jitter_pauses_between_disks_only():
    ctx = make_ctx(nas_responses(), options={"jitter": 3.0})
    c = collector(ctx)
    pauses: list[float] = []
    c.sleep = pauses.append
    c.collect()
    assert len(pauses) == 6  # 7 disks
    assert all(0.0 <= p <= 3.0 for p in pauses)


def test_run_deadline_stops_new_smartctl_runs():
    ctx = make_ctx(nas_responses())
    c = collector(ctx)
    token = run_deadline.set(time.monotonic())  # the scheduler's deadline has passed
    try:
        ms = c.collect()
    finally:
        run_deadline.reset(token)
    assert not any("--nocheck=standby" in a for a in ctx.runner.calls)
    assert status(ms, "sda") == "timeout"


def test_freebsd_labels_come_from_geom_and_serial():
    nvme = NVME.replace(b'"ZLNVME0"', b'"S4EWNX0R123456A"')
    responses = {
        ("geom", "disk", "list"): fixture_bytes("freebsd", "geom-disk-list.txt"),
        ("camcontrol", "devlist", "-v"): fixture_bytes("freebsd", "camcontrol-devlist-v.txt"),
        VERSION: VERSION_73,
        SCAN: fixture_bytes("freebsd", "smartctl-scan-open.json"),
        smart_argv("atacam", "/dev/ada0"): SATA,
        smart_argv("atacam", "/dev/ada1"): SATA,
        smart_argv("scsi", "/dev/da0"): SAS,
        smart_argv("nvme", "/dev/nvme0"): nvme,
    }
    ctx = make_ctx(responses, platform="freebsd")
    c = collector(ctx)
    ms = c.collect()
    assert [status(ms, d) for d in ("ada0", "ada1", "da0")] == ["ok", "ok", "ok"]
    # da1 (USB stick, unknown bridge) was not opened by the scan and is skipped.
    assert not any("/dev/da1" in a for a in ctx.runner.calls)
    # /dev/nvme0 takes the name of the geom disk with its serial number.
    assert status(ms, "nvme0") is None
    assert status(ms, "nda0") == "ok"
    assert status(c.collect(), "nda0") == "ok"


@pytest.mark.skipif(sys.platform != "linux", reason="fake tree uses Linux sysfs layout")
def test_labels_follow_the_device_map_for_by_id_paths():
    by_id = "/dev/disk/by-id/ata-ST4000VN008-2DR166_ZDH1ABCD"
    responses = {VERSION: VERSION_73, smart_argv("sat", by_id): SATA}
    ctx = make_ctx(responses, options={"devices": [f"{by_id}=sat"]})
    assert status(collector(ctx).collect(), "sdc") == "ok"


def test_disk_behind_a_raid_controller_takes_its_kernel_name_by_serial():
    responses = {VERSION: VERSION_73, smart_argv("megaraid,3", "/dev/bus/0"): SAS}
    ctx = make_ctx(responses, options={"devices": ["/dev/bus/0=megaraid,3"]})
    ms = collector(ctx).collect()
    assert status(ms, "bus0_megaraid_3") is None
    assert status(ms, "sdq") == "ok"  # serial Z1Z2AB3C... is sdq in the map


def test_a_pass_reads_the_device_map_once_however_many_disks_it_finds_by_serial():
    # a pass over 500 disks lasts longer than the shared map is kept: asking the shared map
    # per disk found by serial built the whole map again in the middle of the pass
    responses = {
        VERSION: VERSION_73,
        smart_argv("megaraid,3", "/dev/bus/0"): SAS,
        smart_argv("megaraid,4", "/dev/bus/0"): SAS,
    }
    ctx = make_ctx(
        responses, options={"devices": ["/dev/bus/0=megaraid,3", "/dev/bus/0=megaraid,4"]}
    )
    shared = ctx.device_map
    asked = []
    ctx.device_map = lambda max_age=300.0: asked.append(max_age) or shared(max_age)  # type: ignore[method-assign]
    c = collector(ctx)
    ms = c.collect()
    assert status(ms, "sdq") == "ok"
    assert len(asked) == 1
    assert not any(isinstance(v, DeviceMap) for v in vars(c).values())  # not kept between passes
    c.collect()
    assert len(asked) == 2  # the next pass reads it afresh


def test_failed_scan_with_no_output_falls_back_to_the_map():
    responses = {
        VERSION: VERSION_73,
        SCAN: result(SCAN, b"", 2),
        smart_argv("sat", "/dev/sdc"): SATA,
    }
    ctx = make_ctx(responses, options={"exclude": "^(sd[abdeqru]|nvme.*)$"})
    ms = collector(ctx).collect()
    assert status(ms, "sdc") == "ok"


def test_a_bad_exclude_pattern_names_the_option():
    ctx = make_ctx(nas_responses(), options={"exclude": "sd[a"})
    with pytest.raises(ValueError, match="collectors.smart.exclude"):
        collector(ctx).collect()
