"""Wythoff end to end: a full build with the queen-move solver against the generic dense solver, in one run.

    python benchmarks/bench_wythoff.py                   # heaps up to 4096 built, generic solver on 1024
    python benchmarks/bench_wythoff.py --max 2048 --generic 512
    python benchmarks/bench_wythoff.py --workers 1,2

Prints the build's wall time (cluster start included) and the table's own
seconds, positions per second, peak memory of the driver and its workers,
bytes per position on disk and where the workers' time went; then, on one core
in memory (no Dask, no Parquet), the queen-move solver and the generic dense
solver (every move enumerated) on the same smaller table, and the queen-move
solver on the full one, with the ratios.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pyarrow as pa  # noqa: E402
from common import PeakMemory, report  # noqa: E402

from tablebase.build import build_tables  # noqa: E402
from tablebase.build.jobs import spec_for  # noqa: E402
from tablebase.games import make_game  # noqa: E402
from tablebase.solve.impartial import ImpartialSolver  # noqa: E402
from tablebase.solve.queen import QueenSolver  # noqa: E402


def solver_alone(solver_class: type, top: int, rows: bool) -> tuple[int, float]:
    """Every level in order, in memory, on one core: values only, or the Arrow rows too."""
    game = make_game("wythoff", {"max": top})
    solver = solver_class(game)
    warm = make_game("wythoff", {"max": 2})  # compile outside the clock
    warm_solver = solver_class(warm)
    for level in range(warm.max_level + 1):
        warm_solver.remember(level, warm_solver.solve(warm.level_keys(level, 0, warm.level_size(level))))
    began = time.perf_counter()
    n = 0
    for level in range(game.max_level + 1):
        keys = game.level_keys(level, 0, game.level_size(level))
        if rows or solver_class is not QueenSolver:
            solver.remember(level, solver.solve(keys))
        else:
            solved = solver.solve_arrays(keys)
            solver.remember(level, pa.table({"key": keys, "grundy": solved["grundy"],
                                             "remoteness": solved["remoteness"]}))
        n += len(keys)
    return n, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=4096, help="largest heap of the table built")
    parser.add_argument("--generic", type=int, default=1024, help="largest heap of the table both solvers solve alone")
    parser.add_argument("--workers", default="2", help="worker counts to compare, e.g. 1,2")
    args = parser.parse_args()

    for workers in map(int, args.workers.split(",")):
        with tempfile.TemporaryDirectory() as out, PeakMemory() as memory:
            began = time.perf_counter()
            (summary,) = build_tables([spec_for("wythoff", {"max": args.max})], Path(out), workers=workers, quiet=True)
            wall = time.perf_counter() - began
        n = summary.positions
        report(
            f"build wythoff {args.max}",
            positions=n,
            levels=summary.levels,
            wall_s=wall,
            table_s=summary.seconds,
            positions_per_s=int(n / wall),
            peak_mib_all_processes=memory.mib,
            bytes_per_position=summary.bytes / n,
            workers=workers,
        )
        busy = summary.worker_seconds
        report("  where worker time went", read_s=busy["read"], solve_s=busy["solve"], write_s=busy["write"])

    qn, qt = solver_alone(QueenSolver, args.max, rows=False)
    report(f"queen solver alone {args.max}", positions=qn, seconds=qt, positions_per_s=int(qn / qt))
    rn, rt = solver_alone(QueenSolver, args.max, rows=True)
    report(f"  with Arrow rows {args.max}", positions=rn, seconds=rt, positions_per_s=int(rn / rt))
    gq_n, gq_t = solver_alone(QueenSolver, args.generic, rows=False)
    gn, gt = solver_alone(ImpartialSolver, args.generic, rows=True)
    report(f"queen solver alone {args.generic}", positions=gq_n, seconds=gq_t, positions_per_s=int(gq_n / gq_t))
    report(f"generic solver alone {args.generic}", positions=gn, seconds=gt, positions_per_s=int(gn / gt))
    report(
        "ratio",
        queen_over_generic_same_table=(gq_n / gq_t) / (gn / gt),
        build_over_generic_alone=(n / wall) / (gn / gt),
    )


if __name__ == "__main__":
    main()
