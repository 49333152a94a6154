"""Where a Chomp build's solving goes, on one core and without files: the order of the levels, or the figures.

    python benchmarks/bench_solve_order.py               # Chomp 13x13
    python benchmarks/bench_solve_order.py --sides 13,15

Three loops over every bar, each in this process on one core, each compiled
beforehand, none writing a file:

    loop rank order      bench_levels' reference loop: Grundy values only, bars in lexicographic order
    loop level order     the same values and the same moves, bars taken size by size, as a build must take
                         them (every level below solved first); checked equal to the rank-order values;
                         with its values held in 16 bits, as the rank-order loop holds them, and in 8
    solver               the package's solver (solve/bites.py) over every level in turn: Grundy value,
                         remoteness and best move of each bar, and with --texts the position text too;
                         then, apart, its rows made and encoded as a build's Parquet, in memory

The ratios say what costs what: level order against rank order is the price
of the order; the solver against the level-order loop is the price of the
figures beside the Grundy value. A build on two cores pays the solver's time
shared by two, plus writing its files and the steps' waits (bench_levels).

With --together, the rank-order loop and then the solver (with its rows and
Parquet) also run in two processes at once, each over the whole bar with
values of its own: what each gets from the machine while the other core works
as hard, which is what a build's two workers get. ``bound_together`` is the
solver's and the writing's seconds so run, shared by two, against the
rank-order loop alone: the least a two-worker build could take against the
one-core loop on this machine, with no wait and nothing else running.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from math import comb
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from bench_levels import grundy_of, reference_grundy  # noqa: E402
from common import report  # noqa: E402


@numba.njit(cache=True)
def _reference_grundy_by_size(rows: int, cols: int, choose: np.ndarray, grundy: np.ndarray) -> np.ndarray:
    """The same values as ``_reference_grundy``, taken in the order a build must take them: every bar of
    one size (squares) before any larger one, each size's bars in lexicographic order.

    The next bar of a size grows the last row that can take one more square while a row below it gives
    one, and spreads what the rows below it hold as evenly as they allow (the lexicographically least).
    ``grundy``: zeros, one a bar, of the width the values are held in.
    """
    R = rows
    a = np.zeros(R, dtype=np.int64)
    term = np.zeros(R, dtype=np.int64)
    seen = np.zeros(4096, dtype=np.int64)
    stamp = 0
    for size in range(1, R * cols + 1):
        left = size  # the least bar of this size: rows as even as they can be
        for k in range(R):
            a[k] = -(-left // (R - k))
            left -= a[k]
        if a[0] > cols:
            continue
        rank = 0
        for k in range(R):
            term[k] = choose[a[k] + R - k - 1, R - k]
            rank += term[k]
        while True:
            stamp += 1
            grundy[rank] = grundy_of(a, rank, term, choose, grundy, seen, stamp)
            # The next bar of this size: row i grows by one, the rows below it share what they held less one.
            below = 0
            i = R - 1
            while i >= 0 and not (below >= 1 and a[i] < cols and (i == 0 or a[i] < a[i - 1])
                                  and below - 1 <= (R - 1 - i) * (a[i] + 1)):
                below += a[i]
                i -= 1
            if i < 0:
                break
            a[i] += 1
            slots = R - 1 - i
            even, more = (below - 1) // slots if slots else 0, (below - 1) % slots if slots else 0
            for k in range(i, R):
                if k > i:
                    a[k] = even + (1 if k - i - 1 < more else 0)
                rank -= term[k]
                term[k] = choose[a[k] + R - k - 1, R - k]
                rank += term[k]
    return grundy


def level_order(rows: int, cols: int, dtype: type = np.uint16) -> tuple[np.ndarray, float]:
    """The level-order loop's values and seconds, with values held in ``dtype`` (the rank-order loop's
    16 bits, or the 8 a build holds Chomp's in)."""
    size = rows + cols + 2
    choose = np.array([[comb(m, k) for k in range(size)] for m in range(size)], dtype=np.int64)
    _reference_grundy_by_size(2, 2, choose, np.zeros(choose[4, 2], dtype=dtype))
    grundy = np.zeros(choose[rows + cols, rows], dtype=dtype)
    began = time.perf_counter()
    values = _reference_grundy_by_size(rows, cols, choose, grundy)
    return values, time.perf_counter() - began


