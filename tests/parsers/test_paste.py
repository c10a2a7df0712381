"""``zmon parse`` reads an output the way admins paste it, and only then strips anything.

Every real output in tests/fixtures that a ``zmon parse`` kind takes, quoted with ``> ``, after
a shell prompt line, inside ``<pre>`` tags with HTML entities (and, drawn by hypothesis, any
mix of these with nested quoting, code fences, CRLF and trailing blanks) gives exactly the
exposition of the clean file, or the same refusal. Text that only contains ``>``, ``$`` or an
entity is left alone.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import FIXTURES
from zmon.base.errors import ParseError
from zmon.cli import main
from zmon.collecting.registry import parse_kinds
from zmon.exposition.formats import render
from zmon.parsers.common.paste import unwrap_paste

LAB = r"(?:lab/[^/]+/[^/]+|pools/lab/[^/]+|perf/lab/[^/]+/[^/]+|zpool_status/lab/[^/]+(?:/[^/]+)?)"
# relative path -> the kinds that read it (a kstat dump is also a txgs input, -D output both)
KINDS: list[tuple[str, tuple[str, ...]]] = [
    (r"ups/(?:synthetic_)?apcaccess_.*\.txt", ("apcaccess",)),
    (r"ups/(?:synthetic_)?upsc_.*\.txt", ("upsc",)),
    (r"ups/wider/apcaccess_.*\.txt", ("apcaccess",)),
    (r"ups/wider/upsc_.*\.txt|ups/ddl/.*\.dev", ("upsc",)),
    (r"disks/json/.*\.json", ("smartctl",)),
    (r"zpool_status/wider/.*\.txt", ("zpool-status",)),
    (r"arc/corpus/arcstats_.*\.txt|(?:arc/)?(?:lab|perf/lab)/.*/arcstats\.txt", ("arcstats",)),
    (r"arc/kstat/(?:txgs|dmu_tx_assign)\.txt", ("kstat", "txgs")),
    (rf"{LAB}/kstat-\w+-(?:txgs|dmu_tx_assign)\.txt", ("kstat", "txgs")),
    (r".*/proc/spl/kstat/zfs/\w+/(?:txgs|dmu_tx_assign)", ("kstat", "txgs")),
    (r"arc/kstat/.*\.txt|pools/synthetic/kstat-oldpool-io\.txt|.*/proc/spl/kstat/zfs/\w+",
     ("kstat",)),
    (rf"{LAB}/kstat-\w+-(?:iostats|objset-0x\w+|ddt_stats_\w+)\.txt", ("kstat",)),
    (r"kernel_log/.*\.txt|lab/[^/]+/[^/]+/dmesg\.txt|status/.*\.log", ("kernel-log",)),
    (r"disks/corpus/.*|disks/qemu/smartctl-[ax]-.*|disks/synthetic/(?:ata|nvme|sas)_.*",
     ("smartctl",)),
    (r"lab/[^/]+/[^/]+/smartctl-.*\.json", ("smartctl",)),
    (r"zfs_module/lab/.*\.txt|arc/lab/[^/]+/module-parameters\.txt", ("zfs-module",)),
    (r"pools/corpus/dedup_.*|pools/synthetic/ddt-status-.*", ("zpool-dedup",)),
    (rf"{LAB}/zpool-status-(?:D-p|t-D)\.txt", ("zpool-dedup", "zpool-status")),
    (r"pools/corpus/zpool_events_.*|pools/events/.*|lab/[^/]+/[^/]+/zpool-events-H\.txt",
     ("zpool-events",)),
    (r"perf/corpus/.*|perf/lab/.*zpool-iostat-.*", ("zpool-iostat",)),
    (r"lab/[^/]+/slowdown/[^/]+/arcstats-(?:start|end)\.txt", ("arcstats",)),
    (r"lab/[^/]+/slowdown/[^/]+/zpool-iostat-p-w-v-(?:start|end)\.txt", ("zpool-iostat",)),
    (rf"{LAB}/zpool-(?:list|get)-.*\.txt|pools/lab/zfs-fuse-0\.7\.0/.*zpool-(?:list|get).*"
     r"|zpool_status/lab/[^/]+/zpool-get-Hp-guid\.txt|pools/lab/[^/]+/zpool-list\.txt",
     ("zpool-list",)),
    (r"zpool_status/corpus/.*|zpool_status/lab/.*zpool-status.*|status/.*zpool_status\.txt",
     ("zpool-status",)),
    (rf"{LAB}/zpool-status(?:-p-v-s|-x)?\.(?:txt|json)", ("zpool-status",)),
]  # fmt: skip
# Fixtures that are not the output of a parse kind: facts, reports, zfs datasets, device lists.
NOT_OUTPUTS = re.compile(
    r"disks/(?:ahci|jbod|linux)-host/.*|.*\.(?:md|tsv|prom|err|out)|.*/facts\.txt"
    r"|.*/report\.txt|.*/zfs-(?:list|get|version).*|.*/kstat-\w+-(?:state|guid)\.txt"
    r"|disks/freebsd/.*|.*smartctl-scan-open\.json|disks/synthetic/scan-open-nas\.json"
    r"|arc/freebsd_legacy_arcstats_fields\.txt|arc/openzfs_arcstats_fields\.tsv"
    r"|pools/synthetic/kstat-oldpool-state\.txt|pools/lab/zfs-fuse-0\.7\.0/(?:datasets|snapshots)/.*"
    r"|arc/(?:proc|sys)/.*|lab/[^/]+/slowdown/windows\.txt|lab/[^/]+/leadtime/ramp-scrapes\.txt"
)
COMMANDS = {
    "apcaccess": "apcaccess status", "upsc": "upsc ups@localhost",
    "arcstats": "cat /proc/spl/kstat/zfs/arcstats", "kstat": "tail -n +1 /proc/spl/kstat/zfs/*",
    "txgs": "cat /proc/spl/kstat/zfs/tank/txgs", "kernel-log": "dmesg -T",
    "smartctl": "smartctl -x /dev/sda", "zfs-module": "grep -H . /sys/module/zfs/parameters/*",
    "zpool-dedup": "zpool status -D", "zpool-events": "zpool events -v",
    "zpool-iostat": "zpool iostat -v", "zpool-list": "zpool list -p store",
    "zpool-status": "zpool status -t",
}  # fmt: skip
PROMPTS = ["root@host:~# ", "~ ❯ ", "$ ", "[admin@nas ~]$ ", "user@box:/tank$ sudo ", "% ",
           "➜  ~ ", "(venv) user@host:~$ ", "nas# ", ""]  # fmt: skip


def kinds_of(rel: str) -> tuple[str, ...]:
    for pattern, kinds in KINDS:
        if re.fullmatch(pattern, rel):
            return kinds
    return ()


def real_outputs() -> list[tuple[str, str]]:
    """(relative path, kind) for every fixture a ``zmon parse`` kind reads."""
    out = []
    for path in sorted(FIXTURES.rglob("*")):
        rel = path.relative_to(FIXTURES).as_posix()
        if path.is_file():
            out += [(rel, kind) for kind in kinds_of(rel)]
    return out


OUTPUTS = real_outputs()


def read(kind: str, data: bytes) -> str:
    """What ``zmon parse`` makes of ``data``: the exposition or the refusal."""
    try:
        return render(parse_kinds()[kind][0](data).families()).decode()
    except ParseError as exc:
        return f"refused: {exc}"


@cache
def clean(rel: str, kind: str) -> str:
    """The records of a fixture as it is (a fixture that is itself a real paste, such as one
    kept with its forum's <pre> tags, reads as its unwrapped output)."""
    return read(kind, unwrap_paste((FIXTURES / rel).read_bytes()).data)


def pasted(kind: str, data: bytes) -> str:
    return read(kind, unwrap_paste(data).data)


def quoted(data: bytes, prefix: bytes = b"> ") -> bytes:
    """Each line quoted; blank lines as a bare ``>`` (as mail and GitHub do)."""
    return b"".join(
        (prefix.rstrip() if not line.strip() else prefix) + line
        for line in data.splitlines(keepends=True)
    )


def after_prompt(data: bytes, kind: str, prompt: str = "root@host:~# ") -> bytes:
    return f"{prompt}{COMMANDS[kind]}\n".encode() + data


def in_pre(data: bytes, open_tag: str = "<pre>", close_tag: str = "</pre>") -> bytes:
    """As HTML writes it: a newline right after ``<pre>`` is not content, so a leading blank
    line takes a second one."""
    text = data.decode("utf-8", "surrogateescape")
    lead = "\n" if text.startswith("\n") and not open_tag.endswith("\n") else ""
    body = open_tag + lead + html.escape(text) + close_tag + "\n"
    return body.encode("utf-8", "surrogateescape")


def clean_after_prompt(rel: str, kind: str) -> str:
    """A smartctl text output does not name its device: the pasted command line does."""
    want = clean(rel, kind)
    if kind == "smartctl" and not want.startswith("refused"):
        return want.replace('device="unknown"', 'device="sda"')
    return want


def test_every_real_output_fixture_is_read_here() -> None:
    """A new fixture of a parse kind's output joins the property below (or is named as not one)."""
    unknown = [
        rel
        for path in sorted(FIXTURES.rglob("*"))
        if path.is_file()
        and not kinds_of(rel := path.relative_to(FIXTURES).as_posix())
        and not NOT_OUTPUTS.fullmatch(rel)
    ]
    assert not unknown, f"fixtures with no parse kind here: {unknown}"
    assert {k for _, k in OUTPUTS} == set(parse_kinds())
    assert len(OUTPUTS) > 600


@pytest.mark.parametrize(("rel", "kind"), OUTPUTS, ids=[f"{k}:{r}" for r, k in OUTPUTS])
def test_a_pasted_output_reads_as_the_clean_one(rel: str, kind: str) -> None:
    data = (FIXTURES / rel).read_bytes()
    want = clean(rel, kind)
    assert pasted(kind, quoted(data)) == want, "quoted with '> '"
    assert pasted(kind, after_prompt(data, kind)) == clean_after_prompt(rel, kind), "after a prompt"
    assert pasted(kind, in_pre(data)) == want, "inside <pre> tags"


WRAPPINGS: dict[str, Callable[[bytes, str, st.DataObject], bytes]] = {
    "prompt": lambda d, k, draw: after_prompt(d, k, draw.draw(st.sampled_from(PROMPTS))),
    "pre": lambda d, k, draw: in_pre(
        d, *draw.draw(st.sampled_from([("<pre>", "</pre>"), ("<pre><code>", "</code></pre>"),
                                       ("<pre>\n", "\n</pre>"), ("<code>", "</code>"),
                                       ('<pre class="notranslate">', "</pre>")]))),
    "fence": lambda d, k, draw: b"```" + draw.draw(st.sampled_from([b"", b"text", b"console"]))
    + b"\n" + d + (b"" if d.endswith(b"\n") else b"\n") + b"```\n",
    "blanks": lambda d, k, draw: b"".join(
        line.rstrip(b"\n") + draw.draw(st.sampled_from([b" ", b"  ", b"\t", b" \t"]))
        + (b"\n" if line.endswith(b"\n") else b"")
        for line in d.splitlines(keepends=True)),
    "crlf": lambda d, k, draw: d.replace(b"\n", b"\r\n"),
    "quote": lambda d, k, draw: quoted(d, draw.draw(st.sampled_from([b"> ", b">", b"> > "]))),
}  # fmt: skip


@pytest.mark.slow
@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.data())
def test_any_mix_of_wrappings_reads_as_the_clean_output(data: st.DataObject) -> None:
    """Wrappings inside wrappings, in the order they happen: the prompt is pasted with the
    output, tags or a fence go around both, the terminal adds blanks, the mail adds quoting."""
    rel, kind = data.draw(st.sampled_from(OUTPUTS), label="fixture")
    text = (FIXTURES / rel).read_bytes()
    if b"\r" in text:  # a CR inside a line is content: CRLF would be ambiguous
        return
    order = ["prompt", "pre", "fence", "blanks", "crlf", "quote", "quote"]
    want = clean(rel, kind)
    for name in order:
        if data.draw(st.booleans(), label=name):
            if name == "fence" and b"```" in text:
                continue
            text = WRAPPINGS[name](text, kind, data)
            want = clean_after_prompt(rel, kind) if name == "prompt" else want
    assert pasted(kind, text) == want


