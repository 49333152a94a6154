"""Planning a build: levels into files, files into steps of tasks, tasks onto workers.

A large level is cut into an even number of parts, one file each; a span of
consecutive small levels shares one file (``store.layout``), solved by one
task in one call. The plan never depends on the number of workers, so any
cluster writes the same files.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tablebase.build.progress.display import Ticker
from tablebase.games import KeyedForm
from tablebase.store import Layout, Manifest, Piece, Plan

DEFAULT_PARTITION_ROWS = 65_536  # at least; large tables get larger partitions
PARTITIONS_PER_TABLE = 512  # about; each task costs the scheduler a round trip and the store a file

# A piece, its first level, and for a part of a level the first and the end position. A whole piece
# (a span, or a level of one part) is one slice: the worker takes its levels' sizes from the plan, which
# spares the scheduler a million tuples for a span of a million levels.
Slice = tuple[Piece, int, int, int]


def level_sizes(game: KeyedForm, say: Callable[[str], None] | None = None, enough: int | None = None) -> list[int]:
    """The number of positions of each level, 0 to the game's last (asked once: a game may have a million).

    A game may count a level only by listing it (Domineering's regions, Hackenbush trees), seconds a
    level: ``say`` hears how far the count is, every second, while it goes on. ``enough``: stop
    counting once the count passes it (the sizes so far are returned).
    """
    sizes: list[int] = []
    total, began = 0, time.perf_counter()

    def tick() -> None:
        if say is not None:
            say(f"counting positions: level {len(sizes)}/{game.max_level}, {total:,} so far, "
                f"{time.perf_counter() - began:.1f}s")

    with Ticker(tick, every=1.0 if say is not None else float("inf")):
        for level in range(game.max_level + 1):
            sizes.append(game.level_size(level))
            total += sizes[-1]
            if enough is not None and total > enough:
                break
    return sizes


def default_partition_rows(sizes: list[int]) -> int:
    """A power of two, so that a table has about PARTITIONS_PER_TABLE partitions and tasks last long enough."""
    total = sum(sizes)
    rows = DEFAULT_PARTITION_ROWS
    while rows * PARTITIONS_PER_TABLE < total:
        rows *= 2
    return rows


def plan(sizes: list[int], partition_rows: int, whole_levels: bool = False) -> Plan:
    """Levels with positions: each one's size, number of parts, and the first level of its file (``span``).

    A level of a quarter partition or more is cut into an even number of parts:
    every level waits for the one below, so a level solved by one task leaves
    a second worker idle. Smaller levels join the span of the levels before
    them while it holds at most a partition's positions. Levels that must be
    solved whole are never cut.
    """
    runs: list[list[Any]] = []
    growing: list[int] | None = None  # the sizes of the span that can take the next small level
    first = span_rows = 0
    cut = float("inf") if whole_levels else max(2, partition_rows // 4)  # the smallest level cut in parts
    for level, size in enumerate(sizes):
        if not size:
            continue
        parts = 1
        if size >= cut:
            parts = 2 * -(-size // (2 * partition_rows))
        if parts == 1 and growing is not None and span_rows + size <= partition_rows:
            gap = level - first - len(growing)
            if gap:
                growing += [0] * gap
            growing.append(size)
            span_rows += size
        else:
            runs.append([level, parts, [size]])
            growing, first, span_rows = (runs[-1][2], level, size) if parts == 1 else (None, 0, 0)
    return Plan(runs)


def schedule(manifest: Manifest, layout: Layout) -> list[list[list[Slice]]]:
    """Steps of tasks of slices, leaving out the files already built.

    A step's tasks run in parallel once the step before is done: a large
    level is one step of one task per part, a run one step of one task that
    solves its levels in order.
    """
    steps: list[list[list[Slice]]] = []
    for piece in layout.pieces:
        if piece.name in manifest.files:
            continue
        if piece.whole:
            steps.append([[(piece, piece.first, 0, 0)]])
            continue
        size = manifest.plan[piece.first]["positions"]
        part = (piece, piece.first, piece.part * size // piece.parts, (piece.part + 1) * size // piece.parts)
        if steps and steps[-1] and steps[-1][0][0][0].first == piece.first and not steps[-1][0][0][0].whole:
            steps[-1].append([part])  # another part of the same level: the same step
        else:
            steps.append([[part]])
    return steps


def deal(step: list[list[Slice]], workers: int) -> list[list[Slice]]:
    """The tasks of a step: its partitions dealt to the workers in turn, one task per worker.

    A task per partition would cost the scheduler, the driver and the workers a
    round trip each; on a 2-core machine that time comes out of the solving.
    """
    if len(step) <= workers:
        return step
    return [[s for task in step[w::workers] for s in task] for w in range(workers)]
