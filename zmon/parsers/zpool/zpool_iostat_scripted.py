"""The ``zpool iostat -H`` table: its layout from the value count, the tree from capacities."""

from __future__ import annotations

from zmon.base.errors import ParseError
from zmon.parsers.zpool.zpool_iostat_histograms import aligned_block, scripted_block
from zmon.parsers.zpool.zpool_iostat_model import (
    DASHES,
    DEFAULT_COLUMNS,
    HISTO_BASE,
    HISTO_EXTRA,
    HISTO_HEADER,
    QUEUES,
    UNKNOWN_CLASS,
    PoolIostat,
    VdevIostat,
    ZpoolIostat,
)
from zmon.parsers.zpool.zpool_iostat_model import values as row_values


def _scripted_layouts() -> dict[int, tuple[str, ...]]:
    """Value counts of ``-H`` rows -> columns, per version (0.7, 0.8-2.1, 2.2+).

    Where counts collide (16: ``-l`` on 0.8-2.1 or ``-q`` on 0.7), ``-l`` wins.
    """
    layouts: dict[int, tuple[str, ...]] = {len(DEFAULT_COLUMNS): DEFAULT_COLUMNS}
    versions = ((1, 5), (2, 6), (3, 7))
    lat = {n: HISTO_BASE + HISTO_EXTRA[:n] for n, _ in versions}
    queues = {
        q: tuple(f"{n}_{s}" for n in QUEUES[:q] for s in ("pend", "activ")) for _, q in versions
    }
    for _, q in versions:
        layouts[len(DEFAULT_COLUMNS) + 2 * q] = DEFAULT_COLUMNS + queues[q]
    for n, q in versions:
        layouts[len(DEFAULT_COLUMNS) + 8 + n] = DEFAULT_COLUMNS + lat[n]
        layouts[len(DEFAULT_COLUMNS) + 8 + n + 2 * q] = DEFAULT_COLUMNS + lat[n] + queues[q]
    return layouts


SCRIPTED_LAYOUTS = _scripted_layouts()


def parse_scripted(lines: list[str]) -> ZpoolIostat:
    """The tab-separated ``-H`` table and ``-w`` blocks."""
    result = ZpoolIostat(scripted=True)
    rows: list[tuple[str, dict[str, int | None], bool, int]] = []
    after_blank = False
    seen_blocks: set[str] = set()
    blocks_done = table_done = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            after_blank = bool(rows)
            i += 1
            continue
        fields = line.split("\t")
        if len(fields) == 1 and DASHES.match(line.strip()):
            i += 1
            continue
        if len(fields) == 1:
            nxt = lines[i + 1].split()[:1] if i + 1 < len(lines) else []
            if (m := HISTO_HEADER.match(line.strip())) and nxt == ["latency"]:
                block, i = aligned_block(lines, i, m.group("name"))
            else:
                block, i = scripted_block(lines, i)
            blocks_done = blocks_done or block.name in seen_blocks
            seen_blocks.add(block.name)
            if not blocks_done:
                result.histograms.append(block)
            continue
        columns = SCRIPTED_LAYOUTS.get(len(fields) - 1)
        if columns is None or not fields[0]:
            raise ParseError(f"{len(fields) - 1} values is no zpool iostat -H layout", i + 1, line)
        if result.columns and columns != result.columns:
            raise ParseError("the column count changed within the table", i + 1, line)
        result.columns = columns
        values = row_values(columns, fields[1:], i + 1, line)
        if rows and fields[0] == rows[0][0] and not after_blank:
            table_done = True  # the pool list starts again: a second sample
        if not table_done:
            rows.append((fields[0], values, after_blank, i + 1))
        after_blank = False
        i += 1
    result.pools = _ScriptedTree(rows).build()
    result.has_tree = False
    return result


class _ScriptedTree:
    """Rebuild pools from ``-H -v`` rows, which carry no indentation and no class names.

    Rows without capacity (``0 0``) sit below a top-level vdev. A blank line starts a class
    group (``dedup``, ``special``, ``logs``, ``cache``: which one is not printed). A row with
    capacity starts a new pool when the capacities of the current pool's top-level vdevs
    already add up to the pool's exactly, or, inside the class groups, when the rows after it
    add up to its own capacity. The aligned form (what the collector runs) needs none of this.
    """

    def __init__(self, rows: list[tuple[str, dict[str, int | None], bool, int]]) -> None:
        self.rows = rows

    @staticmethod
    def _cap(values: dict[str, int | None]) -> tuple[int, int] | None:
        alloc, free = values.get("capacity_alloc") or 0, values.get("capacity_free") or 0
        return (alloc, free) if alloc or free else None

    def _starts_pool(self, idx: int) -> bool:
        want = self._cap(self.rows[idx][1])
        assert want is not None
        alloc = free = 0
        for _, values, after_blank, _ in self.rows[idx + 1 :]:
            if after_blank:
                return 0 < free < want[1] and alloc <= want[0]
            cap = self._cap(values)
            if cap is not None:
                alloc, free = alloc + cap[0], free + cap[1]
                if (alloc, free) == want:
                    return True
                if alloc > want[0] or free > want[1]:
                    return False
        return False

    def build(self) -> list[PoolIostat]:
        pools: list[PoolIostat] = []
        pool_cap: tuple[int, int] | None = None
        normal = [0, 0]
        in_groups = False
        for idx, (name, values, after_blank, line_no) in enumerate(self.rows):
            cap = self._cap(values)
            new_pool = not pools or (
                cap is not None
                and not after_blank
                and (
                    (not in_groups and tuple(normal) == pool_cap)
                    or (in_groups and self._starts_pool(idx))
                )
            )
            if new_pool:
                pools.append(PoolIostat(name))
                pools[-1].rows.append(VdevIostat(name, name, 0, "normal", values, line_no))
                pool_cap, normal, in_groups = cap, [0, 0], False
                continue
            in_groups = in_groups or after_blank
            vdev_class = UNKNOWN_CLASS if in_groups else "normal"
            depth = 1 if cap is not None or after_blank else 2
            if depth == 1 and not in_groups and cap is not None:
                normal = [normal[0] + cap[0], normal[1] + cap[1]]
            pool = pools[-1]
            pool.rows.append(VdevIostat(pool.name, name, depth, vdev_class, values, line_no))
        return pools
