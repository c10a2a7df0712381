"""smartctl text output (``-a``, ``-x``, ``-HiA``; versions 5.38 to 7.x; ATA, NVMe, SCSI/SAS).

Used by ``zmon parse smartctl`` on saved text and by the collector with smartctl older than 7.0
(no ``--json``). Prose lines are skipped; input with no smartctl line at all is a ParseError.
"""

from __future__ import annotations

import re

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.smartctl.smartctl_model import (
    POWER_MODE_SKIP,
    AtaAttribute,
    NvmeHealth,
    SasPhy,
    ScsiErrorCounter,
    ScsiHealth,
    SelfTest,
    SmartReport,
    leading_number,
    power_on_seconds_from_attribute,
    sas_link_rate_bits,
    test_outcome_from_text,
)
from zmon.parsers.smartctl.smartctl_text_fields import KEYS, count

_BANNER = re.compile(r"^smartctl (?:version )?(\d+\.\d+)\b")
_PROMPT = re.compile(r"^(?:\S*[$#]\s*)?(?:sudo\s+)?smartctl(?:\.exe)?\s.*?(/dev/\S+)")
# The SAS Protocol Specific port log page (-l sasphy, -x). smartctl 7.3 added "count" to the
# last two counter names ("Loss of DWORD synchronization count", "Phy reset problem count").
_SAS_PORT = re.compile(r"^relative target port id = (\d+)$")
_SAS_PHY_ID = re.compile(r"^phy identifier = (\d+)$")
# A number may be followed by what the poster wrote after it ("= 24194   <=== (?)").
_SAS_PHY_FIELDS = (
    (re.compile(r"^Invalid DWORD count = (\d+)\b"), "invalid_dwords"),
    (re.compile(r"^Running disparity error count = (\d+)\b"), "running_disparity_errors"),
    (re.compile(r"^Loss of DWORD synchronization(?: count)? = (\d+)\b"), "loss_of_dword_sync"),
    (re.compile(r"^Phy reset problem(?: count)? = (\d+)\b"), "phy_reset_problems"),
    (re.compile(r"^attached phy identifier = (\d+)\b"), "attached_phy"),
)
_ATTR_HEADER = re.compile(r"^ID#\s+ATTRIBUTE_NAME\s+FLAGS?\s+VALUE")
_ATTR_ROW = re.compile(
    r"^\s*(?P<id>\d+)\s+(?P<name>\S+)\s+(?P<flag>0x[0-9a-fA-F]+|[-A-Za-z+]{6,})\s+"
    r"(?P<value>\d+|-+)\s+(?P<worst>\d+|-+)\s+(?P<thresh>\d+|-+)\s+(?P<rest>\S.*)$"
)
# Attribute rows whose header line was not pasted: the full shape of smartctl's -A table (hex
# flags, three 3-digit values, type, updated, when-failed) or of its brief -x form (flag
# letters such as -O--CK); nothing else smartctl prints looks like either.
_HEADERLESS_ATTR = re.compile(
    r"^\s*\d{1,3}\s+[A-Za-z][\w.-]*\s+0x[0-9a-fA-F]{4}\s+\d{3}\s+\d{3}\s+(?:\d{3}|---)\s+"
    r"(?:Pre-fail|Old_age)\s+(?:Always|Offline)\s+(?:-|FAILING_NOW|In_the_past)\s+\S"
)
_HEADERLESS_BRIEF_ATTR = re.compile(
    r"^\s*\d{1,3}\s+[A-Za-z][\w.-]*\s+[P-][O-][S-][R-][C-][K-]\+?\s+\d{3}\s+\d{3}\s+"
    r"(?:\d{3}|---)\s+(?:-|NOW|Past)\s+\S"
)
_ATA_TEST_HEADER = re.compile(r"^Num\s+Test_Description\s+Status\s+Remaining")
_ATA_TEST_ROW = re.compile(
    r"^#\s*(?P<num>\d+)\s+(?P<kind>\S.*?)\s{2,}(?P<status>\S.*?)\s+(?P<rem>\d+)%\s+"
    r"(?P<hours>\d+)\s+\S+"
)
# Seagate/Hitachi SAS factory log page (the only power-on time some drives report)
_FACTORY_HOURS = re.compile(r"^number of hours powered up = (\d{1,12}(?:\.\d{1,2})?)$")
_NVME_TEST_HEADER = re.compile(r"^Num\s+Test_Description\s+Status\s+Power_on_Hours")
_NVME_TEST_ROW = re.compile(
    r"^\s*(?P<num>\d+)\s+(?P<kind>Short|Extended|Vendor specific|Unknown \(0x[0-9a-fA-F]+\))\s+"
    r"(?P<status>\S.*?)\s+(?P<hours>\d+)\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s*$"
)
_SCSI_TEST_HEADER = re.compile(r"^Num\s+Test\s+Status\s+segment")
_SCSI_TEST_ROW = re.compile(
    r"^#\s*(?P<num>\d+)\s+(?P<kind>Default|Background short|Background long|Reserved\(\d+\)|"
    r"Abort background|Foreground short|Foreground long)\s+(?P<status>\S.*?)\s+(?:-|\d+)\s+"
    r"(?P<hours>NOW|\d+)\b"
)
_SCSI_COUNTER = re.compile(
    r"^(?P<op>read|write|verify):\s+(\d+)\s+(\d+)\s+(\d+)\s+(?P<corr>\d+)\s+(\d+)\s+"
    r"(?P<gb>[\d.,]+)\s+(?P<unc>\d+)\s*$"
)
_ERROR_LINES = re.compile(
    r"(?i)(open device: .* failed|unable to detect device type|unknown usb bridge|"
    r"a mandatory smart command failed|smart support is: unavailable|device lacks smart)"
)

