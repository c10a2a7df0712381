"""Kernel-log fault patterns: a rule library loaded from TOML and a fast incremental scanner.

The scanner finds candidate lines with plain substring searches over a whole chunk of text
(``str.find`` runs in C), and only those lines are tried against the regexes of the rules whose
keywords occur in them. The first rule that matches a line wins: one event per line.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache
from importlib import resources
from typing import Any

_DEFINE_REF = re.compile(r"\$\{(\w+)\}")
_ISO_PREFIX = re.compile(
    r"^\s*(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2}))"
)
_MAX_CONTEXT_LINES = 16
_CARRY_CHARS = 16384
_BYTE_MESSAGE = ('"MESSAGE":[', '"MESSAGE": [')


class PatternError(ValueError):
    """A pattern definition that cannot be used; the message names the rule and the reason."""


@dataclass(frozen=True)
class ContextRule:
    """Where to look for the device when the matching line does not name one."""

    regex: re.Pattern[str]
    lines: int
    direction: str  # "before" | "after" | "around" (before first, then after)


@dataclass(frozen=True)
class Rule:
    """One way a fault shows up in the log; several rules may share a ``pattern`` name."""

    pattern: str
    regex: re.Pattern[str]
    keywords: tuple[str, ...] = ()
    context: ContextRule | None = None
    help: str = ""


@dataclass(frozen=True)
class KernelEvent:
    """One matching line: the pattern and what the line names (raw, as the kernel printed it)."""

    pattern: str
    device: str | None = None
    path: str | None = None
    controller: str | None = None
    pool: str | None = None
    timestamp: float | None = None


# ---------------------------------------------------------------- loading rules


def default_rules() -> list[Rule]:
    """The built-in library shipped as ``zmon/patterns/default.toml``."""
    text = resources.files("zmon").joinpath("patterns/default.toml").read_text("utf-8")
    return rules_from_toml(text, "built-in patterns")


def rules_from_toml(text: str, source: str = "patterns") -> list[Rule]:
    """Rules from a TOML document with ``[defines]`` and ``[[rule]]`` entries."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PatternError(f"{source}: not valid TOML: {exc}") from None
    unknown = set(data) - {"defines", "rule"}
    if unknown:
        raise PatternError(f"{source}: unknown top-level key(s) {', '.join(sorted(unknown))}")
    defines = data.get("defines", {})
    entries = data.get("rule", [])
    if not isinstance(defines, dict) or not isinstance(entries, list):
        raise PatternError(f"{source}: [defines] must be a table and [[rule]] an array of tables")
    return [rule_from_mapping(e, defines, f"{source} rule {i + 1}") for i, e in enumerate(entries)]


def rules_from_table(table: Mapping[str, Any], source: str = "patterns option") -> list[Rule]:
    """Rules from a config table ``{name: {regex, keywords, ...}}`` or ``{name: [{...}, ...]}``."""
    rules: list[Rule] = []
    for name, spec in table.items():
        specs = spec if isinstance(spec, list) else [spec]
        for i, one in enumerate(specs):
            if not isinstance(one, Mapping):
                raise PatternError(f"{source} {name!r}: expected a table with regex, got {one!r}")
            rules.append(rule_from_mapping({"pattern": name, **one}, {}, f"{source} {name!r}[{i}]"))
    return rules


_RULE_KEYS = {"pattern", "regex", "keywords", "context", "help"}


def rule_from_mapping(spec: Mapping[str, Any], defines: Mapping[str, str], where: str) -> Rule:
    """Validate and compile one rule definition."""
    if not isinstance(spec, Mapping):
        raise PatternError(f"{where}: expected a table, got {spec!r}")
    extra = set(spec) - _RULE_KEYS
    if extra:
        raise PatternError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
    name = spec.get("pattern")
    if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise PatternError(f"{where}: pattern must be a lower_snake_case name, got {name!r}")
    where = f"{where} ({name})"
    regex = _compile(_expand(spec.get("regex"), defines, where), where)
    keywords = spec.get("keywords", [])
    if not isinstance(keywords, list) or not all(isinstance(k, str) and k for k in keywords):
        raise PatternError(f"{where}: keywords must be a list of non-empty strings")
    if any("\n" in k for k in keywords):
        raise PatternError(f"{where}: keywords must not contain newlines")
    context = _context(spec.get("context"), defines, where)
    help_text = spec.get("help", "")
    if not isinstance(help_text, str):
        raise PatternError(f"{where}: help must be a string")
    return Rule(name, regex, tuple(dict.fromkeys(keywords)), context, help_text)


