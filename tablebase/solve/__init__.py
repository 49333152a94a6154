"""Solvers, one per kind of game (not per game).

A solver takes a game, is told the stored rows of lower levels with
``remember(level, rows)`` (a level may come in parts), and computes the rows of a slice of a level with
``solve(keys)`` (leaving out the position text if asked: the key determines
it). ``columns`` names what it needs to read back of a lower level;
``levels`` says which levels it has taken in. It knows kinds of games (impartial,
partizan, loopy scored), not individual games, and nothing of Dask or files;
a dense impartial solver can map its values from a folder that other
processes map too (``shared``).
"""

from __future__ import annotations

from pathlib import Path
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

    @property
    def shared(self) -> Path | None: ...

    def remember(self, level: int, rows: pa.Table | None, whole: bool = True) -> None: ...

    def solve(self, keys: np.ndarray, with_positions: bool = True) -> pa.Table: ...


def solver_for(game: Game, shared: Path | None = None) -> Solver:
    """The solver of the game's kind (queen moves and diagram bites have their own: solve/queen.py, solve/bites.py).

    Solvers whose values are dense arrays over the key space map them from the
    folder ``shared`` if given; the others keep theirs in memory.
    """
    from tablebase.solve.bites import BiteSolver
    from tablebase.solve.impartial import ImpartialSolver
    from tablebase.solve.loopy import LoopySolver
    from tablebase.solve.partizan import PartizanSolver
    from tablebase.solve.queen import QueenSolver

    if game.kind == "impartial" and game.queen is not None and not game.misere:
        return QueenSolver(game)
    if game.kind == "impartial" and game.bites is not None and not game.misere:
        return BiteSolver(game, shared)
    if game.kind == "impartial":
        return ImpartialSolver(game, shared)

    kinds = {"loopy": LoopySolver, "partizan": PartizanSolver}
    if game.kind not in kinds:
        raise TablebaseError(f"{game.name}: no solver for games of kind {game.kind!r}")
    return kinds[game.kind](game)
