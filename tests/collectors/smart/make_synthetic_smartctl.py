"""Writes tests/fixtures/disks/synthetic: made-up but realistic smartctl 7.3 outputs.

The layouts come from smartctl's own printf formats and JSON keys (scsiprint.cpp, nvmeprint.cpp),
the same disk in text and JSON, so the two parsers can be compared field by field. Values and
serial numbers are invented. Rerun with
``python -m tests.collectors.smart.make_synthetic_smartctl``.
"""

# ruff: noqa: UP031 - printf-style on purpose: the lines copy smartctl's C printf formats

import json
import os
from pathlib import Path

D = str(Path(__file__).resolve().parents[2] / "fixtures" / "disks" / "synthetic")


def w(name, text):
    open(os.path.join(D, name), "w").write(text)


def header(dtype, dev, exit_status, messages=None):
    """The JSON keys before the device's own: smartctl 7.3's header for ``-d dtype dev``."""
    smartctl = {
        "version": [7, 3],
        "svn_revision": "5338",
        "platform_info": "x86_64-linux-6.1.0-18-amd64",
        "build_info": "(local build)",
        "argv": ["smartctl", "--json=c", "--nocheck=standby", "--all", "-d", dtype, dev],
    }
    if messages:
        smartctl["messages"] = messages
    smartctl["exit_status"] = exit_status
    return {
        "json_format_version": [1, 0],
        "smartctl": smartctl,
        "local_time": {"time_t": 1709370907, "asctime": "Sat Mar  2 10:15:07 2024 CET"},
    }


