"""``zpool status`` text from any release (zfs-fuse, Solaris/illumos, FreeBSD, ZoL 0.6 to 2.x).

``parse_zpool_status`` takes text or ``-j`` JSON and returns the same typed model. The text
parser is a line state machine that tolerates what people paste: shell prompts, tabs turned
into spaces, a table indented differently from the header, elided lines, several pools.
Tree depth comes from each row's indentation relative to the rows above it, never from a
fixed step. Whatever it cannot read is kept as a warning and makes that pool *incomplete*
(never healthy by default); only input with nothing of ``zpool status`` in it raises
ParseError.

A *fragment* (config rows pasted without the ``NAME STATE ...`` header, or a table whose first
row is a leaf) is read too: its rows hang under a pool named ``UNNAMED_POOL`` unless a
``pool:`` line or the pool's own row names it, and the pool is incomplete.
"""

from __future__ import annotations

import re
from datetime import tzinfo

from zmon.base.errors import ParseError, refuses_hostile_input
from zmon.parsers.common.units import try_nice
from zmon.parsers.zpool.scan import parse_scan
from zmon.parsers.zpool.zpool_status_json import parse_zpool_status_json
from zmon.parsers.zpool.zpool_status_model import (
    KNOWN_POOL_STATES,
    UNNAMED_POOL,
    Pool,
    Vdev,
    ZpoolStatus,
    note_progress,
    upgrade_suggested,
    vdev_type_from_name,
    was_path,
)

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_KEYS = (
    "pool|state|status|action|see|scan warning|scan|scrub|remove|expand|checkpoint|condense"
    "|trim|config|errors|dedup|comment|id|raidz expand"
)
_KEY = re.compile(rf"^[ \t]*(?P<key>{_KEYS}):(?:[ \t]+(?P<value>.*)|[ \t]*$)")
_HEADER = re.compile(r"^(?P<indent>\s*)NAME\s+STATE\s+READ\s+WRITE\s+CKSUM(?P<extra>.*)$")
_PROMPT_RE = re.compile(
    r"^(?:\S*[@:]\S*|\[[^\]]*\]|\S+ ~|)\s*[#$%>]\s*(?:sudo\s+)?\S|^(?:sudo\s+)?zpool\s+[a-z]+\b"
)
# A shell prompt and command fit in this; the pattern backtracks quadratically over a long
# line without spaces, so only a line's start is tried.
_PROMPT_CHARS = 512


def _is_prompt(line: str) -> bool:
    return _PROMPT_RE.match(line[:_PROMPT_CHARS]) is not None


_ELISION = re.compile(r"^\s*(?:\.{1,}|…|\[\.\.\.\]|\(\.\.\.\)|<[^<>]*>)\s*$")
_STATE_WORD = re.compile(r"^[A-Z][A-Z_]+$")
_CLASS_HEADERS = {
    "logs": "log", "log": "log", "cache": "cache", "l2cache": "cache", "spares": "spare",
    "spare": "spare", "special": "special", "dedup": "dedup",
}  # fmt: skip
_NUMERIC_COLUMNS = frozenset({"READ", "WRITE", "CKSUM", "SLOW", "DIO"})
_BUILTIN_COLUMNS = _NUMERIC_COLUMNS | {"POWER"}
# The notes zpool prints after a row's counters; with ``-c`` the script columns follow them.
_NOTE = re.compile(
    r"(?:too many errors|too many slow I/Os|was \S+|insufficient replicas|corrupted data"
    r"|external device fault|currently in use|in use by pool \S+|cannot open|missing device"
    r"|experienced I/O failures|\S+ (?:repaired|resilvered)|\((?:[^()]|\([^()]*\))*\))"
    r"(?=\s|$)"
)
# A config row without its table header: name, a vdev state and the three error counters
# exactly as zpool prints them (plain or zfs_nicenum), then an optional note.
_COUNT = r"(?:\d+(?:\.\d+)?[KMGTPEZ]?|-)"
_FRAGMENT_ROW = re.compile(
    rf"^\s*\S+\s+(?:ONLINE|DEGRADED|FAULTED|OFFLINE|REMOVED|UNAVAIL|SPLIT)\s+{_COUNT}\s+{_COUNT}"
    rf"\s+{_COUNT}(?:\s.*)?$"
)
_FRAGMENT_SPARE = re.compile(r"^\s*\S+\s+(?:AVAIL|INUSE)\b")
_NUMBER_LIKE = re.compile(r"^[-+]?\d")
_ERR_COUNT = re.compile(r"^(?P<n>\d+) data errors?, use '-v' for a list")
_ERR_UNAVAILABLE = re.compile(r"^List of errors unavailable[:\s]*(?P<why>.*)$")
_NO_POOLS = re.compile(r"^\s*no pools available\s*$")
_HEALTHY = re.compile(r"^\s*(?:all pools are healthy|pool '[^']*' is healthy)\s*$")


