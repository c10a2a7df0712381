"""One poller per configured daemon: query it within a deadline, remember its UPSes, back off.

A poller never raises for a daemon that is down or misbehaves: it reports
``zmon_ups_server_up`` 0 and ``zmon_ups_up`` 0 for the UPSes it knew, and waits (exponential
backoff) before touching that daemon again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import structlog

from zmon.base.errors import ParseError
from zmon.collectors.ups.metrics import reading_metrics, server_metrics, ups_down_metrics
from zmon.collectors.ups.servers import NutServer
from zmon.exposition.metrics import MetricSet
from zmon.host.ups import apcupsd as apc_client
from zmon.host.ups.net import (
    Clock,
    Deadline,
    Endpoint,
    ReconnectBackoff,
    UpsProtocolError,
)
from zmon.host.ups.nut import NutClient, NutError
from zmon.parsers.ups import apcupsd as apc_parser
from zmon.parsers.ups import nut as nut_parser
from zmon.parsers.ups.ups import UpsInfo

log = structlog.get_logger(__name__)

#: Errors that mean "this daemon cannot be read now" (socket, timeout, protocol, login).
QUERY_ERRORS = (OSError, UpsProtocolError, NutError, ParseError, ValueError)

#: upsd error codes that mean one UPS is lost while the server itself works.
UPS_DOWN_CODES = frozenset({"DATA-STALE", "DRIVER-NOT-CONNECTED", "UNKNOWN-UPS"})


class _Poller:
    source = ""

    def __init__(self, endpoint: Endpoint, *, backoff_max: float, clock: Clock) -> None:
        self.endpoint = endpoint
        self.server = str(endpoint)
        self.lock = threading.Lock()
        self.backoff = ReconnectBackoff(
            initial=min(1.0, backoff_max), maximum=backoff_max, clock=clock
        )
        self.known: dict[str, UpsInfo] = {}  # UPS name -> last known info
        self._was_up: bool | None = None

    def poll(self, deadline: Deadline) -> MetricSet:
        """Metrics for this daemon's UPSes; never raises for a daemon failure."""
        try:
            acquired = self.lock.acquire(timeout=deadline.remaining())
        except TimeoutError:
            acquired = False
        if not acquired:  # an earlier query is still stuck on this daemon
            return self.down_metrics()
        try:
            if not self.backoff.ready():
                return self.down_metrics()
            try:
                result = self._query(deadline)
            except QUERY_ERRORS as err:
                self._failed(err)
                return self.down_metrics()
            self.backoff.succeeded()
            self._note_state(True, None)
            return result
        finally:
            self.lock.release()

    def down_metrics(self) -> MetricSet:
        """Daemon unreachable: server down and every UPS it had down."""
        ms = server_metrics(self.server, self.source, False)
        for name, info in list(self.known.items()):
            ms.extend(ups_down_metrics(name, self.source, server=self.server, info=info))
        return ms

    def close(self) -> None:
        """Release the connection (if any)."""

    def _query(self, deadline: Deadline) -> MetricSet:
        raise NotImplementedError

    def _failed(self, err: BaseException) -> None:
        self.close()
        self.backoff.failed()
        self._note_state(False, err)

    def _note_state(self, up: bool, err: BaseException | None) -> None:
        """Log transitions only, so a dead daemon does not flood the log."""
        if up == self._was_up:
            return
        self._was_up = up
        if up:
            log.info("ups_server_up", server=self.server, source=self.source)
        else:
            log.warning(
                "ups_server_down",
                server=self.server,
                source=self.source,
                error=f"{type(err).__name__}: {err}",
                retry_in_seconds=round(self.backoff.wait_left(), 1),
            )


class NutPoller(_Poller):
    """A NUT upsd: one kept-open connection, ``LIST UPS`` then ``LIST VAR`` for each UPS."""

    source = "nut"

    def __init__(
        self, config: NutServer, *, connect_timeout: float, backoff_max: float, clock: Clock
    ) -> None:
        super().__init__(config.endpoint, backoff_max=backoff_max, clock=clock)
        self.config = config
        self.client = NutClient(
            config.endpoint,
            username=config.username,
            password=config.password,
            connect_timeout=connect_timeout,
        )
        for name in config.ups:
            self.known[name] = UpsInfo()

    def close(self) -> None:
        self.client.close()

    def _query(self, deadline: Deadline) -> MetricSet:
        reused = self.client.connected
        try:
            return self._query_once(deadline)
        except ConnectionError:
            if not reused:
                raise
            # The kept-open connection died (upsd restarted): retry once on a fresh one.
            self.client.close()
            return self._query_once(deadline)

    def _query_once(self, deadline: Deadline) -> MetricSet:
        if not self.client.connected:
            self.client.connect(deadline)
        names = list(self.config.ups) or list(self.client.list_ups(deadline))
        ms = server_metrics(self.server, self.source, True)
        known: dict[str, UpsInfo] = {}
        for name in names:
            try:
                variables = self.client.list_var(name, deadline)
            except NutError as err:
                if err.code not in UPS_DOWN_CODES:
                    raise
                known[name] = self.known.get(name, UpsInfo())
                ms.extend(ups_down_metrics(name, self.source, server=self.server, info=known[name]))
                continue
            reading = nut_parser.reading_from_vars(name, variables)
            if reading.up or reading.info != UpsInfo():
                known[name] = reading.info
                ms.extend(reading_metrics(reading, server=self.server))
            else:  # WAIT: the driver has nothing yet; keep what we knew of the UPS
                known[name] = self.known.get(name, UpsInfo())
                ms.extend(ups_down_metrics(name, self.source, server=self.server, info=known[name]))
        self.known = known
        return ms


class ApcupsdPoller(_Poller):
    """An apcupsd NIS: one connection per query, ``status`` frames until the empty one."""

    source = "apcupsd"

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        connect_timeout: float,
        backoff_max: float,
        clock: Clock,
        fetch: Callable[..., str] = apc_client.fetch_status,
    ) -> None:
        super().__init__(endpoint, backoff_max=backoff_max, clock=clock)
        self.connect_timeout = connect_timeout
        self._fetch = fetch
        self.known[self.server] = UpsInfo()  # named after UPSNAME once apcupsd has answered

    def _query(self, deadline: Deadline) -> MetricSet:
        text = self._fetch(self.endpoint, connect_timeout=self.connect_timeout, deadline=deadline)
        fields = apc_parser.parse_apcaccess(text)
        reading = apc_parser.reading_from_fields(fields, fallback_name=self.server)
        self.known = {reading.name: reading.info}
        ms = server_metrics(self.server, self.source, True)
        ms.extend(reading_metrics(reading, server=self.server))
        return ms
