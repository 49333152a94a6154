"""Planning a build: levels into partitions, partitions into steps of tasks, tasks onto workers.

The plan never depends on the number of workers, so any cluster writes the
same files.
"""

from __future__ import annotations

from typing import Any

from tablebase.store import Manifest, part_name

DEFAULT_PARTITION_ROWS = 65_536  # at least; large tables get larger partitions
PARTITIONS_PER_TABLE = 512  # about; each task costs the scheduler a round trip and the store a file

Slice = tuple[int, int, int, int]  # level, part, first position, end position


def default_partition_rows(game: Any) -> int:
    """A power of two, so that a table has about PARTITIONS_PER_TABLE partitions and tasks last long enough."""
    total = sum(game.level_size(k) for k in range(game.max_level + 1))
    rows = DEFAULT_PARTITION_ROWS
    while rows * PARTITIONS_PER_TABLE < total:
        rows *= 2
    return rows


def plan(game: Any, partition_rows: int, whole_levels: bool = False) -> dict[int, dict[str, int]]:
    """Levels with positions, each with its size and number of partitions.

    A level of a quarter partition or more is cut into an even number of parts:
    every level waits for the one below, so a level solved by one task leaves
    a second worker idle. Levels that must be solved whole are one part each.
    """
    out = {}
    for level in range(game.max_level + 1):
        size = game.level_size(level)
        if not size:
            continue
        parts = 1
        if not whole_levels and size >= max(2, partition_rows // 4):
            parts = 2 * -(-size // (2 * partition_rows))
        out[level] = {"positions": size, "parts": parts}
    return out


def schedule(manifest: Manifest) -> list[list[list[Slice]]]:
    """Steps of tasks of slices, leaving out the partitions already built.

    A step's tasks run in parallel once the step before is done. A large level
    is one step of one task per partition; a run of small consecutive levels
    is one task, solved in order, so that tiny levels do not cost a task each.
    """
    steps: list[list[list[Slice]]] = []
    group: list[Slice] = []
    group_rows = 0
    for level in sorted(manifest.plan):
        size, parts = manifest.plan[level]["positions"], manifest.plan[level]["parts"]
        todo = [
            (level, part, part * size // parts, (part + 1) * size // parts)
            for part in range(parts)
            if part_name(level, part) not in manifest.files
        ]
        if not todo:
            continue
        if parts == 1 and group_rows + size <= manifest.partition_rows:
            group += todo
            group_rows += size
            continue
        if group:
            steps.append([group])
            group, group_rows = [], 0
        if parts == 1:
            group, group_rows = todo, size
        else:
            steps.append([[s] for s in todo])
    if group:
        steps.append([group])
    return steps


def deal(step: list[list[Slice]], workers: int) -> list[list[Slice]]:
    """The tasks of a step: its partitions dealt to the workers in turn, one task per worker.

    A task per partition would cost the scheduler, the driver and the workers a
    round trip each; on a 2-core machine that time comes out of the solving.
    """
    if len(step) <= workers:
        return step
    return [[s for task in step[w::workers] for s in task] for w in range(workers)]
