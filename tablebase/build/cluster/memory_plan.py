"""Planning a build's memory before it starts, from what a worker will hold at its peak.

A worker holds the values of the lower levels it has read, a partition in
flight and, while it takes in a finished level, that level read back; each
kind says what these weigh (``Builder.footprint``). The plan sizes partitions so
that all of it fits the workers' memory limit, counts values a machine's
workers share once a machine (``local_worker_limit``), maps from each
machine's disk the values no worker could hold (``MemoryPlan.on_disk``), and
refuses up front a table that cannot fit.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablebase.build.cluster import shared_values
from tablebase.builders import Builder, Footprint
from tablebase.errors import TablebaseError
from tablebase.games import KeyedForm
from tablebase.lazy import np
from tablebase.spelling import counted
from tablebase.store.listing_files import LISTING_GROUP

MIB = 2**20
GIB = 2**30
PROCESS_BASE = 200 * MIB  # a Dask worker's own memory with numpy, pyarrow, numba and a solver loaded
# What a local worker holds before its first task (``allocator.held_at_rest``): one that holds more between
# tasks (a plain game's listing leaves its heap's fragments behind) adds what it holds beyond that.
FRESH_WORKER = 100 * MIB
USABLE = 0.8  # of the limit: Dask starts spilling and pausing workers above it
SMALLEST = 1024  # positions: partitions are never cut smaller
DISK_PARTITION = 2**20  # positions: the smallest partition planned to leave room for the page cache
# A part's listing in memory, at most, where the user did not fix the partitions: a game of many moves a
# position (Kayles' rows: 60) would hold hundreds of MiB a part at the default partition.
LISTED_PART = 96 * MIB
IN_MEMORY = 0.5  # of a machine: dense values above this share are mapped from disk by a local cluster


@dataclass(frozen=True)
class Workers:
    """What the plan needs to know of the cluster: the smallest memory limit, the most workers on one
    machine, and the least room for shared values (free ``/dev/shm``) any machine has; and the
    workers' addresses, sorted."""

    limit: int | None
    per_machine: int = 1
    shared_room: int = 0
    addresses: tuple[str, ...] = ()
    disk_room: int = 0  # the least free space on the disk that holds the values' folder, of any machine
    machines: int = 1
    at_rest: int = 0  # the most any worker holds between tasks (``allocator.held_at_rest``), once asked
    kept_parts: int = 0  # parts of values an earlier run of the build left on a machine (``shared_values.py``)


def shareable_bytes(builder: Builder) -> int:
    """Bytes of the values that a machine's workers can share: a dense game's arrays over its key space,
    as a build first holds them (each figure in one byte: solve/figures.py)."""
    if builder.needs_listing:  # known only once listed, and never dense
        return 0
    footprint, game = builder.footprint(frozenset()), builder.keyed
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


def values_on_disk(machine: int, values: int) -> bool:
    """Whether a local cluster maps dense values of this size from disk: they pass ``IN_MEMORY`` of the
    machine, or the cap ``TABLEBASE_VALUES_MEMORY`` sets (``shared_values.py``)."""
    cap = shared_values.memory_cap()
    return values > IN_MEMORY * machine or (cap is not None and values > cap)


def local_worker_limit(machine: int, workers: int, shared_bytes: int) -> int:
    """A local worker's memory limit: the values all workers map, plus its share of the rest.

    Each worker's resident memory counts the shared pages it maps, so an even
    split of the machine would count the shared values once per worker. With
    this limit, the workers' private memory still adds up to the rest of the
    machine: the values are planned once per machine.
    """
    if (not shared_bytes or shared_values.clear_room()[0] < shared_values.HEADROOM * shared_bytes
            or shared_bytes >= machine):
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
    on_disk: bool = False  # the values are one copy per machine on its local disk, in the page cache when hot
    machines: int = 1
    base: int = PROCESS_BASE  # a worker's own memory: its code, and what it held before the build began
    #: a part's file is written while the next part solves (build/write_behind.py): two partitions at once
    behind: bool = False

    @property
    def partitions(self) -> int:
        return 2 if self.behind else 1

    @property
    def peak(self) -> int:
        """A worker's resident memory at its peak, values in memory included (what Dask measures); values
        on disk are left out: the page cache holds them, and gives them up when memory is short."""
        held = 0 if self.on_disk else self.values
        return self.base + held + self.read_back + self.partitions * self.in_flight * self.per_row

    @property
    def machine_peak(self) -> int:
        """The memory of the busiest machine at its peak: shared values once, the rest once per worker."""
        private = self.peak - self.values if self.shared and not self.on_disk else self.peak
        return (self.values if self.shared and not self.on_disk else 0) + self.per_machine * private

    def describe(self) -> str:
        limit = f"{self.limit / MIB:,.0f} MiB" if self.limit else "no limit known"
        where = (", on each machine's disk, in its page cache when hot" if self.on_disk else
                 ", one copy per machine shared by its workers" if self.shared and self.per_machine > 1 else "")
        values = f"values {self.values / MIB:,.0f} MiB{where}"
        rest = f"the worker {self.base / MIB:,.0f} MiB with what it held before, " if self.base > PROCESS_BASE else ""
        line = (
            f"memory per worker: about {self.peak / MIB:,.0f} MiB at peak ({rest}{values}, "
            f"a partition of {self.in_flight:,} positions {self.in_flight * self.per_row / MIB:,.0f} MiB"
            f"{' (two: one written while the next solves)' if self.behind else ''}, "
            f"a level read back {self.read_back / MIB:,.0f} MiB); worker limit {limit}; "
            f"{counted(self.per_machine, 'worker')} on a machine: "
            f"about {self.machine_peak / MIB:,.0f} MiB"
        )
        if self.on_disk:
            line += (f"; page cache wanted on each machine: {self.values / MIB:,.0f} MiB; disk: "
                     f"{self.values / MIB:,.0f} MiB of values on each of {counted(self.machines, 'machine')}")
        return line


