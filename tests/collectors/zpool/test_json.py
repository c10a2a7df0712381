"""``zpool status -j`` in its variants: --json-int, plain strings, flat vdevs, GUID keys."""

from __future__ import annotations

import copy
import json
from datetime import UTC
from typing import Any

import pytest

from tests.support.zpool_status import LAB, pool_named, vdev_named
from zmon.base.errors import ParseError
from zmon.collectors.zpool.metrics import status_metrics
from zmon.parsers.zpool.zpool_status import parse_zpool_status
from zmon.parsers.zpool.zpool_status_json import parse_zpool_status_json
from zmon.parsers.zpool.zpool_status_model import Pool, note_kinds

S13 = LAB / "2.3.2" / "13-resilver-in-progress"


def load(path) -> dict[str, Any]:
    text = path.read_text()
    return json.loads(text[text.index("{") :])


def tree(pool: Pool) -> list[tuple]:
    return [
        (
            v.name,
            v.vdev_class,
            v.depth,
            v.parent,
            v.state,
            v.read_errors,
            v.write_errors,
            v.checksum_errors,
        )
        for v in pool.vdevs()
    ]


def test_int_and_string_numbers_give_the_same_tree() -> None:
    ints = parse_zpool_status((S13 / "zpool-status-int-flat.json").read_bytes(), tz=UTC)
    strings = parse_zpool_status((S13 / "zpool-status.json").read_bytes(), tz=UTC)
    for name in ("rz", "single", "tank"):
        assert tree(pool_named(ints, name)) == tree(pool_named(strings, name))
    tank = pool_named(ints, "tank")
    assert tank.guid == "2974744615444828799"  # pools keyed by GUID, names from "name"
    assert tank.scan is not None and tank.scan.examined == 226324480  # exact with --json-int


def test_flat_listing_without_nesting_is_rebuilt_from_parent_links() -> None:
    doc = load(S13 / "zpool-status-int-flat.json")
    nested = parse_zpool_status_json(json.dumps(doc))
    for pool in doc["pools"].values():
        for vdev in pool["vdevs"].values():
            vdev.pop("vdevs", None)
    flat = parse_zpool_status_json(json.dumps(doc))
    for name in ("rz", "single", "tank"):
        assert tree(pool_named(flat, name)) == tree(pool_named(nested, name))
        assert pool_named(flat, name).complete


def test_flat_output_keeps_an_in_use_spare_in_the_tree() -> None:
    status = parse_zpool_status(
        (LAB / "2.3.2" / "17-spare-inuse" / "zpool-status-int-flat.json").read_bytes()
    )
    tank = pool_named(status, "tank")
    assert [c.name for c in vdev_named(tank, "spare-1").children] == [
        "nvme-QEMU_NVMe_Ctrl_ZLNVME0",
        "ata-QEMU_HARDDISK_ZLSATA2",
    ]
    assert vdev_named(tank, "ata-QEMU_HARDDISK_ZLSATA2", "spare").state == "INUSE"
    assert note_kinds(vdev_named(tank, "ata-QEMU_HARDDISK_ZLSATA2", "spare").note) == ["in_use"]


def test_paused_scrub() -> None:
    for name in ("zpool-status.json", "zpool-status-int-flat.json"):
        status = parse_zpool_status((LAB / "2.3.2" / "03-scrub-paused" / name).read_bytes())
        scan = pool_named(status, "tank").scan
        assert scan is not None and scan.state == "paused" and scan.pause_time == 1795997258


def test_stderr_line_before_the_json_is_read() -> None:
    data = LAB / "2.3.2" / "26-single-disk-pool-disk-removed" / "zpool-status-int-flat.json"
    status = parse_zpool_status(data.read_bytes())
    fragile = pool_named(status, "fragile")
    assert status.source == "json"
    assert fragile.errors_unavailable and fragile.errors_unavailable_reason == (
        "Resource temporarily unavailable"
    )


def _pool(**extra: Any) -> dict[str, Any]:
    leaf = {"name": "sda", "vdev_type": "disk", "class": "normal", "state": "ONLINE",
            "path": "/dev/sda1", "read_errors": 0, "write_errors": 0, "checksum_errors": 0,
            "slow_ios": 0}  # fmt: skip
    root = {
        "name": "p",
        "vdev_type": "root",
        "class": "normal",
        "state": "ONLINE",
        "read_errors": 0,
        "write_errors": 0,
        "checksum_errors": 0,
        "vdevs": {"sda": leaf},
    }
    pool = {"name": "p", "state": "ONLINE", "pool_guid": 7, "vdevs": {"p": root}, "error_count": 0}
    pool.update(extra)
    return {
        "output_version": {"command": "zpool status", "vers_major": 0, "vers_minor": 1},
        "pools": {"p": pool},
    }


