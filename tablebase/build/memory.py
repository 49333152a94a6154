"""Planning a build's memory before it starts, from what a worker will hold at its peak.

A worker holds the solved values of every lower level it has read (dense games:
an array over the whole key space), one partition in flight (its keys, its
solved figures, its Arrow rows and the Parquet writer's buffers), and, while it
takes in a finished level, that level read back from the store. The plan sizes
partitions so that all of it fits in the workers' memory limit. Workers on one
machine map their values from one shared copy (build/shared.py); the plan still
counts the values in each worker, as Dask's view of a worker's memory does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.errors import TablebaseError
from tablebase.games import Game
from tablebase.solve.impartial import KnownValues

MIB = 2**20
PROCESS_BASE = 300 * MIB  # Python with numpy, pyarrow, numba and a Dask worker, measured idle
USABLE = 0.8  # of the limit: Dask starts spilling and pausing workers above it


@dataclass(frozen=True)
class MemoryPlan:
    values: int  # bytes of lower levels' values a worker keeps
    per_row: int  # bytes per position of a partition in flight
    read_back: int  # bytes of the largest level while it is read back
    partition_rows: int  # partition size chosen
    limit: int | None  # the smallest worker's memory limit, if known

    @property
    def peak(self) -> int:
        return PROCESS_BASE + self.values + self.read_back + self.partition_rows * self.per_row

    def describe(self) -> str:
        limit = f"{self.limit / MIB:,.0f} MiB" if self.limit else "no limit known"
        return (
            f"memory per worker: about {self.peak / MIB:,.0f} MiB at peak (values {self.values / MIB:,.0f} MiB, "
            f"a partition of {self.partition_rows:,} positions {self.partition_rows * self.per_row / MIB:,.0f} MiB, "
            f"a level read back {self.read_back / MIB:,.0f} MiB); worker limit {limit}"
        )


def plan_memory(game: Game, partition_rows: int, fixed: bool, limit: int | None, biggest_level: int) -> MemoryPlan:
    """Estimate a worker's peak and, unless the partition size was ``fixed`` by the user, shrink
    partitions until the estimate fits the limit; refuse a table whose values alone cannot fit."""
    item = np.dtype(game.value_dtype).itemsize
    sample = game.level_keys(game.max_level // 2, 0, min(64, game.level_size(game.max_level // 2)))
    text = int(np.diff(game.format_positions(sample).offsets).mean()) if len(sample) else 16
    if game.key_space is not None:
        values = game.key_space * KnownValues.bytes_per_key(game)
    else:
        values = 0  # sparse games hold what they have read: counted with the rows below
    # keys and solved arrays; Arrow rows (key, text and offsets, figures, move codes); the
    # Parquet writer's encoded copy; twice over for the temporaries of concatenation.
    per_row = 2 * (8 + 3 * item + 9 + (8 + text + 4 + 2 * item + 6) + (text // 2 + 4))
    read_back = biggest_level * (8 + 2 * item) * 2
    if game.key_space is None:
        read_back += sum(game.level_size(k) for k in range(game.max_level + 1)) * (8 + 2 * item) * 2
    plan = MemoryPlan(values, per_row, read_back, partition_rows, limit)
    if not limit:
        return plan
    room = USABLE * limit - PROCESS_BASE - values - read_back
    if room < per_row * 1024:
        raise TablebaseError(
            f"{game.name}: a worker would need about {(plan.peak - partition_rows * per_row + 1024 * per_row) / MIB:,.0f} MiB "
            f"but has {limit / MIB:,.0f} MiB; use fewer workers (each gets more memory) or a smaller table"
        )
    if not fixed and partition_rows * per_row > room:
        rows = max(1024, int(room // per_row) // 1024 * 1024)
        plan = MemoryPlan(values, per_row, read_back, rows, limit)
    return plan
