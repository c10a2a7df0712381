"""The zpool collector: command negotiation, device mapping, GUIDs and the last-scrub state."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest

from tests.support.zpool_status import LAB, utc
from tests.support.zpool_status import recorded_result as result
from zmon.base.children import running
from zmon.base.errors import ParseError
from zmon.base.runner import (
    CommandError,
    CommandResult,
    CommandRunner,
    CommandTimeout,
    StaticRunner,
)
from zmon.collecting.registry import Context, NoDataError, Paths, parse_kinds
from zmon.collectors.zpool import JSON_ARGS, ZpoolCollector, parse_guids

V = ("-v",)
JSON = ("zpool", "status", *JSON_ARGS, *V)
TEXT = ("zpool", "status", "-p", "-s", *V)
GUIDS = ("zpool", "get", "-Hp", "guid")
PL = ("zpool", "status", "-P", "-L")
TANK_RESILVER = {"pool": "tank", "function": "resilver"}
USAGE_J = CommandResult(JSON, 2, b"", b"invalid option 'j'\nusage:\n\tstatus [-vx] [pool] ...\n", 0)


def lab(version: str, scenario: str, name: str) -> Path:
    return LAB / version / scenario / name


def json_runner(scenario: str, name: str = "zpool-status-int-flat.json") -> dict:
    return {JSON: result(JSON, lab("2.3.2", scenario, name))}


COUNT_SINGLE = ("zpool", "status", "-p", "-s", "single")


def text_runner(version: str, scenario: str) -> dict:
    """-j rejected, then the text capture; the pool with listed errors can be recounted."""
    counted = lab(version, "13-resilver-in-progress", "zpool-status-P-L.txt")  # no -v
    return {
        JSON: USAGE_J,
        TEXT: result(TEXT, lab(version, scenario, "zpool-status-p-v-s.txt")),
        GUIDS: (LAB / version / "zpool-get-Hp-guid.txt").read_bytes(),
        COUNT_SINGLE: counted.read_bytes(),
    }


def make(tmp_path: Path, responses: dict, **options) -> tuple[ZpoolCollector, StaticRunner]:
    runner = StaticRunner(responses=responses)
    paths = Paths(rootfs=tmp_path / "root", state_dir=tmp_path / "state")
    opts = {"timezone": "UTC", "device_map": False, **options}
    return ZpoolCollector(Context(paths=paths, runner=runner, options=opts)), runner


def test_json_when_supported(tmp_path: Path) -> None:
    collector, runner = make(tmp_path, json_runner("13-resilver-in-progress"))
    ms = collector.collect()
    assert runner.calls == [JSON]
    assert ms.sample_value("zmon_pool_scan_in_progress", TANK_RESILVER) == 1
    assert ms.sample_value("zmon_pool_scan_issued_bytes", {"pool": "tank"}) == 34263040
    assert ms.sample_value("zmon_zpool_status_source_info", {"format": "json"}) == 1
    info = {"pool": "tank", "guid": "2974744615444828799"}
    assert ms.sample_value("zmon_pool_status_info", info) == 1


def test_falls_back_to_text_once_when_json_is_rejected(tmp_path: Path) -> None:
    collector, runner = make(tmp_path, text_runner("2.1.11", "13-resilver-in-progress"))
    ms = collector.collect()
    collector.collect()
    # -j tried once; GUIDs cached; "single" lists files, so it is counted without -v
    assert runner.calls == [JSON, TEXT, GUIDS, COUNT_SINGLE, TEXT, COUNT_SINGLE]
    assert ms.sample_value("zmon_pool_data_errors", {"pool": "single"}) == 131
    assert ms.sample_value("zmon_pool_data_errors", {"pool": "tank"}) == 0
    assert (
        ms.sample_value("zmon_zpool_status_source_info", {"format": "text", "args": "-p -s -v"})
        == 1
    )
    assert (
        ms.sample_value("zmon_pool_status_info", {"pool": "tank", "guid": "2438723446209917545"})
        == 1
    )


def test_zfs_fuse_rejects_p_and_j(tmp_path: Path) -> None:
    fuse = LAB / "zfs-fuse-0.7.0"
    usage = (fuse / "healthy-zpool-status-p.txt").read_bytes()
    v_only = ("zpool", "status", "-v")
    responses = {
        JSON: CommandResult(JSON, 2, b"", (fuse / "healthy-zpool-status-j.txt").read_bytes(), 0),
        TEXT: CommandResult(TEXT, 2, b"", usage, 0),
        ("zpool", "status", "-p", "-v"): CommandResult(TEXT, 2, b"", usage, 0),
        v_only: (fuse / "checksum-repaired-zpool-status-v.txt").read_bytes(),
        GUIDS: CommandResult(GUIDS, 2, b"", b"invalid option 'H'\nusage:\n", 0),
        ("zpool", "get", "guid"): b"NAME      PROPERTY  VALUE                SOURCE\n"
                                  b"fusepool  guid      4951500193394806122  default\n",
    }  # fmt: skip
    collector, runner = make(tmp_path, responses)
    ms = collector.collect()
    assert runner.calls[:4] == [JSON, TEXT, ("zpool", "status", "-p", "-v"), v_only]
    base = {"pool": "fusepool", "vdev": "/tmp/zfslab/fuse/f2.img", "class": "normal"}
    assert ms.sample_value("zmon_vdev_checksum_errors_total", base) == 106
    assert ms.sample_value("zmon_vdev_info", {**base, "type": "file", "device": ""}) == 1
    assert ms.sample_value("zmon_pool_last_scrub_end_time_seconds", {"pool": "fusepool"}) == utc(
        "2026-11-29 23:50:39"
    )
    runner.calls.clear()
    collector.collect()
    assert runner.calls == [v_only]
    saved = json.loads((tmp_path / "state" / "zpool-last-scrub.json").read_text())
    assert list(saved["pools"]) == ["guid:4951500193394806122"]


def test_each_good_run_keeps_the_pools_states_for_when_zpool_hangs(tmp_path: Path) -> None:
    from zmon.host.last_pools import load_last_pools

    collector, _ = make(tmp_path, json_runner("13-resilver-in-progress"))
    collector.collect()
    last = load_last_pools(tmp_path / "state")
    assert last is not None and dict(last.states) == {
        "rz": "ONLINE",
        "single": "ONLINE",
        "tank": "ONLINE",
    }


def test_no_pools_available(tmp_path: Path) -> None:
    responses = {JSON: CommandResult(JSON, 0, b'{"output_version":{},"pools":{}}\n', b"", 0)}
    collector, _ = make(tmp_path, responses)
    ms = collector.collect()
    assert [f.name for f in ms.families()] == ["zmon_zpool_status_source_info"]
    text = {JSON: USAGE_J, TEXT: CommandResult(TEXT, 0, b"", b"no pools available\n", 0)}
    collector, _ = make(tmp_path, text)
    assert [f.name for f in collector.collect().families()] == ["zmon_zpool_status_source_info"]


def test_failures_raise(tmp_path: Path) -> None:
    broken = {JSON: CommandResult(JSON, 1, b"", b"internal error: out of memory\n", 0.1)}
    with pytest.raises(CommandError, match="out of memory"):
        make(tmp_path, broken)[0].collect()
    hung = {JSON: CommandResult(JSON, -9, b"", b"", 10.0, timed_out=True)}
    with pytest.raises(CommandTimeout):
        make(tmp_path, hung)[0].collect()
    with pytest.raises(NoDataError):
        make(tmp_path, {})[0].collect()  # no zpool program at all
    no_module = {JSON: CommandResult(JSON, 1, b"", b"The ZFS modules are not loaded.\n", 0)}
    with pytest.raises(NoDataError):
        make(tmp_path, no_module)[0].collect()


def test_garbage_output_is_a_parse_error(tmp_path: Path) -> None:
    with pytest.raises(ParseError):
        make(tmp_path, {JSON: b"Segmentation fault\n"})[0].collect()
    with pytest.raises(ParseError):
        make(tmp_path, {JSON: b'{"pools": [1]}'})[0].collect()


def test_format_option(tmp_path: Path) -> None:
    responses = text_runner("2.3.2", "01-healthy")
    collector, runner = make(tmp_path, responses, format="text")
    collector.collect()
    assert runner.calls[0] == TEXT
    collector, runner = make(tmp_path, {JSON: USAGE_J}, format="json")
    for _ in range(2):
        with pytest.raises(CommandError, match="does not accept -j"):
            collector.collect()
    assert runner.calls == [JSON]  # never falls back to text when JSON is required


def test_error_list_option_drops_v(tmp_path: Path) -> None:
    argv = ("zpool", "status", *JSON_ARGS)
    collector, runner = make(
        tmp_path,
        {argv: result(argv, lab("2.3.2", "01-healthy", "zpool-status.json"))},
        error_list=False,
    )
    collector.collect()
    assert runner.calls == [argv]


def test_timezone_option_reads_text_dates(tmp_path: Path) -> None:
    end: dict[str, float] = {}
    for zone in ("UTC", "Europe/Berlin"):
        collector, _ = make(
            tmp_path / zone, text_runner("2.3.2", "04-scrub-finished"), timezone=zone
        )
        ms = collector.collect()
        value = ms.sample_value("zmon_pool_scan_end_time_seconds", {"pool": "tank"})
        assert value is not None
        end[zone] = value
    assert end["UTC"] == utc("2026-11-30 00:08:10")
    assert end["UTC"] - end["Europe/Berlin"] == 3600


# ---- the last completed scrub, across resilvers and restarts ----


@pytest.mark.parametrize("mode", ["json", "text"])
def test_last_scrub_survives_a_resilver_and_a_restart(tmp_path: Path, mode: str) -> None:
    def responses(scenario: str) -> dict:
        if mode == "json":
            return json_runner(scenario, "zpool-status.json")
        return text_runner("2.3.2", scenario)

    scrubbed = utc("2026-11-30 00:08:10")
    collector, runner = make(tmp_path, responses("04-scrub-finished"))
    ms = collector.collect()
    assert ms.sample_value("zmon_pool_last_scrub_end_time_seconds", {"pool": "tank"}) == scrubbed
    assert ms.sample_value("zmon_pool_last_scrub_errors", {"pool": "tank"}) == 0
    runner.responses = responses("13-resilver-in-progress")
    ms = collector.collect()
    assert ms.sample_value("zmon_pool_scan_in_progress", TANK_RESILVER) == 1
    assert ms.sample_value("zmon_pool_scan_end_time_seconds", {"pool": "tank"}) is None
    assert ms.sample_value("zmon_pool_last_scrub_end_time_seconds", {"pool": "tank"}) == scrubbed
    restarted, _ = make(tmp_path, responses("13-resilver-in-progress"))
    ms = restarted.collect()
    assert ms.sample_value("zmon_pool_last_scrub_end_time_seconds", {"pool": "tank"}) == scrubbed
    state = json.loads((tmp_path / "state" / "zpool-last-scrub.json").read_text())
    assert state["pools"]["guid:2974744615444828799"]["end_time"] == scrubbed
    assert not [p for p in (tmp_path / "state").iterdir() if p.name.startswith(".")]


def test_a_later_scrub_replaces_the_record(tmp_path: Path) -> None:
    collector, runner = make(tmp_path, json_runner("04-scrub-finished", "zpool-status.json"))
    collector.collect()
    runner.responses = json_runner("05-checksum-errors-repaired", "zpool-status.json")
    ms = collector.collect()
    later = utc("2026-11-30 00:09:25")
    assert ms.sample_value("zmon_pool_last_scrub_end_time_seconds", {"pool": "tank"}) == later


def test_state_file_option_and_pool_name_fallback(tmp_path: Path) -> None:
    target = tmp_path / "custom" / "scrubs.json"
    responses = text_runner("2.3.2", "04-scrub-finished")
    responses[GUIDS] = CommandResult(GUIDS, 1, b"", b"permission denied\n", 0)
    collector, _ = make(tmp_path, responses, state_file=str(target))
    collector.collect()
    assert "name:tank" in json.loads(target.read_text())["pools"]


def test_unwritable_state_dir_keeps_the_record_in_memory(tmp_path: Path, capsys) -> None:
    """Logged once; the collection goes on with the record in memory."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    runner = StaticRunner(responses=json_runner("04-scrub-finished", "zpool-status.json"))
    paths = Paths(state_dir=blocker / "state")
    collector = ZpoolCollector(Context(paths=paths, runner=runner, options={"timezone": "UTC"}))
    collector.collect()
    runner.responses = json_runner("05-checksum-errors-repaired", "zpool-status.json")
    collector.collect()  # a second failed write
    runner.responses = json_runner("13-resilver-in-progress", "zpool-status.json")
    ms = collector.collect()
    assert ms.sample_value("zmon_pool_last_scrub_end_time_seconds", {"pool": "tank"}) == utc(
        "2026-11-30 00:09:25"
    )
    captured = capsys.readouterr()
    assert (captured.out + captured.err).count("scrub state file") == 1