def main() -> None:
    os.makedirs(D, exist_ok=True)

    # ---- SAS HDD, smartctl 7.3 -a text; made-up values, layout from scsiprint.cpp ----
    def counter_row(name, c):
        return "%s%8d %8d  %8d  %8d   %8d   %12.3f    %8d\n" % (
            name,
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            c[5],
            c[6],
        )

    codes = [
        "Default         ",
        "Background short",
        "Background long ",
        "Reserved(3)     ",
        "Abort background",
        "Foreground short",
        "Foreground long ",
        "Reserved(7)     ",
    ]
    results = [
        "Completed                ",
        "Aborted (by user command)",
        "Aborted (device reset ?) ",
        "Unknown error, incomplete",
        "Completed, segment failed",
        "Failed in first segment  ",
        "Failed in second segment ",
        "Failed in segment",
    ]

    def test_row(num, code, res, seg, poh, lba, sense):
        s = "#%2d  %s" % (num, codes[code])
        s += "  %s%s" % (results[res], " -->    " if res == 7 else "")
        s += " %3u" % seg if seg else "   -"
        s += "   %5d" % poh
        if lba is None:
            s += "                 - [-   -    -]"
        else:
            s += "%18s" % lba + " [0x%x 0x%x 0x%x]" % sense
        return s + "\n"

    read = (2938123474, 52, 0, 2938123526, 55, 273617.125, 3)
    write = (0, 0, 0, 0, 0, 98231.558, 0)
    verify = (1342185740, 8, 0, 1342185748, 8, 12504.112, 0)
    sas_txt = (
        "smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.1.0-18-amd64] (local build)\n"
        "Copyright (C) 2002-22, Bruce Allen, Christian Franke, www.smartmontools.org\n\n"
        "=== START OF INFORMATION SECTION ===\n"
        "Vendor:               SEAGATE\n"
        "Product:              ST4000NM0023\n"
        "Revision:             0004\n"
        "Compliance:           SPC-4\n"
        "User Capacity:        4,000,787,030,016 bytes [4.00 TB]\n"
        "Logical block size:   512 bytes\n"
        "LU is fully provisioned\n"
        "Rotation Rate:        7200 rpm\n"
        "Form Factor:          3.5 inches\n"
        "Logical Unit id:      0x5000c500a0b1c2d3\n"
        "Serial number:        Z1Z2AB3C0000C4451234\n"
        "Device type:          disk\n"
        "Transport protocol:   SAS (SPL-3)\n"
        "Local Time is:        Sat Mar  2 10:15:07 2024 CET\n"
        "SMART support is:     Available - device has SMART capability.\n"
        "SMART support is:     Enabled\n"
        "Temperature Warning:  Enabled\n\n"
        "=== START OF READ SMART DATA SECTION ===\n"
        "SMART Health Status: OK\n\n"
        "Grown defects during certification <not available>\n"
        "Total blocks reassigned during format <not available>\n"
        "Total new blocks reassigned <not available>\n"
        "Power on minutes since format <not available>\n"
        "Current Drive Temperature:     36 C\n"
        "Drive Trip Temperature:        68 C\n\n"
        "Accumulated power on time, hours:minutes 41023:17\n"
        "Manufactured in week 12 of year 2016\n"
        "Specified cycle count over device lifetime:  10000\n"
        "Accumulated start-stop cycles:  61\n"
        "Specified load-unload count over device lifetime:  300000\n"
        "Accumulated load-unload cycles:  1957\n"
        "Elements in grown defect list: 12\n\n"
        "Error counter log:\n"
        "           Errors Corrected by           Total   Correction     Gigabytes    Total\n"
        "               ECC          rereads/    errors   algorithm      processed    uncorrected\n"
        "           fast | delayed   rewrites  corrected  invocations   [10^9 bytes]  errors\n"
        + counter_row("read:   ", read)
        + counter_row("write:  ", write)
        + counter_row("verify: ", verify)
        + "\nNon-medium error count:       17\n\n"
        "SMART Self-test log\n"
        "Num  Test              Status                 segment  LifeTime"
        "  LBA_first_err [SK ASC ASQ]\n"
        "     Description                              number   (hours)\n"
        + test_row(1, 1, 0, 0, 41011, None, None)
        + test_row(2, 2, 7, 7, 40870, 12345678, (3, 0x11, 0))
        + test_row(3, 1, 0, 0, 40850, None, None)
        + "Long (extended) Self-test duration: 27600 seconds [460.0 minutes]\n"
    )
    w("sas_seagate_grown12_selftest_failed_7.3.txt", sas_txt)

    def jcounter(c):
        return {
            "errors_corrected_by_eccfast": c[0],
            "errors_corrected_by_eccdelayed": c[1],
            "errors_corrected_by_rereads_rewrites": c[2],
            "total_errors_corrected": c[3],
            "correction_algorithm_invocations": c[4],
            "gigabytes_processed": "%.3f" % c[5],
            "total_uncorrected_errors": c[6],
        }

    sas = {
        **header("scsi", "/dev/sdq", 128),
        "device": {"name": "/dev/sdq", "info_name": "/dev/sdq", "type": "scsi", "protocol": "SCSI"},
        "scsi_vendor": "SEAGATE",
        "scsi_product": "ST4000NM0023",
        "scsi_model_name": "SEAGATE ST4000NM0023",
        "scsi_revision": "0004",
        "scsi_version": "SPC-4",
        "user_capacity": {"blocks": 7814037168, "bytes": 4000787030016},
        "logical_block_size": 512,
        "scsi_lb_provisioning": {
            "name": "fully provisioned",
            "value": 0,
            "management_enabled": {"name": "LBPME", "value": 0},
            "read_zeros": {"name": "LBPRZ", "value": 0},
        },
        "rotation_rate": 7200,
        "form_factor": {"scsi_value": 2, "name": "3.5 inches"},
        "logical_unit_id": "0x5000c500a0b1c2d3",
        "serial_number": "Z1Z2AB3C0000C4451234",
        "device_type": {
            "scsi_terminology": "Peripheral Device Type [PDT]",
            "scsi_value": 0,
            "name": "disk",
        },
        "scsi_transport_protocol": {"name": "SAS (SPL-3)", "value": 6},
        "smart_support": {"available": True, "enabled": True},
        "temperature_warning": {"enabled": True},
        "smart_status": {"passed": True},
        "temperature": {"current": 36, "drive_trip": 68},
        "power_on_time": {"hours": 41023, "minutes": 17},
        "scsi_start_stop_cycle_counter": {
            "year_of_manufacture": "2016",
            "week_of_manufacture": "12",
            "specified_cycle_count_over_device_lifetime": 10000,
            "accumulated_start_stop_cycles": 61,
            "specified_load_unload_count_over_device_lifetime": 300000,
            "accumulated_load_unload_cycles": 1957,
        },
        "scsi_grown_defect_list": 12,
        "scsi_error_counter_log": {
            "read": jcounter(read),
            "write": jcounter(write),
            "verify": jcounter(verify),
        },
        "scsi_self_test_0": {
            "code": {"value": 1, "string": "Background short"},
            "result": {"value": 0, "string": "Completed"},
            "power_on_time": {"hours": 41011, "aka": "accumulated_power_on_hours"},
        },
        "scsi_self_test_1": {
            "code": {"value": 2, "string": "Background long"},
            "result": {"value": 7, "string": "Failed in segment"},
            "failed_segment": {"value": 7, "aka": "self_test_number"},
            "power_on_time": {"hours": 40870, "aka": "accumulated_power_on_hours"},
            "lba_first_failure": {"value": 12345678, "aka": "address_of_first_failure"},
            "sense_key": {"value": 3, "string": "Medium Error"},
            "asc": 17,
            "ascq": 0,
        },
        "scsi_self_test_2": {
            "code": {"value": 1, "string": "Background short"},
            "result": {"value": 0, "string": "Completed"},
            "power_on_time": {"hours": 40850, "aka": "accumulated_power_on_hours"},
        },
        "scsi_extended_self_test_seconds": 27600,
    }
    w("sas_seagate_grown12_selftest_failed_7.3.json", json.dumps(sas, indent=2) + "\n")

    # ---- NVMe with a self-test log (7.3 -a) and a failed extended test ----
    nvme_txt_rows = "%2u   %-17s %-33s %9d %12s %5s %3s %3s %4s\n" % (
        0,
        "Short",
        "Completed without error",
        1234,
        "-",
        "1",
        "-",
        "-",
        "-",
    ) + "%2u   %-17s %-33s %9d %12s %5s %3s %3s %4s\n" % (
        1,
        "Extended",
        "Completed: failed segments",
        1200,
        "123456",
        "1",
        "2",
        "0x2",
        "0x81",
    )
    nvme = {
        **header("nvme", "/dev/nvme0", 128),
        "device": {
            "name": "/dev/nvme0",
            "info_name": "/dev/nvme0",
            "type": "nvme",
            "protocol": "NVMe",
        },
        "model_name": "Samsung SSD 970 EVO Plus 1TB",
        "serial_number": "S4EWNX0R123456A",
        "firmware_version": "2B2QEXM7",
        "nvme_pci_vendor": {"id": 5197, "subsystem_id": 5197},
        "nvme_ieee_oui_identifier": 9528,
        "nvme_total_capacity": 1000204886016,
        "nvme_unallocated_capacity": 0,
        "nvme_controller_id": 4,
        "nvme_version": {"string": "1.3", "value": 66304},
        "nvme_number_of_namespaces": 1,
        "nvme_namespaces": [
            {
                "id": 1,
                "size": {"blocks": 1953525168, "bytes": 1000204886016},
                "capacity": {"blocks": 1953525168, "bytes": 1000204886016},
                "utilization": {"blocks": 612034560, "bytes": 313361694720},
                "formatted_lba_size": 512,
                "eui64": {"oui": 9528, "ext_id": 382252950341},
            }
        ],
        "user_capacity": {"blocks": 1953525168, "bytes": 1000204886016},
        "logical_block_size": 512,
        "smart_support": {"available": True, "enabled": True},
        "smart_status": {"passed": False, "nvme": {"value": 4}},
        "nvme_smart_health_information_log": {
            "critical_warning": 4,
            "temperature": 41,
            "available_spare": 100,
            "available_spare_threshold": 10,
            "percentage_used": 112,
            "data_units_read": 61234567,
            "data_units_written": 98765432,
            "host_reads": 912345678,
            "host_writes": 1234567890,
            "controller_busy_time": 4321,
            "power_cycles": 412,
            "power_on_hours": 1250,
            "unsafe_shutdowns": 37,
            "media_errors": 2,
            "num_err_log_entries": 15,
            "warning_temp_time": 3,
            "critical_comp_time": 0,
            "temperature_sensors": [41, 47],
        },
        "temperature": {"current": 41},
        "power_cycle_count": 412,
        "power_on_time": {"hours": 1250},
        "nvme_error_information_log": {"size": 64, "read": 16, "unread": 0},
        "nvme_self_test_log": {
            "nsid": -1,
            "current_self_test_operation": {"value": 0, "string": "No self-test in progress"},
            "table": [
                {
                    "self_test_code": {"value": 1, "string": "Short"},
                    "self_test_result": {"value": 0, "string": "Completed without error"},
                    "power_on_hours": 1234,
                    "nsid": 1,
                },
                {
                    "self_test_code": {"value": 2, "string": "Extended"},
                    "self_test_result": {"value": 7, "string": "Completed: failed segments"},
                    "power_on_hours": 1200,
                    "segment": 2,
                    "nsid": 1,
                    "lba": 123456,
                    "status_code_type": 2,
                    "status_code": 129,
                },
            ],
        },
    }
    w("nvme_samsung_worn_media_errors_selftest_failed_7.3.json", json.dumps(nvme, indent=2) + "\n")
    nvme_txt = (
        "smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.1.0-18-amd64] (local build)\n"
        "Copyright (C) 2002-22, Bruce Allen, Christian Franke, www.smartmontools.org\n\n"
        "=== START OF INFORMATION SECTION ===\n"
        "Model Number:                       Samsung SSD 970 EVO Plus 1TB\n"
        "Serial Number:                      S4EWNX0R123456A\n"
        "Firmware Version:                   2B2QEXM7\n"
        "PCI Vendor/Subsystem ID:            0x144d\n"
        "IEEE OUI Identifier:                0x002538\n"
        "Total NVM Capacity:                 1,000,204,886,016 [1.00 TB]\n"
        "Unallocated NVM Capacity:           0\n"
        "Controller ID:                      4\n"
        "NVMe Version:                       1.3\n"
        "Number of Namespaces:               1\n"
        "Namespace 1 Size/Capacity:          1,000,204,886,016 [1.00 TB]\n"
        "Namespace 1 Utilization:            313,361,694,720 [313 GB]\n"
        "Namespace 1 Formatted LBA Size:     512\n"
        "Namespace 1 IEEE EUI-64:            002538 59000d2345\n"
        "Local Time is:                      Sat Mar  2 10:15:07 2024 CET\n\n"
        "=== START OF SMART DATA SECTION ===\n"
        "SMART overall-health self-assessment test result: FAILED!\n"
        "- NVM subsystem reliability has been degraded\n\n"
        "SMART/Health Information (NVMe Log 0x02)\n"
        "Critical Warning:                   0x04\n"
        "Temperature:                        41 Celsius\n"
        "Available Spare:                    100%\n"
        "Available Spare Threshold:          10%\n"
        "Percentage Used:                    112%\n"
        "Data Units Read:                    61,234,567 [31.3 TB]\n"
        "Data Units Written:                 98,765,432 [50.5 TB]\n"
        "Host Read Commands:                 912,345,678\n"
        "Host Write Commands:                1,234,567,890\n"
        "Controller Busy Time:               4,321\n"
        "Power Cycles:                       412\n"
        "Power On Hours:                     1,250\n"
        "Unsafe Shutdowns:                   37\n"
        "Media and Data Integrity Errors:    2\n"
        "Error Information Log Entries:      15\n"
        "Warning  Comp. Temperature Time:    3\n"
        "Critical Comp. Temperature Time:    0\n"
        "Temperature Sensor 1:               41 Celsius\n"
        "Temperature Sensor 2:               47 Celsius\n\n"
        "Error Information (NVMe Log 0x01, 16 of 64 entries)\n"
        "No Errors Logged\n\n"
        "Self-test Log (NVMe Log 0x06)\n"
        "Self-test status: No self-test in progress\n"
        "Num  Test_Description  Status                       Power_on_Hours"
        "  Failing_LBA  NSID Seg SCT Code\n" + nvme_txt_rows + "\n"
    )
    w("nvme_samsung_worn_media_errors_selftest_failed_7.3.txt", nvme_txt)

    # ---- ATA disk asleep, JSON (7.3: message + device object, no identity) ----
    standby = {
        **header(
            "sat",
            "/dev/sdc",
            2,
            messages=[{"string": "Device is in STANDBY mode, exit(2)", "severity": "information"}],
        ),
        "device": {
            "name": "/dev/sdc",
            "info_name": "/dev/sdc [SAT]",
            "type": "sat",
            "protocol": "ATA",
        },
    }
    w("ata_standby_nocheck_7.3.json", json.dumps(standby, indent=2) + "\n")


if __name__ == "__main__":
    main()
