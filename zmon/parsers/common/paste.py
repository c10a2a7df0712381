"""What an admin pastes, turned back into the output it quotes: the front end of ``zmon parse``.

Outputs reach issues, mails and forums quoted with ``> `` on every line (nested too), after
the shell prompt and command that printed them, inside ``<pre>``/``<code>`` tags with their
HTML entities or in a Markdown fence, with CRLF line ends and trailing blanks. ``unwrap_paste``
removes a wrapping only when the whole input shows it: every non-blank line quoted, the tags
or fence opening the text, a prompt or command line naming a known tool as the first line, CRLF
ending every line; trailing blanks go with any of these, or when every line has them. Text
that merely contains ``>``, ``$`` or ``&lt;`` is left exactly as it is, and so is any input
that shows none of these patterns. The collectors read their commands' output directly and
never pass it through here.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

# Programs whose output ``zmon parse`` reads, and the ways people print a file or log.
_TOOLS = (
    r"zpool|zfs|zdb|smartctl|upsc|apcaccess|arcstat(?:\.py)?|arc_summary(?:\.py)?|sysctl"
    r"|dmesg|journalctl|cat|tail|head|grep|egrep|less|more|sesutil|camcontrol|geom|nvme|kstat"
)
_COMMAND = rf"(?:(?:sudo|doas|time|command)\s+(?:-\S+\s+)*)*(?:/\S*/)?(?:{_TOOLS})(?=\s|`|$)"
# A prompt: up to 80 characters (user@host:dir, [user@host dir], ~, a clock) ending in a
# prompt character, then optionally the working directory (oh-my-zsh prints it after ``➜``).
_PROMPTED = re.compile(rf"^`?[^<>\n]{{0,80}}?[$#%❯➜»λ>]\s+(?:[~/][^\s]*\s+)?{_COMMAND}")
# smartctl's output does not name its device: the parser reads it from this command line.
_NAMES_DEVICE = re.compile(r"(?:^|\s)(?:(?:sudo|doas)\s+)?smartctl\s.*?/dev/\S")
# Without a prompt, only a command line: the tool and then options, a subcommand or a path,
# never what a tool prints first (``smartctl 7.2 2020-12-30 r5155 [...]``).
_BARE = re.compile(
    r"^`?(?:(?:sudo|doas)\s+)?(?:"
    r"zpool\s+(?:status|list|iostat|events|get|history)\b"
    r"|zfs\s+(?:list|get)\b"
    r"|(?:smartctl|zdb|sysctl|dmesg|journalctl|arcstat(?:\.py)?|arc_summary(?:\.py)?)"
    r"(?:\s+-\S*.*)?$"
    r"|(?:cat|tail|head|grep|egrep)\s+(?:\S+\s+)*/\S*"
    r"|upsc\s+\S+@?\S*\s*$|apcaccess(?:\s+status)?\s*$"
    r")"
)
# A last line that is only a prompt: user@host:dir$, [user@host dir]#, ~ ❯, or a bare $ or #.
_BARE_PROMPT = re.compile(
    r"^(?:\([^()\s]*\)\s*)?(?:[\w.-]+@[\w.-]+(?::\S*)?|\[[^\]]{1,80}\]|~\S*)?\s*[$#%❯➜]\s*$"
)
_OPEN_TAGS = re.compile(r"^\s*(?:(?:<(?:pre|code)(?:\s[^<>]*)?>)|\[code\])+", re.IGNORECASE)
_CLOSE_TAGS = re.compile(r"(?:(?:</(?:pre|code)\s*>)|\[/code\])+\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(?:```|~~~)[\w+.-]*\s*$")
_QUOTE = re.compile(r"^[ \t]*>")
_MAX_ROUNDS = 16  # wrappings inside wrappings: quoted <pre>, fenced quote ...
_SHOWN = 80  # characters of a skipped command line shown in the note


@dataclass
class Unwrapped:
    """The output inside a paste and what was removed around it (nothing: the input)."""

    data: bytes
    skipped: list[str] = field(default_factory=list)

    def note(self) -> str:
        """What was skipped, in one line ("" when the input was used as it is)."""
        return "read as pasted, skipped " + ", ".join(self.skipped) if self.skipped else ""


def unwrap_paste(data: bytes) -> Unwrapped:
    """``data`` without the quoting, prompt, tags and line-end noise of a paste."""
    if not _looks_pasted(data):
        return Unwrapped(data)
    text = data.decode("utf-8", "surrogateescape")
    state = _State()
    if text.count("\n") and text.count("\n") == text.count("\r\n"):
        text = text.replace("\r\n", "\n")
        state.crlf = True
    text = text.removesuffix("\r") if state.crlf else text
    lines = text.split("\n")
    for _ in range(_MAX_ROUNDS):  # the outermost wrapping first, then look again
        before = len(state.changes)
        for step in (_unquote, _unfence, _untag, _drop_command_line):
            lines = step(lines, state)
            if len(state.changes) != before:
                break
        else:
            break
    padded = all(line[-1] in " \t" for line in lines if line.strip())  # a terminal's copy
    if not state.found() and not padded:
        return Unwrapped(data)
    stripped = [line.rstrip(" \t") for line in lines]
    blanks = sum(a != b for a, b in zip(lines, stripped, strict=True))
    out = "\n".join(stripped).encode("utf-8", "surrogateescape")
    return Unwrapped(out, state.summary(blanks))


class _State:
    def __init__(self) -> None:
        self.crlf = False
        self.quote_levels = 0
        self.tags = 0
        self.entities = False
        self.fences = 0
        self.commands: list[str] = []
        self.prompts = 0
        self.prompts_of: list[str] = []  # prompts before a command line that is kept
        self.kept: str | None = None
        self.changes: list[str] = []

    def found(self) -> bool:
        return self.crlf or bool(self.changes)

    def summary(self, blank_lines: int) -> list[str]:
        out = []
        if self.quote_levels:
            levels = f" ({self.quote_levels} levels)" if self.quote_levels > 1 else ""
            out.append(f"'> ' quoting{levels}")
        if self.fences:
            out.append("a code fence")
        if self.tags:
            out.append("<pre>/<code> tags" + (" and HTML entities" if self.entities else ""))
        out += [f"the command line {c!r}" for c in self.commands]
        out += [f"the prompt {p!r}" for p in self.prompts_of]
        if self.prompts:
            out.append("a trailing prompt")
        if self.crlf:
            out.append("CRLF line ends")
        if blank_lines:
            out.append(f"trailing blanks on {blank_lines} line{'s' * (blank_lines > 1)}")
        return out


def _looks_pasted(data: bytes) -> bool:
    """A cheap look at the start: no wrapping there, no paste (any size of input)."""
    if b"\r\n" in data[:4096] and data.count(b"\n") == data.count(b"\r\n"):
        return True
    first = data.lstrip()[:512]
    line = first.split(b"\n", 1)[0].decode("utf-8", "replace")
    return (
        first[:1] in (b">", b"<", b"`", b"~", b"[")
        or line[-1:] in (" ", "\t")
        or bool(_PROMPTED.match(line) or _BARE.match(line))
    )


def _nonblank(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if line.strip()]


def _unquote(lines: list[str], state: _State) -> list[str]:
    """One level of ``> `` quoting, when every non-blank line has it."""
    idx = _nonblank(lines)
    if not idx or not all(_QUOTE.match(lines[i]) for i in idx):
        return lines
    bodies = [lines[i].lstrip(" \t")[1:] for i in idx]
    spaced = all(b.startswith(" ") or not b.strip() for b in bodies)
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        body = line.lstrip(" \t")[1:]
        out.append(body[1:] if spaced and body.startswith(" ") else body)
    state.quote_levels += 1
    state.changes.append("quote")
    return out


def _unfence(lines: list[str], state: _State) -> list[str]:
    """A Markdown code fence opening the text (and its closing fence, if pasted)."""
    idx = _nonblank(lines)
    if not idx or not _FENCE.match(lines[idx[0]]):
        return lines
    last = idx[-1]
    end = last if len(idx) > 1 and _FENCE.match(lines[last]) else len(lines)
    state.fences += 1
    state.changes.append("fence")
    return lines[idx[0] + 1 : end] + lines[end + 1 :]


def _untag(lines: list[str], state: _State) -> list[str]:
    """``<pre>``/``<code>`` (or ``[code]``) opening the text, their closing tags, and the HTML
    entities inside them."""
    idx = _nonblank(lines)
    if not idx:
        return lines
    first = idx[0]
    opened = _OPEN_TAGS.match(lines[first])
    if not opened:
        return lines
    body = lines[first:]
    last = idx[-1] - first
    body[0] = body[0][opened.end() :]
    body[last] = _CLOSE_TAGS.sub("", body[last])
    alone = {i for i in {0, last} if not body[i].strip()}  # a tag on a line of its own
    if last in alone and last > 1 and not body[last - 1].strip():
        alone.add(last - 1)  # "...\n\n</pre>": the output's own last newline, then the tag's
    body = [line for i, line in enumerate(body) if i not in alone]
    unescaped = [html.unescape(line) for line in body]
    state.entities = state.entities or unescaped != body
    state.tags += 1
    state.changes.append("tags")
    return unescaped


def _drop_command_line(lines: list[str], state: _State) -> list[str]:
    """The prompt and command lines above the output, and a bare prompt after it. The last
    command is kept, without its prompt, when it names the device (smartctl's text output
    does not; its JSON has the command line in it)."""
    out = lines
    idx = _nonblank(out)
    dropped: list[str] = []
    while (
        idx
        and out[idx[0]] != state.kept
        and (_PROMPTED.match(out[idx[0]]) or _BARE.match(out[idx[0]]))
    ):
        dropped.append(out[idx[0]].strip())
        out = out[idx[0] + 1 :]
        idx = _nonblank(out)
    named = _NAMES_DEVICE.search(dropped[-1]) if dropped else None
    if named and not (idx and out[idx[0]].startswith("{")):
        command = dropped.pop()
        kept = command[named.start() :].strip()
        if kept != command:
            state.prompts_of.append(_shown(command[: len(command) - len(kept)].strip()))
            state.changes.append("prompt")
        state.kept = kept
        out = [kept, *out]
        idx = _nonblank(out)
    for command in dropped:
        state.commands.append(_shown(command))
        state.changes.append("command")
    if len(idx) > 1 and _BARE_PROMPT.match(out[idx[-1]]):
        state.prompts += 1
        state.changes.append("prompt")
        out = out[: idx[-1]] + out[idx[-1] + 1 :]
    return out


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."
