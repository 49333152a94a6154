"""What values mapped from disk cost Chomp's solver: the same level solved from memory, from a warm file, a cold one.

    python benchmarks/bench_disk_values.py            # Chomp 13x13, its largest level
    python benchmarks/bench_disk_values.py --rows 14 --cols 14

The lower levels are solved once into a solver whose values are mapped from a
file on disk (build/cluster/shared_values.py, as a build with values on disk does), and
copied into one whose values are in its own memory. Then the largest level is
solved, its figures read from:

- memory: the process's own arrays;
- warm file: the mapped file, its pages in the page cache;
- cold file: the same, after the file's pages were dropped from the page
  cache (``posix_fadvise(DONTNEED)``, this file's pages only), so that every
  page the level reaches is read from disk: the cost of a page cache too
  small for the values.

Each figure is the median of ``--repeat`` runs; the level's positions per second are printed.
"""

from __future__ import annotations

import argparse
import mmap
import os
import statistics
import tempfile
import time
import uuid

import numpy as np

from tablebase.build.cluster import shared_values
from tablebase.games import make_game
from tablebase.solve.bites import BiteSolver


def _drop(solver) -> None:
    """This process's mappings of the values let go (MADV_DONTNEED), then the file's pages dropped."""
    for array in (solver.known.grundy, solver.known.remoteness):
        array._mmap.madvise(mmap.MADV_DONTNEED)
    folder = solver.shared
    for name in ("grundy", "remoteness"):
        fd = os.open(folder / name, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=13)
    parser.add_argument("--cols", type=int, default=13)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    game = make_game("chomp", {"rows": args.rows, "cols": args.cols})
    sizes = [game.level_size(k) for k in range(game.max_level + 1)]
    top = int(np.argmax(sizes))
    run = uuid.uuid4().hex
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DISK", "/var/tmp")) as disk:
        on_disk = BiteSolver(game, lambda size: shared_values.folder_for(run, size, disk), wide=frozenset())
        began = time.perf_counter()
        for level in range(1, top):
            keys = game.level_keys(level, 0, sizes[level])
            on_disk.remember(level, on_disk.solve(keys, compact=True).select(on_disk.columns))
        print(f"chomp {args.rows}x{args.cols}: levels below {top} solved in {time.perf_counter() - began:.1f} s; "
              f"level {top}: {sizes[top]:,} positions, values {2 * game.key_space / 2**20:,.0f} MiB")
        in_memory = BiteSolver(game, wide=frozenset())
        in_memory.known.grundy[:] = on_disk.known.grundy
        in_memory.known.remoteness[:] = on_disk.known.remoteness
        keys = game.level_keys(top, 0, sizes[top])
        os.sync()  # the file's dirty pages written, so that dropping them drops them all

        def timed(solver, before=lambda: None) -> float:
            runs = []
            for _ in range(args.repeat):
                before()
                began = time.perf_counter()
                solver.solve(keys, compact=True)
                runs.append(time.perf_counter() - began)
            return statistics.median(runs)

        figures = {"memory": timed(in_memory), "warm file": timed(on_disk),
                   "cold file": timed(on_disk, lambda: _drop(on_disk))}
        for name, seconds in figures.items():
            print(f"  {name:10s} {seconds:7.3f} s  {sizes[top] / seconds:12,.0f} positions/s  "
                  f"{seconds / figures['memory']:.2f} x memory")
        shared_values.remove(run, disk)


if __name__ == "__main__":
    main()
