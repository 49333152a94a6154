"""Solvers, one per kind of game (and one per structural capability), not per game.

A solver (``Solver``) takes a game in keyed form, is told the stored rows of
lower levels, and computes the rows of a slice of a level. It knows kinds of
games, not individual games, and nothing of Dask or files; a dense impartial
solver can map its values from a folder that other processes map too
(``Place``, ``shared``). Which solver a game gets is its kind's choice
(``tablebase.kinds``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from tablebase.games import KeyedForm
from tablebase.lazy import np, pa

#: Given the bytes of a solver's dense value arrays: a folder to map them from,
#: which other processes map too, or None to keep them in this process's memory.
Place = Callable[[int], Path | None]


class Solver(Protocol):
    """A solver: told the stored rows of lower levels with ``remember(level, rows)`` (a level may come in
    parts), it computes the rows of a slice of a level with ``solve(keys, compact)`` (``compact``: leave out
    the position text, which the key determines). ``columns`` names what it needs to read back of a lower
    level; ``levels`` says which levels it has taken in."""

    game: KeyedForm
    columns: list[str]

    @property
    def levels(self) -> set[int]: ...

    @property
    def shared(self) -> Path | None: ...

    def remember(self, level: int, rows: pa.Table | None, whole: bool = True) -> None: ...

    def solve(self, keys: np.ndarray, compact: bool = False) -> pa.Table: ...

    def solve_span(self, levels: list[tuple[int, np.ndarray]],
                   compact: bool = False) -> tuple[pa.Table, np.ndarray]: ...

    def solve_part(self, level: int, start: int, stop: int, compact: bool = False) -> pa.Table: ...


class LevelByLevel:
    """A run of whole levels solved one after the other, each taken in before the next.

    Solvers with a faster way (one compiled call for the whole run) override ``solve_span``.
    """

    columns: list[str]

    def solve_part(self, level: int, start: int, stop: int, compact: bool = False) -> pa.Table:
        """The rows of positions start..stop-1 of a level (in the game's order), taken in once solved: the
        level is then known in part."""
        rows = self.solve(self.game.level_keys(level, start, stop), compact)  # type: ignore[attr-defined]
        self.remember(level, rows.select(self.columns), whole=False)  # type: ignore[attr-defined]
        return rows

    def solve_span(self, levels: list[tuple[int, np.ndarray]], compact: bool = False) -> tuple[pa.Table, np.ndarray]:
        """The rows of whole levels, in order (as one table), and each row's level."""
        tables, marks = [], []
        for level, keys in levels:
            rows = self.solve(keys, compact)  # type: ignore[attr-defined]
            self.remember(level, rows.select(self.columns))  # type: ignore[attr-defined]
            tables.append(rows)
            marks.append(np.full(rows.num_rows, level, dtype=np.int32))
        return pa.concat_tables(tables).combine_chunks(), np.concatenate(marks)


__all__ = ["LevelByLevel", "Place", "Solver"]