def solver(side: int, texts: bool) -> tuple[float, float]:
    """The package's solver over every level of a side x side bar, one level after another, figures stored
    as it goes (as a build's workers do): its seconds; and the seconds of making each level's rows and
    encoding them as a build's Parquet file, in memory (the CPU of a build's writing, without the disk)."""
    from tablebase.games.registry import make_game
    from tablebase.solve.bites import BiteSolver
    from tablebase.solve.rows import impartial_rows
    from tablebase.store import with_levels
    from tablebase.store.files import parquet_bytes

    game = make_game("chomp", {"rows": side, "cols": side})
    solving = BiteSolver(game)
    solving.load_compiled()
    solve_s = write_s = 0.0
    for level in range(game.max_level + 1):
        size = game.level_size(level)
        if size:
            began = time.perf_counter()
            solved = solving.solve_arrays(None, spell=texts, part=(level, 0, size), store=True)
            solved_at = time.perf_counter()
            rows = impartial_rows(game, solved["keys"], solved, not texts, texts=solved.get("texts"))
            parquet_bytes(with_levels(rows, np.full(size, level, dtype=np.int32)), "key", None, ["key", "level"])
            solve_s, write_s = solve_s + solved_at - began, write_s + time.perf_counter() - solved_at
    return solve_s, write_s


def _loop_seconds(side: int) -> float:
    return reference_grundy(side, side)[1]


def together(work, side: int) -> list:
    """``work(side)`` run in two fresh processes at once: what each returned (its own in-process timing)."""
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        return pool.map(work, [side, side])


def _solver_plain(side: int) -> tuple[float, float]:
    return solver(side, False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sides", default="13", help="comma-separated sides of square bars (13 unless told)")
    parser.add_argument("--texts", action="store_true", help="the solver spells the position texts too")
    parser.add_argument("--together", action="store_true",
                        help="also the loop and the solver in two processes at once")
    args = parser.parse_args()
    for side in [int(s) for s in args.sides.split(",")]:
        ranked, rank_s = reference_grundy(side, side)
        by_size, level_s = level_order(side, side)
        narrow, narrow_s = level_order(side, side, np.uint8)
        if not (np.array_equal(ranked, by_size) and np.array_equal(ranked, narrow)):
            raise SystemExit(f"{side}x{side}: the level-order loop's values differ from the rank-order loop's")
        solver_s, write_s = solver(side, args.texts)
        both = {}
        if args.together:
            loops = together(_loop_seconds, side)
            solvers = together(_solver_plain, side)
            slowest = max(solvers, key=sum)
            both = {"loop_together_s": max(loops), "loop_together_per_alone": max(loops) / rank_s,
                    "solver_together_s": slowest[0], "rows_and_parquet_together_s": slowest[1],
                    "solver_together_per_alone": slowest[0] / solver_s,
                    "bound_together": sum(slowest) / 2 / rank_s}
        report(f"chomp {side}x{side}", positions=comb(2 * side, side) - 1, loop_rank_order_s=rank_s,
               loop_level_order_s=level_s, loop_level_order_8_bits_s=narrow_s, solver_s=solver_s, texts=args.texts,
               rows_and_parquet_s=write_s,
               level_order_per_rank_order=level_s / rank_s, solver_per_level_order=solver_s / level_s,
               solver_per_level_order_8_bits=solver_s / narrow_s,
               solver_per_rank_order=solver_s / rank_s,
               bound_alone=(solver_s + write_s) / 2 / rank_s, **both)


if __name__ == "__main__":
    main()
