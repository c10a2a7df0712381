"""One disk, one name: ZFS events of a whole disk join its cable and failing-path alerts from
zmon's first sample, also while zpool status has not answered yet (zmon restarted while
zpool hangs). Fed what zmon serves: the events collector's labels, the vdev info Prometheus
remembers from before the restart, SMART and kernel-log counters of the disk."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from alert_rules import generate
from tests.helpers import require_tool
from tests.rules.stack import REPO
from tests.support.pool_lab import context
from zmon.base.runner import StaticRunner
from zmon.collectors.zpool_events import ZpoolEventsCollector, relabel_vdevs

H = 'instance="h1", job="zmon"'
DISK, VDEV = "sdb", "ata-WDC_WD40_X"
MINUTES = 60
RESTART = 20  # zmon restarts; zpool status hangs from then on (no zmon_vdev_info)


def served_vdev_label(root: Path) -> str:
    """The vdev label zmon's events collector serves for an event on ``VDEV-part1``, with no
    vdev names from zpool status (a host whose /dev/disk/by-id shows ZFS's whole-disk
    layout)."""
    by_id = root / "dev" / "disk" / "by-id"
    by_id.mkdir(parents=True)
    for part in ("1", "9"):
        (by_id / f"{VDEV}-part{part}").symlink_to(f"../../{DISK}{part}")
    collector = ZpoolEventsCollector(context(StaticRunner(), root))
    [(_, label, _)] = relabel_vdevs({("tank", f"{VDEV}-part1", "checksum"): 1}, {},
                                    collector.whole_disk)  # fmt: skip
    return label


def _inhibition(source: str, target: str) -> list[str]:
    """The ``equal`` labels of the shipped inhibit rule by which ``source`` mutes ``target``."""
    config = yaml.safe_load((REPO / "packaging" / "alertmanager" / "zmon.yml").read_text())
    for rule in config["inhibit_rules"]:
        sources = " ".join(rule["source_matchers"])
        targets = " ".join(rule["target_matchers"])
        if source in sources and target in targets:
            return list(rule["equal"])
    raise AssertionError(f"no inhibit rule of {source} over {target}")


def _series(label: str) -> list[tuple[str, str]]:
    """(series, values) one a minute; '_' where zmon does not serve it."""
    before, after = RESTART, MINUTES - RESTART
    rising = " ".join(str(2 * max(0, (i - 5) // 5 + 1)) for i in range(after))
    info = (
        f'zmon_vdev_info{{{H}, pool="tank", vdev="{VDEV}", class="normal", device="{DISK}", '
        f'type="disk", parent="mirror-0", state="ONLINE"}}'
    )
    out = [(info, f"1x{before - 1} _x{after}")]
    # before the restart: the event counters zero-initialised for the vdev zpool named
    out.append((f'zmon_zfs_events_total{{{H}, pool="tank", vdev="{VDEV}", class="checksum"}}',
                f"0x{before - 1} _x{after}"))  # fmt: skip
    # after it: the event series as served, from its first event at minute RESTART + 5
    out.append((f'zmon_zfs_events_total{{{H}, pool="tank", vdev="{label}", class="checksum"}}',
                f"_x{before + 4} " + " ".join(rising.split()[5:])))  # fmt: skip
    d = f'{H}, device="{DISK}"'
    out.append((f"zmon_disk_crc_errors_total{{{d}}}", f"0x{before + 4} " + " ".join(
        str(3 * ((i - 5) // 5 + 1)) for i in range(5, after))))  # fmt: skip
    for gauge in ("reallocated_sectors", "pending_sectors", "offline_uncorrectable_sectors",
                  "standby"):  # fmt: skip
        out.append((f"zmon_disk_{gauge}{{{d}}}", f"0x{MINUTES - 1}"))
    return out


def _render(label: str) -> str:
    equal = ", ".join(_inhibition("DiskCableFault", "ZfsErrorEvents"))
    firing = 'ALERTS{alertstate="firing", alertname="%s"}'
    lines = ["rule_files:", f"  - {generate.RULES_FILE}", "evaluation_interval: 1m",
             *generate.eval_order_lines(), "tests:",
             "  - interval: 1m", "    input_series:"]  # fmt: skip
    for series, values in _series(label):
        lines += [f"      - series: '{series}'", f"        values: '{values}'"]
    lines += [
        "    promql_expr_test:",
        # the events alert fires (for the vdev as served) ...
        f"      - expr: count({firing % 'ZfsErrorEvents'})",
        "        eval_time: 45m",
        "        exp_samples: [{labels: '{}', value: 1}]",
        # ... and the cable alert of the same disk mutes it: no event alert is left over
        f"      - expr: '{firing % 'ZfsErrorEvents'} unless on({equal}) "
        f"{firing % 'DiskCableFault'}'",
        "        eval_time: 45m",
        "        exp_samples: []",
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.real
def test_a_cable_fault_mutes_the_error_events_of_its_disk_before_zpool_answers(
    tmp_path: Path,
) -> None:
    promtool = require_tool("promtool", "Debian package prometheus")
    label = served_vdev_label(tmp_path / "root")
    assert label == VDEV
    path = tmp_path / "names.test.yml"
    path.write_text(_render(label))
    run = subprocess.run([promtool, "test", "rules", path.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


@pytest.mark.real
def test_the_partition_name_would_escape_the_inhibition(tmp_path: Path) -> None:
    """What the one name prevents: the partition's name does not join the cable alert."""
    promtool = require_tool("promtool", "Debian package prometheus")
    path = tmp_path / "names.test.yml"
    path.write_text(_render(f"{VDEV}-part1"))
    run = subprocess.run([promtool, "test", "rules", path.name], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode != 0 and "unless on(" in run.stdout + run.stderr
