"""Collectors exchange products only as declared, and the scheduler orders first runs by them."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from zmon.base.runner import StaticRunner
from zmon.collecting.registry import Board, Collector, Context, Paths, Product
from zmon.collecting.scheduler import Scheduler
from zmon.exposition.metrics import MetricSet

NAMES: Product[dict[str, str]] = Product("names", "a test product")
OTHER: Product[int] = Product("other", "another test product")
order: list[str] = []


class Provider(Collector):
    name = "provider"
    provides: ClassVar[tuple[Product[Any], ...]] = (NAMES,)

    def collect(self) -> MetricSet:
        order.append(self.name)
        self.ctx.publish(NAMES, {"a": "b"})
        return MetricSet()


class Reader(Collector):
    name = "reader"
    needs: ClassVar[tuple[Product[Any], ...]] = (NAMES,)
    seen: ClassVar[list[dict[str, str] | None]] = []

    def collect(self) -> MetricSet:
        order.append(self.name)
        self.seen.append(self.ctx.product(NAMES))
        return MetricSet()


def ctx(board: Board) -> Context:
    return Context(paths=Paths(), runner=StaticRunner(), board=board)


def test_a_collector_publishes_and_reads_only_what_it_declares() -> None:
    board = Board()
    reader = Reader(ctx(board))
    with pytest.raises(LookupError, match="not declared in provides"):
        reader.ctx.publish(NAMES, {})
    with pytest.raises(LookupError, match="not declared in needs"):
        reader.ctx.product(OTHER)
    assert reader.ctx.product(NAMES) is None  # declared, not yet published
    Provider(ctx(board)).collect()
    assert reader.ctx.product(NAMES) == {"a": "b"}


def test_collect_once_runs_providers_before_their_readers() -> None:
    board = Board()
    order.clear()
    Reader.seen = []
    s = Scheduler()
    s.add(Reader(ctx(board)), 60, 5)  # added first, runs second
    s.add(Provider(ctx(board)), 60, 5)
    s.run_all_once()
    assert order == ["provider", "reader"]
    assert Reader.seen == [{"a": "b"}]
    assert [[w.state.name for w in layer] for layer in s.order()] == [["provider"], ["reader"]]


def test_collectors_that_need_each_other_are_refused() -> None:
    class A(Collector):
        name = "a"
        provides: ClassVar[tuple[Product[Any], ...]] = (NAMES,)
        needs: ClassVar[tuple[Product[Any], ...]] = (OTHER,)

    class B(Collector):
        name = "b"
        provides: ClassVar[tuple[Product[Any], ...]] = (OTHER,)
        needs: ClassVar[tuple[Product[Any], ...]] = (NAMES,)

    s = Scheduler()
    s.add(A(ctx(Board())), 60, 5)
    s.add(B(ctx(Board())), 60, 5)
    with pytest.raises(ValueError, match="need each other"):
        s.order()


def test_option_returns_the_declared_default() -> None:
    from zmon.collecting.registry import Option

    class WithOption(Collector):
        name = "with_option"
        options = (Option("depth", int, 3, "how deep"),)

    c = WithOption(Context(paths=Paths(), runner=StaticRunner()))
    assert c.option("depth") == 3
    c.ctx.options = {"depth": 5}
    assert c.option("depth") == 5
    with pytest.raises(KeyError):
        c.option("width")
