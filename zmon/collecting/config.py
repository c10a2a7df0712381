"""Configuration: one schema that drives both the TOML file and the command-line flags.

Every setting has a dotted key (``web.listen_address``, ``collectors.arc.interval``) and a flag
made from it (``--web.listen-address``, ``--collector.arc.interval``). Flags override the file.
Validation errors name the key and the reason.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import socket
import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zmon.collecting.registry import Collector, Option, OptionError, Paths

DEFAULT_PORT = 10124
DEFAULT_LISTEN = f":{DEFAULT_PORT}"


class ConfigError(ValueError):
    """A config value that cannot be used; ``key`` is the dotted config key."""

    def __init__(self, key: str, reason: str, source: str | None = None) -> None:
        self.key = key = _clip(key, MAX_KEY_SHOWN)
        self.reason = reason = _clip(reason, MAX_REASON_SHOWN)
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{key}: {reason}")


# A value in an error message is the user's own, and may be a 10 MB line: what is shown of
# a key and a reason (with the value in it) is cut to this many characters.
MAX_KEY_SHOWN = 200
MAX_REASON_SHOWN = 500


def _clip(text: str, most: int) -> str:
    if len(text) <= most:
        return text
    return f"{text[:most]}... ({len(text) - most:,} more characters)"


class ConfigErrors(ConfigError):
    """Several unusable values at once: ``errors`` lists each, in the order found."""

    def __init__(self, errors: list[ConfigError]) -> None:
        self.errors = errors
        first = errors[0]
        ValueError.__init__(self, "\n".join(str(e) for e in errors))
        self.key, self.reason = first.key, first.reason


class _Collect:
    """Gathers ConfigErrors so that one pass reports all of them."""

    def __init__(self) -> None:
        self.errors: list[ConfigError] = []

    def add(self, exc: ConfigError) -> None:
        self.errors.extend(exc.errors if isinstance(exc, ConfigErrors) else [exc])

    def raise_any(self) -> None:
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise ConfigErrors(self.errors)


# Longest interval or timeout accepted, in seconds (one day): beyond it a value is a mistake,
# and `inf` or 1e308 would overflow the thread waits that use it.
MAX_SECONDS = 86400.0
# Any other number: finite and below this.
MAX_NUMBER = 1e15


@dataclass(frozen=True)
class Setting:
    """One configurable value."""

    key: str
    type: type
    default: Any
    help: str
    flag: str
    choices: tuple[Any, ...] | None = None
    repeatable: bool = False


@dataclass
class CollectorSettings:
    enabled: bool
    interval: float
    timeout: float
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Config:
    """The validated configuration the daemon runs with."""

    listen_addresses: list[str] = field(default_factory=lambda: [DEFAULT_LISTEN])
    web_config_file: str = ""
    max_connections: int = 1024
    read_timeout: float = 10.0
    idle_timeout: float = 120.0
    web_user: str = ""
    status_dir: str = ""
    paths: Paths = field(default_factory=Paths)
    binaries: dict[str, str] = field(default_factory=dict)
    command_timeout: float = 10.0
    log_level: str = "info"
    log_format: str = "auto"
    platform: str = "linux"
    collectors: dict[str, CollectorSettings] = field(default_factory=dict)
    demo_phase_seconds: float = 60.0
    demo_story: str = "demo"
    source: str | None = None

    @property
    def listen_address(self) -> str:
        """The first listen address (the one messages name)."""
        return self.listen_addresses[0]


def _default_platform() -> str:
    return "freebsd" if sys.platform.startswith("freebsd") else "linux"


def _default_status_dir() -> str:
    return "/var/run/zmon" if _default_platform() == "freebsd" else "/run/zmon"


def static_settings() -> list[Setting]:
    s = [
        Setting("web.listen_address", list, [DEFAULT_LISTEN],
                "address and port to serve on (HOST:PORT, [IPv6]:PORT; ':PORT' means every "
                "IPv4 and IPv6 address)", "--web.listen-address", repeatable=True),
        Setting("web.config_file", str, "",
                "exporter-toolkit web config file (TLS, basic auth, headers); '' serves plain "
                "HTTP without auth", "--web.config.file"),
        Setting("web.max_connections", int, 1024,
                "open connections served at once; past this a request gets 503 at once",
                "--web.max-connections"),
        Setting("web.read_timeout", float, 10.0,
                "seconds a client has to send a request's headers", "--web.read-timeout"),
        Setting("web.idle_timeout", float, 120.0,
                "seconds an idle keep-alive connection stays open", "--web.idle-timeout"),
        Setting("web.user", str, "",
                "system user the HTTP process runs as, without capabilities, when zmon starts "
                "as root (read at start only); '' keeps the user zmon started as",
                "--web.user"),
        Setting("web.status_dir", str, _default_status_dir(),
                "directory the HTTP process publishes its judged report in, for `zmon status` "
                "on this host (read at start only); '' publishes none",
                "--web.status-dir"),
        Setting("paths.procfs", str, "/proc", "procfs mount point", "--path.procfs"),
        Setting("paths.sysfs", str, "/sys", "sysfs mount point", "--path.sysfs"),
        Setting("paths.rootfs", str, "/", "root of the host file system (/dev, /var/log)",
                "--path.rootfs"),
        Setting("paths.state_dir", str, "/var/lib/zmon",
                "where zmon keeps its small state files (last scrub, log offsets, event ids)",
                "--path.state-dir"),
        Setting("commands.timeout", float, 10.0,
                "default timeout in seconds for an external command", "--command.timeout"),
        Setting("log.level", str, "info", "log level", "--log.level",
                choices=("debug", "info", "warning", "error")),
        Setting("log.format", str, "auto",
                "log format: auto (console on a TTY, JSON otherwise), json or console",
                "--log.format", choices=("auto", "json", "console")),
        Setting("host.platform", str, _default_platform(),
                "which kind of host to read: linux or freebsd", "--host.platform",
                choices=("linux", "freebsd")),
        Setting("demo.phase_seconds", float, 60.0,
                "seconds each phase of the demo host lasts", "--demo.phase-seconds"),
        Setting("demo.story", str, "demo",
                "what the demo host replays: the looping demo, or one incident (fleet tests)",
                "--demo.story", choices=("demo", "healthy", "checksum-then-replaced",
                                         "degraded-then-resilvering", "suspended",
                                         "cable-fault", "scrub-repairs-checksum-errors",
                                         "mirror-member-offline", "never-scrubbed")),
    ]  # fmt: skip
    return s


def declared_binaries(registry: Mapping[str, type[Collector]]) -> list[str]:
    """Every program some collector declares it runs, each once, in declaration order."""
    return list(dict.fromkeys(b for cls in registry.values() for b in cls.binaries))


def aliases(registry: Mapping[str, type[Collector]]) -> dict[str, str]:
    """Short flags collectors declare for their options: alias -> dotted config key."""
    return {
        alias: f"collectors.{name}.{option}"
        for name, cls in registry.items()
        for alias, option in cls.flag_aliases.items()
    }


def collector_settings(registry: Mapping[str, type[Collector]]) -> list[Setting]:
    s: list[Setting] = []
    for binary in declared_binaries(registry):
        s.append(
            Setting(
                f"binaries.{binary}",
                str,
                binary,
                f"path of the {binary} program",
                f"--binary.{binary}",
            )
        )
    short = aliases(registry)
    for name, cls in registry.items():
        s.append(
            Setting(
                f"collectors.{name}.enabled",
                bool,
                cls.default_enabled,
                f"enable the {name} collector ({cls.help})",
                f"--collector.{name}",
            )
        )
        s.append(
            Setting(
                f"collectors.{name}.interval",
                float,
                cls.default_interval,
                f"seconds between {name} runs",
                f"--collector.{name}.interval",
            )
        )
        s.append(
            Setting(
                f"collectors.{name}.timeout",
                float,
                cls.default_timeout,
                f"hard limit in seconds for one {name} run",
                f"--collector.{name}.timeout",
            )
        )
        for opt in cls.options:
            s.append(_option_setting(name, opt, short))
    return s


def _option_setting(collector: str, opt: Option, short: Mapping[str, str]) -> Setting:
    key = f"collectors.{collector}.{opt.name}"
    flag = f"--collector.{collector}.{opt.name.replace('_', '-')}"
    for alias, target in short.items():
        if target == key:
            flag = "--" + alias
    return Setting(
        key, opt.type, opt.default, opt.help, flag, opt.choices, repeatable=opt.type is list
    )


def all_settings(registry: Mapping[str, type[Collector]]) -> dict[str, Setting]:
    return {s.key: s for s in [*static_settings(), *collector_settings(registry)]}


# ---------------------------------------------------------------- validation


def coerce(setting: Setting, value: Any, source: str | None = None) -> Any:
    """Check one value against its setting and return it in the setting's type."""
    t = setting.type
    key = setting.key
    if t is bool:
        if isinstance(value, bool):
            out: Any = value
        elif isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            out = value.lower() in ("true", "1", "yes")
        else:
            raise ConfigError(key, f"expected true or false, got {value!r}", source)
    elif t in (int, float):
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ConfigError(key, f"expected a number, got {value!r}", source)
        try:
            out = t(value)
        except (ValueError, OverflowError):
            raise ConfigError(key, f"expected a number, got {value!r}", source) from None
        if not math.isfinite(out):
            raise ConfigError(key, f"must be a finite number, got {value!r}", source)
        if out < 0:
            raise ConfigError(key, f"must not be negative, got {value!r}", source)
        if key.endswith((".interval", ".timeout")) and out <= 0:
            raise ConfigError(key, f"must be greater than 0, got {value!r}", source)
        if _is_duration(key):
            if out > MAX_SECONDS:
                raise ConfigError(
                    key, f"must be at most {MAX_SECONDS:g} seconds, got {value!r}", source
                )
        elif out > MAX_NUMBER:
            raise ConfigError(key, f"must be at most {MAX_NUMBER:g}, got {value!r}", source)
    elif t is list:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(key, f"expected a list of strings, got {value!r}", source)
        out = list(value)
    elif t is dict:
        if not isinstance(value, dict):
            raise ConfigError(key, f"expected a table, got {value!r}", source)
        out = dict(value)
    else:
        if not isinstance(value, str):
            raise ConfigError(key, f"expected a string, got {value!r}", source)
        out = value
    if setting.choices is not None and out not in setting.choices:
        allowed = ", ".join(map(str, setting.choices))
        raise ConfigError(key, f"must be one of {allowed}, got {out!r}", source)
    if key == "web.listen_address":
        if not out:
            raise ConfigError(key, "needs at least one address", source)
        for addr in out:
            try:
                split_listen_address(addr)
            except ValueError as exc:
                raise ConfigError(key, str(exc), source) from None
    if key in ("web.max_connections", "web.read_timeout", "web.idle_timeout") and out <= 0:
        raise ConfigError(key, f"must be greater than 0, got {value!r}", source)
    if key == "web.max_connections" and out > MAX_CONNECTIONS:
        raise ConfigError(key, f"must be at most {MAX_CONNECTIONS}, got {value!r}", source)
    return out