def test_quoted_status_of_two_pools_is_read() -> None:
    """Seen: a quoted ``zpool status -t`` of two pools exited 'no zpool status output found'."""
    rel = "zpool_status/corpus/zpool_status_70_freebsd_two_pools_mfi_illumos_msg_repaired_40K.txt"
    data = quoted((FIXTURES / rel).read_bytes())
    assert read("zpool-status", data).startswith("refused: line 1: no zpool status output found")
    got = pasted("zpool-status", data)
    assert got == clean(rel, "zpool-status")
    assert 'pool="zdisk2"' in got and 'pool="zroot"' in got


def test_list_after_a_prompt_line_is_read() -> None:
    """Seen: 'cannot infer zpool list columns from 6 fields' from the prompt line."""
    rel = "pools/lab/2.3.2-01-healthy/zpool-list.txt"
    data = b"~ \xe2\x9d\xaf zpool list -p store\n" + (FIXTURES / rel).read_bytes()
    assert "cannot infer zpool list columns from 6 fields" in read("zpool-list", data)
    assert pasted("zpool-list", data) == clean(rel, "zpool-list")


@pytest.mark.parametrize(
    "text",
    [
        # '>' in the text, not on every line
        "Vendor:               SEAGATE\n> not quoting\nSerial number:        Z1Z0\n",
        # a first line with '$' or '#' that names no command
        "$ 12 dollars\nline two\n",
        "# comment line\nline two\n",
        "smartctl 7.2 2020-12-30 r5155 [x86_64-linux-5.10.0] (local build)\nrest\n",
        # entities outside <pre> tags
        "name: a &lt;b&gt;\n",
        # trailing blanks and a lone CR line end, without any paste around them
        "value  \t\nnext\r\nlast\n",
        # a last line of '100%' (not a prompt)
        "  pool: tank\n100%\n",
    ],
)
def test_text_that_only_contains_paste_characters_is_left_alone(text: str) -> None:
    data = text.encode()
    unwrapped = unwrap_paste(data)
    assert unwrapped.data == data
    assert unwrapped.skipped == []


