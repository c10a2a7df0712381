"""The collector interface and the registry that collectors add themselves to.

Adding a collector is one module under ``zmon/collectors/`` that subclasses ``Collector`` and
decorates it with ``@register``. Its name gives the ``--collector.NAME``/``--no-collector.NAME``
flags and the ``[collectors.NAME]`` config table; nothing central is edited.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, ClassVar, TypeVar

from zmon.metrics import MetricSet
from zmon.runner import Runner


class OptionError(ValueError):
    """A collector option whose value cannot be used."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(f"{option}: {reason}")
        self.option = option
        self.reason = reason


class NoDataError(Exception):
    """This host has nothing for the collector (no ZFS module, no UPS configured): not a failure."""


@dataclass(frozen=True)
class Paths:
    """Where collectors read the host from; every path can be pointed at a fixture tree."""

    procfs: Path = Path("/proc")
    sysfs: Path = Path("/sys")
    rootfs: Path = Path("/")
    state_dir: Path = Path("/var/lib/zmon")

    def proc(self, *parts: str) -> Path:
        return self.procfs.joinpath(*parts)

    def sys(self, *parts: str) -> Path:
        return self.sysfs.joinpath(*parts)

    def root(self, *parts: str) -> Path:
        return self.rootfs.joinpath(*[p.lstrip("/") for p in parts])


@dataclass(frozen=True)
class Option:
    """One collector-specific setting, available as config key and as flag."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None


@dataclass
class Context:
    """Everything a collector may use to read the host."""

    paths: Paths
    runner: Runner
    options: Mapping[str, Any] = field(default_factory=dict)
    platform: str = "linux"
    shared: dict[str, Any] = field(default_factory=dict)
    interval: float = 15.0  # the configured schedule of this collector
    timeout: float = 10.0  # its hard per-run limit; commands must finish well before it
    one_shot: bool = False  # ``zmon collect --once``: read, but move no saved positions

    def option(self, name: str) -> Any:
        return self.options[name]


class Collector:
    """Base class for collectors.

    ``collect`` returns a MetricSet built from one read of the host. It raises on failure
    (the scheduler keeps the last good data and marks it stale) and ``NoDataError`` when
    the source does not exist on this host.
    """

    name: ClassVar[str] = ""
    help: ClassVar[str] = ""
    default_enabled: ClassVar[bool] = True
    default_interval: ClassVar[float] = 15.0
    default_timeout: ClassVar[float] = 10.0
    options: ClassVar[tuple[Option, ...]] = ()

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def collect(self) -> MetricSet:
        raise NotImplementedError

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> None:
        """Check option values beyond their types; raise OptionError naming the option."""

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


def load_builtin_collectors() -> None:
    """Import every module in ``zmon.collectors`` so their ``@register`` runs."""
    import zmon.collectors as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"zmon.collectors.{mod.name}")


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