@refuses_hostile_input
def parse_zpool_status(
    data: bytes | str, tz: tzinfo | None = None, stderr: str = ""
) -> ZpoolStatus:
    """Parse ``zpool status`` output, text or JSON (detected by its first ``{``).

    ``tz`` is the zone the text dates were printed in (None: this process's local zone).
    ``stderr`` is the command's error output: ``errors: List of errors unavailable`` goes there.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    preamble, json_text = _split_json(text)
    if json_text is not None:
        return parse_zpool_status_json(json_text, tz=tz, stderr=stderr + "\n" + preamble)
    return _TextParser(tz).parse(text, stderr)


def _split_json(text: str) -> tuple[str, str | None]:
    """(preamble, JSON text) when the output is JSON, possibly after stderr lines; else None."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return "", stripped
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.lstrip().startswith("{"):
            head = [h.strip() for h in lines[:i] if h.strip()]
            if all(h.startswith("errors:") or _is_prompt(h) for h in head):
                return "\n".join(head), "".join(lines[i:])
            break
    return "", None


class _Table:
    """The config table being read: its columns and the stack of open parents."""

    def __init__(self, columns: list[str]) -> None:
        self.columns = columns
        self.stack: list[tuple[int, Vdev | str]] = []
        self.vdev_class = "normal"
        self.root_indent: int | None = None
        self.fragment = False  # rows without a NAME header: only strict row shapes are read