def test_nested_quoting_with_blank_lines_prompt_tags_and_entities() -> None:
    paste = (
        b"> > <pre><code>root@host:~# zpool status -t\r\n"
        b"> >   pool: a&amp;b\r\n"
        b">\r\n"
        b"> >  state: ONLINE  \r\n"
        b"> > errors: No known data errors\t\r\n"
        b"> > </code></pre>\r\n"
    )
    unwrapped = unwrap_paste(paste)
    assert unwrapped.data == (b"  pool: a&b\n\n state: ONLINE\nerrors: No known data errors\n")
    assert unwrapped.note() == (
        "read as pasted, skipped '> ' quoting (2 levels), <pre>/<code> tags and HTML entities,"
        " the command line 'root@host:~# zpool status -t', CRLF line ends,"
        " trailing blanks on 2 lines"
    )


def test_the_newline_around_a_pre_tag_on_its_own_line_is_markup() -> None:
    """As HTML reads ``<pre>``: the line break after the opening tag and before a closing tag
    on its own line belong to the tags, so the output's lines are counted as printed."""
    log = b"ata1: hard resetting link\nata1: SATA link down\n"
    for paste in (b"<pre>\n" + log + b"\n</pre>\n", b"<pre>" + log + b"</pre>\n"):
        assert unwrap_paste(paste).data == log
    assert pasted("kernel-log", b"<pre>\n" + log + b"\n</pre>\n") == read("kernel-log", log)