def test_corrupt_state_file_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "zpool-last-scrub.json").write_text("{not json")
    collector, _ = make(tmp_path, json_runner("13-resilver-in-progress", "zpool-status.json"))
    ms = collector.collect()
    assert ms.sample_value("zmon_pool_last_scrub_end_time_seconds", {"pool": "tank"}) is None


# ---- devices ----


def _links(root: Path, names: dict[str, str]) -> None:
    by_id = root / "dev" / "disk" / "by-id"
    by_id.mkdir(parents=True)
    for link, target in names.items():
        (by_id / link).symlink_to(f"../../{target}")


def test_devices_from_dev_disk_links(tmp_path: Path) -> None:
    _links(
        tmp_path / "root",
        {
            "ata-QEMU_HARDDISK_ZLSATA0": "sda",
            "ata-QEMU_HARDDISK_ZLSATA0-part1": "sda1",
            "ata-QEMU_HARDDISK_ZLSATA1": "sdb",
            "ata-QEMU_HARDDISK_ZLSATA1-part1": "sdb1",
            "ata-QEMU_HARDDISK_ZLSATA2": "sdc",
            "ata-QEMU_HARDDISK_ZLSATA2-part1": "sdc1",
            "nvme-QEMU_NVMe_Ctrl_ZLNVME0": "nvme0n1",
            "nvme-QEMU_NVMe_Ctrl_ZLNVME0-part1": "nvme0n1p1",
            "nvme-QEMU_NVMe_Ctrl_ZLNVME1": "nvme1n1",
            "nvme-QEMU_NVMe_Ctrl_ZLNVME1-part1": "nvme1n1p1",
        },
    )
    for responses in (
        json_runner("13-resilver-in-progress"),
        text_runner("2.3.2", "13-resilver-in-progress"),
    ):
        collector, runner = make(tmp_path, responses, device_map=True)
        ms = collector.collect()
        assert PL not in runner.calls
        devices = {
            s.labels["vdev"]: s.labels["device"]
            for f in ms.families()
            if f.name == "zmon_vdev_info"
            for s in f.samples
            if s.labels["pool"] == "tank" and s.labels["type"] == "disk"
        }
        assert devices == {
            "ata-QEMU_HARDDISK_ZLSATA0": "sda",
            "ata-QEMU_HARDDISK_ZLSATA1": "sdb",
            "nvme-QEMU_NVMe_Ctrl_ZLNVME0": "nvme0n1",
            "vdd": "vdd",
            "vde": "vde",
            "ata-QEMU_HARDDISK_ZLSATA2": "sdc",
        }


