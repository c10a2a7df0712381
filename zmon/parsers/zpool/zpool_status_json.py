"""``zpool status -j`` (OpenZFS 2.3+) into the same model as the text parser.

Accepts ``--json-int`` (numbers as integers, times as Unix seconds) and plain ``-j`` (numbers
as strings, ``"0"`` or ``"2.04K"``, times as ``"Mon Nov 30 00:11:24 UTC 2026"``), nested or
``--json-flat-vdevs`` trees, and pools keyed by name or by GUID (``--json-pool-key-guid``).

In 2.3 the flat form still nests each vdev's children and merges every section into one
object keyed by vdev name, so the tree is rebuilt from the nesting when it is there and
from ``parent`` links otherwise; the section of a top-level vdev comes from its ``class``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import tzinfo
from typing import Any

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.common.units import parse_ctime, try_nice
from zmon.parsers.zpool.zpool_status_model import (
    KNOWN_POOL_STATES,
    Pool,
    Scan,
    Vdev,
    ZpoolStatus,
    upgrade_suggested,
    vdev_type_from_name,
)

_SECTIONS = (
    ("dedup", "dedup"),
    ("special", "special"),
    ("logs", "log"),
    ("l2cache", "cache"),
    ("spares", "spare"),
)
_CLASS = {
    "normal": "normal",
    "special": "special",
    "dedup": "dedup",
    "log": "log",
    "l2cache": "cache",
    "cache": "cache",
    "spare": "spare",
}
_AUX_NOTES = {
    "OPEN_FAILED": "cannot open", "CORRUPT_DATA": "corrupted data",
    "NO_REPLICAS": "insufficient replicas", "BAD_GUID_SUM": "missing device",
    "TOO_SMALL": "device too small", "BAD_LABEL": "invalid label",
    "VERSION_NEWER": "newer version", "VERSION_OLDER": "older version",
    "UNSUP_FEAT": "unsupported feature(s)", "SPARED": "currently in use",
    "ERR_EXCEEDED": "too many errors", "IO_FAILURE": "experienced I/O failures",
    "BAD_LOG": "bad intent log", "EXTERNAL": "external device fault",
    "SPLIT_POOL": "split into new pool", "EXTERNAL_PERSIST": "external device fault",
    "ACTIVE": "currently in use", "CHILDREN_OFFLINE": "all children offline",
    "ASHIFT_TOO_BIG": "unsupported minimum blocksize",
}  # fmt: skip
_SCAN_STATE = {
    "SCANNING": "in_progress",
    "FINISHED": "finished",
    "CANCELED": "canceled",
    "ERRORSCRUBBING": "in_progress",
}
JsonObj = dict[str, Any]
ScanCtx = tuple[bool, bool]  # (a resilver or rebuild runs, a scrub runs)
_REBUILD_STATE = {"ACTIVE": "in_progress", "COMPLETE": "finished", "CANCELED": "canceled"}


# zpool prints 64-bit counters; a longer number is damaged output (and past 308 digits it
# would not even fit a float).
MAX_INT_DIGITS = 40


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ParseError(f"a number of {len(text)} digits", None, text[:40])
    return int(text)


@refuses_hostile_input
def parse_zpool_status_json(
    text: str | bytes, tz: tzinfo | None = None, stderr: str = ""
) -> ZpoolStatus:
    """Parse ``zpool status -j`` output; raise ParseError when it is not that JSON."""
    try:
        doc = json.loads(text, parse_int=_json_int)
    except ParseError:
        raise
    except (ValueError, RecursionError) as exc:
        line = getattr(exc, "lineno", None)
        raise ParseError(f"invalid JSON: {getattr(exc, 'msg', exc)}", line) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("pools", {}), dict):
        raise ParseError("JSON without a 'pools' object", 1)
    if "pools" not in doc and "output_version" not in doc:
        raise ParseError("JSON is not zpool status -j output", 1)
    status = ZpoolStatus(source="json")
    unavailable = _stderr_unavailable(stderr)
    for key, item in doc.get("pools", {}).items():
        if not isinstance(item, dict):
            status.warnings.append(f"pool {key!r} is not an object")
            continue
        try:
            pool = _pool(str(key), item, tz)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            pool = Pool(name=str(item.get("name", key)))
            pool.incomplete.append(f"cannot read pool object: {exc}")
        status.pools.append(pool)
    if not status.pools:
        status.no_pools = True
    if unavailable:
        lacking = [p for p in status.pools if p.errors_seen and p.io_suspended]
        for pool in lacking:
            pool.errors_unavailable = True
            pool.errors_unavailable_reason = pool.errors_unavailable_reason or unavailable
    return status


def _stderr_unavailable(stderr: str) -> str:
    for line in stderr.splitlines():
        text = line.strip()
        if text.startswith("errors: List of errors unavailable"):
            return text.split(":", 2)[-1].strip() or "unavailable"
    return ""


def _num(value: Any) -> int | None:
    """An integer from a JSON number or a nicenum string; None for ``-`` or junk."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return round(value) if value == value and abs(value) != float("inf") else None
    if isinstance(value, str):
        return try_nice(value)
    return None