def _expand(regex: Any, defines: Mapping[str, str], where: str) -> str:
    if not isinstance(regex, str) or not regex:
        raise PatternError(f"{where}: regex must be a non-empty string")

    def sub(m: re.Match[str]) -> str:
        frag = defines.get(m.group(1))
        if not isinstance(frag, str):
            raise PatternError(f"{where}: unknown define ${{{m.group(1)}}}")
        return frag

    return _DEFINE_REF.sub(sub, regex)


def _compile(regex: str, where: str) -> re.Pattern[str]:
    try:
        return re.compile(regex)
    except re.error as exc:
        raise PatternError(f"{where}: bad regex: {exc}") from None


def _context(spec: Any, defines: Mapping[str, str], where: str) -> ContextRule | None:
    if spec is None:
        return None
    if not isinstance(spec, Mapping) or set(spec) - {"regex", "lines", "direction"}:
        raise PatternError(f"{where}: context must be a table of regex, lines, direction")
    regex = _compile(_expand(spec.get("regex"), defines, where + " context"), where + " context")
    lines = spec.get("lines", 3)
    if not isinstance(lines, int) or isinstance(lines, bool) or not 1 <= lines <= 16:
        raise PatternError(f"{where}: context lines must be an integer from 1 to 16")
    direction = spec.get("direction", "before")
    if direction not in ("before", "after", "around"):
        raise PatternError(f"{where}: context direction must be 'before', 'after' or 'around'")
    return ContextRule(regex, lines, direction)


def merge_rules(
    extra: Iterable[Rule], base: Iterable[Rule], disabled: Iterable[str] = ()
) -> list[Rule]:
    """Extra (site) rules first, so they win over the built-ins; drop disabled pattern names."""
    off = set(disabled)
    return [r for r in [*extra, *base] if r.pattern not in off]


# ---------------------------------------------------------------- scanning


def _groups(regex: re.Pattern[str], *prefixes: str) -> tuple[str, ...]:
    names = sorted(regex.groupindex.items(), key=lambda kv: kv[1])
    return tuple(n for n, _ in names if n.startswith(prefixes))


@dataclass(frozen=True)
class _Compiled:
    rule: Rule
    devices: tuple[str, ...]
    paths: tuple[str, ...]
    controllers: tuple[str, ...]
    pools: tuple[str, ...]

    @classmethod
    def of(cls, rule: Rule) -> _Compiled:
        rx = rule.regex
        return cls(
            rule,
            _groups(rx, "device"),
            _groups(rx, "path", "vdev"),
            _groups(rx, "controller"),
            _groups(rx, "pool"),
        )


