"""A range's questions and assembly as a cluster's partitions grow: their time against one partition's.

    python benchmarks/bench_ranges.py                      # 100,000 positions, 40 moves each, 40 levels
    python benchmarks/bench_ranges.py --positions 20000 --levels 60

A plain game's level is numbered in ranges of notation (``tablebase.listing.ranges``).
Each range asks the owners of its children for their keys (``asked``), one
question for each level its children reach and each partition, then puts the
answers in place (``assembled``). Their work should grow with the range's
moves, not with levels times partitions: a cluster of ten hosts has twenty
partitions. The rows here are made up (random hashes, each child on a random
lower level), of the shape a share's rows have; each figure is the best of
``--repeat`` runs, and the ratio is to the same range with one partition,
timed in the same run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import report  # noqa: E402

from tablebase.listing.ranges import asked, assembled  # noqa: E402


def made_up_rows(positions: int, moves: int, levels: int, seed: int = 1) -> pa.Table:
    """A range's rows as a share stores them: one side, ``moves`` moves a position, one child each."""
    rng = np.random.default_rng(seed)
    edges = positions * moves
    children = rng.integers(0, 2**64 - 1, max(1, edges // 4), dtype=np.uint64)  # a child reached four times
    hashes = children[rng.integers(0, len(children), edges)]
    offsets = pa.array(np.arange(positions + 1, dtype=np.int32) * moves)
    one_each = pa.array(np.arange(edges + 1, dtype=np.int32))
    return pa.table({
        "hash": pa.array(rng.integers(0, 2**64 - 1, positions, dtype=np.uint64)),
        "text": pa.array([str(i) for i in range(positions)]),
        "moves0": pa.ListArray.from_arrays(offsets, pa.array(rng.integers(0, 100, edges))),
        "parts0": pa.ListArray.from_arrays(offsets, pa.ListArray.from_arrays(one_each, pa.array(hashes))),
        "levels0": pa.ListArray.from_arrays(offsets, pa.ListArray.from_arrays(
            one_each, pa.array((hashes % np.uint64(levels)).astype(np.int64)))),
    })


def timed(rows: pa.Table, levels: int, partitions: int, repeat: int) -> tuple[float, float]:
    """The best time of ``asked`` and of ``assembled`` for one range of ``rows``."""
    best_asked = best_assembled = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        questions, places = asked(rows, list(range(levels)), partitions)
        middle = time.perf_counter()
        assembled(rows, places, {ask: np.arange(len(q)) for ask, q in questions.items()})
        best_asked, best_assembled = min(best_asked, middle - began), min(best_assembled, time.perf_counter() - middle)
    return best_asked, best_assembled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=100_000)
    parser.add_argument("--moves", type=int, default=40, help="moves of each position")
    parser.add_argument("--levels", type=int, default=40, help="lower levels the children spread over")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if min(args.positions, args.moves, args.levels, args.repeat) < 1:
        sys.exit("bench_ranges: --positions, --moves, --levels and --repeat must be at least 1")
    rows = made_up_rows(args.positions, args.moves, args.levels)
    timed(rows, args.levels, 1, 1)  # a first run pays for the allocator's first pages: not the baseline
    base_asked = base_assembled = 0.0
    for partitions in (1, 2, 8, 20):
        t_asked, t_assembled = timed(rows, args.levels, partitions, args.repeat)
        base_asked, base_assembled = base_asked or t_asked, base_assembled or t_assembled
        report(f"ranges, {partitions} partitions", moves=args.positions * args.moves, levels=args.levels,
               asked_s=round(t_asked, 3), assembled_s=round(t_assembled, 3),
               asked_ratio=round(t_asked / base_asked, 2), assembled_ratio=round(t_assembled / base_assembled, 2),
               moves_per_s=round(args.positions * args.moves / (t_asked + t_assembled)))


if __name__ == "__main__":
    main()