def test_quoting_is_stripped_before_a_command_line_is_looked_for() -> None:
    """A quoted smartctl command above JSON: the quote is no prompt, the JSON names its device."""
    rel = "disks/corpus/smartctl_json_02_nvme_sabrent_rocket_7.4.json"
    data = quoted(after_prompt((FIXTURES / rel).read_bytes(), "smartctl", ""), b"> > ")
    assert pasted("smartctl", data) == clean(rel, "smartctl")


def test_a_trailing_prompt_is_skipped() -> None:
    data = b"$ upsc ups\nbattery.charge: 100\nups.status: OL\nroot@nas:~# \n"
    assert unwrap_paste(data).data == b"battery.charge: 100\nups.status: OL\n"


def test_cli_says_in_one_line_what_it_skipped(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    rel = "pools/lab/2.3.2-01-healthy/zpool-list.txt"
    path = tmp_path / "paste.txt"
    path.write_bytes(quoted(after_prompt((FIXTURES / rel).read_bytes(), "zpool-list")))
    assert main(["parse", "zpool-list", str(path)]) == 0
    out = capsysbinary.readouterr()
    assert out.out.decode() == clean(rel, "zpool-list")
    assert out.err.decode() == (
        f"zmon parse zpool-list: {path}: read as pasted, skipped '> ' quoting,"
        " the command line 'root@host:~# zpool list -p store'\n"
    )
    clean_path = FIXTURES / rel
    assert main(["parse", "zpool-list", str(clean_path)]) == 0
    assert capsysbinary.readouterr().err == b""


def test_cli_streams_a_large_log_as_it_is(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the paste size a stream kind reads the input unchanged, in bounded memory."""
    import zmon.cli

    log = (
        FIXTURES / "kernel_log/log_06_linux_libata_badcrc_interface_fatal_error.txt"
    ).read_bytes()
    path = tmp_path / "big.log"
    path.write_bytes(log * 3)
    monkeypatch.setattr(zmon.cli, "PASTE_LIMIT", len(log))
    assert main(["parse", "kernel-log", str(path)]) == 0
    assert capsysbinary.readouterr().out.decode() == read("kernel-log", log * 3)
