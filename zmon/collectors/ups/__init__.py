"""UPS collector: NUT upsd and apcupsd NIS servers, queried in parallel within a deadline.

Also registers the ``upsc`` and ``apcaccess`` parse kinds, which go through the same
reading and metric functions as the network path.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, ClassVar

import structlog

from zmon.collecting.registry import (
    Collector,
    Context,
    NoDataError,
    Option,
    OptionError,
    OptionErrors,
    register,
    register_parse_kind,
)
from zmon.collectors.ups.metrics import apcupsd_fields_to_metrics, nut_vars_to_metrics
from zmon.collectors.ups.poller import ApcupsdPoller, NutPoller
from zmon.collectors.ups.servers import apcupsd_servers, nut_servers, read_password_file
from zmon.exposition.metrics import MetricSet
from zmon.host.ups.net import Clock, Deadline
from zmon.parsers.ups import apcupsd as apc_parser
from zmon.parsers.ups import nut as nut_parser

MAX_WORKERS = 8

log = structlog.get_logger(__name__)


@register
class UpsCollector(Collector):
    """Status, battery and power of UPSes served by NUT upsd and apcupsd."""

    name = "ups"
    flag_aliases = {"ups.nut": "nut", "ups.apcupsd": "apcupsd"}
    help = "UPS status, battery and power from NUT upsd (TCP 3493) and apcupsd NIS (TCP 3551)."
    default_enabled = True
    default_interval = 15.0
    default_timeout = 10.0
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "nut",
            list,
            [],
            "NUT upsd servers as [UPS@]HOST[:PORT] (port 3493); repeatable.",
        ),
        Option("apcupsd", list, [], "apcupsd NIS servers as HOST[:PORT] (port 3551); repeatable."),
        Option("nut_username", str, "", "USERNAME sent to NUT servers that set none (optional)."),
        Option("nut_password", str, "", "PASSWORD sent to NUT servers (prefer nut_password_file)."),
        Option("nut_password_file", str, "", "File whose first line is the NUT password."),
        Option("connect_timeout", float, 2.0, "Seconds allowed for a TCP connect to a UPS daemon."),
        Option(
            "query_timeout",
            float,
            5.0,
            "Seconds allowed for a whole query of one daemon "
            "(connect included); kept below the collector timeout.",
        ),
        Option(
            "backoff_max",
            float,
            60.0,
            "Longest wait, in seconds, before a daemon that failed "
            "is tried again (the wait doubles from 1 s after each failure).",
        ),
    )

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        """Parse the server lists and read the password file now, so ``check-config`` and a
        reload name a bad ``HOST:PORT`` or a missing password file instead of failing later."""
        merged = {o.name: options.get(o.name, o.default) for o in cls.options}
        problems: list[OptionError] = []
        checks = (
            ("nut", lambda: nut_servers(merged["nut"], username=merged["nut_username"] or "",
                                        password=merged["nut_password"] or "x")),
            ("nut_password_file", lambda: merged["nut_password_file"]
             and read_password_file(merged["nut_password_file"])),
            ("apcupsd", lambda: apcupsd_servers(merged["apcupsd"])),
        )  # fmt: skip
        for key, check in checks:
            try:
                check()
            except ValueError as exc:
                problems.append(OptionError(key, str(exc)))
        if problems:
            raise OptionErrors(problems)

    def __init__(self, ctx: Context, *, clock: Clock = time.monotonic) -> None:
        super().__init__(ctx)
        connect_timeout = max(0.1, float(self.option("connect_timeout")))
        self._query_timeout = max(0.2, float(self.option("query_timeout")))
        backoff_max = max(0.0, float(self.option("backoff_max")))
        nut = nut_servers(
            self.option("nut"),
            username=self.option("nut_username") or "",
            password=self.option("nut_password") or "",
            password_file=self.option("nut_password_file") or "",
        )
        self.pollers: list[NutPoller | ApcupsdPoller] = [
            NutPoller(server, connect_timeout=connect_timeout, backoff_max=backoff_max, clock=clock)
            for server in nut
        ]
        self.pollers += [
            ApcupsdPoller(
                endpoint, connect_timeout=connect_timeout, backoff_max=backoff_max, clock=clock
            )
            for endpoint in apcupsd_servers(self.option("apcupsd"))
        ]

    @property
    def query_timeout(self) -> float:
        """The per-daemon deadline, kept below the scheduler's hard timeout for this collector.

        That timeout is the configured one in the context; at most 80 % of it goes to queries.
        """
        return min(self._query_timeout, 0.8 * self._hard_timeout())

    def _hard_timeout(self) -> float:
        return float(self.ctx.timeout or self.default_timeout)

    def collect(self) -> MetricSet:
        if not self.pollers:
            raise NoDataError("no UPS server configured (--ups.nut, --ups.apcupsd)")
        query_timeout = self.query_timeout
        deadline = Deadline(query_timeout)
        ms = MetricSet()
        if len(self.pollers) == 1:
            ms.extend(self.pollers[0].poll(deadline))
            return ms
        pool = ThreadPoolExecutor(
            max_workers=min(MAX_WORKERS, len(self.pollers)), thread_name_prefix="zmon-ups"
        )
        try:
            futures = [pool.submit(poller.poll, deadline) for poller in self.pollers]
            # Each poll ends by the deadline; the slack covers a name lookup that does not.
            wait(futures, timeout=query_timeout + min(0.5, 0.1 * self._hard_timeout()))
            for poller, future in zip(self.pollers, futures, strict=True):
                if future.done() and future.exception() is None:
                    ms.extend(future.result())
                    continue
                if future.done():
                    log.error("ups_poll_failed", server=poller.server, exc_info=future.exception())
                ms.extend(poller.down_metrics())
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        return ms

    def close(self) -> None:
        for poller in self.pollers:
            poller.close()


@register_parse_kind("upsc", "NUT `upsc UPS@HOST` output ('name: value' lines); UPS named 'ups'")
def parse_upsc_kind(data: bytes) -> MetricSet:
    """``zmon parse upsc``: the same path as a NUT server's ``LIST VAR``."""
    output = nut_parser.parse_upsc(data.decode("utf-8", errors="replace"))
    return nut_vars_to_metrics("ups", output.variables, up=output.error is None)


@register_parse_kind("apcaccess", "apcupsd `apcaccess` output ('KEY : value' lines)")
def parse_apcaccess_kind(data: bytes) -> MetricSet:
    """``zmon parse apcaccess``: the same path as an apcupsd NIS ``status`` reply."""
    fields = apc_parser.parse_apcaccess(data.decode("utf-8", errors="replace"))
    return apcupsd_fields_to_metrics(fields, fallback_name="apcupsd")