_NVME_KEYS = {
    "Critical Warning": "critical_warning",
    "Available Spare": "available_spare",
    "Available Spare Threshold": "available_spare_threshold",
    "Percentage Used": "percentage_used",
    "Data Units Read": "data_units_read",
    "Data Units Written": "data_units_written",
    "Host Read Commands": "host_reads",
    "Host Write Commands": "host_writes",
    "Controller Busy Time": "controller_busy_time",
    "Unsafe Shutdowns": "unsafe_shutdowns",
    "Media and Data Integrity Errors": "media_errors",
    "Error Information Log Entries": "error_log_entries",
    "Warning Comp. Temperature Time": "warning_temp_time",
    "Critical Comp. Temperature Time": "critical_comp_time",
}


class _TextParser:
    def __init__(self) -> None:
        self.r = SmartReport(source="text")
        self.section: str | None = None
        self.recognized = 0
        self.vendor: str | None = None
        self.product: str | None = None
        self.protocol_hint: str | None = None
        self.long_attrs = True
        self.factory_minutes: int | None = None  # SAS vendor factory page, if no exact time
        self.sas_port: int | None = None
        self.sas_phy: SasPhy | None = None

    def feed(self, line: str) -> None:
        s = line.strip()
        if not s:
            if self.section not in (None, "nvme", "ata_errlog"):
                self.section = None
            return
        if self._tables(s, line):
            self.recognized += 1
            return
        if self._events(s) or self._sas_phy_line(s):
            self.recognized += 1
            return
        if ":" in s and self._key_value(s):
            self.recognized += 1

    def _tables(self, s: str, line: str) -> bool:
        r = self.r
        if _ATTR_HEADER.match(s):
            self.section, self.long_attrs = "attrs", "TYPE" in s
            self.protocol_hint = self.protocol_hint or "ATA"
            return True
        if _ATA_TEST_HEADER.match(s):
            self.section = "ata_tests"
            return True
        if _NVME_TEST_HEADER.match(s):
            self.section = "nvme_tests"
            return True
        if _SCSI_TEST_HEADER.match(s):
            self.section = "scsi_tests"
            return True
        if self.section != "attrs":
            long_form = bool(_HEADERLESS_ATTR.match(line))
            if long_form or _HEADERLESS_BRIEF_ATTR.match(line):
                self.section, self.long_attrs = "attrs", long_form
                self.protocol_hint = self.protocol_hint or "ATA"
        if self.section == "attrs":
            m = _ATTR_ROW.match(line)
            if m:
                r.add_attribute(self._attribute(m))
                return True
            self.section = None
            return False
        if self.section == "ata_tests" and (m := _ATA_TEST_ROW.match(s)):
            hours, remaining = int(m.group("hours")), int(m.group("rem"))
            r.self_tests.append(_self_test(m, m.group("status"), hours, remaining))
            return True
        if self.section == "nvme_tests" and (m := _NVME_TEST_ROW.match(line)):
            r.self_tests.append(_self_test(m, m.group("status"), int(m.group("hours"))))
            return True
        if self.section == "scsi_tests" and (m := _SCSI_TEST_ROW.match(s)):
            at = m.group("hours")
            status = m.group("status").replace("-->", "").strip()
            r.self_tests.append(_self_test(m, status, None if at == "NOW" else int(at)))
            return True
        m = _SCSI_COUNTER.match(s)
        if m:
            gb = m.group("gb")
            gb = gb.replace(",", ".") if "." not in gb else gb.replace(",", "")
            try:
                processed: float | None = float(gb) * 1e9
            except ValueError:  # "1.2.3": garbled; the error counts are still good
                processed = None
            self.scsi_health().counters[m.group("op")] = ScsiErrorCounter(
                corrected=int(m.group("corr")),
                uncorrected=int(m.group("unc")),
                processed_bytes=processed,
            )
            return True
        return False

    def _attribute(self, m: re.Match[str]) -> AtaAttribute:
        def num(v: str) -> int | None:
            return int(v) if v.isdigit() else None

        flag = m.group("flag")
        if self.long_attrs:
            parts = m.group("rest").split(None, 3)
            parts += [""] * (4 - len(parts))
            kind, _, failed, raw = parts
            prefail = kind == "Pre-fail"
        else:
            failed, _, raw = m.group("rest").partition(" ")
            prefail = flag.startswith("P") if not flag.startswith("0x") else bool(int(flag, 16) & 1)
        failed_l = failed.lower()
        return AtaAttribute(
            id=int(m.group("id")),
            name=m.group("name"),
            value=num(m.group("value")),
            worst=num(m.group("worst")),
            threshold=num(m.group("thresh")),
            raw=leading_number(raw.strip()),
            raw_string=raw.strip(),
            when_failed="now" if "now" in failed_l else "past" if "past" in failed_l else "",
            prefailure=prefail,
        )

    def _events(self, s: str) -> bool:
        r = self.r
        m = _BANNER.match(s)
        if m:
            r.smartctl_version = m.group(1)
            return True
        m = POWER_MODE_SKIP.search(s)
        if m:
            r.power_mode, r.exit_status = m.group("mode"), int(m.group("code"))
            r.messages.append(("information", s))
            return True
        m = _PROMPT.match(s)
        if m:
            r.device_name = m.group(1)
            return True
        if s.startswith("=== START OF"):
            return True
        if _ERROR_LINES.search(s):
            r.messages.append(("error", s))
            m = re.search(r"(/dev/\S+)", s)
            if m and r.device_name is None:
                r.device_name = m.group(1).rstrip(":")
            if "unavailable" in s.lower() or "lacks smart" in s.lower():
                r.smart_available = False
            return True
        if s.startswith("SMART/Health Information (NVMe"):
            self.section, self.protocol_hint = "nvme", "NVMe"
            r.nvme = r.nvme or NvmeHealth()
            return True
        if s.startswith(("SMART Error Log Version", "SMART Extended Comprehensive Error Log")):
            self.section = "ata_errlog"
            return True
        if s.startswith(("Error Information (NVMe", "Self-test Log (NVMe")):
            self.section = "nvme_other"
            return True
        if s == "No Errors Logged" and self.section == "ata_errlog":
            r.ata_error_log_count = max(r.ata_error_log_count or 0, 0)
            return True
        if s.startswith(("No self-tests have been logged", "No Self-tests Logged")):
            return True
        m = re.match(r"^Accumulated power on time, hours:minutes (\d+):(\d+)", s)
        if m:
            r.power_on_seconds = int(m.group(1)) * 3600.0 + int(m.group(2)) * 60
            self.protocol_hint = "SCSI"
            return True
        m = _FACTORY_HOURS.match(s)
        if m:  # minutes / 60 printed with two decimals: the whole minutes come back
            self.factory_minutes = round(float(m.group(1)) * 60)
            self.protocol_hint = "SCSI"
            return True
        if s.startswith("Error counter log:"):
            self.scsi_health()
            return True
        return False

    def _sas_phy_line(self, s: str) -> bool:
        """One line of the SAS Protocol Specific port log page; False for any other line."""
        if s.startswith("Protocol Specific port log page for SAS"):
            self.sas_port, self.sas_phy = None, None
            self.protocol_hint = "SCSI"
            return True
        m = _SAS_PORT.match(s)
        if m:
            self.sas_port, self.sas_phy = int(m.group(1)), None
            self.protocol_hint = "SCSI"
            return True
        if self.sas_port is None:
            return False
        m = _SAS_PHY_ID.match(s)
        if m:
            self.sas_phy = SasPhy(port=self.sas_port, phy=int(m.group(1)))
            self.r.add_sas_phy(self.sas_phy)
            return True
        phy = self.sas_phy
        if phy is None:
            return s.startswith(("generation code = ", "number of phys = "))
        for pattern, attr in _SAS_PHY_FIELDS:
            m = pattern.match(s)
            if m:
                setattr(phy, attr, int(m.group(1)))
                return True
        key, sep, value = s.partition(" = " if " = " in s else ": ")
        if not sep:
            return False
        if key == "SAS address":
            phy.sas_address = value
        elif key == "attached SAS address":
            phy.attached_sas_address = value
        elif key == "attached device type":
            phy.attached_device_type = value
        elif key == "negotiated logical link rate":
            phy.link_rate_bits = sas_link_rate_bits(value)
        else:
            return key in ("attached reason", "reason", "attached initiator port",
                           "attached target port")  # fmt: skip
        return True

    def _key_value(self, s: str) -> bool:
        key, _, value = s.partition(":")
        key = re.sub(r"\s+", " ", key.strip())
        value = value.strip()
        r = self.r
        if self.section == "nvme" and key in _NVME_KEYS:
            setattr(r.nvme, _NVME_KEYS[key], count(value))
            return True
        if key == "Temperature" and self.section == "nvme":
            r.temperature_celsius = float(c) if (c := count(value)) is not None else None
            return True
        if key in ("Power Cycles", "Power On Hours") and self.section == "nvme":
            n = count(value)
            if key == "Power Cycles":
                r.power_cycles = n
            elif n is not None:
                r.power_on_seconds = n * 3600.0
            return True
        handler = KEYS.get(key)
        if handler is None:
            return False
        handler(self, value)
        return True

    def scsi_health(self) -> ScsiHealth:
        if self.r.scsi is None:
            self.r.scsi = ScsiHealth()
        self.protocol_hint = "SCSI"
        return self.r.scsi

    def finish(self) -> SmartReport:
        r = self.r
        if r.model is None and self.product:  # a SCSI vendor alone is no model
            r.model = " ".join(x for x in (self.vendor, self.product) if x)
        r.protocol = r.protocol or self.protocol_hint
        if r.temperature_celsius is None:
            for attr_id in (194, 190):
                a = r.attribute(attr_id)
                if a is not None and a.raw is not None:
                    r.temperature_celsius = a.raw
                    break
        if r.power_on_seconds is None and self.factory_minutes is not None:
            r.power_on_seconds = self.factory_minutes * 60.0
        a9 = r.attribute(9)
        if r.power_on_seconds is None and a9 is not None:
            r.power_on_seconds = power_on_seconds_from_attribute(a9.name, a9.raw_string)
        a12 = r.attribute(12)
        if r.power_cycles is None and a12 is not None and a12.raw is not None:
            r.power_cycles = int(a12.raw)
        if r.self_test_in_progress is None and r.self_tests[:1]:
            r.self_test_in_progress = r.self_tests[0].outcome == "in_progress" or None
        return r


def _self_test(
    m: re.Match[str], status: str, hours: int | None, remaining: int | None = None
) -> SelfTest:
    """A self-test log row: its number and kind from ``m``, its outcome read from ``status``."""
    outcome = test_outcome_from_text(status)
    return SelfTest(int(m.group("num")), m.group("kind").strip(), status, outcome, hours, remaining)


@refuses_hostile_input
def parse_smartctl_text(text: str) -> SmartReport:
    """Parse smartctl's text report; raise ParseError when no line looks like smartctl's."""
    p = _TextParser()
    lines = text.splitlines()
    for line in lines:
        p.feed(line.rstrip("\r"))
    if p.recognized == 0:
        first = next((i for i, x in enumerate(lines, 1) if x.strip()), 1)
        raise ParseError(
            "not smartctl output (no banner, section header or known field)",
            first,
            lines[first - 1] if lines else "",
        )
    return p.finish()
