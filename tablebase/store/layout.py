"""Which file holds which rows: the one place that spells the names of a table's files.

A table's rows are in pieces (``Piece``): a *span*, one file of several
consecutive small levels, each whole, so that a game of many small levels
costs a task and a file per span, not per level; or a *part* of a large level.
Every file's rows are sorted by level and then by key, so DuckDB prunes
files and row groups by their statistics on ``level``. The manifest's plan
(``Plan``) says each level's positions, parts and span; the pieces follow.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Container, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

ROWS = "rows"
SEGMENTS = "probe"  # the probe index's segment files (tablebase.probe.format.SEGMENTS_FOLDER)


def keys_segment_name(start: int) -> str:
    """The file of the probe index's segments of the keys from ``start`` (an index written from the values
    held in key order), relative to the table's folder."""
    return f"{SEGMENTS}/keys-{start:013d}.tbs"
_NAME = re.compile(r"^rows/(\d+)-(\d+)\.(\d+)\.parquet$")
_SEGMENT_NAME = re.compile(r"^probe/(\d+)-(\d+)\.(\d+)\.tbs$")


@dataclass(frozen=True, order=True)
class Piece:
    """One file of a table's rows: levels ``first`` to ``last`` (a span, each level whole), or part
    ``part`` of ``parts`` of one level (``first == last``)."""

    first: int
    last: int
    part: int = 0
    parts: int = 1

    @property
    def name(self) -> str:
        """The file, relative to the table's folder."""
        return f"{ROWS}/{self.first:07d}-{self.last:07d}.{self.part:05d}.parquet"

    @staticmethod
    def is_segment_name(name: str) -> bool:
        """Whether a name is that of a part's segment file (not of a range of keys)."""
        return _SEGMENT_NAME.match(name) is not None

    @property
    def segment_name(self) -> str:
        """The file of the probe index's segment of these rows (an index written part by part), relative to
        the table's folder."""
        return f"{SEGMENTS}/{self.first:07d}-{self.last:07d}.{self.part:05d}.tbs"

    @property
    def levels(self) -> range:
        return range(self.first, self.last + 1)

    @property
    def whole(self) -> bool:
        """Whether the file holds whole levels (a span, or a level of one part)."""
        return self.parts == 1

    @classmethod
    def of_name(cls, name: str, parts: int = 1) -> "Piece":
        found = _NAME.match(name)
        if found is None:
            raise ValueError(f"not the name of a piece of rows: {name!r}")
        first, last, part = (int(g) for g in found.groups())
        return cls(first, last, part, parts)


class Plan(Mapping[int, dict[str, int]]):
    """The plan of a table: for each level with positions, its number of positions (``positions``),
    of parts (``parts``) and the first level of its file (``span``).

    Kept as it is saved, in spans: [first level, number of parts, [positions of
    each level]] for each span of small levels or level cut in parts, levels
    without positions inside a span counting 0. A subtraction game has a million
    levels and sixteen spans: nothing here goes level by level unless asked to.
    """

    def __init__(self, spans: Iterable[list[Any]] = ()) -> None:
        self.spans: list[list[Any]] = [[int(first), int(parts), sizes] for first, parts, sizes in spans]
        if any(not isinstance(sizes, list) or not sizes for _, _, sizes in self.spans):
            raise ValueError("a span of the plan without its levels' sizes")
        self._firsts = [first for first, _, _ in self.spans]
        self._count = sum(len(sizes) - sizes.count(0) for _, _, sizes in self.spans)

    def span_index(self, level: int) -> int:
        """The index of the span that would hold the level, or -1."""
        at = bisect.bisect_right(self._firsts, level) - 1
        return at if at >= 0 and level - self._firsts[at] < len(self.spans[at][2]) else -1

    def __getitem__(self, level: int) -> dict[str, int]:
        at = self.span_index(level)
        if at >= 0:
            first, parts, sizes = self.spans[at]
            if sizes[level - first]:
                return {"positions": sizes[level - first], "parts": parts, "span": first if parts == 1 else level}
        raise KeyError(level)

    def __iter__(self) -> Iterator[int]:
        for first, _, sizes in self.spans:
            yield from (first + offset for offset, size in enumerate(sizes) if size)

    def __len__(self) -> int:
        return self._count

    def sizes(self, first: int, last: int) -> list[tuple[int, int]]:
        """(level, positions) of the levels with positions from ``first`` to ``last``, which one span holds."""
        at = self.span_index(first)
        if at < 0:
            return []
        start, _, sizes = self.spans[at]
        window = sizes[first - start : last - start + 1]
        return [(start + offset, size) for offset, size in enumerate(window, first - start) if size]


class Layout:
    """The pieces of a plan, and which pieces hold each level."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.pieces: list[Piece] = []  # in the order of their levels, a level's parts in order
        self._held: list[list[Piece]] = []  # the pieces of each span
        for first, parts, sizes in plan.spans:
            held = [Piece(first, first + len(sizes) - 1, part, parts) for part in range(parts)]
            self.pieces += held
            self._held.append(held)
        self._by_name = {piece.name: piece for piece in self.pieces}

    def of_level(self, level: int) -> list[Piece]:
        """The pieces holding a level's rows (none for a level without positions)."""
        return self._held[self.plan.span_index(level)] if level in self.plan else []

    def named(self, name: str) -> Piece | None:
        """The piece of a file name, if the plan has it."""
        return self._by_name.get(name)

    def levels_held(self, names: Container[str]) -> list[int]:
        """The levels whose every piece is among these file names, ascending."""
        done: list[int] = []
        for (first, _, sizes), held in zip(self.plan.spans, self._held):
            if all(piece.name in names for piece in held):
                if 0 in sizes:
                    done += [first + offset for offset, size in enumerate(sizes) if size]
                else:
                    done += range(first, first + len(sizes))
        return done
