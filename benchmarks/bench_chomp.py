"""Chomp end to end: a full build against a plain memoised Python solver, in one run.

    python benchmarks/bench_chomp.py                 # 13x13 build, 9x9 plain solver
    python benchmarks/bench_chomp.py --rows 10 --cols 10 --plain 7
    python benchmarks/bench_chomp.py --workers 1,2   # and the speed-up of a second worker
    python benchmarks/bench_chomp.py --rows 14 --cols 14 --workers 1,2 --repeat 3 --no-kernel
    python benchmarks/bench_chomp.py --rows 16 --cols 16 --compact --no-kernel

Prints the build's wall time (cluster start included and not), positions per
second, peak memory of the driver and its workers, bytes per position on disk;
the compiled solver alone on one core (no Dask, no Parquet, no position text); and the plain
solver's positions per second with the ratio.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import PeakMemory, report  # noqa: E402

from tablebase.build import build_tables  # noqa: E402
from tablebase.build.jobs import spec_for  # noqa: E402
from tablebase.builders import builder_of  # noqa: E402
from tablebase.games import make_game  # noqa: E402


def plain_chomp(rows: int, cols: int) -> tuple[int, float]:
    """The obvious solver: frozenset boards, a dict memo, mex by definition."""
    sys.setrecursionlimit(100_000)
    memo: dict[frozenset, int] = {}

    def grundy(board: frozenset) -> int:
        if board in memo:
            return memo[board]
        seen = set()
        for r, c in board:
            if (r, c) != (0, 0):
                seen.add(grundy(frozenset((x, y) for x, y in board if x < r or y < c)))
        g = 0
        while g in seen:
            g += 1
        memo[board] = g
        return g

    began = time.perf_counter()
    grundy(frozenset((r, c) for r in range(rows) for c in range(cols)))
    return len(memo), time.perf_counter() - began


def kernel_alone(rows: int, cols: int) -> tuple[int, float]:
    """The compiled solver on one core, level by level, in memory, without spelling positions."""
    game = make_game("chomp", dict(rows=rows, cols=cols))
    solver = builder_of(game).solver()
    solver.solve(game.level_keys(2, 0, 0))  # compile outside the clock
    began = time.perf_counter()
    n = 0
    for level in range(1, game.max_level + 1):
        keys = game.level_keys(level, 0, game.level_size(level))
        solver.remember(level, solver.solve(keys, compact=True))
        n += len(keys)
    return n, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=13)
    parser.add_argument("--cols", type=int, default=13)
    parser.add_argument("--plain", type=int, default=9, help="side of the square the plain solver solves")
    parser.add_argument("--workers", default="2", help="worker counts to compare, e.g. 1,2")
    parser.add_argument("--compact", action="store_true", help="build without position text in the files")
    parser.add_argument("--no-kernel", action="store_true", help="skip the compiled solver alone (slow for 16x16)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="builds per worker count, taken in turns; the speed-up compares the fastest of each")
    args = parser.parse_args()

    seconds: dict[int, float] = {}
    for workers in [int(w) for _ in range(args.repeat) for w in args.workers.split(",")]:
        with tempfile.TemporaryDirectory() as out, PeakMemory() as memory:
            began = time.perf_counter()
            spec = spec_for("chomp", dict(rows=args.rows, cols=args.cols), compact=args.compact)
            (summary,) = build_tables([spec], Path(out), workers=workers, quiet=True)
            wall = time.perf_counter() - began
        n = summary.positions
        seconds[workers] = min(seconds.get(workers, summary.seconds), summary.seconds)
        report(
            f"build chomp {args.rows}x{args.cols}",
            positions=n,
            wall_s=wall,
            table_s=summary.seconds,
            positions_per_s=int(n / summary.seconds),
            peak_mib_all_processes=memory.mib,
            estimate_mib_per_worker=summary.memory_estimate_mib,
            bits_per_position=8 * summary.bytes / n,
            workers=workers,
        )
        busy = summary.worker_seconds
        report(
            "  where worker time went",
            read_s=busy["read"],
            solve_s=busy["solve"],
            write_s=busy["write"],
            share_outside_solving=1 - busy["solve"] / (summary.seconds * workers),
        )
    if len(seconds) > 1:
        fewest, most = min(seconds), max(seconds)
        report("speed-up", workers=f"{fewest}->{most}", ratio=seconds[fewest] / seconds[most],
               fastest_s=f"{seconds[fewest]:.2f}->{seconds[most]:.2f}", builds_each=args.repeat)
    pn, pt = plain_chomp(args.plain, args.plain)
    report(f"plain solver {args.plain}x{args.plain}", positions=pn, seconds=pt, positions_per_s=int(pn / pt))
    report("ratio", build_over_plain=(n / summary.seconds) / (pn / pt))
    if not args.no_kernel:
        kn, kt = kernel_alone(args.rows, args.cols)
        report("compiled solver, one core", positions=kn, seconds=kt, positions_per_s=int(kn / kt))
        report("ratio", kernel_over_plain=(kn / kt) / (pn / pt), build_over_kernel=kt / summary.seconds)


if __name__ == "__main__":
    main()
