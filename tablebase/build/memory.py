"""Planning a build's memory before it starts, from what a worker will hold at its peak.

A worker holds the solved values of every lower level it has read (dense
games: arrays over the whole key space; others: what they have read), one
partition in flight (its keys, solved figures, Arrow rows and the Parquet
writer's buffers), and, while it takes in a finished level, that level read
back from the store. How many bytes each of these takes is the kind's
answer (``Kind.footprint``): five 16-bit figures per key for a scored game,
one or two bytes a figure for impartial ones, Python objects for partizan
ones. The plan sizes partitions so that all of it fits in the workers'
memory limit; a game whose levels are solved whole cannot shrink them, and
is refused up front if its largest level does not fit. Workers on one
machine map dense values from one shared copy (build/shared.py); the plan
still counts the values in each worker, as Dask's view of a worker's memory does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablebase.errors import TablebaseError
from tablebase.kinds import Footprint

MIB = 2**20
PROCESS_BASE = 200 * MIB  # a Dask worker with numpy, pyarrow, numba and a solver loaded, measured
USABLE = 0.8  # of the limit: Dask starts spilling and pausing workers above it
SMALLEST = 1024  # positions: partitions are never cut smaller


@dataclass(frozen=True)
class MemoryPlan:
    values: int  # bytes of lower levels' values a worker keeps
    per_row: int  # bytes per position of a partition in flight
    read_back: int  # bytes of the largest level while it is read back
    partition_rows: int  # partition size chosen
    limit: int | None  # the smallest worker's memory limit, if known
    in_flight: int  # positions of the largest partition a worker solves at once

    @property
    def peak(self) -> int:
        return PROCESS_BASE + self.values + self.read_back + self.in_flight * self.per_row

    def describe(self) -> str:
        limit = f"{self.limit / MIB:,.0f} MiB" if self.limit else "no limit known"
        return (
            f"memory per worker: about {self.peak / MIB:,.0f} MiB at peak (values {self.values / MIB:,.0f} MiB, "
            f"a partition of {self.in_flight:,} positions {self.in_flight * self.per_row / MIB:,.0f} MiB, "
            f"a level read back {self.read_back / MIB:,.0f} MiB); worker limit {limit}"
        )


def plan_memory(game: Any, footprint: Footprint, partition_rows: int, fixed: bool, limit: int | None,
                biggest_level: int, total: int, whole_levels: bool = False) -> MemoryPlan:
    """Estimate a worker's peak and, unless the partition size was ``fixed`` by the user, shrink
    partitions until the estimate fits the limit; refuse a table that cannot fit."""
    held = game.key_space if footprint.dense else total  # keys of the space, or positions read by the end
    values = held * footprint.per_key
    # A level read back, and, for games the engine listed, the listing of the level in flight.
    read_back = biggest_level * (footprint.read_back + game.listed_bytes)

    def planned(rows: int) -> MemoryPlan:
        in_flight = biggest_level if whole_levels else min(rows, max(biggest_level, 1))
        return MemoryPlan(values, footprint.per_row, read_back, rows, limit, in_flight)

    plan = planned(partition_rows)
    if not limit:
        return plan
    room = USABLE * limit - PROCESS_BASE - values - read_back
    smallest = planned(SMALLEST)
    if room < smallest.in_flight * footprint.per_row:
        need = smallest.peak / USABLE
        what = (f"its largest level, {biggest_level:,} positions solved whole," if whole_levels
                else f"values of {values / MIB:,.0f} MiB")
        raise TablebaseError(
            f"{game.name}: a worker would need about {need / MIB:,.0f} MiB for {what} but has "
            f"{limit / MIB:,.0f} MiB; use fewer workers (each gets more memory) or a smaller table"
        )
    if not fixed and not whole_levels and partition_rows * footprint.per_row > room:
        plan = planned(max(SMALLEST, int(room // footprint.per_row) // SMALLEST * SMALLEST))
    return plan