def test_devices_from_zpool_status_p_l_once_per_layout(tmp_path: Path) -> None:
    responses = text_runner("2.3.2", "13-resilver-in-progress")
    responses[PL] = lab("2.3.2", "13-resilver-in-progress", "zpool-status-P-L.txt").read_bytes()
    collector, runner = make(tmp_path, responses, device_map=True)
    ms = collector.collect()
    collector.collect()
    assert runner.calls.count(PL) == 1
    labels = {"pool": "tank", "vdev": "nvme-QEMU_NVMe_Ctrl_ZLNVME0", "device": "nvme0n1"}
    assert ms.sample_value("zmon_vdev_info", labels) == 1
    spare = {"pool": "tank", "vdev": "ata-QEMU_HARDDISK_ZLSATA2", "class": "spare"}
    assert ms.sample_value("zmon_vdev_info", {**spare, "device": "sdc"}) == 1
    runner.responses = {
        **responses,
        TEXT: result(TEXT, lab("2.3.2", "15-resilver-finished", "zpool-status-p-v-s.txt")),
    }
    collector.collect()
    assert runner.calls.count(PL) == 2  # the layout changed


def test_p_l_failure_does_not_fail_the_collection(tmp_path: Path) -> None:
    responses = text_runner("2.3.2", "13-resilver-in-progress")
    responses[PL] = CommandResult(PL, 2, b"", b"invalid option 'L'\n", 0)
    collector, runner = make(tmp_path, responses, device_map=True)
    collector.collect()
    collector.collect()
    assert runner.calls.count(PL) == 1  # rejected once, not asked again


