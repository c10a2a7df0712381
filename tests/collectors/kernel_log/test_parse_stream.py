"""``zmon parse kernel-log`` reads its input as a stream, in chunks of whole lines.

Any chunk size gives the same counts as the whole text at once (context rules that look at
the next or previous line included), so a log of gigabytes is read in bounded memory.
"""

from __future__ import annotations

import io

import pytest

from tests.helpers import fixture_path
from zmon.base.errors import ParseError
from zmon.cli import main
from zmon.collectors.kernel_log import parse_kernel_log, parse_kernel_log_stream
from zmon.exposition.formats import render

FIXTURES = sorted(p.name for p in fixture_path("kernel_log").glob("*.txt"))


@pytest.mark.parametrize("name", FIXTURES)
@pytest.mark.parametrize("chunk_size", [1, 7, 4096])
def test_any_chunk_size_counts_the_same(name: str, chunk_size: int) -> None:
    data = fixture_path("kernel_log", name).read_bytes()
    whole = render(parse_kernel_log(data))
    assert render(parse_kernel_log_stream(io.BytesIO(data), chunk_size)) == whole
    if data.endswith(b"\n"):  # and without the last newline: the last line still counts
        cut = render(parse_kernel_log_stream(io.BytesIO(data[:-1]), chunk_size))
        assert cut == render(parse_kernel_log(data[:-1]))


def test_nul_byte_is_reported_with_its_line_across_chunks() -> None:
    data = b"line one\nline two\nline\x00three\n"
    with pytest.raises(ParseError) as err:
        parse_kernel_log_stream(io.BytesIO(data), chunk_size=4)
    assert err.value.line_no == 3


def test_cli_streams_a_file(tmp_path, capsysbinary) -> None:  # type: ignore[no-untyped-def]
    name = FIXTURES[0]
    path = fixture_path("kernel_log", name)
    assert main(["parse", "kernel-log", str(path)]) == 0
    assert capsysbinary.readouterr().out == render(parse_kernel_log(path.read_bytes()))
    assert main(["parse", "kernel-log", str(tmp_path / "missing.log")]) == 2
