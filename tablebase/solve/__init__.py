"""Solvers, one per kind of game (not per game).

A solver takes a game, is told the stored rows of lower levels with
``remember(level, rows)``, and computes the rows of a slice of a level with
``solve(keys)`` (leaving out the position text if asked: the key determines
it). ``columns`` names what it needs to read back of a lower level;
``levels`` says which levels it has taken in. It knows kinds of games (impartial,
partizan, loopy scored), not individual games, and nothing of Dask or files.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import pyarrow as pa

from tablebase.errors import TablebaseError
from tablebase.games import Game


class Solver(Protocol):
    game: Game
    columns: list[str]

    @property
    def levels(self) -> set[int]: ...

    def remember(self, level: int, rows: pa.Table | None) -> None: ...

    def solve(self, keys: np.ndarray, with_positions: bool = True) -> pa.Table: ...


def solver_for(game: Game) -> Solver:
    """The solver of the game's kind (queen moves and diagram bites have their own: solve/queen.py, solve/bites.py)."""
    from tablebase.solve.bites import BiteSolver
    from tablebase.solve.impartial import ImpartialSolver
    from tablebase.solve.loopy import LoopySolver
    from tablebase.solve.partizan import PartizanSolver
    from tablebase.solve.queen import QueenSolver

    if game.kind == "impartial" and game.queen is not None and not game.misere:
        return QueenSolver(game)
    if game.kind == "impartial" and game.bites is not None and not game.misere:
        return BiteSolver(game)

    kinds = {"impartial": ImpartialSolver, "loopy": LoopySolver, "partizan": PartizanSolver}
    if game.kind not in kinds:
        raise TablebaseError(f"{game.name}: no solver for games of kind {game.kind!r}")
    return kinds[game.kind](game)
