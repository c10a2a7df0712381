"""The built-in pattern library on real captures and on the line forms it promises to know."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers import fixture_path
from zmon.collectors.kernel_log.metrics import Tally
from zmon.parsers.kernel_log import (
    PatternError,
    PatternSet,
    default_rules,
    merge_rules,
    rules_from_table,
    rules_from_toml,
    scan_text,
)

PATTERNS = PatternSet(default_rules())


def counts(text: str, patterns: PatternSet = PATTERNS) -> Counter[tuple[str, str]]:
    tally = Tally()
    found: Counter[tuple[str, str]] = Counter()
    for event in scan_text(text, patterns):
        found[(event.pattern, tally.attribute(event))] += 1
    return found


def fixture_counts(name: str) -> Counter[tuple[str, str]]:
    return counts(fixture_path("kernel_log", name).read_text())


# ---- real captures (tests/fixtures/kernel_log, facts from the corpus EXPECTED.md)


def test_linux_sd_medium_error_and_zio_error() -> None:
    got = fixture_counts("log_02_linux_sd_medium_error_critical_zio_error61_zed.txt")
    assert got == {
        # Sense Key Medium Error, Add. Sense Unrecovered read error, critical medium error
        ("medium_error", "sdco"): 3,
        ("medium_error", "dm-8"): 1,
        ("zio_error", "wwn-0x5000cca25316e978"): 1,  # zed lines are not kernel lines
    }


def test_mpt2sas_log_info_task_abort_and_device_reset() -> None:
    got = fixture_counts("log_04_linux_mpt2sas_loginfo_task_abort_device_reset.txt")
    assert got == {
        ("sas_log_info", "mpt2sas1"): 4,
        ("scsi_task_abort", "7:0:14:0"): 3,  # the target comes from the next "sd H:C:T:L:" line
        ("scsi_device_reset", "7:0:14:0"): 1,
    }


def test_libata_badcrc_interface_fatal_error() -> None:
    got = fixture_counts("log_06_linux_libata_badcrc_interface_fatal_error.txt")
    assert got == {
        ("ata_exception", "ata1.00"): 1,
        ("crc_error", "ata1.00"): 1,  # irq_stat ..., interface fatal error
        ("crc_error", "ata1"): 1,  # SError: { UnrecovData BadCRC }
        ("link_reset", "ata1"): 1,
    }


def test_freebsd_cam_write_dma48_command_timeout() -> None:
    got = fixture_counts("log_08_freebsd_cam_write_dma48_command_timeout.txt")
    assert got == {
        ("ahci_timeout", "ahcich0"): 4,  # slots 16, 18, 19, 20
        ("cam_timeout", "ada0"): 1,  # WRITE_DMA48
        ("cam_timeout", "ahcich0"): 3,  # aprobe0 ATA_IDENTIFY: attributed to the channel
        ("io_error", "ahcich0"): 2,  # Error 5, Retries exhausted / Retry was blocked
    }


def test_spl_pool_suspended() -> None:
    got = fixture_counts("log_10_zfs_splerror_pool_suspended_0.6.3.txt")
    assert got == {("pool_suspended", ""): 3}
    pools = Counter(
        e.pool
        for e in scan_text(
            fixture_path("kernel_log", "log_10_zfs_splerror_pool_suspended_0.6.3.txt").read_text(),
            PATTERNS,
        )
    )
    assert pools == {"tank": 3}


def test_pool_suspended_then_hung_tasks() -> None:
    got = fixture_counts("log_12_zfs_pool_suspended_then_hung_task_0.7.txt")
    assert got == {("pool_suspended", ""): 1, ("hung_task", ""): 2}


def test_nvme_qid_timeouts() -> None:
    got = fixture_counts("log_14_linux_nvme_io_qid_timeout_aborting.txt")
    assert got == {("nvme_timeout", "nvme0"): 12}  # "Abort status" lines are not counted


def test_freebsd_cam_ata_status_error_unc_is_medium() -> None:
    got = fixture_counts("log_16_freebsd_cam_read_fpdma_ata_status_error_unc.txt")
    assert got == {("medium_error", "ada0"): 1}


def test_freebsd_cam_lost_device_and_removing_entry() -> None:
    got = fixture_counts("log_18_freebsd_cam_ada_lost_device_removing_device_entry_PARTIAL.txt")
    assert got == {("device_lost", "ada0"): 5, ("device_removed", "ada0"): 4}


def test_freebsd_ata_unknown_device_and_channel_timeouts() -> None:
    """ata(4) after the channel lost its disk: `unknown:` commands and channel-level lines
    are counted, and tied to the disk the neighbouring line names (ad40 on ata20)."""
    got = fixture_counts("log_20_freebsd_ata_unknown_timeout_port_not_ready_hardware_reset_8.2.txt")
    assert got == {("ata_timeout", "ad40"): 5}
    events = scan_text(
        fixture_path(
            "kernel_log", "log_20_freebsd_ata_unknown_timeout_port_not_ready_hardware_reset_8.2.txt"
        ).read_text(),
        PATTERNS,
    )
    assert [e.controller for e in events] == [None, "ata20", "ata20", None, None]


def test_freebsd_ata_channel_line_takes_the_disk_named_after_it() -> None:
    text = (
        "ata20: port is not ready (timeout 15000ms) tfd = 00000080\n"
        "ata20: hardware reset timeout\n"
        "ad40: FAILURE - device detached\n"
    )
    assert counts(text) == {("ata_timeout", "ad40"): 2, ("ata_failure", "ad40"): 1}
    alone = "unknown: TIMEOUT - READ_DMA48 retrying (1 retry left) LBA=3062893328\n"
    assert counts(alone) == {("ata_timeout", ""): 1}


def test_freebsd_cam_flush_failure_is_an_ata_failure() -> None:
    got = fixture_counts("log_22_freebsd_cam_flushcache48_ata_status_error_abrt_PARTIAL.txt")
    assert got == {("ata_failure", "ada0"): 1}
    crc = "(ada1:ahcich2:0:0:0): ATA status: 51 (DRDY SERV ERR), error: 84 (ICRC ABRT )\n"
    assert counts(crc) == {("crc_error", "ada1"): 1}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "log_24_linux_mpt2sas_sd_task_abort_during_import_2012.txt",
            {("scsi_task_abort", "4:0:1:0"): 1},
        ),
        (
            "log_26_linux_mpt3sas_log_info_iop_then_task_aborts_dmesg_T.txt",
            {
                **{("sas_log_info", f"mpt3sas_cm{n}"): 1 for n in (1, 2, 3, 4, 5)},
                ("scsi_task_abort", "14:0:152:0"): 1,
                ("scsi_task_abort", "14:0:71:0"): 1,
            },
        ),
        (
            "log_28_linux_zio_error5_between_task_aborts_ssd_pool.txt",
            {("zio_error", "sdam"): 2, ("scsi_task_abort", "12:0:0:0"): 2},
        ),
        (
            "log_30_linux_mpt3sas_task_aborts_scsi_io_completion_suppressed.txt",
            {("scsi_task_abort", "0:0:16:0"): 1, ("scsi_task_abort", "0:0:4:0"): 1},
        ),
        # old mptsas: the aborted command's target is on the next "sd H:C:T:L:" line
        (
            "log_32_linux_mptsas_mptscsih_task_aborts_loginfo_2014.txt",
            {("scsi_task_abort", "6:0:7:0"): 5, ("sas_log_info", "ioc1"): 1},
        ),
        # pm80xx names no disk for its failed aborts; DRM notices and Illegal Request are no faults
        (
            "log_34_linux_pm80xx_task_abort_failed_ata_reset_illegal_request_PARTIAL.txt",
            {("scsi_task_abort", "pm80xx"): 3, ("link_reset", "ata2"): 1},
        ),
    ],
)
def test_sas_hba_samples(name: str, expected: dict[tuple[str, str], int]) -> None:
    assert fixture_counts(name) == expected


def test_zio_error_pool_and_vdev() -> None:
    text = fixture_path("kernel_log", "log_28_linux_zio_error5_between_task_aborts_ssd_pool.txt")
    zio = [e for e in scan_text(text.read_text(), PATTERNS) if e.pattern == "zio_error"]
    assert [(e.pool, e.path) for e in zio] == [("ssd_backups", "/dev/sdam1")] * 2


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # ATAPI qc timeout: one timeout (the res line, disk from the cmd line across blank lines)
        (
            "log_36_linux_libata_atapi_qc_timeout_soft_reset_syslog_blank_lines.txt",
            {
                ("ata_exception", "ata5.00"): 1,
                ("ata_timeout", "ata5.00"): 1,
                ("link_reset", "ata5"): 1,
            },
        ),
        # four complete failed-command blocks; the fifth lost its res line to the cut
        (
            "log_38_linux_libata_ncq_write_timeouts_loongson_PARTIAL.txt",
            {("ata_timeout", "ata3.00"): 4},
        ),
        # res lines wrapped onto their own line without a timestamp
        (
            "log_40_linux_libata_write_fpdma_timeouts_wrapped_res_lines_PARTIAL.txt",
            {("ata_timeout", "ata2.00"): 5},
        ),
        (
            "log_42_linux_sunxi_comreset_failed_link_down_exception_boot.txt",
            {("link_reset", "ata1"): 3, ("link_down", "ata1"): 1, ("ata_exception", "ata1"): 1},
        ),
    ],
)
def test_libata_samples(name: str, expected: dict[tuple[str, str], int]) -> None:
    assert fixture_counts(name) == expected


def test_linux_libata_flush_cache_timeout_sequence() -> None:
    got = fixture_counts("synth_linux_libata_flush_timeout_short_iso.txt")
    assert got == {
        ("ata_exception", "ata3.00"): 1,
        ("ata_timeout", "ata3.00"): 1,  # "res ... Emask 0x4 (timeout)", device from lines above
        ("link_reset", "ata3"): 1,
        ("link_down", "ata3"): 1,
        ("io_error", "sdc"): 2,  # blk_update_request I/O error, Buffer I/O error on dev sdc1
        ("zio_error", "ata-WDC_WD40EFRX-68N32N0_WD-WCC7K0000001"): 1,
        ("pool_suspended", ""): 1,
        ("nvme_reset", "nvme1"): 1,
        ("nvme_timeout", "nvme1"): 1,
    }


def test_journal_json_gives_the_same_counts_as_text() -> None:
    json_counts = fixture_counts("synth_linux_journal_json.txt")
    assert json_counts == fixture_counts("synth_linux_libata_flush_timeout_short_iso.txt")


# ---- every contract line form


CONTRACT_LINES = [
    ("ad2: TIMEOUT - FLUSHCACHE48 retrying (1 retry left)", "ata_timeout", "ad2"),
    ("ad4: TIMEOUT - WRITE_DMA48 retrying (1 retry left) LBA=1953524640", "ata_timeout", "ad4"),
    ("ad4: FAILURE - WRITE_DMA48 timed out LBA=1953524640", "ata_failure", "ad4"),
    ("(ada0:ahcich0:0:0:0): CAM status: Command timeout", "cam_timeout", "ada0"),
    ("ZFS: vdev I/O failure, zpool=tank path=/dev/ada2p3 offset=270336 size=8192 error=5",
     "vdev_io_failure", "ada2"),
    ("zio pool=tank vdev=/dev/sdc1 error=5 type=1 offset=1 size=2 flags=1", "zio_error", "sdc"),
    ("ZFS: checksum mismatch, zpool=tank path=/dev/da1 offset=1 size=2", "checksum_error", "da1"),
    ("zio pool=tank vdev=/dev/sdd1 error=52 type=1 offset=1 size=2 flags=180880",
     "checksum_error", "sdd"),
    ("[ 12.5] ata3: hard resetting link", "link_reset", "ata3"),
    ("ata3: SATA link down (SStatus 0 SControl 300)", "link_down", "ata3"),
    ("ata3.00: error: { ICRC ABRT }", "crc_error", "ata3.00"),
    ("ata1: SError: { UnrecovData BadCRC }", "crc_error", "ata1"),
    ("ata1.00: irq_stat 0x08000000, interface fatal error", "crc_error", "ata1.00"),
    ("sd 2:0:0:0: [sdc] tag#3 Sense Key : Medium Error [current]", "medium_error", "sdc"),
    ("blk_update_request: critical medium error, dev sdc, sector 8 op 0x0:(READ)",
     "medium_error", "sdc"),
    ("sd 2:0:0:0: [sdc] tag#3 Add. Sense: Unrecovered read error - auto reallocate failed",
     "medium_error", "sdc"),
    ("ata3.00: error: { UNC }", "medium_error", "ata3.00"),
    ("blk_update_request: I/O error, dev sdc, sector 1953523712", "io_error", "sdc"),
    ("I/O error, dev nvme0n1, sector 2048 op 0x1:(WRITE) flags 0x0", "io_error", "nvme0n1"),
    ("Buffer I/O error on dev sdc1, logical block 0, async page read", "io_error", "sdc"),
    ("Buffer I/O error on device sdd2, logical block 7", "io_error", "sdd"),
    ("blk_update_request: critical target error, dev sde, sector 0", "io_error", "sde"),
    ("nvme nvme0: I/O 12 QID 5 timeout, aborting", "nvme_timeout", "nvme0"),
    ("nvme nvme0: I/O 12 QID 5 timeout, reset controller", "nvme_timeout", "nvme0"),
    ("nvme nvme0: controller is down; will reset: CSTS=0xffffffff", "nvme_reset", "nvme0"),
    ("WARNING: Pool 'tank' has encountered an uncorrectable I/O failure and has been suspended.",
     "pool_suspended", ""),
    ("mpt3sas_cm0: log_info(0x31110610): originator(PL), code(0x11)", "sas_log_info",
     "mpt3sas_cm0"),
    ("ata5.00: exception Emask 0x0 SAct 0x0 SErr 0x0 action 0x6 frozen", "ata_exception",
     "ata5.00"),
    ("INFO: task zed:13918 blocked for more than 120 seconds.", "hung_task", ""),
    ("panic: I/O to pool 'tank' appears to be hung on vdev guid 12 at '/dev/ada1p3'.",
     "deadman", "ada1"),
    ("(ada0:ahcich4:0:0:0): lost device", "device_lost", "ada0"),
    ("(da7:mps0:0:7:0): removing device entry", "device_removed", "da7"),
    ("(ada0:ahcich0:0:0:0): ATA status: 41 (DRDY ERR), error: 40 (UNC )", "medium_error", "ada0"),
    ("sd 0:0:3:0: attempting task abort!scmd(0x0000000012345678)", "scsi_task_abort", "0:0:3:0"),
    ("sd 7:0:1:0: [sdq] tag#0 FAILED Result: hostbyte=DID_TIME_OUT driverbyte=DRIVER_OK",
     "scsi_timeout", "sdq"),
    ("sd 7:0:1:0: [sdq] tag#0 Sense Key : Hardware Error [current]", "hardware_error", "sdq"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "pattern", "device"), CONTRACT_LINES)
def test_line_forms(line: str, pattern: str, device: str) -> None:
    assert counts(line + "\n") == {(pattern, device): 1}


@pytest.mark.parametrize(
    "line",
    [
        "ata3: SATA link up 6.0 Gbps (SStatus 133 SControl 300)",
        "nvme nvme0: Abort status: 0x0",
        "(ada0:ahcich0:0:0:0): Retrying command, 3 more tries remain",
        "ata3.00: configured for UDMA/133",
        "zed[3157923]: eid=120513 class=io pool='home3' vdev=wwn-0x5 err=61",
        "EXT4-fs (sda1): mounted filesystem with ordered data mode",
        "e1000e: eth0 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx",
        "",
    ],
)
def test_benign_lines_do_not_match(line: str) -> None:
    assert counts(line + "\n") == {}


def test_every_contract_pattern_is_in_the_library() -> None:
    contract = {
        "ata_timeout", "ata_failure", "cam_timeout", "vdev_io_failure", "zio_error",
        "checksum_error", "link_reset", "link_down", "crc_error", "medium_error", "io_error",
        "nvme_timeout", "nvme_reset", "pool_suspended",
    }  # fmt: skip
    assert contract <= set(PATTERNS.names())


def test_every_rule_has_keywords_and_help() -> None:
    for compiled in PATTERNS.rules:
        assert compiled.rule.keywords, compiled.rule.pattern
        assert compiled.rule.help, compiled.rule.pattern


# ---- extending the library


def test_extra_rules_from_toml_are_tried_first() -> None:
    extra = rules_from_toml(
        """
        [defines]
        arc = '(?P<controller>arcmsr\\d+):'
        [[rule]]
        pattern = "raid_error"
        keywords = ["arcmsr"]
        regex = '${arc} .*error'
        [[rule]]
        pattern = "my_link_reset"
        keywords = ["resetting link"]
        regex = '(?P<device>ata\\d+): hard resetting link'
        """
    )
    patterns = PatternSet(merge_rules(extra, default_rules()))
    text = "arcmsr0: abort device command error\nata3: hard resetting link\n"
    assert counts(text, patterns) == {("raid_error", "arcmsr0"): 1, ("my_link_reset", "ata3"): 1}


def test_extra_rules_from_config_table_and_disable() -> None:
    extra = rules_from_table(
        {
            "fan_failure": {"regex": "fan (?P<controller>\\w+) failed", "keywords": ["fan "]},
            "two_forms": [{"regex": "alpha (?P<device>sd[a-z]+)"}, {"regex": "beta"}],
        }
    )
    patterns = PatternSet(merge_rules(extra, default_rules(), disabled=["link_down"]))
    text = "fan sys0 failed\nalpha sdb\nbeta\nata3: SATA link down (SStatus 0 SControl 300)\n"
    assert counts(text, patterns) == {
        ("fan_failure", "sys0"): 1,
        ("two_forms", "sdb"): 1,
        ("two_forms", ""): 1,
    }


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[[rule]]\npattern = 'x'\nregex = '('\n", "bad regex"),
        ("[[rule]]\npattern = 'Bad Name'\nregex = 'x'\n", "lower_snake_case"),
        ("[[rule]]\npattern = 'x'\n", "regex must be a non-empty string"),
        ("[[rule]]\npattern = 'x'\nregex = '${nope}'\n", "unknown define"),
        ("[[rule]]\npattern = 'x'\nregex = 'a'\nkeywords = 'a'\n", "keywords must be a list"),
        ("[[rule]]\npattern = 'x'\nregex = 'a'\ncolour = 1\n", "unknown key(s) colour"),
        (
            "[[rule]]\npattern = 'x'\nregex = 'a'\ncontext = {regex = 'b', lines = 99}\n",
            "context lines",
        ),
        (
            "[[rule]]\npattern = 'x'\nregex = 'a'\ncontext = {regex = 'b', direction = 'up'}\n",
            "direction",
        ),
        ("rule = [", "not valid TOML"),
        ("[rules]\n", "unknown top-level key"),
    ],
)
def test_bad_pattern_definitions_say_what_is_wrong(toml: str, message: str) -> None:
    with pytest.raises(PatternError, match="my.toml") as err:
        rules_from_toml(toml, "my.toml")
    assert message in str(err.value)


def test_bad_config_table_entry() -> None:
    with pytest.raises(PatternError, match="'x'"):
        rules_from_table({"x": "not a table"})