class _TextParser:
    def __init__(self, tz: tzinfo | None) -> None:
        self.tz = tz
        self.status = ZpoolStatus(source="text")
        self.pool: Pool | None = None
        self.table: _Table | None = None
        self.key: str | None = None
        self.key_lines: list[str] = []
        self.mode = "top"  # top, files, dedup
        self.unavailable: list[str] = []
        self.recognised = False
        self.named_by_line: set[int] = set()  # id() of pools named by a pool: line

    # ---- driver ----

    def parse(self, text: str, stderr: str) -> ZpoolStatus:
        for line in stderr.splitlines():
            self._stderr_line(line)
        for line_no, raw in enumerate(text.splitlines(), 1):
            line = _ANSI.sub("", raw).rstrip("\r")
            try:
                self._line(line, line_no)
            except (ValueError, IndexError) as exc:  # defensive: never a stray exception
                self._warn(f"line {line_no}: cannot read ({exc})", incomplete=True)
        self._finish_pool()
        self._assign_unavailable()
        for pool in self.status.pools:
            _check_complete(pool)
        if not self.recognised:
            lines = text.splitlines()
            first = next((i for i, line in enumerate(lines) if line.strip()), None)
            if first is None:
                raise ParseError("no zpool status output found (empty input)")
            raise ParseError("no zpool status output found", first + 1, lines[first])
        if (
            not self.status.no_pools
            and not any(p.name or p.root is not None or p.classes for p in self.status.pools)
            and self.status.pools
        ):
            first = next(i for i, line in enumerate(text.splitlines()) if line.strip())
            raise ParseError(
                "no pool and no config row in zpool status output",
                first + 1,
                text.splitlines()[first],
            )
        return self.status

    def _line(self, line: str, line_no: int) -> None:
        self._dispatch(line, line_no)
        if self.pool is not None:
            self.pool.lines.append(line)

    def _dispatch(self, line: str, line_no: int) -> None:
        if self.mode == "files" and self._file_line(line):
            return
        if self.table is not None and self._table_line(line, line_no):
            return
        if not line.strip():
            self._end_key()
            return
        m = _KEY.match(line)
        if m:
            self._key_line(m.group("key"), m.group("value") or "", line_no)
            return
        header = _HEADER.match(line.expandtabs(8))
        if header:
            self._start_table(header)
            return
        if self.mode == "dedup":
            return
        if self.key is not None and line[:1] in (" ", "\t"):
            self.key_lines.append(line)
            return
        self._other_line(line, line_no)

    def _other_line(self, line: str, line_no: int) -> None:
        self._end_key()
        if _FRAGMENT_ROW.match(line):
            self._start_fragment(line, line_no)
            return
        if _is_prompt(line):
            return
        if _ELISION.match(line):
            self._warn(f"line {line_no}: elided output", incomplete=True)
            return
        if _NO_POOLS.match(line):
            self.status.no_pools = True
            self.recognised = True
            return
        if _HEALTHY.match(line):
            self.recognised = True
            return
        self._warn(f"line {line_no}: unrecognised line {line.strip()[:80]!r}", incomplete=False)

    def _warn(self, message: str, incomplete: bool) -> None:
        if self.pool is None:
            self.status.warnings.append(message)
            return
        self.pool.warnings.append(message)
        if incomplete:
            self.pool.incomplete.append(message)

    # ---- header keys ----

    def _key_line(self, key: str, value: str, line_no: int) -> None:
        self._end_key()
        self.mode = "top"
        self.recognised = True
        if key == "pool":
            self._finish_pool()
            self.pool = Pool(name=value.strip())
            self.named_by_line.add(id(self.pool))
            return
        if key == "errors":
            self._errors(value.strip(), line_no)
            return
        if self.pool is None:
            self.pool = Pool(name="")
            self.pool.incomplete.append("output starts inside a pool (no pool: line)")
        if key == "state":
            self.pool.state = value.strip() or None
        elif key == "config":
            if value.strip():
                self._warn(f"line {line_no}: config: {value.strip()}", incomplete=True)
        elif key == "dedup":
            self.pool.extra["dedup"] = value.strip()
            self.mode = "dedup"
        else:
            self.key = key
            self.key_lines = [value]

    def _end_key(self) -> None:
        key, lines = self.key, self.key_lines
        self.key, self.key_lines = None, []
        if key is None or self.pool is None:
            return
        text = " ".join(" ".join(lines).split())
        if key == "status":
            self.pool.status = text
        elif key == "action":
            self.pool.action = text
        elif key == "see":
            self.pool.set_see(text)
        elif key in ("scan", "scrub"):
            scan, warnings = parse_scan(lines, self.tz)
            self.pool.warnings.extend(warnings)
            if scan is not None:
                self.pool.scans.append(scan)
                if scan.state == "unknown":
                    self.pool.incomplete.append(f"unrecognised scan line: {text[:80]!r}")
        else:
            prev = self.pool.extra.get(key)
            self.pool.extra[key] = f"{prev}\n{text}" if prev else text

    # ---- errors section ----

    def _stderr_line(self, line: str) -> None:
        text = _ANSI.sub("", line).strip()
        if text.startswith("errors:"):
            m = _ERR_UNAVAILABLE.match(text[len("errors:") :].strip())
            if m:
                self.unavailable.append(m.group("why") or "unavailable")

    def _errors(self, value: str, line_no: int) -> None:
        pool = self.pool
        unavailable = _ERR_UNAVAILABLE.match(value)
        if pool is None or (unavailable and pool.errors_seen and not pool.errors_unavailable):
            # A stderr line merged into the output ahead of its pool.
            if unavailable:
                self.unavailable.append(unavailable.group("why") or "unavailable")
            else:
                self.status.warnings.append(f"line {line_no}: errors: line outside a pool")
            return
        pool.errors_seen = True
        if unavailable:
            pool.errors_unavailable = True
            pool.errors_unavailable_reason = unavailable.group("why") or "unavailable"
            return
        count = _ERR_COUNT.match(value)
        if value.startswith("No known data errors"):
            pool.data_errors, pool.data_errors_present = 0, False
        elif count:
            pool.data_errors = int(count.group("n"))
            pool.data_errors_present = pool.data_errors > 0
        elif value.startswith("Permanent errors have been detected"):
            pool.data_errors_present = True
            pool.data_errors = None
            self.mode = "files"
        else:
            self._warn(f"line {line_no}: unrecognised errors: line {value[:80]!r}", True)

    def _file_line(self, line: str) -> bool:
        pool = self.pool
        if pool is None:
            self.mode = "top"
            return False
        if not line.strip():
            if pool.error_files:
                self.mode = "top"
            return True
        if line[:1] in (" ", "\t") and not _KEY.match(line) and not _ELISION.match(line):
            pool.error_files.append(line.strip())
            pool.data_errors = len(pool.error_files)
            return True
        self.mode = "top"
        return False

    # ---- config table ----

    def _start_table(self, header: re.Match[str]) -> None:
        self._end_key()
        self.recognised = True
        if self.pool is not None and self.pool.root is not None:
            self._finish_pool()
        if self.pool is None:
            self.pool = Pool(name="")
            self.pool.incomplete.append("config table without a pool: header (partial output)")
        self.table = _Table(["READ", "WRITE", "CKSUM", *header.group("extra").split()])

    def _start_fragment(self, line: str, line_no: int) -> None:
        """Config rows pasted without their ``NAME STATE ...`` header."""
        self.recognised = True
        if self.pool is not None and (self.pool.root is not None or self.pool.classes):
            self._finish_pool()
        if self.pool is None:
            self.pool = Pool(name="")
        self.pool.incomplete.append("config rows without the NAME STATE READ WRITE CKSUM header")
        self.table = _Table(["READ", "WRITE", "CKSUM", "SLOW"])
        self.table.fragment = True
        first = line.expandtabs(8)
        if self.pool.name and first.split()[0] == self.pool.name:
            self._row(first, line_no)  # the pool's own row: an ordinary table from here
            return
        self.table.root_indent = -1
        self.table.stack = [(-1, "normal")]
        self._row(first, line_no)

    def _table_line(self, line: str, line_no: int) -> bool:
        """Handle a line while a table is open; False hands it back to the main loop."""
        if not line.strip():
            self.table = None
            return True
        if _KEY.match(line) or _HEADER.match(line.expandtabs(8)):
            self.table = None
            return False
        if _ELISION.match(line):
            self._warn(f"line {line_no}: elided output", incomplete=True)
            return True
        if (
            self.table is not None
            and self.table.fragment
            and not (
                _FRAGMENT_ROW.match(line)
                or _FRAGMENT_SPARE.match(line)
                or line.strip() in _CLASS_HEADERS
            )
        ):
            self.table = None
            return False
        if line[:1] not in (" ", "\t") and _is_prompt(line) and not self._plausible_row(line):
            self.table = None
            return False
        self._row(line.expandtabs(8), line_no)
        return True

    def _plausible_row(self, line: str) -> bool:
        tokens = line.split()
        return len(tokens) >= 2 and bool(_STATE_WORD.match(tokens[1]))

    def _row(self, line: str, line_no: int) -> None:
        table, pool = self.table, self.pool
        assert table is not None and pool is not None
        tokens = list(re.finditer(r"\S+", line))
        indent, name = tokens[0].start(), tokens[0].group()
        if len(tokens) == 1 and name in _CLASS_HEADERS and table.root_indent is not None:
            table.vdev_class = _CLASS_HEADERS[name]
            table.stack = [(-1 if table.fragment else indent, table.vdev_class)]
            pool.classes.setdefault(table.vdev_class, [])
            return
        vdev = Vdev(name=name, state=None, vdev_class=table.vdev_class)
        rest = tokens[1:]
        if rest and _STATE_WORD.match(rest[0].group()):
            vdev.state = rest[0].group()
            rest = rest[1:]
        else:
            self._warn(f"line {line_no}: vdev row without a state: {line.strip()[:80]!r}", True)
        rest = self._counters(vdev, table.columns, rest)
        scripts = [c for c in table.columns if c not in _BUILTIN_COLUMNS]
        if scripts and rest:
            vdev.note = self._script_columns(vdev, scripts, line, rest)
        else:
            vdev.note = line[rest[0].start() :].strip() if rest else ""
        vdev.was_path = was_path(vdev.note)
        vdev.trim_progress = note_progress(vdev.note, "trimmed")
        vdev.initialize_progress = note_progress(vdev.note, "initialized")
        vdev.type = vdev_type_from_name(name)
        if name.startswith("/"):
            vdev.path = name
        self._place(vdev, indent, line_no)

    def _script_columns(
        self, vdev: Vdev, scripts: list[str], line: str, rest: list[re.Match[str]]
    ) -> str:
        """``zpool status -c`` values: after the row's notes, one token per script column.

        Returns the note: the notes before the values, then anything past the columns.
        """
        pos = rest[0].start()
        while True:
            m = _NOTE.match(line, pos)
            if m is None:
                break
            pos = m.end()
            while pos < len(line) and line[pos] in " \t":
                pos += 1
        values = [t for t in rest if t.start() >= pos]
        for column, token in zip(scripts, values, strict=False):
            vdev.printed[column] = token.group()
        extra = values[len(scripts) :]
        tail = line[extra[0].start() :].strip() if extra else ""
        return " ".join(x for x in (line[rest[0].start() : pos].strip(), tail) if x)

    def _counters(
        self, vdev: Vdev, columns: list[str], rest: list[re.Match[str]]
    ) -> list[re.Match[str]]:
        values = {
            "READ": "read_errors",
            "WRITE": "write_errors",
            "CKSUM": "checksum_errors",
            "SLOW": "slow_ios",
        }
        for column in columns:
            if not rest:
                break
            token = rest[0].group()
            if column in _NUMERIC_COLUMNS:
                if token != "-" and try_nice(token) is None:
                    if _NUMBER_LIKE.match(token) and column in values:
                        self._warn(
                            f"vdev {vdev.name!r}: {column} {token!r} is not a count zpool prints",
                            incomplete=True,
                        )
                        rest = rest[1:]
                        continue
                    break
            elif column == "POWER" and token not in ("on", "off", "-"):
                break
            elif column not in _BUILTIN_COLUMNS:
                break  # a -c script column: its values follow the notes
            vdev.printed[column] = token
            if column in values:
                setattr(vdev, values[column], try_nice(token))
            rest = rest[1:]
        return rest

    def _place(self, vdev: Vdev, indent: int, line_no: int) -> None:
        table, pool = self.table, self.pool
        assert table is not None and pool is not None
        if table.root_indent is None:
            table.root_indent = indent
            vdev.type = "root"
            pool.root = vdev
            if not pool.name:
                pool.name = vdev.name
            elif pool.name != vdev.name:
                pool.warnings.append(f"line {line_no}: table root {vdev.name!r} is not the pool")
            table.stack = [(indent, vdev)]
            return
        while table.stack and table.stack[-1][0] >= indent:
            table.stack.pop()
        if not table.stack:
            # A row at the root's level that is not a section header: keep it under the root.
            self._warn(f"line {line_no}: vdev {vdev.name!r} outside the pool tree", True)
            parent: Vdev | str = pool.root if pool.root is not None else "normal"
        else:
            parent = table.stack[-1][1]
        if isinstance(parent, str):
            vdev.depth = 1
            pool.classes.setdefault(parent, []).append(vdev)
        else:
            vdev.depth = parent.depth + 1
            vdev.parent = parent.name
            parent.children.append(vdev)
        table.stack.append((indent, vdev))

    # ---- pools ----

    def _finish_pool(self) -> None:
        self._end_key()
        self.table = None
        self.mode = "top"
        pool, self.pool = self.pool, None
        if pool is None:
            return
        pool.upgrade_available = upgrade_suggested(pool.status)
        self._demote_leaf_root(pool)
        self._promote_fragment_root(pool)
        if not pool.name and (pool.root is not None or pool.classes):
            pool.name = UNNAMED_POOL
        if pool.state is None and pool.root is not None and pool.root.state:
            # a pasted table without the header: the pool's own row carries its health
            pool.state = pool.root.state
            pool.incomplete.append("no state: line (the state is the pool row's)")
        for vdev in pool.vdevs():
            if not vdev.is_leaf:
                vdev.slow_ios = None  # only leaves count slow I/Os; -p prints 0 for the others
        pools = self.status.pools
        for i, other in enumerate(pools):
            if pool.name and other.name == pool.name:
                self.status.warnings.append(f"pool {pool.name!r} printed twice; the last one kept")
                pools[i] = pool
                return
        pools.append(pool)

    def _demote_leaf_root(self, pool: Pool) -> None:
        """A table whose first row is a leaf (a pasted row or two under the header).

        The pool's own row always has children. zpool counts slow I/Os only on leaves (2.2
        and later print ``-`` on interior rows, older ``-p`` output prints 0 there), so a
        childless first row with a non-zero SLOW count is a leaf, and so is a childless first
        row that the ``pool:`` line names differently. A childless first row alone is
        otherwise taken as the pool row of a cut table.
        """
        root = pool.root
        if root is None or root.children:
            return
        slow = try_nice(root.printed.get("SLOW"))
        other_name = id(pool) in self.named_by_line and root.name != pool.name
        if not slow and not other_name:
            return
        pool.root = None
        root.type = vdev_type_from_name(root.name)
        root.depth = 1
        pool.classes = {"normal": [root], **pool.classes}
        if id(pool) not in self.named_by_line:
            pool.name = ""
        pool.incomplete.append("the table shows no pool row (a fragment of the config)")

    def _promote_fragment_root(self, pool: Pool) -> None:
        """A fragment whose single top row has children is the pool's own row."""
        tops = pool.classes.get("normal", [])
        if pool.root is not None or len(tops) != 1 or not tops[0].children:
            return
        top = tops[0]
        if top.type != "disk" or (pool.name and pool.name != top.name):
            return
        del pool.classes["normal"]
        pool.root, top.type, pool.name = top, "root", top.name
        for vdev in top.walk():
            vdev.depth -= 1

    def _assign_unavailable(self) -> None:
        """Give stderr's 'List of errors unavailable' to the pools that printed no errors: line."""
        if not self.unavailable:
            return
        lacking = [p for p in self.status.pools if not p.errors_seen and p.root is not None]
        suspended = [p for p in lacking if (p.state or "").upper() == "SUSPENDED"]
        for pool in suspended or lacking:
            pool.errors_seen = True
            pool.errors_unavailable = True
            pool.errors_unavailable_reason = self.unavailable[0]


def _check_complete(pool: Pool) -> None:
    """Record why a pool's output cannot be trusted as a whole."""
    reasons = pool.incomplete
    if pool.state is None:
        reasons.append("no state: line")
    elif pool.state.upper() not in KNOWN_POOL_STATES:
        reasons.append(f"unknown pool state {pool.state!r}")
    if pool.root is None and not pool.classes:
        reasons.append("no config table")
    unknown = [v.name for v in pool.vdevs() if not v.state_known]
    if unknown:
        reasons.append(f"unknown vdev state: {', '.join(unknown[:5])}")
    if not pool.errors_seen:
        reasons.append("no errors: line (output cut short?)")
    elif pool.data_errors_present and pool.data_errors is None and not pool.errors_unavailable:
        reasons.append("permanent errors listed without a count")
