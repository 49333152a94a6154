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
is refused up front if its largest level does not fit.

Workers on one machine map dense values from one shared copy
(build/shared.py). The machine holds that copy once, but each worker's
resident memory counts the pages it maps, and that is what Dask compares with
a worker's memory limit: so the plan counts the values in each worker's peak,
and a local cluster gives each worker a limit of the shared values plus its
share of the rest of the machine (``local_worker_limit``), which keeps the
machine as a whole within its memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.build import shared
from tablebase.errors import TablebaseError
from tablebase.games import KeyedForm
from tablebase.kinds import Footprint, Kind
from tablebase.words import counted

MIB = 2**20
PROCESS_BASE = 200 * MIB  # a Dask worker with numpy, pyarrow, numba and a solver loaded, measured
USABLE = 0.8  # of the limit: Dask starts spilling and pausing workers above it
SMALLEST = 1024  # positions: partitions are never cut smaller


@dataclass(frozen=True)
class Workers:
    """What the plan needs to know of the cluster: the smallest memory limit, the most workers on one
    machine, and the least room for shared values (free ``/dev/shm``) any machine has; and the
    workers' addresses, sorted."""

    limit: int | None
    per_machine: int = 1
    shared_room: int = 0
    addresses: tuple[str, ...] = ()


def shared_values(kind: Kind) -> int:
    """Bytes of the values that a machine's workers can share: a dense game's arrays over its key space."""
    if kind.needs_listing:  # known only once listed, and never dense
        return 0
    footprint, game = kind.footprint(), kind.keyed
    return game.key_space * footprint.per_key if footprint.dense and game.key_space else 0


def notation_bytes(game: KeyedForm) -> int:
    """The mean length of a position's notation, from a sample of the middle level.

    This runs the game's own (often compiled) code: a build measures it on a
    worker, whose compiled code is ready, not in the driver (build/tasks.py).
    """
    level = game.max_level // 2
    size = game.level_size(level)
    if not size:
        return 16
    sample = game.level_keys(level, 0, min(64, size))
    return int(np.diff(game.format_positions(sample).offsets).mean())


def local_worker_limit(machine: int, workers: int, shared_bytes: int) -> int:
    """A local worker's memory limit: the values all workers map, plus its share of the rest.

    Each worker's resident memory counts the shared pages it maps, so an even
    split of the machine would count the shared values once per worker. With
    this limit, the workers' private memory still adds up to the rest of the
    machine: the values are planned once per machine.
    """
    if not shared_bytes or shared.clear_room() < shared.HEADROOM * shared_bytes or shared_bytes >= machine:
        return machine // workers
    return shared_bytes + (machine - shared_bytes) // workers


@dataclass(frozen=True)
class MemoryPlan:
    values: int  # bytes of lower levels' values a worker keeps (or maps from the machine's shared copy)
    per_row: int  # bytes per position of a partition in flight
    read_back: int  # bytes of the largest level while it is read back
    partition_rows: int  # partition size chosen
    limit: int | None  # the smallest worker's memory limit, if known
    in_flight: int  # positions of the largest partition a worker solves at once
    shared: bool = False  # the values are one copy per machine, mapped by its workers
    per_machine: int = 1  # most workers on one machine

    @property
    def peak(self) -> int:
        """A worker's resident memory at its peak, mapped shared values included (what Dask measures)."""
        return PROCESS_BASE + self.values + self.read_back + self.in_flight * self.per_row

    @property
    def machine_peak(self) -> int:
        """The memory of the busiest machine at its peak: shared values once, the rest once per worker."""
        private = self.peak - self.values if self.shared else self.peak
        return (self.values if self.shared else 0) + self.per_machine * private

    def describe(self) -> str:
        limit = f"{self.limit / MIB:,.0f} MiB" if self.limit else "no limit known"
        values = f"values {self.values / MIB:,.0f} MiB" + (
            ", one copy per machine shared by its workers" if self.shared and self.per_machine > 1 else "")
        return (
            f"memory per worker: about {self.peak / MIB:,.0f} MiB at peak ({values}, "
            f"a partition of {self.in_flight:,} positions {self.in_flight * self.per_row / MIB:,.0f} MiB, "
            f"a level read back {self.read_back / MIB:,.0f} MiB); worker limit {limit}; "
            f"{counted(self.per_machine, 'worker')} on a machine: "
            f"about {self.machine_peak / MIB:,.0f} MiB"
        )


def plan_memory(game: KeyedForm, footprint: Footprint, partition_rows: int, fixed: bool, workers: Workers,
                biggest_level: int, total: int, whole_levels: bool = False) -> MemoryPlan:
    """Estimate a worker's peak and, unless the partition size was ``fixed`` by the user, shrink
    partitions until the estimate fits the limit; refuse a table that cannot fit."""
    held = game.key_space if footprint.dense else total  # keys of the space, or positions read by the end
    values = held * footprint.per_key
    shared_copy = footprint.dense and workers.shared_room >= shared.HEADROOM * values
    # A level read back, and, for games the engine listed, the listing of the level in flight.
    read_back = biggest_level * (footprint.read_back + game.listed_bytes)
    limit = workers.limit

    def planned(rows: int) -> MemoryPlan:
        # A part of a level, or a run of small levels that fills a partition.
        in_flight = biggest_level if whole_levels else min(rows, max(total, 1))
        return MemoryPlan(values, footprint.per_row, read_back, rows, limit, in_flight, shared_copy,
                          workers.per_machine)

    plan = planned(partition_rows)
    if not limit:
        return plan
    room = USABLE * limit - PROCESS_BASE - values - read_back
    smallest = planned(SMALLEST)
    if room < smallest.in_flight * footprint.per_row:
        what = (f"its largest level, {biggest_level:,} positions solved whole" if whole_levels
                else f"values of {values / MIB:,.0f} MiB")
        raise TablebaseError(
            f"{game.name}: a worker would reach about {smallest.peak / MIB:,.0f} MiB with {what}, "
            f"more than the {USABLE * limit / MIB:,.0f} MiB it may fill ({USABLE:.0%} of its "
            f"{limit / MIB:,.0f} MiB limit; a fuller worker is paused); "
            "use fewer workers (each gets more memory), workers with more memory, or a smaller table"
        )
    if not fixed and not whole_levels and partition_rows * footprint.per_row > room:
        plan = planned(max(SMALLEST, int(room // footprint.per_row) // SMALLEST * SMALLEST))
    return plan
