"""SAS PHY error counters from smartctl's Protocol Specific port log page (text and JSON), and
the collector asking SAS disks for that page without waking them."""

from __future__ import annotations

import copy
import json

from tests.support.disks import VERSION_73, fixture_bytes, make_ctx, result, smart_argv
from zmon.collectors.smart import SmartCollector, reads_sas_phys
from zmon.collectors.smart.metrics import parse_smartctl_metrics
from zmon.parsers.smartctl.smartctl import SasPhy, parse_smartctl

SEAGATE = "smartctl_txt_34_sas_seagate_x_sasphy_phy_reset_problem_1_two_phys_7.5.txt"
OLD_FORMAT = "smartctl_txt_36_sas_l_sasphy_loss_of_dword_sync_24194_old_format_PARTIAL.txt"


def test_real_seagate_reports_phy_reset_problem_on_both_phys():
    r = parse_smartctl(fixture_bytes("corpus", SEAGATE))
    assert r.device_name == "/dev/sddb"  # "smartctl.exe -x /dev/sddb" (Windows build)
    assert r.protocol == "SCSI"
    assert [(p.port, p.phy) for p in r.sas_phys] == [(1, 0), (2, 1)]
    a, b = r.sas_phys
    assert (a.sas_address, a.attached_sas_address) == ("0x5000c5009ed1e489", "0x500a0980085b31e1")
    assert (b.sas_address, b.attached_sas_address) == ("0x5000c5009ed1e48a", "0x500a098007ea8759")
    assert a.attached_device_type == b.attached_device_type == "expander device"
    assert a.attached_phy == b.attached_phy == 18
    assert a.link_rate_bits == b.link_rate_bits == 12e9
    for p in (a, b):
        assert (p.invalid_dwords, p.running_disparity_errors, p.loss_of_dword_sync) == (0, 0, 0)
        assert p.phy_reset_problems == 1
    ms = parse_smartctl_metrics(fixture_bytes("corpus", SEAGATE))
    for port, phy in (("1", "0"), ("2", "1")):
        lab = {"device": "sddb", "port": port, "phy": phy}
        assert ms.sample_value("zmon_disk_sas_phy_reset_problems_total", lab) == 1
        assert ms.sample_value("zmon_disk_sas_phy_invalid_dwords_total", lab) == 0
        assert ms.sample_value("zmon_disk_sas_phy_link_rate_bytes", lab) == 1.5e9


def test_old_format_counter_names_before_smartctl_7_3():
    """ "Loss of DWORD synchronization = N" and "Phy reset problem = N" (no "count")."""
    r = parse_smartctl(fixture_bytes("corpus", OLD_FORMAT))
    assert [(p.port, p.phy) for p in r.sas_phys] == [(1, 0), (2, 1)]
    first, second = r.sas_phys
    assert first.loss_of_dword_sync == 24194
    assert (first.invalid_dwords, first.running_disparity_errors) == (0, 0)
    assert first.phy_reset_problems == 0
    assert first.link_rate_bits == 6e9
    assert first.attached_phy == 6
    # the second port has no link: 1.5 Gbps as printed, and no counters in the excerpt
    assert second.attached_device_type == "no device attached"
    assert second.invalid_dwords is None and second.phy_reset_problems is None


def _as_json(text_report) -> bytes:
    """The same disk in smartctl's JSON form (keys of scsiprint.cpp's show_sas_port_param)."""
    doc: dict = {
        "json_format_version": [1, 0],
        "smartctl": {"version": [7, 5], "exit_status": 0},
        "device": {"name": "/dev/sddb", "type": "scsi", "protocol": "SCSI"},
        "smart_status": {"passed": True},
    }
    for n, p in enumerate(text_report.sas_phys):
        rate = f"phy enabled; {int(p.link_rate_bits / 1e9)} Gbps"
        doc[f"scsi_sas_port_{n}"] = {
            "relative_target_port_id": p.port,
            "generation_code": 0,
            "number_of_phys": 1,
            "phy_0": {
                "identifier": p.phy,
                "attached_device_type": p.attached_device_type,
                "negotiated_logical_link_rate": rate,
                "sas_address": p.sas_address,
                "attached_sas_address": p.attached_sas_address,
                "attached_phy_identifier": p.attached_phy,
                "invalid_dword_count": p.invalid_dwords,
                "running_disparity_error_count": p.running_disparity_errors,
                "loss_of_dword_synchronization_count": p.loss_of_dword_sync,
                "phy_reset_problem_count": p.phy_reset_problems,
            },
        }
    return json.dumps(doc).encode()


def test_json_and_text_give_the_same_phys():
    text = parse_smartctl(fixture_bytes("corpus", SEAGATE))
    from_json = parse_smartctl(_as_json(text))
    assert from_json.sas_phys == text.sas_phys


def test_json_port_without_id_and_hostile_shapes():
    doc = {
        "smartctl": {"version": [7, 3]},
        "scsi_sas_port_0": {"phy_0": {"invalid_dword_count": 7}},
        "scsi_sas_port_1": "garbage",
        "scsi_sas_port_2": {"phy_0": ["x"], "phy_1": {"identifier": True}},
        "scsi_sas_port_99": {"phy_0": {"invalid_dword_count": 1}},  # past the bound
    }
    r = parse_smartctl(json.dumps(doc).encode())
    assert r.sas_phys == [SasPhy(port=1, phy=0, invalid_dwords=7), SasPhy(port=3, phy=1)]


def test_pasted_twice_gives_one_series_per_phy():
    text = fixture_bytes("corpus", SEAGATE)
    page = text[text.index(b"Protocol Specific") :]
    r = parse_smartctl(text + b"\n" + page)
    assert len(r.sas_phys) == 2


def test_sas_disks_get_l_sasphy_and_keep_nocheck_standby():
    assert reads_sas_phys("scsi") and reads_sas_phys("megaraid,3")
    assert not any(reads_sas_phys(t) for t in ("sat", "nvme", "atacam", "sat+megaraid,1"))
    argv = smart_argv("scsi", "/dev/sdq")
    assert argv[:5] == ("smartctl", "--json=c", "--nocheck=standby", "--all", "-l")
    assert argv[5] == "sasphy"
    assert "-l" not in smart_argv("sat", "/dev/sda")


def _json_with_resets(base: bytes, resets: int) -> bytes:
    doc = json.loads(base)
    doc = copy.deepcopy(doc)
    doc["scsi_sas_port_0"]["phy_0"]["phy_reset_problem_count"] = resets
    return json.dumps(doc).encode()


def test_collector_serves_a_rising_phy_counter():
    """Two collections of one SAS disk: the PHY reset problem count rises from 1 to 4."""
    base = _as_json(parse_smartctl(fixture_bytes("corpus", SEAGATE)))
    argv = smart_argv("scsi", "/dev/sdq")
    outputs = iter([_json_with_resets(base, 1), _json_with_resets(base, 4)])
    ctx = make_ctx(
        {
            ("smartctl", "--version"): VERSION_73,
            argv: lambda cmd: result(tuple(cmd), next(outputs)),
        },
        options={"devices": ["/dev/sdq=scsi"]},
    )
    c = SmartCollector(ctx)
    lab = {"device": "sdq", "port": "1", "phy": "0"}
    first = c.collect().sample_value("zmon_disk_sas_phy_reset_problems_total", lab)
    second = c.collect().sample_value("zmon_disk_sas_phy_reset_problems_total", lab)
    assert (first, second) == (1, 4)
