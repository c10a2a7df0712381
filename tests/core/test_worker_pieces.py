"""The worker leaves out of an update only what the receiving sides hold: its idea of that
follows the updates it sent, in the order it sent them, whatever a collector's run or a
reload does meanwhile. Each update crosses a real channel and is taken by both receivers,
the main process's (digests only) and the HTTP process's (the data)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from prometheus_client.core import GaugeMetricFamily, Metric

from zmon.exposition.snapshot import Collector, CollectorState, Snapshot, SummaryRow
from zmon.runtime import channel as wire
from zmon.runtime.channel import (
    FROM_WORKER,
    TO_FRONT,
    TO_WORKER,
    Channel,
    HeldCollectors,
    Update,
)
from zmon.runtime.worker import CollectionWorker


class _Server:
    """The main process's end of a worker's channel, and the two receivers of an update."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        self.worker_end = Channel(theirs, TO_WORKER)
        self.channel = Channel(ours, FROM_WORKER)
        self.supervisor = HeldCollectors()
        self.front = HeldCollectors(Snapshot())

    def take(self) -> Update:
        """Have both receivers take the update the worker sent (ProtocolError if it does not
        fit what they hold)."""
        message, frame = self.channel.recv_frame()
        assert isinstance(message, Update)
        self.supervisor.take(message)
        relayed = wire.decode(frame, TO_FRONT)
        assert isinstance(relayed, Update)
        self.front.take(relayed)
        return message

    def held(self, name: str) -> Collector:
        record = self.front.get(name)
        assert record is not None
        return record

    def holds(self, state: CollectorState) -> bool:
        record = self.front.get(state.name)
        return record is not None and list(record.rendered) == list(state.rendered)

    def close(self) -> None:
        self.channel.close()
        self.worker_end.close()


class _Interleaved(CollectorState):
    """A collector state whose first read of its pieces after ``on_read`` is set runs
    ``on_read`` right after it: another thread (a reload) taking the interpreter at that
    point of a report."""

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


def test_a_report_of_every_collector_carries_no_data_and_a_run_s_report_what_changed() -> None:
    """A report of every collector (after start or a reload) may come while a run publishes:
    it carries only their status; the run's own report follows, with the pieces that
    changed."""
    server = _Server()
    try:
        worker = CollectionWorker(server.worker_end)
        arc = CollectorState("arc", 5.0, 5.0, success=True)
        arc.publish(_arc(free=1.0))
        worker.snapshot.add(arc)
        worker._report(arc)
        first = server.take()
        assert all(p is not None for _, _, p in first.runs["arc"].pieces)
        arc.publish(_arc(free=2.0))  # while a reload reports every collector
        worker._report(None)
        assert server.take().runs == {}
        worker._report(arc)
        update = server.take()
        sent = [n for n, _, p in update.runs["arc"].pieces if p is not None]
        assert sent == ["zmon_arc_memory_free_bytes"] and server.holds(arc)
        worker._report(arc)  # a run that changed nothing
        assert server.take().runs == {} and server.holds(arc)
    finally:
        server.close()


def test_a_collector_reloaded_away_during_its_report_and_back_sends_its_pieces_again() -> None:
    """A reload removes a collector while its last run is being reported (the report read the
    collectors before); the next reload brings it back with the same data."""
    server = _Server()
    try:
        worker = CollectionWorker(server.worker_end)
        arc = _Interleaved("arc", 5.0, 5.0, success=True)
        arc.publish(_arc(free=1.0))
        worker.snapshot.add(arc)
        arc.on_read = lambda: worker.snapshot.remove("arc")
        worker._report(arc)
        server.take()
        worker._report(None)  # the reload's report: the receivers drop the collector
        server.take()
        assert server.front.get("arc") is None
        again = CollectorState("arc", 5.0, 5.0, success=True)
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
        stale = CollectorState("arc", 5.0, 5.0, success=True)
        stale.publish(_arc(free=1.0))
        worker._report(stale)
        assert server.take().runs == {}
    finally:
        server.close()


def _arc_rows(families: Any) -> list[SummaryRow]:
    return [SummaryRow(f.name, str(f.samples[0].value), True) for f in families]


def test_the_worker_drops_the_views_families_once_sent_and_the_server_keeps_them() -> None:
    """The families the status views read go to the receivers with a run's update and are
    not held in the worker after it (on a big host they were 7 MB of its memory). A report
    of every collector (a reload) leaves the held families and landing rows as they were; the
    next run's changed families are sent."""
    server = _Server()
    try:
        worker = CollectionWorker(server.worker_end)
        arc = CollectorState("arc", 5.0, 5.0, success=True, summary_title="ARC", summary=_arc_rows)
        worker.snapshot.add(arc)
        arc.publish(_arc(free=1.0))
        worker._report(arc)
        server.take()
        assert arc.kept == []  # sent: the receivers hold them
        held = server.held("arc")
        assert [f.name for f in held.families] == [
            "zmon_arc_memory_free_bytes", "zmon_arc_size_bytes"
        ]  # fmt: skip
        rows = held.summary_rows
        assert rows is not None and rows[0] == SummaryRow("zmon_arc_memory_free_bytes", "1.0", True)
        for _ in range(2):  # a reload's report of every collector, twice
            worker._report(None)
            assert server.take().runs == {}
            assert server.held("arc").families == held.families
            assert server.held("arc").summary_rows == rows
        arc.publish(_arc(free=1.0))  # a run whose families are those held
        worker._report(arc)
        assert server.take().runs == {} and arc.kept == []
        arc.publish(_arc(free=2.0))
        worker._report(arc)
        update = server.take()
        assert update.runs["arc"].families is not None
        new_rows = update.runs["arc"].summary_rows
        assert new_rows is not None and new_rows[0].state == "2.0"
        assert server.held("arc").summary_rows == new_rows
        assert server.holds(arc) and arc.kept == []
    finally:
        server.close()


def test_a_replacement_worker_leaves_the_data_held_until_a_run_of_its_own_publishes() -> None:
    """A replacement starts from the status the main process held (its run counts go on)
    and knows nothing of the data: its start report and runs that fail leave the data the
    receivers hold (served as the last good data); its first good run sends all of it."""
    server = _Server()
    try:
        before = CollectionWorker(server.worker_end)
        arc = CollectorState("arc", 5.0, 5.0, success=True)
        arc.publish(_arc(free=1.0))
        arc.runs["success"] = 3
        before.snapshot.add(arc)
        before._report(arc)
        server.take()
        worker = CollectionWorker(server.worker_end)
        (seed,) = server.supervisor.records().values()  # what Start carries
        again = CollectorState("arc", 5.0, 5.0, runs=dict(seed.runs))
        worker.snapshot.add(again)
        worker._report(None)
        assert server.take().runs == {} and server.held("arc").rendered == tuple(arc.rendered)
        again.success = False  # its first run failed
        worker._report(again)
        assert server.take().runs == {} and server.held("arc").rendered == tuple(arc.rendered)
        again.success = True
        again.publish(_arc(free=2.0))
        worker._report(again)
        update = server.take()
        assert all(p is not None for _, _, p in update.runs["arc"].pieces)
        assert server.holds(again) and server.held("arc").runs["success"] == 3
    finally:
        server.close()
