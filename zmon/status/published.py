"""The running zmon's judged report, published for ``zmon status`` on the same host.

Only the HTTP process judges the declared alert conditions, over the history it keeps
(zmon/status/page.py); ``zmon status`` without ``--url`` shows that verdict instead of its
own single collection's diagnoses, so the CLI on the host, the status page and the pager
tell one story.

Why a file, not a request to the listen address: the web config may ask for TLS client
certificates or basic auth, whose plaintext passwords the CLI does not know, and a local
user who may read the host's health need not hold them. The HTTP process writes the report
it judged at each history sample into ``web.status_dir`` (default ``/run/zmon``, the unit's
``RuntimeDirectory``, gone when zmon stops): whole, to a temporary file renamed over the
last one, mode 0644 (what it says, ``zpool status`` and a one-shot ``zmon status`` tell
any local user too). The HTTP process gains no privilege for it: the privileged side makes
that one directory writable by the HTTP process's group before forking it (``prepare_dir``:
the group is set as its own effective group, so no CAP_CHOWN is needed, and the directory
is the only place the HTTP process can write). The demo publishes ``demo-report.json`` in
the same directory, read by ``zmon status --demo`` only.

The reader treats the file as untrusted input (a compromised HTTP process wrote it): no
link followed, no FIFO or device opened, at most ``MAX_BYTES`` read, the JSON checked and
rendered once before it is used; any fault says why, and ``zmon status`` collects once.
A report is fresh for ``FRESH_JUDGMENTS`` of the judgment intervals it says it was judged
at; an older one is not used, and its age is said.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from zmon.base import logs

log = logs.get("status")

FILE = "report.json"
DEMO_FILE = "demo-report.json"
FORMAT = 1  # the wrapper's version: {"published", "written", "judge_every", "report"}
MAX_BYTES = 32 << 20  # a 1,000-disk host's report is a few MiB
FRESH_JUDGMENTS = 3  # a report is fresh for this many of its judgment intervals
MODE = 0o644


def report_file(status_dir: str | os.PathLike[str], demo: bool) -> Path:
    """Where the running zmon (or the demo daemon) publishes its report."""
    return Path(status_dir) / (DEMO_FILE if demo else FILE)


def prepare_dir(path: Path, group: int | None) -> None:
    """Make ``path`` (the privileged side, before it forks the HTTP process) a directory the
    HTTP process may publish in: with ``group`` (the HTTP process's, when it drops to
    another user) owned by that group and group-writable, else only the owner's to write.

    The group is changed while it is this process's effective group, as any owner may (no
    CAP_CHOWN); that takes CAP_SETGID, held until the drop. OSError if ``path`` is not a
    directory of ours (a link is not followed)."""
    path.mkdir(mode=0o755, parents=True, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(errno.ENOTDIR, "not a directory", str(path))
    mode = 0o755
    if group is not None:
        mode = 0o775
        if st.st_gid != group:
            before = os.getegid()
            os.setegid(group)
            try:
                os.chown(path, -1, group, follow_symlinks=False)
            finally:
                os.setegid(before)
    if stat.S_IMODE(st.st_mode) != mode:
        os.chmod(path, mode, follow_symlinks=False)


class Publisher:
    """Writes the HTTP process's judged report to ``path``, whole (temporary file, then
    rename); a failure is logged once, and each is counted in ``failed``."""

    def __init__(
        self, path: Path, judge_every: float, clock: Callable[[], float] | None = None
    ) -> None:
        import time

        self.path = path
        self.judge_every = judge_every
        self.clock = clock or time.time
        self.failed = 0

    def publish(self, report: dict[str, Any]) -> None:
        body = json.dumps(
            {
                "published": FORMAT,
                "written": self.clock(),
                "judge_every": self.judge_every,
                "report": report,
            },
            separators=(",", ":"),
        ).encode()
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, MODE)
            try:
                os.fchmod(fd, MODE)  # (whatever the umask)
                view = memoryview(body)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            os.replace(tmp, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if not self.failed:
                log.warning(
                    "cannot publish the status report: zmon status on this host will collect "
                    "once instead",
                    path=str(self.path),
                    error=exc.strerror or str(exc),
                )
            self.failed += 1

    def withdraw(self) -> None:
        """Remove the report (zmon stops: ``zmon status`` must not read it as current)."""
        with contextlib.suppress(OSError):
            os.unlink(self.path)


@dataclass(frozen=True)
class Published:
    """The running zmon's report, ``age`` seconds old."""

    report: dict[str, Any]
    age: float


@dataclass(frozen=True)
class Unavailable:
    """No usable report: ``why``, in words."""

    why: str


def read_published(path: Path, now: float) -> Published | Unavailable:
    """The report at ``path`` if it is fresh at ``now``, else why not."""
    try:
        data = _read_capped(path)
    except FileNotFoundError:
        return Unavailable(f"zmon is not running on this host (no {path})")
    except OSError as exc:
        return Unavailable(f"zmon's report cannot be used: {path}: {_reason(exc)}")
    try:
        report, written, judge_every = parse_published(data, now)
    except ValueError as exc:
        return Unavailable(f"zmon's report cannot be used: {path}: {exc}")
    age = now - written
    if age > FRESH_JUDGMENTS * judge_every:
        return Unavailable(f"zmon's report is {_duration(age)} old")
    if age < -judge_every:
        return Unavailable(f"zmon's report is dated {_duration(-age)} in the future")
    return Published(report, max(age, 0.0))


def _read_capped(path: Path) -> bytes:
    """At most MAX_BYTES of a regular file, never through a link, never blocking on a FIFO
    (OSError; ``ValueError``-free)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if st.st_size > MAX_BYTES:
            raise OSError(errno.EFBIG, f"larger than {MAX_BYTES // (1 << 20)} MiB")
        chunks = []
        left = MAX_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:  # it grew while read
            raise OSError(errno.EFBIG, f"larger than {MAX_BYTES // (1 << 20)} MiB")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a symbolic link"
    return exc.strerror or str(exc)


def parse_published(data: bytes, now: float) -> tuple[dict[str, Any], float, float]:
    """(report, when written, judgment interval) of a published file's bytes; ValueError
    saying what is wrong with them."""
    from zmon.status.report import EXIT_CODES, SCHEMA
    from zmon.status.terminal import render_text

    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError("not JSON") from None
    if not isinstance(doc, dict) or doc.get("published") != FORMAT:
        raise ValueError("not a published report")
    written, judge_every = doc.get("written"), doc.get("judge_every")
    if not _number(written):
        raise ValueError("no time written")
    if not _number(judge_every) or not 0 < judge_every <= 86400:
        raise ValueError("no judgment interval")
    report = doc.get("report")
    if not isinstance(report, dict):
        raise ValueError("no report")
    state = report.get("state")
    try:
        if report.get("schema") != SCHEMA or state not in EXIT_CODES:
            raise ValueError
        if report.get("exit_code") != EXIT_CODES[state] or not isinstance(
            report.get("headline"), str
        ):
            raise ValueError
        render_text(report)  # every field the text view reads is there, of its kind
        json.dumps(report)
    except Exception:  # noqa: BLE001 - whatever a malformed report makes the renderer raise
        raise ValueError("not a report zmon status can show") from None
    return report, float(written), float(judge_every)


def _number(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} seconds"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} minutes"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} hours"
    return f"{seconds / 86400:.0f} days"