# Each open connection holds a file descriptor, and a process gets far fewer than this (the
# shipped unit sets LimitNOFILE=8192); scrapers are a handful. Past the bound the value is a
# typo, and a huge one would size the server's connection bookkeeping for nothing.
MAX_CONNECTIONS = 65535


def configured_binary_problem(name: str, value: str) -> str | None:
    """Why a program path the admin configured cannot be run, or None.

    The default (the bare name, looked up on PATH when run) may be missing: that is a host
    without ZFS, smartctl or apcupsd. A path or name the admin chose must exist, so that a
    typo shows as an error instead of as a host without the tool.
    """
    if value == name:
        return None
    if not value:
        return "is empty"
    if os.sep not in value:
        return None if shutil.which(value) else f"{value!r} not found in PATH"
    if not os.path.exists(value):
        return f"{value} does not exist"
    if not os.path.isfile(value):
        return f"{value} is not a file"
    return None


def _is_duration(key: str) -> bool:
    return key.endswith((".interval", ".timeout", "_timeout", "_seconds")) or key in (
        "commands.timeout",
    )


def split_listen_address(addr: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``[v6]:PORT`` -> (host, port); '' host means all interfaces."""
    host, sep, port = addr.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"expected HOST:PORT, got {addr!r}")
    number = int(port)
    if not 0 <= number <= 65535:
        raise ValueError(f"port {number} is out of range")
    return host.strip("[]"), number


def flatten_toml(data: Mapping[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    """Yield (dotted key, value) for leaves; a table is a leaf only where a dict is expected."""
    for k, v in data.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            yield key, v
            yield from flatten_toml(v, key + ".")
        else:
            yield key, v


def _load_file(
    path: str | Path, settings: Mapping[str, Setting], errors: _Collect
) -> dict[str, Any]:
    """The usable values of a TOML file; what is unusable goes to ``errors``."""
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        errors.add(ConfigError("(file)", f"cannot read: {exc.strerror or exc}", source))
        return {}
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
        errors.add(ConfigError("(file)", f"not valid TOML: {exc}", source))
        return {}
    values: dict[str, Any] = {}
    tables = _table_prefixes(settings)
    table_settings = tuple(k + "." for k, s in settings.items() if s.type is dict)
    short = _aliases_of(settings)
    bad_sections: list[str] = []
    for key, value in flatten_toml(data):
        key = short.get(key, key)
        if key.startswith(table_settings) or key.startswith(tuple(bad_sections)):
            continue  # inside a table-valued setting (validated by its owner) or a bad section
        setting = settings.get(key)
        try:
            if setting is not None:
                values[key] = coerce(setting, value, source)
            elif isinstance(value, dict) and key in tables:
                continue
            elif isinstance(value, dict) and key.startswith("collectors."):
                bad_sections.append(key + ".")
                raise ConfigError(key, "no such collector (see 'zmon serve --help')", source)
            elif isinstance(value, dict) and key not in tables:
                if not any(s.startswith(key + ".") for s in settings):
                    bad_sections.append(key + ".")
                    raise ConfigError(key, "unknown section", source)
            else:
                raise ConfigError(key, "unknown key", source)
        except ConfigError as exc:
            errors.add(exc)
    return values


def _table_prefixes(settings: Mapping[str, Setting]) -> set[str]:
    out: set[str] = {"collectors"}
    for key in settings:
        parts = key.split(".")
        for i in range(1, len(parts)):
            out.add(".".join(parts[:i]))
    for alias in _aliases_of(settings):
        out.add(alias.split(".")[0])
    return out


def _aliases_of(settings: Mapping[str, Setting]) -> dict[str, str]:
    """Declared short keys (``ups.nut``) -> their settings' keys, read off the flags."""
    return {
        s.flag[2:]: key
        for key, s in settings.items()
        if key.startswith("collectors.") and not s.flag.startswith("--collector.")
    }


# ---------------------------------------------------------------- flags


def add_flags(parser: argparse.ArgumentParser, settings: Mapping[str, Setting]) -> None:
    """Add one flag per setting; bools get --X and --no-X. Defaults are None (= not given)."""
    group = parser.add_argument_group("settings (each also a config-file key)")
    for s in settings.values():
        dest = "set:" + s.key
        if s.type is bool:
            group.add_argument(
                s.flag,
                dest=dest,
                action="store_true",
                default=None,
                help=f"{s.help} [{s.key}, default {s.default}]",
            )
            neg = "--no-" + s.flag[2:]
            group.add_argument(
                neg, dest=dest, action="store_false", default=None, help=argparse.SUPPRESS
            )
        elif s.repeatable:
            group.add_argument(
                s.flag,
                dest=dest,
                action="append",
                default=None,
                metavar="VALUE",
                help=f"{s.help} (repeatable) [{s.key}]",
            )
        elif s.type is dict:
            continue
        else:
            group.add_argument(
                s.flag,
                dest=dest,
                default=None,
                metavar=s.type.__name__.upper(),
                help=f"{s.help} [{s.key}, default {s.default}]",
            )


def flag_values(ns: argparse.Namespace, settings: Mapping[str, Setting]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    errors = _Collect()
    for key, value in vars(ns).items():
        if key.startswith("set:") and value is not None:
            setting = settings[key[4:]]
            try:
                out[setting.key] = coerce(setting, value, "command line")
            except ConfigError as exc:
                errors.add(exc)
    errors.raise_any()
    return out


# ---------------------------------------------------------------- assembly


def build_config(
    registry: Mapping[str, type[Collector]],
    file_values: Mapping[str, Any],
    flag_overrides: Mapping[str, Any],
    source: str | None = None,
) -> Config:
    """Merge defaults, file values and flags (flags win) into a Config."""
    settings = all_settings(registry)
    v = {k: s.default for k, s in settings.items()}
    v.update(file_values)
    v.update(flag_overrides)
    paths = Paths(
        procfs=Path(v["paths.procfs"]),
        sysfs=Path(v["paths.sysfs"]),
        rootfs=Path(v["paths.rootfs"]),
        state_dir=Path(v["paths.state_dir"]),
    )
    colls: dict[str, CollectorSettings] = {}
    errors = _Collect()
    for binary in declared_binaries(registry):
        problem = configured_binary_problem(binary, v[f"binaries.{binary}"])
        if problem:
            errors.add(ConfigError(f"binaries.{binary}", problem, source))
    for name, cls in registry.items():
        pre = f"collectors.{name}."
        options = {o.name: v[pre + o.name] for o in cls.options}
        try:
            cls.validate_options(options)
        except OptionError as exc:
            for one in getattr(exc, "errors", [exc]):
                errors.add(ConfigError(pre + one.option, one.reason, source))
        except ValueError as exc:  # a validator that did not name its option
            errors.add(ConfigError(pre.rstrip("."), str(exc), source))
        colls[name] = CollectorSettings(
            enabled=v[pre + "enabled"],
            interval=v[pre + "interval"],
            timeout=v[pre + "timeout"],
            options=options,
        )
    errors.raise_any()
    return Config(
        listen_addresses=list(v["web.listen_address"]),
        web_config_file=v["web.config_file"],
        max_connections=v["web.max_connections"],
        read_timeout=v["web.read_timeout"],
        idle_timeout=v["web.idle_timeout"],
        web_user=v["web.user"],
        status_dir=v["web.status_dir"],
        paths=paths,
        binaries={b: v[f"binaries.{b}"] for b in declared_binaries(registry)},
        command_timeout=v["commands.timeout"],
        log_level=v["log.level"],
        log_format=v["log.format"],
        platform=v["host.platform"],
        collectors=colls,
        demo_phase_seconds=v["demo.phase_seconds"],
        demo_story=v["demo.story"],
        source=source,
    )


def config_values(cfg: Config) -> dict[str, Any]:
    """The flat settings (dotted key -> plain value) ``build_config`` makes ``cfg`` from: what
    travels to the collection worker (zmon/runtime/channel.py), which checks them again."""
    out: dict[str, Any] = {
        "web.listen_address": list(cfg.listen_addresses),
        "web.config_file": cfg.web_config_file,
        "web.max_connections": cfg.max_connections,
        "web.read_timeout": cfg.read_timeout,
        "web.idle_timeout": cfg.idle_timeout,
        "web.user": cfg.web_user,
        "web.status_dir": cfg.status_dir,
        "paths.procfs": str(cfg.paths.procfs),
        "paths.sysfs": str(cfg.paths.sysfs),
        "paths.rootfs": str(cfg.paths.rootfs),
        "paths.state_dir": str(cfg.paths.state_dir),
        "commands.timeout": cfg.command_timeout,
        "log.level": cfg.log_level,
        "log.format": cfg.log_format,
        "host.platform": cfg.platform,
        "demo.phase_seconds": cfg.demo_phase_seconds,
        "demo.story": cfg.demo_story,
    }
    out.update({f"binaries.{name}": path for name, path in cfg.binaries.items()})
    for name, settings in cfg.collectors.items():
        pre = f"collectors.{name}."
        out[pre + "enabled"] = settings.enabled
        out[pre + "interval"] = settings.interval
        out[pre + "timeout"] = settings.timeout
        out.update({pre + option: value for option, value in settings.options.items()})
    return out


def from_values(
    registry: Mapping[str, type[Collector]],
    values: Mapping[str, Any],
    source: str | None = None,
) -> Config:
    """The Config of ``config_values``' output, each value checked as a config file's is
    (ConfigError for an unknown key or a bad value)."""
    settings = all_settings(registry)
    checked: dict[str, Any] = {}
    errors = _Collect()
    for key, value in values.items():
        setting = settings.get(key)
        if setting is None:
            errors.add(ConfigError(str(key)[:200], "unknown setting", source))
            continue
        try:
            checked[key] = coerce(setting, value, source)
        except ConfigError as exc:
            errors.add(exc)
    errors.raise_any()
    return build_config(registry, checked, {}, source)


def load(
    registry: Mapping[str, type[Collector]],
    path: str | None,
    ns: argparse.Namespace | None = None,
) -> Config:
    """Load the config file (if any) and apply flags from ``ns``."""
    cfg, errors = load_all(registry, path, ns)
    if errors or cfg is None:
        raise errors[0] if len(errors) == 1 else ConfigErrors(errors)
    return cfg


def file_values(path: str, registry: Mapping[str, type[Collector]]) -> dict[str, Any]:
    """The usable values of a config file, ignoring the unusable ones."""
    return _load_file(path, all_settings(registry), _Collect())


def load_all(
    registry: Mapping[str, type[Collector]],
    path: str | None,
    ns: argparse.Namespace | None = None,
) -> tuple[Config | None, list[ConfigError]]:
    """Every problem of the file and flags, and the config (None if the usable values do
    not make one). ``check-config`` reports all of them, not just the first."""
    settings = all_settings(registry)
    errors = _Collect()
    file_values = _load_file(path, settings, errors) if path else {}
    flags: dict[str, Any] = {}
    try:
        flags = flag_values(ns, settings) if ns is not None else {}
    except ConfigError as exc:
        errors.add(exc)
    try:
        cfg: Config | None = build_config(registry, file_values, flags, source=path)
    except ConfigError as exc:
        errors.add(exc)
        cfg = None
    return cfg, errors.errors


def check_environment(cfg: Config) -> list[ConfigError]:
    """What a valid config would still fail on at start-up, as far as it can be seen now
    (``zmon check-config``): a listen host that does not resolve."""
    problems: list[ConfigError] = []
    for address in cfg.listen_addresses:
        try:
            host, port = split_listen_address(address)
        except ValueError:
            continue  # reported by the validation itself
        if not host:
            continue
        try:
            socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        except (OSError, UnicodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            problems.append(
                ConfigError(
                    "web.listen_address", f"cannot resolve host {host!r}: {reason}", cfg.source
                )
            )
    return problems


def example_toml(registry: Mapping[str, type[Collector]]) -> str:
    """A commented config file listing every key with its default."""
    lines = ["# zmon configuration. Every key is also a command-line flag.", ""]
    current = None
    for s in all_settings(registry).values():
        section, _, leaf = s.key.rpartition(".")
        if section != current:
            lines += ["", f"[{section}]"]
            current = section
        lines.append(f"# {s.help} (flag {s.flag})")
        lines.append(f"# {leaf} = {_toml_value(s.default)}")
    return "\n".join(lines).lstrip() + "\n"


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{}"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'
