"""The collector interface and the registry that collectors add themselves to.

Adding a collector is one package under ``zmon/collectors/`` whose ``__init__`` subclasses
``Collector`` and decorates it with ``@register``. Its name gives the ``--collector.NAME`` and
``--no-collector.NAME`` flags and the ``[collectors.NAME]`` config table; its declaration gives
the rest (options, programs it runs, short flags, products it exchanges). Nothing central is
edited.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, ClassVar, Generic, TypeVar

from prometheus_client.core import Metric

from zmon.base.errors import NoDataError
from zmon.base.runner import Runner
from zmon.exposition.metrics import MetricSet
from zmon.exposition.snapshot import SummaryRow
from zmon.host.devices import DeviceMap, DeviceMapCache
from zmon.host.paths import Paths


class OptionError(ValueError):
    """A collector option whose value cannot be used."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(f"{option}: {reason}")
        self.option = option
        self.reason = reason


class OptionErrors(OptionError):
    """Several bad options of one collector, reported together."""

    def __init__(self, errors: list[OptionError]) -> None:
        super().__init__(errors[0].option, errors[0].reason)
        self.errors = errors


@dataclass(frozen=True)
class Option:
    """One collector-specific setting, available as config key and as flag."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None


T = TypeVar("T")


@dataclass(frozen=True)
class Product(Generic[T]):
    """A named value that one collector publishes and others read (see
    ``zmon.collecting.products``).

    The publisher lists it in ``provides``, each reader in ``needs``; the scheduler runs a
    reader's first run after its providers' first runs, so readers never see it appear late.
    """

    name: str
    help: str


class Board:
    """The products collectors publish for each other; one board per daemon."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, Any] = {}

    def publish(self, product: Product[T], value: T) -> None:
        with self._lock:
            self._values[product.name] = value

    def get(self, product: Product[T]) -> T | None:
        with self._lock:
            value: T | None = self._values.get(product.name)
            return value


@dataclass
class Context:
    """Everything a collector may use to read the host, and the products it exchanges."""

    paths: Paths
    runner: Runner
    options: Mapping[str, Any] = field(default_factory=dict)
    platform: str = "linux"
    interval: float = 15.0  # the configured schedule of this collector
    timeout: float = 10.0  # its hard per-run limit; commands must finish well before it
    one_shot: bool = False  # ``zmon collect --once``: read, but move no saved positions
    board: Board = field(default_factory=Board)
    devices: DeviceMapCache | None = None  # shared by the daemon; made on first use if None
    provides: tuple[Product[Any], ...] = ()  # what it may publish (set from its collector)
    needs: tuple[Product[Any], ...] = ()  # what it may read (likewise)

    def device_map(self, max_age: float = 300.0) -> DeviceMap:
        """The host's device map (sysfs and /dev/disk, or geom), shared by all collectors."""
        if self.devices is None:
            self.devices = DeviceMapCache(self.paths, self.platform, self.runner)
        return self.devices.get(max_age)

    def forget_device_map(self) -> None:
        """Drop the shared device map (a disk came or went); the next user reads the host."""
        if self.devices is not None:
            self.devices.invalidate()

    def publish(self, product: Product[T], value: T) -> None:
        """Publish a product this collector declares in ``provides``."""
        if product not in self.provides:
            raise LookupError(f"product {product.name} is not declared in provides")
        self.board.publish(product, value)

    def product(self, product: Product[T]) -> T | None:
        """A product this collector declares in ``needs``; None until it is first published."""
        if product not in self.needs:
            raise LookupError(f"product {product.name} is not declared in needs")
        return self.board.get(product)