def plan_memory(game: KeyedForm, footprint: Footprint, partition_rows: int, fixed: bool, workers: Workers,
                biggest_level: int, total: int, whole_levels: bool = False) -> MemoryPlan:
    """Estimate a worker's peak and, unless the partition size was ``fixed`` by the user, shrink
    partitions until the estimate fits the limit; refuse a table that cannot fit.

    A game whose levels are solved whole cannot shrink them, and is refused if its largest level does not
    fit. Dense values that do not fit in a worker's memory (or pass ``TABLEBASE_VALUES_MEMORY``) go to each
    machine's disk: the plan leaves them out of a worker's peak and asks the page cache to hold them (the
    hot pages: all lower levels, for Chomp), and only a machine's disk, or a worker's partition, can refuse
    the table. A local cluster whose values go to disk turns off Dask's pausing and killing of workers by
    resident memory: the mapped pages count in it, yet the system drops them whenever it needs the room.
    """
    if not fixed and game.listed_bytes:
        partition_rows = min(partition_rows, listed_partition(game.listed_bytes))
    held = game.key_space if footprint.dense else total  # keys of the space, or positions read by the end
    values = held * footprint.per_key
    limit = workers.limit
    cap = shared_values.memory_cap()

    def planned(rows: int, on_disk: bool) -> MemoryPlan:
        # A part of a level, or a span of small levels that fills a partition.
        in_flight = biggest_level if whole_levels else min(rows, max(total, 1))
        # A level read back (with values on disk, a part at a time: build/tasks.py), and, for games the
        # engine listed, the listing's row groups that hold the part in flight.
        listed = min(biggest_level, in_flight + LISTING_GROUP) * game.listed_bytes
        read_back = (in_flight if on_disk else biggest_level) * footprint.read_back + listed
        shared_copy = footprint.dense and (on_disk or workers.shared_room >= shared_values.HEADROOM * values)
        # One machine whose workers share the values: no level's file is read before the build ends.
        behind = shared_copy and workers.machines == 1 and not whole_levels
        return MemoryPlan(values, footprint.per_row, read_back, rows, limit, in_flight, shared_copy,
                          workers.per_machine, on_disk, workers.machines,
                          PROCESS_BASE + max(0, workers.at_rest - FRESH_WORKER), behind)

    fits = not limit or USABLE * limit >= planned(SMALLEST, False).peak
    on_disk = footprint.mapped and values > 0 and (not fits or (cap is not None and values > cap))
    if on_disk and workers.disk_room < shared_values.HEADROOM * values:
        why = "fit no worker's memory" if not fits else "pass TABLEBASE_VALUES_MEMORY"
        raise TablebaseError(
            f"{game.name}: values of {values / MIB:,.0f} MiB {why}, and a machine's disk has "
            f"{workers.disk_room / MIB:,.0f} MiB free for them "
            f"(wants {shared_values.HEADROOM * values / MIB:,.0f} MiB); "
            "free disk space or name a larger one with --scratch")
    plan = planned(partition_rows, on_disk)
    if not limit:
        return plan
    smallest = planned(SMALLEST, on_disk)
    # What a row more in flight costs.
    per_row = smallest.partitions * footprint.per_row + (footprint.read_back if on_disk else 0)
    room = USABLE * limit - (smallest.peak - smallest.in_flight * per_row)
    if room < smallest.in_flight * per_row:
        what = (f"its largest level, {biggest_level:,} positions solved whole" if whole_levels
                else f"values of {values / MIB:,.0f} MiB" if not on_disk else "the smallest partition")
        raise TablebaseError(
            f"{game.name}: a worker would reach about {smallest.peak / MIB:,.0f} MiB with {what}, "
            f"more than the {USABLE * limit / MIB:,.0f} MiB it may fill ({USABLE:.0%} of its "
            f"{limit / MIB:,.0f} MiB limit; a fuller worker is paused); "
            "use fewer workers (each gets more memory), workers with more memory, or a smaller table"
        )
    if on_disk:
        # Each worker leaves its share of the machine's memory to the page cache that holds the values;
        # where that leaves too little, partitions stay at DISK_PARTITION: the page cache holds less of
        # the values and the build is slower, but it is never refused for it.
        room = max(room - values / workers.per_machine, DISK_PARTITION * per_row)
    if not fixed and not whole_levels and partition_rows * per_row > room:
        plan = planned(max(SMALLEST, int(room // per_row) // SMALLEST * SMALLEST), on_disk)
    return plan


def listed_partition(listed_bytes: int) -> int:
    """The most positions a part of a listed game may have: a power of two whose listing in memory stays
    within ``LISTED_PART``: a part's listing holds every move of its positions, so a game of many moves a
    position fills a worker with a partition of the default size (docs/scale.md, "A listed game's parts")."""
    rows = max(SMALLEST, LISTED_PART // max(listed_bytes, 1))
    return 1 << (rows.bit_length() - 1)
