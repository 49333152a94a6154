"""Solvers, one per kind of game (not per game).

A solver takes a game, is told the stored rows of lower levels with
``remember(level, rows)`` (a level may come in parts), and computes the rows of a slice of a level with
``solve(keys)`` (leaving out the position text if asked: the key determines
it). ``columns`` names what it needs to read back of a lower level;
``levels`` says which levels it has taken in. It knows kinds of games (impartial,
partizan, loopy scored), not individual games, and nothing of Dask or files;
a dense impartial solver can map its values from a folder that other
processes map too (``place``, ``shared``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np
import pyarrow as pa

from tablebase.errors import TablebaseError
from tablebase.games import Game

#: Given the bytes of a solver's dense value arrays: a folder to map them from,
#: which other processes map too, or None to keep them in this process's memory.
Place = Callable[[int], Path | None]


class Solver(Protocol):
    game: Game
    columns: list[str]

    @property
    def levels(self) -> set[int]: ...

    @property
    def shared(self) -> Path | None: ...

    def remember(self, level: int, rows: pa.Table | None, whole: bool = True) -> None: ...

    def solve(self, keys: np.ndarray, with_positions: bool = True) -> pa.Table: ...


def solver_for(game: Game, place: Place | None = None) -> Solver:
    """The solver of the game's kind (queen moves and diagram bites have their own: solve/queen.py, solve/bites.py).

    Solvers whose values are dense arrays over the key space ask ``place``
    where to map them (and ``shared`` then says where they are); the others
    keep theirs in memory and never ask.
    """
    from tablebase.solve.bites import BiteSolver
    from tablebase.solve.impartial import ImpartialSolver
    from tablebase.solve.loopy import LoopySolver
    from tablebase.solve.partizan import PartizanSolver
    from tablebase.solve.queen import QueenSolver

    if game.kind == "impartial" and game.queen is not None and not game.misere:
        return QueenSolver(game)
    if game.kind == "impartial" and game.bites is not None and not game.misere:
        return BiteSolver(game, place)
    if game.kind == "impartial":
        return ImpartialSolver(game, place)

    kinds = {"loopy": LoopySolver, "partizan": PartizanSolver}
    if game.kind not in kinds:
        raise TablebaseError(f"{game.name}: no solver for games of kind {game.kind!r}")
    return kinds[game.kind](game)