def _time(value: Any, tz: tzinfo | None) -> float | None:
    """Unix seconds from an integer or a printed date; 0 and ``-`` mean unset."""
    if isinstance(value, str):
        text = value.strip()
        if not text.isdigit():
            return parse_ctime(text, tz)
        value = int(text)
    seconds = _num(value)
    return float(seconds) if seconds else None


def _pool(key: str, item: Mapping[str, Any], tz: tzinfo | None) -> Pool:
    pool = Pool(name=str(item.get("name") or key))
    guid = item.get("pool_guid")
    pool.guid = str(guid) if guid is not None else None
    state = item.get("state")
    pool.state = str(state) if state is not None else None
    pool.status = " ".join(str(item.get("status", "")).split())
    pool.action = " ".join(str(item.get("action", "")).split())
    if item.get("moreinfo") or item.get("msgid"):
        pool.set_see(str(item.get("moreinfo") or item.get("msgid")))
        pool.msg_id = str(item.get("msgid") or pool.msg_id or "") or None
    pool.upgrade_available = upgrade_suggested(pool.status)
    scan_stats = item.get("scan_stats")
    if isinstance(scan_stats, dict):
        pool.scans.extend(_scans(scan_stats, tz))
    _tree(pool, item)
    _errors(pool, item)
    for section in ("raidz_expand_stats", "removal_stats", "checkpoint_stats"):
        if isinstance(item.get(section), dict):
            pool.extra[section] = json.dumps(item[section], sort_keys=True)
    _check(pool)
    return pool


def _scans(stats: Mapping[str, Any], tz: tzinfo | None) -> list[Scan]:
    scans: list[Scan] = []
    function = str(stats.get("function", "NONE")).upper()
    if function in ("SCRUB", "RESILVER"):
        state = _SCAN_STATE.get(str(stats.get("state", "")).upper(), "unknown")
        scan = Scan(function.lower(), state)
        scan.start_time = _time(stats.get("start_time"), tz)
        scan.end_time = _time(stats.get("end_time"), tz) if state != "in_progress" else None
        scan.pause_time = _time(stats.get("scrub_pause"), tz)
        if state == "in_progress" and scan.pause_time:
            scan.state = "paused"
        scan.examined = _num(stats.get("examined"))
        scan.issued = _num(stats.get("issued"))
        scan.to_examine = _num(stats.get("to_examine"))
        skipped = _num(stats.get("skipped"))
        if scan.to_examine is not None:
            scan.to_issue = scan.to_examine - (skipped or 0)
        scan.processed = _num(stats.get("processed"))
        scan.errors = _num(stats.get("errors"))
        scan.pass_start = _time(stats.get("pass_start"), tz)
        scan.pass_examined = _num(stats.get("bytes_per_scan"))
        scan.pass_issued = _num(stats.get("issued_bytes_per_scan"))
        scan.pass_paused_seconds = _num(stats.get("scrub_spent_paused"))
        if scan.active and scan.issued is not None and scan.to_issue:
            scan.progress = min(1.0, scan.issued / scan.to_issue)
        if state == "finished" and scan.start_time and scan.end_time:
            scan.duration = int(scan.end_time - scan.start_time)
        scan.text = json.dumps(dict(stats), sort_keys=True)
        scans.append(scan)
    elif function not in ("NONE", ""):
        scans.append(Scan(function.lower(), "unknown", text=json.dumps(dict(stats))))
    err_func = str(stats.get("err_scrub_func", "")).upper()
    if err_func == "ERRORSCRUB":
        state = _SCAN_STATE.get(str(stats.get("err_scrub_state", "")).upper(), "unknown")
        scan = Scan("error_scrub", state)
        scan.start_time = _time(stats.get("err_scrub_start_time"), tz)
        if state != "in_progress":
            scan.end_time = _time(stats.get("err_scrub_end_time"), tz)
        scans.append(scan)
    rebuilds = stats.get("rebuild_stats")
    if isinstance(rebuilds, dict):
        for name, rb in rebuilds.items():
            if isinstance(rb, dict):
                scans.append(_rebuild(str(name), rb, tz))
    return scans


