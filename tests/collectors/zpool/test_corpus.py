"""Every zpool_status_* sample of the corpus parses, and gives the facts in EXPECTED.md.

Each case lists every vdev row in printed order (name, state, READ/WRITE/CKSUM, note, depth,
class), the scan, the errors section and whether the output is complete. Dates are read as
UTC (the ``tz`` argument); ``test_units`` covers local-time handling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

import pytest

from tests.support.zpool_status import CORPUS, FIX, parse_file, utc, vdev_named
from zmon.base.errors import ParseError
from zmon.collectors.zpool import parse_kind, resolve_static
from zmon.parsers.zpool.zpool_status import parse_zpool_status
from zmon.parsers.zpool.zpool_status_model import (
    UNNAMED_POOL,
    note_kinds,
    parse_draid_name,
    parse_draid_spare,
    status_kind,
)

K, M, G, T = 1 << 10, 1 << 20, 1 << 30, 1 << 40


@dataclass
class R:
    """An expected vdev row: counters are (READ, WRITE, CKSUM); None = not printed."""

    name: str
    state: str | None
    counters: tuple[int | None, int | None, int | None] = (0, 0, 0)
    note: str = ""
    depth: int | None = None
    cls: str = "normal"


@dataclass
class Case:
    pool: str
    state: str | None
    complete: bool
    rows: list[R]
    scan: dict[str, Any] | None = None
    data_errors: int | None = 0
    present: bool | None = False
    unavailable: bool = False
    files: list[str] = field(default_factory=list)
    msg_id: str | None = None
    see: str = ""
    status: str = ""
    upgrade: bool = False
    extra: tuple[str, ...] = ()
    action: str = ""
    others: tuple[Case, ...] = ()  # the pools printed after this one


def _mirror_rows(names: list[str], depth: int = 2, state: str = "ONLINE") -> list[R]:
    return [R(n, state, depth=depth) for n in names]


CASES: dict[str, Case] = {
    "zpool_status_02_permerr_cksum_K_suffix_0.6.5.txt": Case(
        "volumes", "ONLINE", complete=False,  # a "....." elision line follows the file list
        msg_id="ZFS-8000-8A", see="http://zfsonlinux.org/msg/ZFS-8000-8A", status="corrupt_data",
        scan=dict(function="scrub", state="finished", processed=0, duration=3 * 3600 + 49 * 60,
                  errors=1937, end_time=utc("2016-09-22 12:29:51"), start_time=None),
        rows=[R("volumes", "ONLINE", (0, 0, 2089), depth=0),
              R("mirror-0", "ONLINE", depth=1), *_mirror_rows(["vdb", "vdf"]),
              R("mirror-1", "ONLINE", (0, 0, 4188), depth=1),
              R("vdd", "ONLINE", (0, 0, 4188), depth=2), R("vde", "ONLINE", (0, 0, 4188), depth=2)],
        data_errors=2, present=True,
        files=["volumes/free/1/be9509b4-cca7-45bc-6b36-46e01a2c755b:<0x1659>",
               "/volumes1/data/free/1/5f9cf209-69d8-4289-56a6-ebc96231bc50/avatar/"
               "avatar_20160919042303.jpg"],
    ),
    "zpool_status_04_unavail_label_missing_0.6.3.txt": Case(
        "mypool", "UNAVAIL", complete=False,  # no errors: line
        msg_id="ZFS-8000-5E", status="label_missing", data_errors=None, present=None,
        rows=[R("mypool", "UNAVAIL", note="insufficient replicas", depth=0),
              R("mirror-0", "UNAVAIL", note="insufficient replicas", depth=1),
              R("sdc", "FAULTED", note="corrupted data", depth=2),
              R("sdd", "FAULTED", note="corrupted data", depth=2)],
    ),
    "zpool_status_06_unavail_was_dev_label_missing.txt": Case(
        "rpool", "ONLINE", complete=False, msg_id="ZFS-8000-4J", status="label_missing",
        data_errors=None, present=None,
        scan=dict(function="resilver", state="finished", processed=901 * G, errors=0,
                  duration=9 * 3600 + 60, end_time=utc("2015-10-26 09:04:05")),
        rows=[R("rpool", "ONLINE", depth=0), R("raidz1-0", "ONLINE", depth=1),
              R("ata-TOSHIBA_DT01ACA200_74FWM9LKS-part3", "ONLINE", depth=2),
              R("17682433485448789979", "UNAVAIL", depth=2,
                note="was /dev/disk/by-id/ata-TOSHIBA_DT01ACA200_74FWMHDKS"),
              R("ata-TOSHIBA_DT01ACA200_74FWR4VKS-part3", "ONLINE", depth=2)],
    ),
    "zpool_status_08_spare_inuse_special_logs_cache_PARTIAL.txt": Case(
        "testspare", "ONLINE", complete=False, data_errors=None, present=None,
        rows=[R("testspare", "ONLINE", depth=0), R("mirror-0", "ONLINE", depth=1),
              R("spare-0", "ONLINE", depth=2),
              R("9d92cdac-f627-446c-8ace-169b6dec27a0", "ONLINE", depth=3),
              R("f7c8e925-6ede-4331-8fd3-ee70570772e0", "ONLINE", depth=3),
              R("1eb6a232-9a25-4867-80bb-ffd1b0797891", "ONLINE", depth=2),
              R("mirror-1", "ONLINE", depth=1),
              R("474f99c6-a0d4-491f-8440-9c5761018b4d", "ONLINE", depth=2),
              R("dca2f116-a998-4b2d-92d5-4389837cc8c8", "ONLINE", depth=2),
              R("58d6865e-664f-456c-a6bb-391e53e014d8", "ONLINE", depth=1, cls="special"),
              R("790817f9-9e27-4576-8b99-093b8d792962", "ONLINE", depth=1, cls="log"),
              R("a6f48d2e-256c-4eba-a451-e4b6bb147eee", "ONLINE", depth=1, cls="cache"),
              R("f7c8e925-6ede-4331-8fd3-ee70570772e0", "INUSE", (None, None, None),
                note="currently in use", depth=1, cls="spare"),
              *[R(n, "AVAIL", (None, None, None), depth=1, cls="spare") for n in (
                  "4d982589-03a3-4ae3-934a-8386a49a891c", "4a5ab019-d9b4-4ebe-ae54-c5d73911b4fc",
                  "46f25d7f-9759-49fd-99b2-7210bfb5602b", "34ecb450-8aea-4e04-92d8-71845bc4e21b")]],
    ),
    "zpool_status_10_scrub_inprogress_0.7_oldfmt_features.txt": Case(
        "freebsd11", "ONLINE", complete=True, status="features_disabled", upgrade=True,
        scan=dict(function="scrub", state="in_progress", start_time=utc("2017-04-19 01:33:18"),
                  examined=80 * M, to_examine=447 * M, examine_rate=round(6.1 * M),
                  remaining=0, processed=0, progress=0.1781, issued=None, end_time=None),
        rows=[R("freebsd11", "ONLINE", depth=0), R("mirror-0", "ONLINE", depth=1),
              *_mirror_rows(["vda", "vdb"])],
    ),
    "zpool_status_12_legacy_ondisk_format_scrub_repaired_34K.txt": Case(
        "atmaweapon", "ONLINE", complete=True, status="legacy_format", upgrade=True,
        scan=dict(function="scrub", state="finished", processed=34 * K, errors=0,
                  duration=3 * 3600 + 40 * 60, end_time=utc("2013-04-06 00:51:24")),
        rows=[R("atmaweapon", "ONLINE", depth=0), R("mirror-0", "ONLINE", depth=1),
              *_mirror_rows(["ata-WDC_WD10EAVS-00D7B1_WD-WCAU48198447-part1",
                             "ata-ST1000DM003-9YN162_Z1D1PT33"]),
              R("VolGroup00-l2arc", "ONLINE", depth=1, cls="cache")],
    ),
    "zpool_status_14_trim_completed_line_features.txt": Case(
        "VM", "ONLINE", complete=True, status="features_disabled", upgrade=True, extra=("trim",),
        rows=[R("VM", "ONLINE", depth=0), R("sdb3", "ONLINE", depth=1),
              R("sdb2", "ONLINE", depth=1)],
    ),
    "zpool_status_16_resilvered_2x_fmt_raidz2_wwn.txt": Case(
        "lwastor04", "ONLINE", complete=True,
        scan=dict(function="resilver", state="finished", processed=574 * M, errors=0, duration=64,
                  end_time=utc("2023-12-18 17:21:34"), start_time=utc("2023-12-18 17:20:30")),
        rows=[R("lwastor04", "ONLINE", depth=0), R("raidz2-0", "ONLINE", depth=1),
              *_mirror_rows([f"wwn-0x5000cca2{s}" for s in (
                  "b4cbbf58", "ab47c278", "b6601a98", "b4c9c29c", "b665fe8c", "b4ca4598",
                  "b662085c", "b4c7d170", "b4c9fdf4", "ab4c24ec", "b65bb7d8", "b6659e30")])],
    ),
    "zpool_status_18_smartos_illumos_log_offline.txt": Case(
        "zones", "DEGRADED", complete=True, status="offline_device",
        scan=dict(function="scrub", state="finished", processed=0, errors=0,
                  duration=11 * 3600 + 58 * 60, end_time=utc("2013-08-09 20:02:23")),
        rows=[R("zones", "DEGRADED", depth=0), R("mirror-0", "ONLINE", depth=1),
              *_mirror_rows(["c1t1d0s0", "c1t0d0s0", "c1t4d0s1"]),
              R("c1t2d0s4", "OFFLINE", depth=1, cls="log")],
    ),
    "zpool_status_20_faulted_rw_cksum_pool_online_2.2.7.txt": Case(
        "tank", "ONLINE", complete=True, status="faulted_device",
        scan=dict(function="resilver", state="finished", processed=round(2.28 * M), errors=0,
                  duration=1, end_time=utc("2025-07-14 23:10:20")),
        rows=[R("tank", "ONLINE", depth=0), R("mirror-0", "ONLINE", depth=1),
              R("ata-TOSHIBA_MG08ACA16TE_64M0A0xxxxxx", "ONLINE", depth=2),
              R("ata-TOSHIBA_MG08ACA16TE_64M0A0xxxxxx", "FAULTED", (12, 753, 83),
                note="too many errors", depth=2)],
    ),
    "zpool_status_22_healthy_two_mirrors_nbd.txt": Case(
        "test", "ONLINE", complete=True,
        rows=[R("test", "ONLINE", depth=0), R("mirror-0", "ONLINE", depth=1),
              *_mirror_rows(["nbd0", "nbd1"]), R("mirror-1", "ONLINE", depth=1),
              *_mirror_rows(["nbd2", "nbd3"])],
    ),
    "zpool_status_24_resilver_2.3fmt_expand_replacing_was_old_dataerrors.txt": Case(
        "storage", "DEGRADED", complete=False,  # "." elision lines in the table
        status="resilvering", extra=("expand",), data_errors=1, present=True,
        scan=dict(function="resilver", state="in_progress", start_time=utc("2026-02-19 18:24:38"),
                  examined=round(68.8 * T), to_examine=104 * T, examine_rate=round(2.81 * G),
                  issued=round(48.3 * T), to_issue=104 * T, issue_rate=round(1.97 * G),
                  processed=round(2.80 * T), progress=0.4664,
                  remaining=7 * 3600 + 58 * 60 + 49, end_time=None),
        rows=[R("storage", "DEGRADED", depth=0), R("raidz2-0", "DEGRADED", depth=1),
              R("/dev/sdt1", "ONLINE", (0, 0, 9), note="(resilvering)", depth=2),
              R("/dev/sdu1", "ONLINE", (0, 0, 14), note="(resilvering)", depth=2),
              R("replacing-2", "DEGRADED", (0, 0, 26), depth=2),
              R("11687508470009778260", "UNAVAIL", note="was /dev/sdv1/old", depth=3),
              R("/dev/sdv1", "ONLINE", note="(resilvering)", depth=3)],
    ),
    "zpool_status_26_freebsd_zroot_mirror_ada_p3_healthy.txt": Case(
        "zroot", "ONLINE", complete=True,
        rows=[R("zroot", "ONLINE", depth=0), R("mirror-0", "ONLINE", depth=1),
              *_mirror_rows(["ada0p3", "ada1p3"])],
    ),
    "zpool_status_28_freebsd_nas4free_guid_unavail_was_dev_ada6_config_only_PARTIAL.txt": Case(
        "tank", "DEGRADED", complete=False, data_errors=None, present=None,
        rows=[R("tank", "DEGRADED", depth=0), R("raidz2-0", "DEGRADED", depth=1),
              *_mirror_rows(["ada0", "ada1", "ada2", "ada3", "ada5"]),
              R("9875896178717210589", "UNAVAIL", note="was /dev/ada6", depth=2)],
    ),
    "zpool_status_30_unavail_suspended_faulted_too_many_errors_scrub_0.7.txt": Case(
        "dozer", "UNAVAIL", complete=True, msg_id="ZFS-8000-HC", status="io_failure",
        see="http://zfsonlinux.org/msg/ZFS-8000-HC",
        scan=dict(function="scrub", state="in_progress", start_time=utc("2017-03-20 14:04:56"),
                  examined=773 * M, to_examine=1 * G, examine_rate=875 * K, remaining=240,
                  processed=0, progress=0.7544),
        rows=[R("dozer", "UNAVAIL", note="insufficient replicas", depth=0),
              R("sdc", "ONLINE", depth=1),
              R("sdd", "FAULTED", (6, 0, 0), note="too many errors", depth=1)],
        data_errors=None, present=None, unavailable=True,
    ),
    "zpool_status_32_unavail_single_disk_suspended_two_errors_lines_0.8.1.txt": Case(
        "pool1", "UNAVAIL", complete=True, msg_id="ZFS-8000-JQ", status="io_failure",
        rows=[R("pool1", "UNAVAIL", note="insufficient replicas", depth=0),
              R("sdc", "UNAVAIL", depth=1)],
        data_errors=5, present=True, unavailable=True,
    ),
    "zpool_status_34_draid_nested_spare_replacing_spare_13.2K_config_only_2.2.4_PARTIAL.txt": Case(
        "tank20", "DEGRADED", complete=False, data_errors=None, present=None,
        rows=[R("tank20", "DEGRADED", depth=0), R("draid2:8d:90c:2s-0", "DEGRADED", depth=1),
              *_mirror_rows([f"L{i}" for i in range(6)]),
              R("spare-6", "DEGRADED", (0, 0, 13517), depth=2),
              R("replacing-0", "DEGRADED", depth=3), R("spare-0", "DEGRADED", depth=4),
              R("L6/old", "FAULTED", note="external device fault", depth=5),
              R("draid2-0-1", "ONLINE", depth=5), R("L6", "ONLINE", depth=4),
              R("draid2-0-0", "ONLINE", depth=3), R("L7", "ONLINE", depth=2)],
    ),
    "zpool_status_36_mirror_spare_N_faulted_spares_inuse_config_only_0.7dev_PARTIAL.txt": Case(
        "mypool", "DEGRADED", complete=False, data_errors=None, present=None,
        rows=[R("mypool", "DEGRADED", depth=0), R("mirror-0", "DEGRADED", depth=1),
              R("spare-0", "DEGRADED", depth=2),
              R("B0", "FAULTED", (0, 294, 0), note="too many errors", depth=3),
              R("B14", "ONLINE", depth=3), R("spare-1", "FAULTED", depth=2),
              R("B1", "FAULTED", (0, 101, 0), note="too many errors", depth=3),
              R("B15", "ONLINE", depth=3), R("spare-2", "FAULTED", depth=2),
              R("B2", "FAULTED", (0, 101, 0), note="too many errors", depth=3),
              R("B16", "ONLINE", depth=3), *_mirror_rows(["B3", "B4", "B5", "B6"]),
              R("B14", "INUSE", (None, None, None), "currently in use", depth=1, cls="spare"),
              R("B15", "INUSE", (None, None, None), "currently in use", depth=1, cls="spare")],
    ),
    "zpool_status_38_truenas_raidz2_single_write_error_9P.txt": Case(
        "tank", "ONLINE", complete=True, msg_id="ZFS-8000-9P", status="unrecoverable_error",
        see="https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-9P",
        scan=dict(function="scrub", state="finished", processed=0, errors=0,
                  duration=7 * 3600 + 12 * 60 + 57, end_time=utc("2023-01-17 18:12:00")),
        rows=[R("tank", "ONLINE", depth=0), R("raidz2-0", "ONLINE", depth=1),
              *_mirror_rows(["sde", "sdd", "sdc", "sdb"]), R("sda", "ONLINE", (0, 1, 0), depth=2)],
    ),
    "zpool_status_40_freebsd_raidz1_removed_state_FAULTED_empty_permerr_list.txt": Case(
        "storage", "FAULTED", complete=False,  # permanent errors without any count
        status="missing_device",
        action="Attach the missing device and online it using 'zpool online'.",
        rows=[R("storage", "ONLINE", depth=0), R("raidz1-0", "ONLINE", depth=1),
              R("ada4", "ONLINE", depth=2), R("ada0", "REMOVED", depth=2),
              *_mirror_rows(["ada2", "ada5", "ada3"])],
        data_errors=None, present=True,
    ),
    "zpool_status_42_fragment_rows_only_no_header_2.4.1_PARTIAL.txt": Case(
        UNNAMED_POOL, None, complete=False, data_errors=None, present=None,
        rows=[*_mirror_rows(["wwn-0x5000cca2bb1d3224", "wwn-0x5000cca2b663287c",
                             "wwn-0x5000cca2bb1d4b24", "wwn-0x5000cca2b6603740"], depth=1),
              R("raidz2-4", "ONLINE", depth=1),
              *_mirror_rows(["wwn-0x5000cca2ab4bf520", "wwn-0x5000cca2b9b97fe0",
                             "wwn-0x5000cca2b668b1b0", "wwn-0x5000cca2bb1bdfcc"])],
    ),
    "zpool_status_44_s_slow_column_single_offline_leaf_758_2.4_PARTIAL.txt": Case(
        UNNAMED_POOL, None, complete=False, data_errors=None, present=None,
        rows=[R("7319fb47-d7d0-5642-b575-e9e8e5351adb", "OFFLINE", (0, 0, 2), depth=1)],
    ),
    "zpool_status_46_config_only_guid_faulted_was_dev_sdd1_cksum6_0.7.5_PARTIAL.txt": Case(
        "zfs-san", "DEGRADED", complete=False, data_errors=None, present=None,
        rows=[R("zfs-san", "DEGRADED", depth=0), R("raidz2-0", "DEGRADED", depth=1),
              *_mirror_rows(["wwn-0x5000c5004d038886", "wwn-0x5000c500408ac603"]),
              R("649844116982152511", "FAULTED", note="was /dev/sdd1", depth=2),
              R("sdc", "ONLINE", (0, 0, 6), depth=2)],
    ),
    "zpool_status_48_raidz2_replacing_6_guid_unavail_resilvered_136K_0.6_PARTIAL.txt": Case(
        "ZFS01", "DEGRADED", complete=False, data_errors=None, present=None,
        scan=dict(function="resilver", state="finished", processed=136 * K, errors=0, duration=0,
                  end_time=utc("2015-12-07 06:23:52")),
        rows=[R("ZFS01", "DEGRADED", depth=0), R("raidz2-0", "DEGRADED", depth=1),
              *_mirror_rows([f"ata-WDC_WD30E{s}" for s in (
                  "FRX-68AX9N0_WD-WCC1T1103105", "FRX-68AX9N0_WD-WCC1T1172243",
                  "ZRX-00SPEB0_WD-WCC4E0315648", "ZRX-00DC0B0_WD-WMC1T2084454",
                  "ZRX-00D8PB0_WD-WCC4N0103047", "ZRX-00DC0B0_WD-WMC1T0438502")]),
              R("replacing-6", "DEGRADED", depth=2),
              R("ata-WDC_WD30EZRX-00MMMB0_WD-WCAWZ0412403", "ONLINE", depth=3),
              R("127286639182292558", "UNAVAIL", depth=3,
                note="was /dev/disk/by-id/ata-WDC_WD30EZRX-00DC0B0_WD-WMC1T0419233-part1"),
              R("ata-WDC_WD30EZRX-00MMMB0_WD-WMAWZ0327093", "ONLINE", depth=2)],
    ),
    ("zpool_status_50_mirror_leaf_degraded_too_many_errors_resilvered"
     "_days_fmt_0.7_PARTIAL.txt"): Case(
        "vz", "DEGRADED", complete=False, msg_id="ZFS-8000-9P", status="unrecoverable_error",
        see="http://zfsonlinux.org/msg/ZFS-8000-9P", data_errors=None, present=None,
        scan=dict(function="resilver", state="finished", processed=round(2.10 * T), errors=0,
                  duration=17 * 3600 + 49 * 60 + 44, end_time=utc("2018-05-13 13:34:56")),
        rows=[R("vz", "DEGRADED", depth=0), R("mirror-0", "DEGRADED", depth=1),
              R("sdh", "ONLINE", depth=2),
              R("ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13HETXXKA", "DEGRADED", note="too many errors",
                depth=2),
              R("mirror-1", "ONLINE", depth=1),
              *_mirror_rows(["ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13L905UN2",
                             "ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13L905ZE6"]),
              R("mirror-2", "ONLINE", depth=1),
              R("ata-WDC_WD3001FFSX-68JNUN0_WD-WCC13LDN2ULC", "ONLINE", depth=2)],
    ),
    "zpool_status_52_raidz1_offline_members_html_pre_prompt_0.6_PARTIAL.txt": Case(
        "data", "DEGRADED", complete=False, status="offline_device", data_errors=None,
        present=None,
        scan=dict(function="resilver", state="finished", processed=round(64.3 * M), errors=0,
                  duration=8 * 60, end_time=utc("2013-07-18 12:56:58")),
        rows=[R("data", "DEGRADED", depth=0), R("raidz1-0", "DEGRADED", depth=1),
              *_mirror_rows(["A0", "A1", "A2", "A3", "B0", "B1"]), R("B2", "OFFLINE", depth=2),
              R("B3", "ONLINE", depth=2), R("raidz1-1", "DEGRADED", depth=1),
              *_mirror_rows(["A4", "A5", "A6", "A7", "B4", "B5"]), R("B6", "OFFLINE", depth=2),
              R("B7", "ONLINE", depth=2)],
    ),
    "zpool_status_54_scrub_in_progress_issued_fmt_ram_cksum_162_54_0.8rc.txt": Case(
        "rtest", "ONLINE", complete=True, msg_id="ZFS-8000-9P", status="unrecoverable_error",
        scan=dict(function="scrub", state="in_progress", start_time=utc("2019-02-21 20:18:09"),
                  examined=round(87.3 * M), issued=round(22.2 * M), to_examine=round(88.5 * M),
                  examine_rate=round(87.3 * M), issue_rate=round(22.2 * M), processed=0,
                  progress=0.2502, remaining=2, end_time=None),
        rows=[R("rtest", "ONLINE", depth=0), R("mirror-0", "ONLINE", depth=1),
              R("ram0", "ONLINE", (0, 0, 162), depth=2), R("ram1", "ONLINE", (0, 0, 54), depth=2)],
    ),
    "zpool_status_56_two_mirrors_cksum_33_9P_no_errors_line.txt": Case(
        "rpool", "ONLINE", complete=False, msg_id="ZFS-8000-9P", status="unrecoverable_error",
        data_errors=None, present=None,
        rows=[R("rpool", "ONLINE", depth=0), R("mirror-0", "ONLINE", depth=1),
              *_mirror_rows(["sda3", "sdb3"]), R("mirror-1", "ONLINE", depth=1),
              R("sdc", "ONLINE", depth=2), R("sdd", "ONLINE", (0, 0, 33), depth=2)],
    ),
    "zpool_status_58_raidz1_wwn_cksum_on_pool_and_raidz_only_scrub_21_errors_8A_PARTIAL.txt": Case(
        "dstore1", "ONLINE", complete=False, msg_id="ZFS-8000-8A", status="corrupt_data",
        data_errors=None, present=None,
        scan=dict(function="scrub", state="finished", processed=0, errors=21,
                  duration=51 * 3600 + 50 * 60, end_time=utc("2019-03-06 16:01:48")),
        rows=[R("dstore1", "ONLINE", (0, 0, 21), depth=0),
              R("raidz1-0", "ONLINE", (0, 0, 4), depth=1),
              *_mirror_rows([f"wwn-0x5000cca2{s}" for s in (
                  "54df6d38", "54e12b37", "54e10426", "54e4b029", "54df5910", "54e48bd1",
                  "54df6f34", "3bd9cd86")]),
              R("raidz1-1", "ONLINE", (0, 0, 4), depth=1),
              *_mirror_rows([f"wwn-0x5000cca2{s}" for s in (
                  "3bda212a", "54e4e2fb", "54dfd8b8", "54e1e184")])],
    ),
    "zpool_status_60_config_only_raidz1_cksum_49_12_18_PARTIAL.txt": Case(
        "dmirror1", "ONLINE", complete=False, data_errors=None, present=None,
        rows=[R("dmirror1", "ONLINE", (0, 0, 49), depth=0),
              R("raidz1-0", "ONLINE", (0, 0, 12), depth=1),
              *_mirror_rows([f"wwn-0x5000cca23bd{s}" for s in (
                  "7b212", "89099", "899ce", "8f1ea", "93fe3", "9a29e", "9a389", "9bc04",
                  "9c1a6", "9c27d", "9c7b3")]),
              R("raidz1-1", "ONLINE", (0, 0, 18), depth=1),
              *_mirror_rows([f"wwn-0x5000cca23bd{s}" for s in (
                  "9cc99", "9cceb", "9cd63", "9cd81", "9d65e", "9dc1a")])],
    ),
    "zpool_status_62_c_script_columns_skipping_line_13.4M_old_resilver_fmt_PARTIAL.txt": Case(
        "tank30", "DEGRADED", complete=False, status="resilvering", data_errors=None,
        present=None,
        scan=dict(function="resilver", state="in_progress", start_time=utc("2024-02-20 23:53:35"),
                  examined=111 * T, to_examine=235 * T, examine_rate=329 * M,
                  processed=round(9.29 * T), progress=0.4704, remaining=110 * 3600 + 18 * 60,
                  end_time=None),
        rows=[R("tank30", "DEGRADED", (0, 0, round(13.4 * M)), depth=0),
              R("raidz2-3", "DEGRADED", (0, 0, round(26.7 * M)), depth=1),
              R("scsi-35000c50094bacf9f", "DEGRADED", note="too many errors  (resilvering)",
                depth=2),
              R("scsi-35000c50094ba731b", "DEGRADED", note="too many errors  (resilvering)",
                depth=2)],
    ),
    "zpool_status_64_header_root_raidz2_wide_name_column_2.4.1_PARTIAL.txt": Case(
        "scratch", "ONLINE", complete=False, data_errors=None, present=None,
        rows=[R("scratch", "ONLINE", depth=0), R("raidz2-0", "ONLINE", depth=1),
              *_mirror_rows([f"wwn-0x5000cca2{s}" for s in (
                  "bb0e4ee0", "ab4c0224", "ab4adc68", "bb0ec380", "b6673968", "b6696458")])],
    ),
    "zpool_status_66_raidz2_resilvered_52h55m_prompt_hash_0.6.5_PARTIAL.txt": Case(
        "tanka", "ONLINE", complete=False, data_errors=None, present=None,
        scan=dict(function="resilver", state="finished", processed=498 * G, errors=0,
                  duration=52 * 3600 + 55 * 60, end_time=utc("2016-07-09 02:13:26")),
        rows=[R("tanka", "ONLINE", depth=0), R("raidz2-0", "ONLINE", depth=1),
              *_mirror_rows(["ata-TOSHIBA_DT01ACA300_Z37G820GS",
                             "ata-WDC_WD30EZRZ-00Z5HB0_WD-WCC4N2TFU67F",
                             "ata-ST3000DM001-9YN166_Z1F0NBDP",
                             "ata-ST3000DM001-9YN166_S1F0F544"])],
    ),
    "zpool_status_68_resilver_in_progress_2.1_cut_before_table_PARTIAL.txt": Case(
        "dpool", "DEGRADED", complete=False, status="resilvering", data_errors=None,
        present=None,
        scan=dict(function="resilver", state="in_progress", start_time=utc("2021-11-25 13:27:01"),
                  examined=round(39.2 * T), issued=round(35.6 * T), to_examine=42 * T,
                  examine_rate=round(1.22 * G), issue_rate=round(1.11 * G),
                  processed=465 * G, progress=0.8477, remaining=3600 + 38 * 60 + 20,
                  end_time=None),
        rows=[],
    ),
    "zpool_status_70_freebsd_two_pools_mfi_illumos_msg_repaired_40K.txt": Case(
        "zdisk2", "ONLINE", complete=True,
        scan=dict(function="scrub", state="finished", processed=0, errors=0,
                  duration=107 * 3600 + 46 * 60, end_time=utc("2018-09-18 23:51:12")),
        rows=[R("zdisk2", "ONLINE", depth=0), R("mfid1p1", "ONLINE", depth=1)],
        others=(Case(
            "zroot", "ONLINE", complete=True, msg_id="ZFS-8000-9P",
            see="http://illumos.org/msg/ZFS-8000-9P", status="unrecoverable_error",
            scan=dict(function="scrub", state="finished", processed=40 * K, errors=0,
                      duration=6 * 3600 + 27 * 60, end_time=utc("2018-09-14 18:32:13")),
            rows=[R("zroot", "ONLINE", depth=0), R("mfid0p3", "ONLINE", (0, 0, 2), depth=1)]),),
    ),
    # The excerpt cut the file list; print_error_log prints nothing after its last file, so a
    # list that reaches the end of the input reads as whole: 8 listed files, complete.
    "zpool_status_72_freebsd_file_vdevs_write_169_JQ_metadata_errors_list_cut.txt": Case(
        "big", "ONLINE", complete=True, msg_id="ZFS-8000-JQ", status="io_failure",
        see="http://illumos.org/msg/ZFS-8000-JQ", data_errors=8, present=True,
        files=[f"<metadata>:<0x{n}>" for n in ("0", "24", "25", "26", "27", "29", "2a", "2b")],
        rows=[R("big", "ONLINE", (0, 169, 0), depth=0), R("raidz3-0", "ONLINE", depth=1),
              *_mirror_rows([f"/mnt/test/loop{i}" for i in range(10)])],
    ),
    "zpool_status_74_fragment_mid_table_with_logs_and_cache_sections_0.6_PARTIAL.txt": Case(
        UNNAMED_POOL, None, complete=False, data_errors=None, present=None,
        rows=[*_mirror_rows([f"scsi-35000c500{s}" for s in (
                  "63452fcb", "5930c9c7", "6340d98b", "59312feb", "7eec45df")], depth=1),
              R("raidz2-7", "ONLINE", depth=1),
              *_mirror_rows([f"scsi-35000c500{s}" for s in (
                  "636c1d27", "6349e257", "636bfc9b", "5930bfe7", "7ee847a7", "7ef12403")]),
              R("raidz2-8", "ONLINE", depth=1),
              *_mirror_rows([f"scsi-35000c500{s}" for s in (
                  "636bfb5f", "6348840b", "7eec5e8b", "5930b3bb", "6349336b", "7eed1e97")]),
              R("mirror-9", "ONLINE", depth=1, cls="log"),
              R("SSD_S1SUNSAG336649A-part3", "ONLINE", depth=2, cls="log"),
              R("SSD_S1SUNSAG336664B-part3", "ONLINE", depth=2, cls="log"),
              R("SSD_S1SUNSAG336649A-part4", "ONLINE", depth=1, cls="cache")],
    ),
    "zpool_status_76_old_scrub_in_progress_config_without_blank_line_cksum_46_PARTIAL.txt": Case(
        "dstore1", "ONLINE", complete=False, msg_id="ZFS-8000-8A", status="corrupt_data",
        data_errors=None, present=None,
        scan=dict(function="scrub", state="in_progress", start_time=utc("2019-02-27 17:11:23"),
                  examined=247 * T, to_examine=497 * T, examine_rate=round(3.06 * G),
                  processed=0, progress=0.4964, remaining=23 * 3600 + 17 * 60, end_time=None),
        rows=[R("dstore1", "ONLINE", (0, 0, 46), depth=0),
              R("raidz1-0", "ONLINE", (0, 0, 8), depth=1),
              *_mirror_rows([f"wwn-0x5000cca2{s}" for s in (
                  "54df6d38", "54e12b37", "54e10426", "54e4b029", "54df5910", "54e48bd1",
                  "54df6f34", "3bd9cd86")]),
              R("raidz1-1", "ONLINE", (0, 0, 8), depth=1),
              *_mirror_rows([f"wwn-0x5000cca2{s}" for s in ("3bda212a", "54e4e2fb", "54dfd8b8")])],
    ),
    "zpool_status_78_two_raidz2_scrub_repaired_44K_hms_fmt_2.1_PARTIAL.txt": Case(
        "zfs_data", "ONLINE", complete=False, data_errors=None, present=None,
        scan=dict(function="scrub", state="finished", processed=44 * K, errors=0,
                  duration=10 * 3600 + 60 + 43, end_time=utc("2023-09-16 04:55:07")),
        rows=[R("zfs_data", "ONLINE", depth=0), R("raidz2-0", "ONLINE", depth=1),
              *_mirror_rows(["ata-HGST_HDN724040ALE640_PK1334PCJY7Y8S",
                             "ata-WDC_WD4000F9YZ-09N20L0_WD-WCC5D0086108",
                             "ata-WDC_WD4003FFBX-68MU3N0_VBG9XGAR",
                             "ata-WDC_WD4003FFBX-68MU3N0_VBGJZW4F",
                             "ata-WDC_WD4003FFBX-68MU3N0_VBGM8YXF",
                             "ata-WDC_WD4003FFBX-68MU3N0_VBG8MB8R"]),
              R("raidz2-1", "ONLINE", depth=1),
              *_mirror_rows(["ata-HGST_HDN724040ALE640_PK1334PCJY7ZGS",
                             "ata-HGST_HUS726T4TALE6L4_V6GXG9NR"])],
    ),
    "zpool_status_80_freebsd_zof_hostid_mismatch_EY_whole_disk_ada1.txt": Case(
        "tank", "ONLINE", complete=False, msg_id="ZFS-8000-EY", status="hostid_mismatch",
        see="http://zfsonlinux.org/msg/ZFS-8000-EY", data_errors=None, present=None,
        scan=dict(function="scrub", state="finished", processed=0, errors=0,
                  duration=43 * 60 + 14, end_time=utc("2019-03-08 22:48:19")),
        rows=[R("tank", "ONLINE", depth=0), R("ada1", "ONLINE", depth=1)],
    ),
    "zpool_status_82_unindented_keys_elided_rows_raidz2.txt": Case(
        "zfileserver", "ONLINE", complete=False,  # the poster's "..." row
        scan=dict(function="scrub", state="finished", processed=0, errors=0,
                  duration=11 * 60 + 38, end_time=utc("2021-07-11 00:35:39")),
        rows=[R("zfileserver", "ONLINE", depth=0), R("raidz2-0", "ONLINE", depth=1),
              *_mirror_rows(["sda", "sdb"])],
    ),
    "zpool_status_json_02_suspended_mirror_removed_write_errors_2.4.json": Case(
        "testpool", "SUSPENDED", complete=True, msg_id="ZFS-8000-HC", status="io_failure",
        see="https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-HC",
        scan=dict(function="resilver", state="finished", processed=18 * K, errors=0,
                  examined=round(19.5 * K), to_examine=153 * K, issued=6 * K),
        rows=[R("testpool", "DEGRADED", depth=0), R("mirror-0", "DEGRADED", (0, 24, 0), depth=1),
              R("scsi-0QEMU_QEMU_HARDDISK_ANAS_HOT1", "ONLINE", (3, 26, 0), depth=2),
              R("scsi-0QEMU_QEMU_HARDDISK_ANAS_HOT2", "REMOVED", depth=2)],
        data_errors=4, present=True,
    ),
    "zpool_status_json_04_all_vdev_classes_dedup_special_logs_l2cache_spares_2.4.4.json": Case(
        "gtvdev", "ONLINE", complete=True,
        rows=[R("gtvdev", "ONLINE", depth=0), R("sdb1", "ONLINE", depth=1),
              R("sdb6", "ONLINE", depth=1, cls="dedup"),
              R("sdb5", "ONLINE", depth=1, cls="special"), R("sdb2", "ONLINE", depth=1, cls="log"),
              R("sdb3", "ONLINE", depth=1, cls="cache"),
              R("sdb4", "AVAIL", (None, None, None), depth=1, cls="spare")],
    ),
}  # fmt: skip


def test_every_corpus_sample_has_a_case() -> None:
    names = sorted(p.name for p in CORPUS.glob("zpool_status_*"))
    assert names == sorted(CASES), "a corpus file has no expected facts (or a case no file)"


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_facts(name: str) -> None:
    status = parse_file(CORPUS / name)
    cases = [CASES[name], *CASES[name].others]
    assert [p.name for p in status.pools] == [c.pool for c in cases]
    for case, pool in zip(cases, status.pools, strict=True):
        _check_pool(case, pool)


def _check_pool(case: Case, pool: Any) -> None:
    assert pool.state == case.state
    assert pool.complete is case.complete, pool.incomplete
    rows = [
        (
            v.name,
            v.state,
            (v.read_errors, v.write_errors, v.checksum_errors),
            v.note,
            v.depth,
            v.vdev_class,
        )
        for v in pool.vdevs()
    ]
    expected = [
        (r.name, r.state, r.counters, r.note, r.depth if r.depth is not None else rows[i][4], r.cls)
        for i, r in enumerate(case.rows)
    ]
    assert rows == expected
    assert pool.data_errors == case.data_errors
    assert pool.data_errors_present is case.present
    assert pool.errors_unavailable is case.unavailable
    assert pool.error_files == case.files
    assert pool.msg_id == case.msg_id
    if case.see:
        assert pool.see == case.see
    assert status_kind(pool.status) == case.status
    assert pool.upgrade_available is case.upgrade
    assert tuple(sorted(k for k in pool.extra if k != "dedup")) == case.extra
    if case.action:
        assert pool.action == case.action
    if case.scan is None:
        assert pool.scans == []
    else:
        assert len(pool.scans) == 1
        for attr, value in case.scan.items():
            got = getattr(pool.scan, attr)
            if isinstance(value, float) and attr == "progress":
                assert got == pytest.approx(value), attr
            else:
                assert got == value, attr


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_metrics_render(name: str) -> None:
    """The parse kind turns every sample into metrics without duplicate series."""
    ms = parse_kind((CORPUS / name).read_bytes())
    seen = set()
    for fam in ms.families():
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            assert key not in seen, key
            seen.add(key)
    pool = CASES[name].pool
    complete = ms.sample_value("zmon_pool_parse_complete", {"pool": pool})
    assert complete == float(CASES[name].complete)


def test_k_suffixed_counters_keep_the_printed_text() -> None:
    pool = parse_file(CORPUS / "zpool_status_02_permerr_cksum_K_suffix_0.6.5.txt").pools[0]
    assert pool.root is not None and pool.root.printed["CKSUM"] == "2.04K"
    assert vdev_named(pool, "vdd").printed["CKSUM"] == "4.09K"


def test_prompt_lines_are_not_warnings() -> None:
    for name in (
        "zpool_status_02_permerr_cksum_K_suffix_0.6.5.txt",
        "zpool_status_18_smartos_illumos_log_offline.txt",
        "zpool_status_14_trim_completed_line_features.txt",
        "zpool_status_16_resilvered_2x_fmt_raidz2_wwn.txt",
    ):
        status = parse_file(CORPUS / name)
        assert status.warnings == []
        assert all("unrecognised" not in w for w in status.pools[0].warnings)


def test_partial_samples_are_never_healthy() -> None:
    """PARTIAL files: parse_complete 0; without a state: line, all pool state series 0."""
    for path in sorted(CORPUS.glob("*_PARTIAL*")):
        ms = parse_kind(path.read_bytes())
        pool = parse_file(path).pools[0].name
        states = [s for f in ms.families() if f.name == "zmon_pool_state" for s in f.samples]
        stated = parse_file(path).pools[0].state is not None
        assert states and (stated or all(s.value == 0 for s in states)), path.name
        assert ms.sample_value("zmon_pool_parse_complete", {"pool": pool}) == 0.0


def test_truncated_errors_line_is_unknown_not_zero() -> None:
    name = "zpool_status_08_spare_inuse_special_logs_cache_PARTIAL.txt"
    pool = parse_file(CORPUS / name).pools[0]
    assert pool.data_errors is None
    assert any("No known data" in r for r in pool.incomplete)


def test_faulted_header_wins_over_table_row() -> None:
    name = "zpool_status_40_freebsd_raidz1_removed_state_FAULTED_empty_permerr_list.txt"
    ms = parse_kind((CORPUS / name).read_bytes())
    assert ms.sample_value("zmon_pool_state", {"pool": "storage", "state": "faulted"}) == 1.0
    assert ms.sample_value("zmon_pool_state", {"pool": "storage", "state": "online"}) == 0.0
    assert ms.sample_value("zmon_pool_data_errors", {"pool": "storage"}) is None
    assert ms.sample_value("zmon_pool_data_errors_present", {"pool": "storage"}) == 1.0


def test_suspended_error_list_is_not_zero_errors() -> None:
    name = "zpool_status_30_unavail_suspended_faulted_too_many_errors_scrub_0.7.txt"
    ms = parse_kind((CORPUS / name).read_bytes())
    assert ms.sample_value("zmon_pool_data_errors", {"pool": "dozer"}) is None
    assert ms.sample_value("zmon_pool_errors_unavailable", {"pool": "dozer"}) == 1.0
    assert ms.sample_value("zmon_pool_io_suspended", {"pool": "dozer"}) == 1.0
    assert ms.sample_value("zmon_pool_state", {"pool": "dozer", "state": "unavail"}) == 1.0


def test_guid_named_vdevs_keep_their_former_path() -> None:
    for name, guid, former in (
        (
            "zpool_status_06_unavail_was_dev_label_missing.txt",
            "17682433485448789979",
            "/dev/disk/by-id/ata-TOSHIBA_DT01ACA200_74FWMHDKS",
        ),
        (
            "zpool_status_28_freebsd_nas4free_guid_unavail_was_dev_ada6_config_only_PARTIAL.txt",
            "9875896178717210589",
            "/dev/ada6",
        ),
    ):
        vdev = vdev_named(parse_file(CORPUS / name).pools[0], guid)
        assert vdev.was_path == former
        assert note_kinds(vdev.note) == ["was"]


def test_draid_names() -> None:
    pool = parse_file(
        CORPUS / "zpool_status_34_draid_nested_spare_replacing_spare_13.2K"
        "_config_only_2.2.4_PARTIAL.txt"
    ).pools[0]
    draid = vdev_named(pool, "draid2:8d:90c:2s-0")
    assert draid.type == "draid"
    layout = parse_draid_name(draid.name)
    assert layout is not None
    assert (layout.parity, layout.data, layout.children, layout.spares, layout.index) == (
        2,
        8,
        90,
        2,
        0,
    )
    assert vdev_named(pool, "draid2-0-0").type == "dspare"
    assert parse_draid_spare("draid2-0-0") == (2, 0, 0)
    assert parse_draid_spare("draid2-0-1") == (2, 0, 1)
    assert vdev_named(pool, "spare-6").printed["CKSUM"] == "13.2K"


def test_spares_in_tree_and_in_spares_section_are_kept_apart() -> None:
    pool = parse_file(
        CORPUS / "zpool_status_36_mirror_spare_N_faulted_spares_inuse_config_only_"
        "0.7dev_PARTIAL.txt"
    ).pools[0]
    leaves = [v for v in pool.vdevs() if v.is_leaf]
    assert len([v for v in leaves if v.vdev_class == "normal"]) == 10
    assert [v.name for v in leaves if v.vdev_class == "spare"] == ["B14", "B15"]
    ms = parse_kind(
        (
            CORPUS
            / ("zpool_status_36_mirror_spare_N_faulted_spares_inuse_config_only_0.7dev_PARTIAL.txt")
        ).read_bytes()
    )
    labels = {"pool": "mypool", "vdev": "B14"}
    assert ms.sample_value("zmon_vdev_state", {**labels, "class": "spare", "state": "inuse"}) == 1
    assert ms.sample_value("zmon_vdev_state", {**labels, "class": "normal", "state": "online"}) == 1


def test_duplicate_leaf_names_are_not_merged() -> None:
    name = "zpool_status_20_faulted_rw_cksum_pool_online_2.2.7.txt"
    ms = parse_kind((CORPUS / name).read_bytes())
    leaf = "ata-TOSHIBA_MG08ACA16TE_64M0A0xxxxxx"
    base = {"pool": "tank", "class": "normal"}
    assert ms.sample_value("zmon_vdev_state", {**base, "vdev": leaf, "state": "online"}) == 1
    second = {**base, "vdev": leaf + "#2"}
    assert ms.sample_value("zmon_vdev_state", {**second, "state": "faulted"}) == 1
    assert ms.sample_value("zmon_vdev_read_errors_total", second) == 12
    assert ms.sample_value("zmon_vdev_write_errors_total", second) == 753
    assert ms.sample_value("zmon_vdev_checksum_errors_total", second) == 83


def test_leaf_write_errors_sum() -> None:
    pool = parse_file(CORPUS / "zpool_status_38_truenas_raidz2_single_write_error_9P.txt").pools[0]
    assert sum(v.write_errors or 0 for v in pool.vdevs() if v.is_leaf) == 1


def test_json_classes_are_siblings_of_the_tree() -> None:
    name = "zpool_status_json_04_all_vdev_classes_dedup_special_logs_l2cache_spares_2.4.4.json"
    pool = parse_file(CORPUS / name).pools[0]
    assert pool.root is not None and [c.name for c in pool.root.children] == ["sdb1"]
    assert len([v for v in pool.vdevs() if v.is_leaf]) == 6
    assert vdev_named(pool, "sdb1").path == "/dev/sdb1"
    assert vdev_named(pool, "sdb4").printed == {}


def test_illumos_and_freebsd_device_names() -> None:
    for name, leaf, device in (
        ("zpool_status_18_smartos_illumos_log_offline.txt", "c1t2d0s4", "c1t2d0"),
        ("zpool_status_26_freebsd_zroot_mirror_ada_p3_healthy.txt", "ada1p3", "ada1"),
        (
            "zpool_status_24_resilver_2.3fmt_expand_replacing_was_old_dataerrors.txt",
            "/dev/sdv1",
            "sdv",
        ),
    ):
        status = parse_file(CORPUS / name)
        resolve_static(status)
        assert vdev_named(status.pools[0], leaf).device == device
    status = parse_file(CORPUS / "zpool_status_06_unavail_was_dev_label_missing.txt")
    resolve_static(status)
    assert vdev_named(status.pools[0], "17682433485448789979").device is None


def test_fragment_rows_keep_their_hierarchy() -> None:
    """Rows pasted without header or pool row: read, nested by indentation, marked partial."""
    pool = parse_file(
        CORPUS / "zpool_status_42_fragment_rows_only_no_header_2.4.1_PARTIAL.txt"
    ).pools[0]
    assert pool.root is None and pool.name == UNNAMED_POOL
    raidz = vdev_named(pool, "raidz2-4")
    assert raidz.type == "raidz" and len(raidz.children) == 4
    assert vdev_named(pool, "wwn-0x5000cca2bb1bdfcc").parent == "raidz2-4"
    assert any("header" in r for r in pool.incomplete)


def test_fragment_from_the_issue_report() -> None:
    """Two rows as admins paste them: suffixed counters, spare and raidz3 groups."""
    text = (
        "mirror-1   DEGRADED 0 0 0\n"
        "sdc        FAULTED 12 0 0 too many errors\n"
        "  spare-2  DEGRADED 2.60K 4.42K 35\n"
        "    sdd    ONLINE 0 0 0\n"
        "raidz3-0   ONLINE 0 0 0\n"
    )
    pool = parse_zpool_status(text, tz=UTC).pools[0]
    assert pool.name == UNNAMED_POOL and not pool.complete
    rows = [
        (v.name, v.state, v.read_errors, v.write_errors, v.checksum_errors, v.depth, v.note)
        for v in pool.vdevs()
    ]
    assert rows == [
        ("mirror-1", "DEGRADED", 0, 0, 0, 1, ""),
        ("sdc", "FAULTED", 12, 0, 0, 1, "too many errors"),
        ("spare-2", "DEGRADED", 2662, 4526, 35, 2, ""),
        ("sdd", "ONLINE", 0, 0, 0, 3, ""),
        ("raidz3-0", "ONLINE", 0, 0, 0, 1, ""),
    ]
    assert vdev_named(pool, "spare-2").type == "spare"
    assert vdev_named(pool, "raidz3-0").type == "raidz"
    ms = parse_kind(text.encode())
    assert ms.sample_value("zmon_pool_parse_complete", {"pool": UNNAMED_POOL}) == 0.0
    labels = {"pool": UNNAMED_POOL, "vdev": "sdc", "class": "normal"}
    assert ms.sample_value("zmon_vdev_read_errors_total", labels) == 12


def test_fragment_with_its_pool_row_takes_the_pool_name() -> None:
    text = "tank DEGRADED 0 0 0\n  mirror-0 DEGRADED 0 0 0\n    sda FAULTED 3 0 0\n"
    pool = parse_zpool_status(text, tz=UTC).pools[0]
    assert pool.name == "tank" and pool.root is not None and pool.root.type == "root"
    assert [(v.name, v.depth) for v in pool.vdevs()] == [("tank", 0), ("mirror-0", 1), ("sda", 2)]
    assert not pool.complete


def test_numeric_slow_value_proves_a_leaf() -> None:
    """zpool prints a SLOW count only for leaves: the only row is not the pool row."""
    name = "zpool_status_44_s_slow_column_single_offline_leaf_758_2.4_PARTIAL.txt"
    pool = parse_file(CORPUS / name).pools[0]
    leaf = vdev_named(pool, "7319fb47-d7d0-5642-b575-e9e8e5351adb")
    assert leaf.is_leaf and leaf.slow_ios == 758 and leaf.checksum_errors == 2
    ms = parse_kind((CORPUS / name).read_bytes())
    labels = {"pool": UNNAMED_POOL, "vdev": leaf.name, "class": "normal"}
    assert ms.sample_value("zmon_vdev_slow_ios_total", labels) == 758


@pytest.mark.parametrize("token", ["-1", "0x10", "1,234"])
def test_counter_tokens_zpool_never_prints_make_the_pool_partial(token: str) -> None:
    text = (CORPUS / "zpool_status_22_healthy_two_mirrors_nbd.txt").read_text()
    text = text.replace(
        "nbd3    ONLINE       0     0     0", f"nbd3    ONLINE       0     0 {token}"
    )
    assert token in text
    pool = parse_zpool_status(text, tz=UTC).pools[0]
    nbd3 = vdev_named(pool, "nbd3")
    assert nbd3.checksum_errors is None and nbd3.note == ""
    assert not pool.complete


def test_a_ddt_histogram_alone_is_not_zpool_status() -> None:
    text = FIX.parent / "pools" / "corpus" / "dedup_04_zdb_S_empty_simulated_2.3.1.txt"
    with pytest.raises(ParseError):
        parse_kind(text.read_bytes())
    ddt = (
        " dedup: DDT entries 3255693, size 311 on disk, 179 in core\n\n"
        "bucket              allocated                       referenced\n"
    )
    with pytest.raises(ParseError):
        parse_kind(ddt.encode())


def test_c_script_columns_follow_the_notes() -> None:
    """zpool status -c: the script values come after the notes, one token per column."""
    name = "zpool_status_62_c_script_columns_skipping_line_13.4M_old_resilver_fmt_PARTIAL.txt"
    pool = parse_file(CORPUS / name).pools[0]
    leaf = vdev_named(pool, "scsi-35000c50094bacf9f")
    assert {k: leaf.printed[k] for k in ("upath", "defect", "nonmed", "health")} == {
        "upath": "/dev/sdy",
        "defect": "825",
        "nonmed": "2862",
        "health": "OK",
    }
    assert note_kinds(leaf.note) == ["too_many_errors", "resilvering"]
    assert vdev_named(pool, "scsi-35000c50094ba731b").printed["defect"] == "250"
    assert any("elided" in r for r in pool.incomplete)  # <skipping unrelated vdevs here>


def _values(ms: Any, name: str) -> list[float]:
    return [s.value for fam in ms.families() for s in fam.samples if s.name == name]


IO_FAILURE_TEXTS = {
    # libzfs ZPOOL_STATUS_IO_FAILURE_WAIT and _CONTINUE: the pool is suspended (failmode
    # wait or continue); zpool_main.c prints the same status text for both
    "ZFS-8000-HC": "One or more devices are faulted in response to IO failures.",
    "ZFS-8000-JQ": "One or more devices are faulted in response to IO failures.",
    # ZPOOL_STATUS_IO_FAILURE_MMP: suspended by multihost
    "ZFS-8000-MM": "The pool is suspended because multihost writes failed or were delayed;\n"
    "\tanother system could import the pool undetected.",
}


@pytest.mark.parametrize("msgid", sorted(IO_FAILURE_TEXTS))
@pytest.mark.parametrize("keep", ["status", "see", "both"])
def test_io_failure_status_means_io_suspended(msgid: str, keep: str) -> None:
    """libzfs reports these only for a suspended pool, whatever the state: line and even
    without the 'pool I/O is currently suspended' error list (zpool status without -v)."""
    status = f"status: {IO_FAILURE_TEXTS[msgid]}\n" if keep in ("status", "both") else ""
    see = (
        f"   see: https://openzfs.github.io/openzfs-docs/msg/{msgid}\n" if keep != "status" else ""
    )
    text = (
        "  pool: dozer\n state: UNAVAIL\n" + status
        + "action: Make sure the affected devices are connected, then run 'zpool clear'.\n"
        + see + "config:\n\n"
        "\tNAME        STATE     READ WRITE CKSUM\n"
        "\tdozer       UNAVAIL      0     0     0  insufficient replicas\n"
        "\t  sdc       ONLINE       0     0     0\n"
        "\t  sdd       FAULTED      6     0     0  too many errors\n\n"
        "errors: 5 data errors, use '-v' for a list\n"
    )  # fmt: skip
    ms = parse_kind(text.encode())
    assert ms.sample_value("zmon_pool_io_suspended", {"pool": "dozer"}) == 1.0
    assert ms.sample_value("zmon_pool_state", {"pool": "dozer", "state": "unavail"}) == 1.0


def test_other_status_texts_are_not_io_suspended() -> None:
    name = "zpool_status_20_faulted_rw_cksum_pool_online_2.2.7.txt"
    ms = parse_kind((CORPUS / name).read_bytes())
    assert set(_values(ms, "zmon_pool_io_suspended")) == {0.0}


@pytest.mark.parametrize(
    ("name", "pool", "state"),
    [
        ("zpool_status_28_freebsd_nas4free_guid_unavail_was_dev_ada6_config_only_PARTIAL.txt",
         "tank", "degraded"),
        ("zpool_status_34_draid_nested_spare_replacing_spare_13.2K_config_only_2.2.4_PARTIAL.txt",
         "tank20", "degraded"),
        ("zpool_status_60_config_only_raidz1_cksum_49_12_18_PARTIAL.txt", "dmirror1", "online"),
        ("zpool_status_64_header_root_raidz2_wide_name_column_2.4.1_PARTIAL.txt",
         "scratch", "online"),
    ],
)  # fmt: skip
def test_a_pool_without_state_line_takes_its_own_rows_state(
    name: str, pool: str, state: str
) -> None:
    status = parse_file(CORPUS / name)
    assert not status.pools[0].complete
    ms = parse_kind((CORPUS / name).read_bytes())
    assert ms.sample_value("zmon_pool_state", {"pool": pool, "state": state}) == 1.0
    assert sum(_values(ms, "zmon_pool_state")) == 1.0


def test_a_fragment_without_the_pool_row_keeps_the_state_unknown() -> None:
    name = "zpool_status_42_fragment_rows_only_no_header_2.4.1_PARTIAL.txt"
    ms = parse_kind((CORPUS / name).read_bytes())
    assert set(_values(ms, "zmon_pool_state")) == {0.0}