def test_parse_guids() -> None:
    assert parse_guids((LAB / "2.1.11" / "zpool-get-Hp-guid.txt").read_bytes()) == {
        "fragile": "5492995106410272062",
        "rz": "9531066525928922958",
        "single": "14399392780536257435",
        "tank": "2438723446209917545",
    }


def test_parse_kind_reads_text_and_json() -> None:
    kind, _help = parse_kinds()["zpool-status"]
    for path in (
        lab("2.3.2", "13-resilver-in-progress", "zpool-status-p-v-s.txt"),
        lab("2.3.2", "13-resilver-in-progress", "zpool-status.json"),
    ):
        ms = kind(path.read_bytes())
        labels = {"pool": "tank", "function": "resilver"}
        assert ms.sample_value("zmon_pool_scan_in_progress", labels) == 1
    with pytest.raises(ParseError):
        kind(b"not zpool output\n")


# ---- a hung zpool, through the real CommandRunner ----


def test_hung_zpool_is_killed_at_its_timeout(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = tmp_path / "zpool"
    script.write_text(f"#!/bin/sh\necho $$ >> {pids}\nsleep 600 &\necho $! >> {pids}\nwait\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    runner = CommandRunner(binaries={"zpool": str(script)}, default_timeout=1.0)
    collector = ZpoolCollector(Context(paths=Paths(state_dir=tmp_path / "state"), runner=runner))
    with pytest.raises(CommandTimeout):  # killed at its timeout, not after 600 s
        collector.collect()
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 2
    deadline = time.monotonic() + 3.0
    while any(running(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in started if running(p)], "a zpool process outlived its timeout"


def test_recount_failure_keeps_the_listed_files(tmp_path: Path) -> None:
    responses = text_runner("2.3.2", "13-resilver-in-progress")
    responses[COUNT_SINGLE] = CommandResult(COUNT_SINGLE, 1, b"", b"cannot open 'single'\n", 0)
    ms = make(tmp_path, responses)[0].collect()
    assert ms.sample_value("zmon_pool_data_errors", {"pool": "single"}) == 1  # one file listed
    responses[COUNT_SINGLE] = lab(
        "2.3.2", "13-resilver-in-progress", "zpool-status-P-L.txt"
    ).read_bytes()
    ms = make(tmp_path, responses)[0].collect()
    assert ms.sample_value("zmon_pool_data_errors", {"pool": "single"}) == 107