def _rebuild(name: str, rb: Mapping[str, Any], tz: tzinfo | None) -> Scan:
    scan = Scan("rebuild", _REBUILD_STATE.get(str(rb.get("state", "")).upper(), "unknown"))
    scan.vdev = name
    scan.start_time = _time(rb.get("start_time"), tz)
    scan.end_time = _time(rb.get("end_time"), tz) if scan.state != "in_progress" else None
    scan.examined = _num(rb.get("scanned"))
    scan.issued = _num(rb.get("issued"))
    scan.processed = _num(rb.get("rebuilt"))
    scan.to_examine = _num(rb.get("to_scan"))
    scan.errors = _num(rb.get("errors"))
    if scan.active and scan.examined is not None and scan.to_examine:
        scan.progress = min(1.0, scan.examined / scan.to_examine)
    scan.text = json.dumps(dict(rb), sort_keys=True)
    return scan


def _tree(pool: Pool, item: Mapping[str, Any]) -> None:
    vdevs = item.get("vdevs")
    if not isinstance(vdevs, dict):
        return
    resilvering = any(s.active and s.function in ("resilver", "rebuild") for s in pool.scans)
    scrubbing = any(s.active and s.function == "scrub" for s in pool.scans)
    ctx = (resilvering, scrubbing)
    objects = {k: v for k, v in vdevs.items() if isinstance(v, dict)}
    root_key = next((k for k, v in objects.items() if v.get("vdev_type") == "root"), None)
    if root_key is None and pool.name in objects:
        root_key = pool.name
    root_obj = objects.get(root_key) if root_key is not None else None
    linked = any("parent" in v for v in objects.values())
    if root_obj is not None and (isinstance(root_obj.get("vdevs"), dict) or not linked):
        pool.root = _vdev(root_obj, "normal", None, 0, ctx, True)
        flat_tops = [v for k, v in objects.items() if k != root_key and "parent" not in v]
    else:
        if root_obj is not None:
            pool.root = _vdev(root_obj, "normal", None, 0, ctx, False)
        flat_tops = _link_flat(pool, objects, root_key, ctx)
    if pool.root is not None:
        pool.root.type = "root"
    for obj in flat_tops:
        cls = _CLASS.get(str(obj.get("class", "normal")), "normal")
        pool.classes.setdefault(cls, []).append(_vdev(obj, cls, None, 1, ctx, True))
    for section, cls in _SECTIONS:
        members = item.get(section)
        if isinstance(members, dict):
            for obj in members.values():
                if isinstance(obj, dict):
                    vdev = _vdev(obj, cls, None, 1, ctx, True)
                    pool.classes.setdefault(cls, []).append(vdev)


def _link_flat(
    pool: Pool, objects: dict[str, JsonObj], root_key: str | None, ctx: ScanCtx
) -> list[JsonObj]:
    """Rebuild a flat listing without nesting from ``parent`` links; return the class tops."""
    nodes: dict[str, Vdev] = {}
    if pool.root is not None and root_key is not None:
        nodes[root_key] = pool.root
    for key, obj in objects.items():
        if key != root_key:
            nodes[key] = _vdev(obj, "normal", obj.get("parent"), 0, ctx, False)
    tops: list[JsonObj] = []
    for key, obj in objects.items():
        parent_name = obj.get("parent")
        if key == root_key:
            continue
        if parent_name is None:
            tops.append(obj)
        elif parent_name in nodes:
            nodes[parent_name].children.append(nodes[key])
        else:
            pool.incomplete.append(f"vdev {key!r} has an unknown parent {parent_name!r}")
    if pool.root is not None:
        for vdev in pool.root.walk():
            for child in vdev.children:
                child.depth = vdev.depth + 1
                child.vdev_class = vdev.vdev_class
    return tops


def _vdev(
    obj: Mapping[str, Any], cls: str, parent: Any, depth: int, ctx: ScanCtx, nested: bool
) -> Vdev:
    name = str(obj.get("name", ""))
    vdev = Vdev(name=name, state=_vdev_state(obj))
    # The section the vdev sits in, not its own "class": an in-use hot spare says "spare"
    # both in the tree and in the spares list, and those two must stay apart.
    vdev.vdev_class = cls
    vdev.type = _vdev_type(obj, name)
    vdev.parent = str(parent) if parent is not None else None
    vdev.depth = depth
    vdev.guid = str(obj["guid"]) if obj.get("guid") is not None else None
    vdev.path = str(obj["path"]) if obj.get("path") else None
    vdev.read_errors = _num(obj.get("read_errors"))
    vdev.write_errors = _num(obj.get("write_errors"))
    vdev.checksum_errors = _num(obj.get("checksum_errors"))
    vdev.slow_ios = _num(obj.get("slow_ios"))
    vdev.printed = {
        k: str(obj[k])
        for k in ("read_errors", "write_errors", "checksum_errors", "slow_ios")
        if k in obj
    }
    vdev.note = _note(obj, ctx)
    vdev.trim_progress = _progress(obj, "trim_state", "trimmed", "to_trim")
    vdev.initialize_progress = _progress(obj, "init_state", "initialized", "to_initialize")
    if obj.get("was"):
        vdev.was_path = str(obj["was"])
    children = obj.get("vdevs")
    if nested and isinstance(children, dict):
        for child in children.values():
            # In flat output each vdev also lists its grandchildren: keep direct children only.
            if isinstance(child, dict) and child.get("parent", name) == name:
                vdev.children.append(_vdev(child, vdev.vdev_class, name, depth + 1, ctx, True))
    return vdev


