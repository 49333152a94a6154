"""Facts of Chomp read from a built table: every rectangle's winning first moves, and P-positions by box.

    python benchmarks/chomp_rectangles.py --db /scratch/chomp18 --table chomp_18x18
    python benchmarks/chomp_rectangles.py --db tb --table chomp_10x10 --markdown docs/chomp-rectangles.md

For every a x b rectangle with 1 <= a <= b <= N (a rows of b squares, the
poisoned square top-left), the number of winning first moves and which they
are, from a lookup of the rectangle (each move's child read from the probe
index); and for n = 1..N the number of P-positions whose diagram fits an n x n
box, counted from the table's lost positions (``grundy = 0`` in SQL), each
key unranked to its row lengths. A figure of both is checked where it is
known: the 1 x b bar's one winning move (leave the poisoned square alone),
and the square's (bite at (2,2), leaving an L of equal arms). The figures
go to the run's log (``benchmarks/results/chomp_rectangles.jsonl``) and, with
``--markdown``, to a page.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import report  # noqa: E402

import tablebase  # noqa: E402
from tablebase.games import young  # noqa: E402


def winning_moves(tb: tablebase.Tablebase, table: str, a: int, b: int) -> list[str]:
    found = tb.lookup(table, " ".join([str(b)] * a))
    return [m["move"] for m in found["moves"] if m["outcome"] == "P"]


def lost_by_box(tb: tablebase.Tablebase, table: str, rows: int, cols: int) -> list[int]:
    """P-positions whose diagram fits an n x n box, n = 1..max(rows, cols)."""
    keys = tb.sql(f"SELECT key FROM {table} WHERE grundy = 0", timeout=None).column("key").to_numpy()
    lengths = young.unrank_many(np.ascontiguousarray(keys, dtype=np.int64), rows, cols, young.binomials(rows + cols))
    height = (lengths > 0).sum(axis=1)
    box = np.maximum(lengths[:, 0], height)
    counts = np.bincount(box, minlength=max(rows, cols) + 1)
    return np.cumsum(counts)[1:].tolist()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, type=Path)
    parser.add_argument("--table", required=True)
    parser.add_argument("--markdown", type=Path, default=None, help="write the tables to this page")
    args = parser.parse_args()
    from tablebase.jit import compile_all

    compile_all()
    with tablebase.open(args.db, timeout=None, memory_limit="8GiB") as tb:
        manifest = tb._manifest(args.table)
        rows, cols = manifest.params["rows"], manifest.params["cols"]
        n = min(rows, cols)
        began = time.perf_counter()
        moves = {(a, b): winning_moves(tb, args.table, a, b) for b in range(1, n + 1) for a in range(1, b + 1)}
        looked = time.perf_counter() - began
        assert all(moves[(1, b)] == (["(1,2)"] if b > 1 else []) for b in range(1, n + 1)), "a bar's winning move"
        assert all("(2,2)" in moves[(b, b)] for b in range(2, n + 1)), "a square's winning move"
        began = time.perf_counter()
        boxes = lost_by_box(tb, args.table, rows, cols)
        counted = time.perf_counter() - began
    for (a, b), listed in sorted(moves.items()):
        report(f"rectangle {a}x{b}", winning=len(listed), moves=" ".join(listed))
    for size, count in enumerate(boxes[:n], 1):
        report(f"box {size}x{size}", p_positions=count)
    report("seconds", lookups=looked, counting=counted)
    if args.markdown:
        args.markdown.write_text(page(args.table, n, moves, boxes[:n]))


def page(table: str, n: int, moves: dict[tuple[int, int], list[str]], boxes: list[int]) -> str:
    lines = [f"# Chomp's rectangles, from `{table}`", "",
             "Made by `python benchmarks/chomp_rectangles.py` (its log: "
             "`benchmarks/results/chomp_rectangles.jsonl`). A rectangle a x b is a rows of b squares; a move",
             "(r,c) bites the square in row r, column c, counted from the poisoned corner (1,1), and every",
             "square below and right of it.", "",
             "## Winning first moves", "", "| a x b | winning moves | which |", "|---|---|---|"]
    for (a, b), listed in sorted(moves.items(), key=lambda item: (item[0][1], item[0][0])):
        lines.append(f"| {a} x {b} | {len(listed)} | {' '.join(listed)} |")
    lines += ["", "## P-positions inside an n x n box", "", "| n | P-positions |", "|---|---|"]
    lines += [f"| {i} | {count:,} |" for i, count in enumerate(boxes, 1)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
