"""The worker leaves out of an update only pieces the server holds: its idea of what the
server holds follows the updates it sent, in the order it sent them, whatever a collector's
run or a reload does meanwhile. Each update crosses a real channel and is applied to both
mirrors, the privileged side's (digests only) and the HTTP process's (the data)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from prometheus_client.core import GaugeMetricFamily, Metric

from zmon.exposition.snapshot import CollectorState, Snapshot, SummaryRow
from zmon.runtime import channel as wire
from zmon.runtime.channel import FROM_WORKER, TO_FRONT, TO_WORKER, Channel, Update
from zmon.runtime.supervisor import Mirrors
from zmon.runtime.worker import CollectionWorker


class _Server:
    """The server's end of a worker's channel, with the two mirrors a relayed update reaches."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        self.worker_end = Channel(theirs, TO_WORKER)
        self.channel = Channel(ours, FROM_WORKER)
        self.supervisor = Mirrors(Snapshot(), hold_data=False)
        self.front = Mirrors(Snapshot())

    def take(self) -> Update:
        """Apply the update the worker sent to both mirrors (ProtocolError if it does not fit)."""
        message, frame = self.channel.recv_frame()
        assert isinstance(message, Update)
        self.supervisor.apply(message)
        relayed = wire.decode(frame, TO_FRONT)
        assert isinstance(relayed, Update)
        self.front.apply(relayed)
        return message

    def holds(self, state: CollectorState) -> bool:
        mirror = self.front.states.get(state.name)
        return mirror is not None and mirror.rendered == state.rendered

    def close(self) -> None:
        self.channel.close()
        self.worker_end.close()


class _Interleaved(CollectorState):
    """A collector state whose first read of its pieces after ``on_read`` is set runs
    ``on_read`` right after it: another thread (the collector's run, a reload) taking the
    interpreter at that point of a report."""

    on_read: Callable[[], None] | None = None

    def __getattribute__(self, name: str) -> Any:
        value = super().__getattribute__(name)
        if name == "rendered":
            hook = super().__getattribute__("on_read")
            if hook is not None:
                self.on_read = None
                hook()
        return value


def _arc(free: float) -> list[Metric]:
    return [
        GaugeMetricFamily("zmon_arc_memory_free_bytes", "Free memory.", value=free),
        GaugeMetricFamily("zmon_arc_size_bytes", "ARC size.", value=2.0**30),
    ]


def test_a_run_that_publishes_during_a_report_of_every_collector_leaves_out_nothing_lacking() -> (
    None
):
    """A report of every collector (after start or a reload) reads the pieces of one whose
    run has just ended and is publishing; its run's own report follows."""
    server = _Server()
    try:
        worker = CollectionWorker(server.worker_end)
        arc = _Interleaved("arc", 5.0, 5.0)
        arc.publish(_arc(free=1.0))
        worker.snapshot.add(arc)
        worker._report(arc)
        server.take()
        arc.on_read = lambda: arc.publish(_arc(free=2.0))
        worker._report(None)
        server.take()
        worker._report(arc)  # the run that published reports
        server.take()
        assert server.holds(arc)
    finally:
        server.close()


def test_a_collector_reloaded_away_during_its_report_and_back_sends_its_pieces_again() -> None:
    """A reload removes a collector while its last run is being reported (the report read the
    collectors before); the next reload brings it back with the same data."""
    server = _Server()
    try:
        worker = CollectionWorker(server.worker_end)
        arc = _Interleaved("arc", 5.0, 5.0)
        arc.publish(_arc(free=1.0))
        worker.snapshot.add(arc)
        arc.on_read = lambda: worker.snapshot.remove("arc")
        worker._report(arc)
        server.take()
        worker._report(None)  # the reload's report: the server drops the collector
        server.take()
        assert "arc" not in server.front.states
        again = CollectorState("arc", 5.0, 5.0)
        worker.snapshot.add(again)
        again.publish(_arc(free=1.0))
        worker._report(again)
        server.take()
        assert server.holds(again)
    finally:
        server.close()


def test_a_run_reported_after_its_collector_was_reloaded_away_sends_no_data() -> None:
    """A collector loop that outlived the scheduler's stop reports after the reload removed
    its collector: the update carries no data for a collector it does not name."""
    server = _Server()
    try:
        worker = CollectionWorker(server.worker_end)
        stale = CollectorState("arc", 5.0, 5.0)
        stale.publish(_arc(free=1.0))
        worker._report(stale)
        assert server.take().data == {}
    finally:
        server.close()


def _arc_rows(families: Any) -> list[SummaryRow]:
    return [SummaryRow(f.name, str(f.samples[0].value), True) for f in families]


def test_the_worker_drops_the_views_families_once_sent_and_the_server_keeps_them() -> None:
    """The families the status views read go to the server with a run's update and are not
    held in the worker after it (on a big host they were 7 MB of its memory). A report of
    every collector (a reload) then leaves the server's families and landing rows as they
    were; the next run's changed families are sent."""
    server = _Server()
    try:
        worker = CollectionWorker(server.worker_end)
        arc = CollectorState("arc", 5.0, 5.0, summary_title="ARC", summary=_arc_rows)
        worker.snapshot.add(arc)
        arc.publish(_arc(free=1.0))
        worker._report(arc)
        server.take()
        assert arc.kept == []  # sent: the server holds them
        held = server.front.states["arc"]
        assert [f.name for f in held.kept] == ["zmon_arc_memory_free_bytes", "zmon_arc_size_bytes"]
        rows = held.summary(held.kept) if held.summary is not None else None
        assert rows is not None and rows[0] == SummaryRow("zmon_arc_memory_free_bytes", "1.0", True)
        for _ in range(2):  # a reload's report of every collector, twice
            worker._report(None)
            update = server.take()
            assert update.data["arc"].kept is None  # unchanged: none sent
            assert update.data["arc"].rows == rows
        assert [f.name for f in server.front.states["arc"].kept] == [f.name for f in held.kept]
        arc.publish(_arc(free=2.0))
        worker._report(arc)
        update = server.take()
        assert update.data["arc"].kept is not None
        assert update.data["arc"].rows is not None
        assert update.data["arc"].rows[0].state == "2.0"
        assert server.holds(arc) and arc.kept == []
    finally:
        server.close()