class PatternSet:
    """Rules compiled for scanning: a keyword index and the rules that have no keywords."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = [_Compiled.of(r) for r in rules]
        index: dict[str, set[int]] = {}
        self.unindexed: list[tuple[int, re.Pattern[str]]] = []
        for i, c in enumerate(self.rules):
            if not c.rule.keywords:
                rx = c.rule.regex
                self.unindexed.append((i, re.compile(rx.pattern, rx.flags | re.MULTILINE)))
            for kw in c.rule.keywords:
                index.setdefault(kw, set()).add(i)
        self.keywords = tuple((kw, frozenset(ids)) for kw, ids in index.items())
        ctx = [c.rule.context for c in self.rules if c.rule.context]
        self.lines_before = max((c.lines for c in ctx if c.direction != "after"), default=0)

    def names(self) -> list[str]:
        """Distinct pattern names, in rule order."""
        return list(dict.fromkeys(c.rule.pattern for c in self.rules))


@dataclass
class _Pending:
    event: KernelEvent
    context: ContextRule
    lines_left: int


@dataclass
class Scanner:
    """Feeds of complete lines in, events out; keeps the little state context rules need.

    ``line_timestamps`` takes each event's time from the line (ISO 8601 prefix or journal JSON);
    otherwise events carry no time and the caller stamps them when they were read.
    """

    patterns: PatternSet
    line_timestamps: bool = False
    _carry: str = field(default="", repr=False)
    _pending: list[_Pending] = field(default_factory=list, repr=False)

    def feed(self, text: str) -> list[KernelEvent]:
        """Scan complete lines (text should end with a newline); never raises on odd input."""
        if not text:
            return []
        if not text.endswith("\n"):
            text += "\n"
        out = self._resolve_pending(text)
        buf = self._carry + text
        base = len(self._carry)
        hits = self._candidates(buf, base)
        for start in sorted(hits):
            end = buf.find("\n", start)
            event = self._match(buf, start, end, hits[start])
            if event is not None:
                out.append(event)
        self._carry = self._tail(buf) if self.patterns.lines_before else ""
        return out

    def flush(self) -> list[KernelEvent]:
        """Events still waiting for lines after them; they keep whatever they named."""
        out = [p.event for p in self._pending]
        self._pending = []
        return out

    @property
    def pending(self) -> int:
        return len(self._pending)

    def state(self) -> dict[str, Any]:
        """What the scanner holds between feeds, as JSON data: events waiting for the lines
        after them, and the last lines (context for the next feed)."""
        return {
            "carry": self._carry,
            "pending": [
                {
                    "event": dataclasses.asdict(p.event),
                    "context": p.context.regex.pattern,
                    "lines_left": p.lines_left,
                }
                for p in self._pending
            ],
        }

    def restore(self, state: Mapping[str, Any]) -> list[KernelEvent]:
        """Take back a ``state()``. Returns the waiting events whose rule is gone (the rules
        changed): they are done waiting and keep what they named. Raises ValueError or
        TypeError on data of another shape, leaving the scanner as it was."""
        carry = state["carry"]
        if not isinstance(carry, str) or len(carry) > _CARRY_CHARS:
            raise ValueError("carry: expected text of at most a few lines")
        waiting: list[_Pending] = []
        orphans: list[KernelEvent] = []
        for item in state["pending"]:
            event = _event_from(item["event"])
            lines_left = item["lines_left"]
            if isinstance(lines_left, bool) or not isinstance(lines_left, int) or lines_left < 1:
                raise ValueError(f"lines_left: expected a positive count, got {lines_left!r}")
            context = self._context_of(event.pattern, item["context"])
            if context is None:
                orphans.append(event)
            else:
                waiting.append(_Pending(event, context, min(lines_left, context.lines)))
        self._carry, self._pending = carry, waiting
        return orphans

    def _context_of(self, pattern: str, regex: object) -> ContextRule | None:
        for c in self.patterns.rules:
            ctx = c.rule.context
            if c.rule.pattern == pattern and ctx is not None and ctx.regex.pattern == regex:
                return ctx
        return None

    def _candidates(self, buf: str, base: int) -> dict[int, set[int]]:
        hits: dict[int, set[int]] = {}
        find, rfind = buf.find, buf.rfind
        for kw, ids in self.patterns.keywords:
            i = find(kw, base)
            while i >= 0:
                start = rfind("\n", 0, i) + 1
                got = hits.get(start)
                if got is None:
                    hits[start] = set(ids)
                else:
                    got |= ids
                end = find("\n", i)
                i = find(kw, end + 1) if end >= 0 else -1
        every = set(range(len(self.patterns.rules)))
        for marker in _BYTE_MESSAGE:  # journal JSON with a non-UTF-8 message: keywords can't see it
            i = find(marker, base)
            while i >= 0:
                hits.setdefault(rfind("\n", 0, i) + 1, set()).update(every)
                i = find(marker, i + 1)
        for rule_id, rx in self.patterns.unindexed:
            for m in rx.finditer(buf, base):
                start = rfind("\n", 0, m.start()) + 1
                hits.setdefault(start, set()).add(rule_id)
        return hits

    def _match(self, buf: str, start: int, end: int, rule_ids: set[int]) -> KernelEvent | None:
        raw = buf[start:end]
        line = _message(raw)
        for rule_id in sorted(rule_ids):
            compiled = self.patterns.rules[rule_id]
            m = compiled.rule.regex.search(line)
            if m is None:
                continue
            stamp = _timestamp(raw) if self.line_timestamps else None
            event = _event(compiled, m, stamp)
            ctx = compiled.rule.context
            if ctx is None or event.device or event.path:
                return event
            if ctx.direction != "after":
                found = _search_before(buf, start, ctx)
                if found is not None or ctx.direction == "before":
                    return _with_device(event, found)
            found, seen = _search_after(buf, end + 1, ctx)
            if found is None and seen < ctx.lines:
                self._pending.append(_Pending(event, ctx, ctx.lines - seen))
                return None
            return _with_device(event, found)
        return None

    def _resolve_pending(self, text: str) -> list[KernelEvent]:
        out: list[KernelEvent] = []
        still: list[_Pending] = []
        for p in self._pending:
            found, seen = _search_after(text, 0, p.context, p.lines_left)
            if found is None and seen < p.lines_left:
                still.append(_Pending(p.event, p.context, p.lines_left - seen))
            else:
                out.append(_with_device(p.event, found))
        self._pending = still
        return out

    def _tail(self, buf: str) -> str:
        tail = buf[-_CARRY_CHARS:]
        cut = len(tail) - 1
        for _ in range(self.patterns.lines_before):
            cut = tail.rfind("\n", 0, cut)
            if cut < 0:
                return tail if len(buf) <= _CARRY_CHARS else tail[tail.find("\n") + 1 :]
        return tail[cut + 1 :]


def _event_from(data: Mapping[str, Any]) -> KernelEvent:
    """A ``KernelEvent`` from its ``asdict`` form, every field checked."""
    pattern = data["pattern"]
    if not isinstance(pattern, str):
        raise TypeError("pattern: expected a string")
    names = {}
    for key in ("device", "path", "controller", "pool"):
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{key}: expected a string or null")
        names[key] = value
    stamp = data.get("timestamp")
    if stamp is not None and (isinstance(stamp, bool) or not isinstance(stamp, (int, float))):
        raise TypeError("timestamp: expected a number or null")
    return KernelEvent(pattern=pattern, timestamp=stamp, **names)


def _first(m: re.Match[str], names: tuple[str, ...]) -> str | None:
    for n in names:
        v = m.group(n)
        if v:
            return v
    return None


def _event(c: _Compiled, m: re.Match[str], stamp: float | None) -> KernelEvent:
    return KernelEvent(
        pattern=c.rule.pattern,
        device=_first(m, c.devices),
        path=_first(m, c.paths),
        controller=_first(m, c.controllers),
        pool=_first(m, c.pools),
        timestamp=stamp,
    )


def _with_device(event: KernelEvent, device: str | None) -> KernelEvent:
    return event if device is None else replace(event, device=device)


def _context_device(line: str, ctx: ContextRule) -> str | None:
    m = ctx.regex.search(_message(line))
    if m is None:
        return None
    return _first(m, _context_groups(ctx.regex))


@lru_cache(maxsize=256)
def _context_groups(regex: re.Pattern[str]) -> tuple[str, ...]:
    return _groups(regex, "device", "path", "vdev")


def _search_before(buf: str, start: int, ctx: ContextRule) -> str | None:
    end = start - 1
    for _ in range(min(ctx.lines, _MAX_CONTEXT_LINES)):
        if end < 0:
            return None
        begin = buf.rfind("\n", 0, end) + 1
        found = _context_device(buf[begin:end], ctx)
        if found:
            return found
        end = begin - 1
    return None


def _search_after(
    buf: str, pos: int, ctx: ContextRule, lines: int | None = None
) -> tuple[str | None, int]:
    """(device found, lines looked at) in up to ``lines`` complete lines from ``pos``."""
    limit = min(ctx.lines if lines is None else lines, _MAX_CONTEXT_LINES)
    seen = 0
    while seen < limit:
        end = buf.find("\n", pos)
        if end < 0:
            break
        seen += 1
        found = _context_device(buf[pos:end], ctx)
        if found:
            return found, seen
        pos = end + 1
    return None, seen


def _journal_record(line: str) -> dict[str, Any] | None:
    if not line.startswith("{"):
        return None
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None


def journal_message(rec: Mapping[str, Any]) -> str | None:
    """MESSAGE of a ``journalctl -o json`` record (text, or bytes given as a number list)."""
    msg = rec.get("MESSAGE")
    if isinstance(msg, str):
        return msg
    if isinstance(msg, list) and all(isinstance(b, int) and 0 <= b < 256 for b in msg):
        return bytes(msg).decode("utf-8", "replace")
    return None


def _message(line: str) -> str:
    rec = _journal_record(line)
    if rec is None:
        return line
    msg = journal_message(rec)
    return line if msg is None else msg.replace("\n", " ")


def _timestamp(line: str) -> float | None:
    """Absolute time a line carries: ISO 8601 with offset, or journal JSON realtime."""
    rec = _journal_record(line)
    if rec is not None:
        micro = rec.get("__REALTIME_TIMESTAMP")
        if isinstance(micro, str) and micro.isdigit():
            return int(micro) / 1e6
        return None
    m = _ISO_PREFIX.match(line)
    if m is None:
        return None
    try:
        return datetime.fromisoformat(m.group(1).replace(",", ".")).timestamp()
    except ValueError:
        return None


def scan_text(text: str, patterns: PatternSet, line_timestamps: bool = True) -> list[KernelEvent]:
    """All events in a complete text (a capture), context rules included."""
    scanner = Scanner(patterns, line_timestamps=line_timestamps)
    return [*scanner.feed(text), *scanner.flush()]
