"""Which file holds which rows: the one place that spells the names of a table's files.

A table's rows are in pieces. A *run* is one file holding several
consecutive small levels, each whole: a build of a game with many small
levels (a subtraction game has one position a level) then costs a task and
a file per run, not per level. A large level is cut into *parts*, one file
each. Every file holds a ``level`` column, and its rows are sorted by level
and then by key, so DuckDB prunes files and row groups by their statistics
on ``level``, as it pruned folders by name before.

The manifest's plan says, for each level, how many positions and parts it
has and the first level of its run (``run``); the pieces follow from it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any

ROWS = "rows"
_NAME = re.compile(r"^rows/(\d+)-(\d+)\.(\d+)\.parquet$")


@dataclass(frozen=True, order=True)
class Piece:
    """One file of a table's rows: levels ``first`` to ``last`` (a run, each level whole), or part
    ``part`` of ``parts`` of one level (``first == last``)."""

    first: int
    last: int
    part: int = 0
    parts: int = 1

    @property
    def name(self) -> str:
        """The file, relative to the table's folder."""
        return f"{ROWS}/{self.first:07d}-{self.last:07d}.{self.part:05d}.parquet"

    @property
    def levels(self) -> range:
        return range(self.first, self.last + 1)

    @property
    def whole(self) -> bool:
        """Whether the file holds whole levels (a run, or a level of one part)."""
        return self.parts == 1

    @classmethod
    def of_name(cls, name: str, parts: int = 1) -> "Piece":
        found = _NAME.match(name)
        if found is None:
            raise ValueError(f"not the name of a piece of rows: {name!r}")
        first, last, part = (int(g) for g in found.groups())
        return cls(first, last, part, parts)


class Layout:
    """The pieces of a plan, and which pieces hold each level.

    Made from the plan as runs (``plan_runs``), a few entries even for a
    million levels, rather than level by level.
    """

    def __init__(self, runs: list[list[Any]]) -> None:
        self.pieces: list[Piece] = []  # in the order of their levels, a level's parts in order
        self._runs = runs
        self._held: list[list[Piece]] = []  # the pieces of each run
        for first, parts, sizes in runs:
            held = [Piece(first, first + len(sizes) - 1, part, parts) for part in range(parts)]
            self.pieces += held
            self._held.append(held)
        self._firsts = [first for first, _, _ in runs]
        self._by_name = {piece.name: piece for piece in self.pieces}

    def of_level(self, level: int) -> list[Piece]:
        """The pieces holding a level's rows (none for a level without positions)."""
        at = bisect.bisect_right(self._firsts, level) - 1
        if at < 0:
            return []
        first, _, sizes = self._runs[at]
        offset = level - first
        return self._held[at] if offset < len(sizes) and sizes[offset] else []

    def named(self, name: str) -> Piece | None:
        """The piece of a file name, if the plan has it."""
        return self._by_name.get(name)


def plan_runs(plan: dict[int, dict[str, int]]) -> list[list[Any]]:
    """The plan as [first level, number of parts, [positions of each level]] per file or level cut in parts;
    levels without positions inside a run count 0."""
    out: list[list[Any]] = []
    first, sizes = -1, None
    for level in sorted(plan):
        entry = plan[level]
        if sizes is not None and entry["parts"] == 1 and entry["run"] == first:
            sizes.extend([0] * (level - first - len(sizes)))
            sizes.append(entry["positions"])
        else:
            out.append([level, entry["parts"], [entry["positions"]]])
            first, sizes = level, (out[-1][2] if entry["parts"] == 1 else None)
    return out


def plan_of_runs(runs: list[list[Any]]) -> dict[int, dict[str, int]]:
    """The plan level by level, from its runs."""
    plan: dict[int, dict[str, int]] = {}
    for first, parts, sizes in runs:
        for offset, size in enumerate(sizes):
            if size:
                plan[first + offset] = {"positions": size, "parts": parts, "run": first if parts == 1 else first + offset}
    return plan