class Collector:
    """Base class for collectors.

    ``collect`` returns a MetricSet built from one read of the host. It raises on failure
    (the scheduler keeps the last good data and marks it stale) and ``NoDataError`` when
    the source does not exist on this host.

    The class attributes are the declaration that the registry, the config and the scheduler
    read: schedule and options; ``binaries``, the programs it runs (each gets a
    ``--binary.NAME`` flag); ``flag_aliases``, short flags for its options
    (``{"ups.nut": "nut"}`` makes ``--ups.nut`` set ``collectors.ups.nut``); ``provides`` and
    ``needs``, the products it exchanges with other collectors.
    """

    name: ClassVar[str] = ""
    help: ClassVar[str] = ""
    default_enabled: ClassVar[bool] = True
    default_interval: ClassVar[float] = 15.0
    default_timeout: ClassVar[float] = 10.0
    options: ClassVar[tuple[Option, ...]] = ()
    binaries: ClassVar[tuple[str, ...]] = ()
    flag_aliases: ClassVar[Mapping[str, str]] = {}
    provides: ClassVar[tuple[Product[Any], ...]] = ()
    needs: ClassVar[tuple[Product[Any], ...]] = ()
    summary_title: ClassVar[str] = ""  # heading of its landing-page table, if it has one

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        # the context exchanges exactly the products this collector declares
        ctx.provides, ctx.needs = self.provides, self.needs

    def option(self, name: str) -> Any:
        """The configured value of a declared option, or its declared default."""
        if name in self.ctx.options:
            return self.ctx.options[name]
        for opt in self.options:
            if opt.name == name:
                return opt.default
        raise KeyError(f"collector {self.name} declares no option {name!r}")

    def collect(self) -> MetricSet:
        raise NotImplementedError

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        """Check option values beyond their types; raise OptionError naming the option."""

    @classmethod
    def summary(cls, families: Sequence[Metric]) -> list[SummaryRow]:
        """Rows for the landing page's ``summary_title`` table, read from the families."""
        return []

    def start(self) -> None:
        """Start any long-lived background work (followers); called once before scheduling."""

    def close(self) -> None:
        """Stop background work and release resources."""


C = TypeVar("C", bound=type[Collector])

_REGISTRY: dict[str, type[Collector]] = {}


def register(cls: C) -> C:
    """Class decorator: add a collector to the registry under its ``name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"collector {cls.name} registered twice")
    _REGISTRY[cls.name] = cls
    return cls


# Collectors are plugins: found by package name at run time, so the registry below them
# never imports them and each collector package depends on the registry alone.
BUILTIN_COLLECTORS = "zmon.collectors"


def load_builtin_collectors() -> None:
    """Import every package in ``BUILTIN_COLLECTORS`` so that their ``@register`` runs."""
    pkg = importlib.import_module(BUILTIN_COLLECTORS)
    for mod in pkgutil.iter_modules(pkg.__path__):
        if mod.ispkg:
            importlib.import_module(f"{BUILTIN_COLLECTORS}.{mod.name}")


def collectors() -> Mapping[str, type[Collector]]:
    """All registered collectors, by name."""
    load_builtin_collectors()
    return dict(sorted(_REGISTRY.items()))


# ---- parse kinds (``zmon parse KIND``) ----

ParseFunc = Callable[[bytes], MetricSet]
_PARSERS: dict[str, tuple[ParseFunc, str]] = {}


def register_parse_kind(kind: str, help_text: str) -> Callable[[ParseFunc], ParseFunc]:
    """Decorator: make a ``bytes -> MetricSet`` function available as ``zmon parse KIND``."""

    def deco(func: ParseFunc) -> ParseFunc:
        _PARSERS[kind] = (func, help_text)
        return func

    return deco


def parse_kinds() -> Mapping[str, tuple[ParseFunc, str]]:
    """Every ``zmon parse`` kind: its function and help text."""
    load_builtin_collectors()
    return dict(sorted(_PARSERS.items()))


StreamParseFunc = Callable[[BinaryIO], MetricSet]
_STREAM_PARSERS: dict[str, StreamParseFunc] = {}


def register_parse_stream(kind: str) -> Callable[[StreamParseFunc], StreamParseFunc]:
    """Decorator: ``zmon parse KIND`` reads the input as a stream with this function instead
    of reading it whole (for inputs that can be gigabytes, like kernel logs)."""

    def deco(func: StreamParseFunc) -> StreamParseFunc:
        _STREAM_PARSERS[kind] = func
        return func

    return deco


def parse_streams() -> Mapping[str, StreamParseFunc]:
    load_builtin_collectors()
    return dict(_STREAM_PARSERS)


__all__ = [
    "Board",
    "Collector",
    "Context",
    "NoDataError",
    "Option",
    "OptionError",
    "Paths",
    "Product",
    "collectors",
    "load_builtin_collectors",
    "parse_kinds",
    "register",
    "register_parse_kind",
    "register_parse_stream",
    "parse_streams",
]
