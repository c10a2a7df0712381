"""Privilege separation: the HTTP process gives up root and every capability, the collecting
side keeps only what collecting needs.

zmon started as root (the systemd unit, the FreeBSD rc.d script) with ``web.user`` set forks
its HTTP process before any thread starts; the child calls ``drop_to``: it empties its
capability bounding set (CAP_SETPCAP allows it, while it is still root), switches to the
user's uid and gid with no supplementary groups (from root to a non-root uid the kernel clears
the permitted, effective and ambient sets), clears the inheritable set, and sets
no_new_privs. The parent then calls ``keep_only`` to give up CAP_SETUID, CAP_SETGID and
CAP_SETPCAP, which it held only to make that child: from its bounding, ambient, inheritable,
permitted and effective sets, so the collection worker it starts has none of them either.

Capabilities are per thread on Linux: both calls happen while the process has one thread.
The calls go straight to the C library (ctypes): ``prctl``, ``capget`` and ``capset`` are
three system calls, not worth a dependency (python-prctl needs libcap headers to build, and
the kernel interface they wrap has been stable since Linux 2.6.26). On FreeBSD there are no
Linux capabilities: the drop is the uid and gid change alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import pwd
import sys
from dataclasses import dataclass
from typing import Any

from zmon.base import logs

log = logs.get("privileges")

# linux/capability.h
CAP_DAC_READ_SEARCH = 2
CAP_SETGID = 6
CAP_SETUID = 7
CAP_SETPCAP = 8
CAP_SYS_RAWIO = 17
CAP_SYS_ADMIN = 21
# What the collecting side keeps, and why (README "Privileges", RELIABILITY.md, the unit):
COLLECTING = {
    "CAP_SYS_ADMIN": CAP_SYS_ADMIN,  # `zpool events` (a ZFS ioctl checks it), NVMe admin commands
    "CAP_SYS_RAWIO": CAP_SYS_RAWIO,  # smartctl's ATA/SCSI pass-through (SG_IO)
    "CAP_DAC_READ_SEARCH": CAP_DAC_READ_SEARCH,  # /var/log files and journals of other users
}
# held only until the HTTP process has been forked and dropped
FOR_THE_DROP = {"CAP_SETUID": CAP_SETUID, "CAP_SETGID": CAP_SETGID, "CAP_SETPCAP": CAP_SETPCAP}

# linux/prctl.h
PR_CAPBSET_READ = 23
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_LOWER = 3
PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_VERSION_3 = 0x20080522


class PrivilegeError(OSError):
    """A privilege change that did not happen: zmon must not go on as if it had."""


@dataclass(frozen=True)
class Account:
    """The user the HTTP process runs as."""

    name: str
    uid: int
    gid: int


def account(name: str) -> Account:
    """The system user ``name`` (PrivilegeError if there is none)."""
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        raise PrivilegeError(0, f"web.user: no user named {name!r}") from None
    if pw.pw_uid == 0 or pw.pw_gid == 0:
        raise PrivilegeError(0, f"web.user: {name!r} is root, which drops nothing")
    return Account(name, pw.pw_uid, pw.pw_gid)


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


_libc_handle: Any = None


def _libc() -> Any:
    global _libc_handle
    if _libc_handle is None:
        _libc_handle = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    return _libc_handle


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise PrivilegeError(err, f"{what}: {os.strerror(err)}")


def _prctl(option: int, arg2: int = 0, arg3: int = 0) -> int:
    fn = _libc().prctl
    fn.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    return int(fn(option, arg2, arg3, 0, 0))


def capabilities() -> tuple[int, int, int]:
    """(effective, permitted, inheritable) of the calling thread, as bit masks."""
    header = _Header(_CAP_VERSION_3, 0)
    data = (_Data * 2)()
    _check(_libc().capget(ctypes.byref(header), data), "capget")
    eff, prm, inh = (
        getattr(data[0], f) | getattr(data[1], f) << 32
        for f in ("effective", "permitted", "inheritable")
    )
    return eff, prm, inh


def _capset(effective: int, permitted: int, inheritable: int) -> None:
    header = _Header(_CAP_VERSION_3, 0)
    data = (_Data * 2)()
    for i in (0, 1):
        data[i].effective = effective >> (32 * i) & 0xFFFFFFFF
        data[i].permitted = permitted >> (32 * i) & 0xFFFFFFFF
        data[i].inheritable = inheritable >> (32 * i) & 0xFFFFFFFF
    _check(_libc().capset(ctypes.byref(header), data), "capset")


def _last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as fh:
            return int(fh.read())
    except (OSError, ValueError):
        return 63


def _in_bounding_set(cap: int) -> bool:
    return _prctl(PR_CAPBSET_READ, cap) == 1


def _drop_bounding(caps: list[int]) -> None:
    """Remove ``caps`` from the bounding set (CAP_SETPCAP last: it is what allows this)."""
    for cap in sorted(caps, key=lambda c: c == CAP_SETPCAP):
        if _in_bounding_set(cap):
            _check(_prctl(PR_CAPBSET_DROP, cap), f"dropping capability {cap} from the bounding set")


def linux() -> bool:
    return sys.platform.startswith("linux")


def drop_to(user: Account) -> None:
    """Become ``user`` for good, with no capability and no way to gain one (the HTTP process,
    right after the fork). Raises PrivilegeError when any step fails."""
    if linux():
        _drop_bounding(list(range(_last_cap() + 1)))
        _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    os.setgroups([])
    os.setgid(user.gid)
    os.setuid(user.uid)  # root -> user: the kernel clears permitted, effective and ambient
    if linux():
        _capset(0, 0, 0)
        _check(_prctl(PR_SET_NO_NEW_PRIVS, 1), "setting no_new_privs")
    if os.getuid() != user.uid or os.geteuid() != user.uid or os.getegid() != user.gid:
        raise PrivilegeError(0, f"still running as uid {os.geteuid()} after the drop")
    try:
        os.setuid(0)
    except PermissionError:
        pass
    else:
        raise PrivilegeError(0, "could become root again after the drop")
    if linux() and any(capabilities()):
        raise PrivilegeError(0, f"capabilities left after the drop: {capabilities()!r}")


def keep_only(give_up: list[int]) -> None:
    """Remove ``give_up`` from every capability set of this process (the privileged side,
    once the HTTP process has dropped), so neither it nor the worker it starts holds them."""
    if not linux():
        return
    mask = 0
    for cap in give_up:
        mask |= 1 << cap
        _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap)  # (fails harmlessly if not raised)
    _drop_bounding(give_up)
    effective, permitted, inheritable = capabilities()
    _capset(effective & ~mask, permitted & ~mask, inheritable & ~mask)
    if any(c & mask for c in capabilities()):
        raise PrivilegeError(0, "could not give up the capabilities used for the drop")


def status_capabilities(pid: int | str = "self") -> dict[str, int]:
    """CapInh, CapPrm, CapEff, CapBnd and CapAmb of a process, from /proc/PID/status."""
    out = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            key, _, value = line.partition(":")
            if key.startswith("Cap"):
                out[key] = int(value.strip(), 16)
    return out


def mask_of(caps: dict[str, int]) -> int:
    out = 0
    for cap in caps.values():
        out |= 1 << cap
    return out