def _leaf(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["pools"]["p"]["vdevs"]["p"]["vdevs"]["sda"]


def test_minimal_document() -> None:
    status = parse_zpool_status_json(json.dumps(_pool()))
    pool = status.pools[0]
    assert pool.complete and pool.guid == "7" and pool.data_errors == 0
    assert vdev_named(pool, "sda").path == "/dev/sda1"


def test_rebuild_stats() -> None:
    doc = _pool(
        scan_stats={
            "function": "RESILVER",
            "state": "FINISHED",
            "start_time": 100,
            "end_time": 200,
            "to_examine": 10,
            "examined": 10,
            "skipped": 0,
            "processed": 5,
            "errors": 0,
            "issued": 10,
            "scrub_pause": 0,
            "rebuild_stats": {
                "draid1:2d:4c:1s-0": {
                    "state": "ACTIVE",
                    "start_time": 300,
                    "end_time": 0,
                    "scanned": "512M",
                    "issued": "256M",
                    "rebuilt": "128M",
                    "to_scan": "1G",
                    "errors": "0",
                }
            },
        }
    )
    pool = parse_zpool_status_json(json.dumps(doc)).pools[0]
    assert [s.function for s in pool.scans] == ["resilver", "rebuild"]
    rebuild = pool.scan
    assert rebuild is not None and rebuild.function == "rebuild"
    assert (rebuild.state, rebuild.vdev, rebuild.start_time) == (
        "in_progress",
        "draid1:2d:4c:1s-0",
        300,
    )
    assert rebuild.progress == 0.5 and rebuild.processed == 128 << 20
    ms = status_metrics(parse_zpool_status_json(json.dumps(doc)))
    assert ms.sample_value("zmon_pool_scan_in_progress", {"pool": "p", "function": "rebuild"}) == 1
    assert ms.sample_value("zmon_pool_scan_in_progress", {"pool": "p", "function": "resilver"}) == 0


def test_error_scrub_fields() -> None:
    doc = _pool(
        scan_stats={
            "function": "SCRUB",
            "state": "FINISHED",
            "start_time": 100,
            "end_time": 200,
            "errors": 0,
            "err_scrub_func": "ERRORSCRUB",
            "err_scrub_state": "ERRORSCRUBBING",
            "err_scrub_start_time": 300,
            "err_scrub_end_time": 0,
        }
    )
    pool = parse_zpool_status_json(json.dumps(doc)).pools[0]
    assert [(s.function, s.state) for s in pool.scans] == [
        ("scrub", "finished"),
        ("error_scrub", "in_progress"),
    ]


def test_notes_from_json_fields() -> None:
    doc = _pool(
        scan_stats={
            "function": "RESILVER",
            "state": "SCANNING",
            "start_time": 1,
            "to_examine": 100,
            "examined": 50,
            "issued": 10,
            "skipped": 0,
        }
    )
    leaf = _leaf(doc)
    leaf.update(
        scan_processed=4096,
        trim_state="ACTIVE",
        trimmed=25,
        to_trim=99,
        init_state="SUSPENDED",
        initialized=10,
        to_initialize=99,
    )
    pool = parse_zpool_status_json(json.dumps(doc)).pools[0]
    sda = vdev_named(pool, "sda")
    assert note_kinds(sda.note) == ["resilvering", "trimming", "initializing"]
    assert (sda.trim_progress, sda.initialize_progress) == (0.25, 0.1)
    for aux, kind in (
        ("ERR_EXCEEDED", "too_many_errors"),
        ("OPEN_FAILED", "cannot_open"),
        ("EXTERNAL", "external_fault"),
        ("NO_REPLICAS", "insufficient_replicas"),
    ):
        doc2 = copy.deepcopy(doc)
        _leaf(doc2).update(aux=aux, state="FAULTED", scan_processed=0)
        sda = vdev_named(parse_zpool_status_json(json.dumps(doc2)).pools[0], "sda")
        assert kind in note_kinds(sda.note)
    doc3 = copy.deepcopy(doc)
    _leaf(doc3).update(was="/dev/sdz1", state="UNAVAIL", name="123456")
    root = parse_zpool_status_json(json.dumps(doc3)).pools[0].root
    assert root is not None
    sda = root.children[0]
    assert sda.was_path == "/dev/sdz1" and note_kinds(sda.note)[0] == "was"


def test_errlist_and_unknown_states() -> None:
    doc = _pool(error_count="2", errlist=["/p/a", "/p/b"], state="WEIRD")
    _leaf(doc)["state"] = "STRANGE"
    pool = parse_zpool_status_json(json.dumps(doc)).pools[0]
    assert pool.error_files == ["/p/a", "/p/b"] and pool.data_errors == 2
    assert not pool.complete
    assert any("WEIRD" in r for r in pool.incomplete) and any("sda" in r for r in pool.incomplete)


def test_no_pools() -> None:
    status = parse_zpool_status('{"output_version": {}, "pools": {}}')
    assert status.no_pools and status.pools == []


@pytest.mark.parametrize(
    "text", ['{"pools": ', "[1, 2]", '{"pools": []}', '{"something": 1}', "{" * 50000]
)
def test_bad_json_raises_parse_error(text: str) -> None:
    with pytest.raises(ParseError):
        parse_zpool_status(text)


def test_bad_json_names_the_line() -> None:
    with pytest.raises(ParseError) as info:
        parse_zpool_status('{\n"pools": {\n"x": }\n}')
    assert info.value.line_no == 3


def test_wrong_types_give_incomplete_pools_not_exceptions() -> None:
    doc = _pool()
    doc["pools"]["p"]["vdevs"]["p"]["vdevs"] = ["not", "a", "dict"]
    doc["pools"]["p"]["scan_stats"] = {"function": "SCRUB", "state": 5, "start_time": [1]}
    doc["pools"]["q"] = "nonsense"
    status = parse_zpool_status_json(json.dumps(doc))
    assert [p.name for p in status.pools] == ["p"]
    assert status.warnings == ["pool 'q' is not an object"]
    assert status.pools[0].scan is not None and status.pools[0].scan.state == "unknown"


def test_kernel_state_names_are_printed_names() -> None:
    """-j prints the kernel's vdev states; text prints zpool_state_to_name's words."""
    for state, aux, printed in (
        ("CANT_OPEN", None, "UNAVAIL"),
        ("CANT_OPEN", "OPEN_FAILED", "UNAVAIL"),
        ("CANT_OPEN", "CORRUPT_DATA", "FAULTED"),
        ("CANT_OPEN", "BAD_LOG", "FAULTED"),
        ("CLOSED", None, "OFFLINE"),
        ("FAULTED", "ERR_EXCEEDED", "FAULTED"),
    ):
        doc = _pool()
        _leaf(doc).update(state=state, **({"aux": aux} if aux else {}))
        pool = parse_zpool_status_json(json.dumps(doc)).pools[0]
        assert vdev_named(pool, "sda").state == printed, (state, aux)
        assert pool.complete


def test_json_scan_gets_zpool_style_estimate() -> None:
    """JSON has no rates: the pass counts give them, and an ETA only from 10 MiB/s on."""
    from zmon.parsers.zpool.zpool_status_json import parse_zpool_status_json

    doc = (
        '{"output_version": {"command": "zpool status"}, "pools": {"tank": {"name": "tank",'
        ' "state": "ONLINE", "scan_stats": {"function": "SCRUB", "state": "SCANNING",'
        ' "start_time": 1000, "end_time": 0, "to_examine": 209514496, "examined": 209514496,'
        ' "skipped": 172032, "processed": 0, "errors": 0, "bytes_per_scan": 0,'
        ' "pass_start": 1001, "scrub_pause": 0, "scrub_spent_paused": 0,'
        ' "issued_bytes_per_scan": 188702720, "issued": 188702720}}}}'
    )
    scan = parse_zpool_status_json(doc).pools[0].scans[0]
    assert scan.remaining is None  # no clock yet: nothing estimated
    scan.estimate(now=1001 + 5)  # 180 MiB in 5 s: 36 MiB/s
    assert scan.issue_rate == 188702720 / 5
    assert scan.remaining == int((209514496 - 172032 - 188702720) / (188702720 / 5))
    slow = parse_zpool_status_json(doc).pools[0].scans[0]
    slow.estimate(now=1001 + 600)  # 0.3 MiB/s: zpool says "no estimated completion time"
    assert slow.issue_rate is not None and slow.remaining is None
