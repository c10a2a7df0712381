"""The loaded ZFS kernel module: its version, its parameters, the pool features it supports.

Formats:

* version: Linux ``/sys/module/zfs/version`` holds one line (``2.3.2-2~bpo12+2``); FreeBSD
  ``sysctl vfs.zfs.version.module`` prints ``vfs.zfs.version.module: 2.1.4-FreeBSD_g52bad4f23``
  (with ``-n`` the value alone). It is the module's own version, which differs from the
  tools' (``zfs version``) after an upgrade that was not followed by a reboot.
* parameters: ``/sys/module/zfs/parameters/<name>``, one value per file. Most are integers
  (unsigned 64-bit ones print up to 18446744073709551615); a few are words
  (``icp_aes_impl``: ``cycle [fastest] generic x86_64``), which are not numeric parameters.
* supported pool features: one directory per feature under
  ``/sys/module/zfs/features.pool/`` (OpenZFS 0.8+), named by the feature's guid
  (``com.delphix:async_destroy``); its ``uname`` file holds the short name that
  ``zpool get`` shows after ``feature@``.
* a module dump: ``grep -H . /sys/module/zfs/version /sys/module/zfs/parameters/*
  /sys/module/zfs/features.pool/*/uname``, one ``path:value`` line per file. Lines of other
  files (``/sys/module/spl/parameters/...``) are skipped. This is the capture format and
  the input of ``zmon parse zfs-module``.
* ``zpool get`` feature properties: ``feature@<name>`` is ``disabled``, ``enabled`` or
  ``active``; the ``compatibility`` property is ``off``, ``legacy`` or a comma-separated
  list of files in ``compatibility.d``.
* a ``compatibility.d`` file: feature names separated by blanks, commas or newlines; ``#``
  starts a comment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.kstat.kstat import MAX_INT_DIGITS

_DUMP_LINE = re.compile(
    r"^/(?:\S*/)?module/zfs/(?:"
    r"(?P<version>version)"
    r"|parameters/(?P<param>[A-Za-z0-9_]+)"
    r"|features\.pool/(?P<guid>[^/]+)/uname"
    r"):(?P<value>.*)$"
)
_SERIES = re.compile(r"^(?:zfs-(?:kmod-)?)?v?(\d+)\.(\d+)(?:[.\-~_+]|$)")
_INTEGER = re.compile(r"^-?\d+$")
FEATURE_STATES = ("disabled", "enabled", "active")


@dataclass
class ModuleDump:
    """What a module dump held; a part the dump lacked is None (empty for parameters)."""

    version: str | None = None
    parameters: dict[str, str] = field(default_factory=dict)  # name -> raw text
    features: dict[str, str] | None = None  # short name -> guid


@refuses_hostile_input
def parse_version(data: bytes | str) -> str:
    """The module version from ``/sys/module/zfs/version`` or ``sysctl vfs.zfs.version.module``."""
    text = _text(data).strip()
    if text.startswith("vfs.zfs.version.module"):
        text = text.partition(":")[2].strip()
    if not text or len(text.split()) != 1:
        raise ParseError("expected one version word", 1, text or None)
    return text


def version_series(version: str) -> str | None:
    """``2.3.2-2~bpo12+2`` -> ``2.3``: the release series whose defaults apply; None if unknown."""
    m = _SERIES.match(version)
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


def parse_parameter_value(text: str) -> int | None:
    """One parameter file's value as an integer; None for a word-valued parameter."""
    value = text.strip()
    return int(value) if _INTEGER.match(value) and len(value) <= MAX_INT_DIGITS + 1 else None


@refuses_hostile_input
def parse_module_dump(data: bytes | str) -> ModuleDump:
    """``grep -H .`` over the module's version, parameters and features.pool uname files."""
    dump = ModuleDump()
    for no, line in enumerate(_text(data).splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith("/"):
            raise ParseError("expected 'path:value' (grep -H output)", no, line)
        m = _DUMP_LINE.match(line)
        if m is None:
            continue  # another module's file (spl), or one zmon does not read
        value = m.group("value").strip()
        if m.group("version"):
            dump.version = parse_version(value)
        elif m.group("param"):
            dump.parameters[m.group("param")] = value
        else:
            if dump.features is None:
                dump.features = {}
            dump.features[value or _short_name(m.group("guid"))] = m.group("guid")
    if dump.version is None and not dump.parameters and dump.features is None:
        raise ParseError("no /sys/module/zfs/ version, parameters or features.pool lines")
    return dump


def feature_uname(guid: str, uname_file: str | None) -> str:
    """A supported feature's short name: its ``uname`` file, else the guid's part after ':'."""
    name = (uname_file or "").strip()
    return name or _short_name(guid)


def pool_feature_states(props: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """``feature@<name>`` properties of one pool (``zpool get``) -> {name: state}."""
    return {
        prop.removeprefix("feature@"): value
        for prop, (value, _source) in props.items()
        if prop.startswith("feature@") and value in FEATURE_STATES
    }


@refuses_hostile_input
def parse_compatibility(data: bytes | str) -> frozenset[str]:
    """The feature names a ``compatibility.d`` file allows."""
    names: set[str] = set()
    for line in _text(data).splitlines():
        line = line.partition("#")[0]
        names.update(w for w in re.split(r"[\s,]+", line) if w)
    return frozenset(names)


def _short_name(guid: str) -> str:
    return guid.rpartition(":")[2]


def _text(data: bytes | str) -> str:
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else data
