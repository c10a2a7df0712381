"""Remember each pool's last completed scrub across resilvers and restarts.

``zpool status`` shows only the latest scan, so a resilver hides when the pool was last
scrubbed. The record lives in a small JSON file keyed by pool GUID (pool name when the GUID
is unknown), written durably (``zmon.base.durable``: fsync, rename, fsync the directory). A
missing or
read-only state directory is logged once and the record is then kept in memory only.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from zmon.base import durable, logs
from zmon.collectors.zpool.metrics import ScrubRecord, last_scrub
from zmon.parsers.zpool.zpool_status_model import ZpoolStatus

log = logs.get("zpool")
_VERSION = 1
_MAX_POOLS = 256


def pool_key(name: str, guid: str | None) -> str:
    return f"guid:{guid}" if guid else f"name:{name}"


class ScrubHistory:
    """Last completed scrub per pool, persisted in ``path`` when it can be."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._records: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._warned = False
        self._load()

    def _load(self) -> None:
        if self.path is None:
            return
        try:
            data = durable.read_json(self.path)
        except durable.UnusableState as exc:
            log.warning(
                "ignoring an unusable scrub state file; rebuilding it",
                path=str(self.path),
                reason=exc.reason,
            )
            return
        pools = data.get("pools") if data is not None else None
        if isinstance(pools, dict):
            for key, rec in pools.items():
                if isinstance(rec, dict) and isinstance(rec.get("end_time"), int | float):
                    self._records[str(key)] = rec

    def _warn(self, message: str, exc: Exception) -> None:
        if not self._warned:
            self._warned = True
            log.warning(message + "; keeping it in memory", path=str(self.path), error=str(exc))

    def get(self, name: str, guid: str | None) -> ScrubRecord | None:
        """The remembered scrub of a pool, by GUID first, then by name."""
        with self._lock:
            rec = self._records.get(pool_key(name, guid)) if guid else None
            if rec is None:
                rec = self._records.get(pool_key(name, None))
            if rec is None:
                return None
            errors = rec.get("errors")
            return ScrubRecord(float(rec["end_time"]), errors if isinstance(errors, int) else None)

    def observe(self, status: ZpoolStatus) -> dict[str, ScrubRecord]:
        """Record scrubs that ``status`` shows as completed; return the best record per pool."""
        changed = False
        result: dict[str, ScrubRecord] = {}
        with self._lock:
            for pool in status.pools:
                seen = last_scrub(pool)
                if seen is None:
                    continue
                key = pool_key(pool.name, pool.guid)
                old = self._records.get(key)
                if old is None or float(old.get("end_time", 0)) < seen.end_time:
                    self._records[key] = {
                        "name": pool.name,
                        "end_time": seen.end_time,
                        "errors": seen.errors,
                    }
                    changed = True
        for pool in status.pools:
            record = self.get(pool.name, pool.guid)
            if record is not None:
                result[pool.name] = record
        if changed:
            self._save()
        return result

    def _save(self) -> None:
        if self.path is None:
            return
        with self._lock:
            items = sorted(self._records.items(), key=lambda kv: -float(kv[1]["end_time"]))
            doc = {"version": _VERSION, "pools": dict(items[:_MAX_POOLS])}
        try:
            durable.write_json(self.path, doc)
        except OSError as exc:
            self._warn("cannot write the scrub state file", exc)