def _vdev_state(obj: Mapping[str, Any]) -> str | None:
    """The state word ``zpool status`` text prints for this vdev.

    JSON gives the kernel's state names: ``CANT_OPEN`` is printed as UNAVAIL (FAULTED for
    corrupt data or a bad log, SPLIT for a split-off device) and ``CLOSED`` as OFFLINE.
    """
    state = obj.get("state")
    if state is None:
        return None
    word = str(state).upper()
    if word == "CANT_OPEN":
        aux = str(obj.get("aux", "")).upper()
        return {"CORRUPT_DATA": "FAULTED", "BAD_LOG": "FAULTED", "SPLIT_POOL": "SPLIT"}.get(
            aux, "UNAVAIL"
        )
    return "OFFLINE" if word == "CLOSED" else str(state)


def _vdev_type(obj: Mapping[str, Any], name: str) -> str:
    typ = str(obj.get("vdev_type") or "")
    if typ in ("", "disk"):
        return vdev_type_from_name(name) if typ == "" else "disk"
    return {"draid_spare": "dspare", "l2cache": "disk"}.get(typ, typ)


def _progress(
    obj: Mapping[str, Any], state_key: str, done_key: str, total_key: str
) -> float | None:
    """Trim/initialize progress (``-j -t``/``-j -i``), as in the text's ``(N% trimmed ...)``."""
    state = str(obj.get(state_key, "")).upper()
    if state == "COMPLETE":
        return 1.0
    if state not in ("ACTIVE", "SUSPENDED"):
        return None
    done, total = _num(obj.get(done_key)), _num(obj.get(total_key))
    if done is None or not total:
        return None
    return min(1.0, (done * 100 // (total + 1)) / 100.0)


def _note(obj: Mapping[str, Any], ctx: ScanCtx) -> str:
    """The annotation ``zpool status`` would print after the counters, from JSON fields."""
    resilvering, scrubbing = ctx
    parts: list[str] = []
    if obj.get("was"):
        parts.append(f"was {obj['was']}")
    elif obj.get("aux") and str(obj["aux"]).upper() != "NONE":
        parts.append(_AUX_NOTES.get(str(obj["aux"]).upper(), str(obj["aux"]).lower()))
    elif str(obj.get("state", "")).upper() == "INUSE":
        parts.append(
            f"in use by pool '{obj['used_by']}'" if obj.get("used_by") else "currently in use"
        )
    if _num(obj.get("removing")):
        parts.append("(removing)")
    healthy = str(obj.get("state", "")).upper() == "ONLINE"
    leaf = not isinstance(obj.get("vdevs"), dict)
    if leaf and healthy and _num(obj.get("scan_processed")):
        if resilvering:
            parts.append("(resilvering)")
        elif scrubbing:
            parts.append("(repairing)")
    for key, active in (("init_state", "(initializing)"), ("trim_state", "(trimming)")):
        state = str(obj.get(key, "")).upper()
        if state == "ACTIVE":
            parts.append(active)
        elif state == "SUSPENDED":
            parts.append(active[:-1] + ", suspended)")
    return "  ".join(parts)


def _errors(pool: Pool, item: Mapping[str, Any]) -> None:
    if "error_count" not in item:
        return
    pool.errors_seen = True
    pool.data_errors = _num(item.get("error_count"))
    if pool.data_errors is not None:
        pool.data_errors_present = pool.data_errors > 0
    errlist = item.get("errlist")
    if isinstance(errlist, list):
        pool.error_files = [str(e) for e in errlist]
    elif isinstance(errlist, str) and errlist:
        pool.errors_unavailable = True
        pool.errors_unavailable_reason = errlist


def _check(pool: Pool) -> None:
    if pool.state is None:
        pool.incomplete.append("no pool state")
    elif pool.state.upper() not in KNOWN_POOL_STATES:
        pool.incomplete.append(f"unknown pool state {pool.state!r}")
    if pool.root is None:
        pool.incomplete.append("no vdev tree")
    unknown = [v.name for v in pool.vdevs() if not v.state_known]
    if unknown:
        pool.incomplete.append(f"unknown vdev state: {', '.join(unknown[:5])}")
    if not pool.errors_seen:
        pool.incomplete.append("no error_count")
