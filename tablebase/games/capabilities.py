"""What a keyed game may declare beyond its keys: each capability a fast path of the engine uses.

A compiled move generator (``CompiledMoves``), the structure of a game's
moves that has a solver of its own (``QueenMoves``, ``DiagramBites``), a
game of boards larger than its table (``Boards``, whose searches use
``PartGraph``), and the shapes in which batches of moves travel
(``Children``, ``SumMoves``). Each is optional; ``keyed.py`` says what
happens without it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from tablebase.lazy import np


class Children(NamedTuple):
    """The moves of a batch of positions in compressed-row form.

    The moves of position ``i`` are ``keys[offsets[i]:offsets[i+1]]`` (the child
    positions' keys) and ``moves[...]`` (the game's integer move codes).
    """

    offsets: np.ndarray  # int64, len(positions) + 1
    keys: np.ndarray  # int64
    moves: np.ndarray  # int64


class SumMoves(NamedTuple):
    """One side's moves of a batch of partizan positions, each leading to a sum.

    A move may split a position into independent parts (a Domineering region
    falling apart), so it leads to a list of stored positions whose values
    add up; an empty list is the zero game. The moves of position ``i`` are
    ``moves[offsets[i]:offsets[i+1]]``; move ``j`` leads to the sum of the
    components ``keys[starts[j]:starts[j+1]]``, each negated where ``negate``
    says so (a stored position standing for its mirror image with the roles
    of Left and Right swapped, such as a transposed Domineering region).
    """

    offsets: np.ndarray  # int64, len(positions) + 1
    moves: np.ndarray  # int64 move codes, one per move
    starts: np.ndarray  # int64, len(moves) + 1
    keys: np.ndarray  # int64 component keys
    negate: np.ndarray  # bool, one per component key


class PartGraph(NamedTuple):
    """The parts a search beyond a table meets, each with its moves (``Boards.part_graph``).

    Part ``i`` is worth {its Left moves | its Right moves}: Left's are position
    ``2 * i`` of ``moves`` and Right's position ``2 * i + 1``, each move leading
    to a sum of components. A component is a stored key or, where ``searched``
    says so, the number of another part, whose level is lower than its own.
    """

    roots: np.ndarray  # int64: the number of each part asked for
    levels: np.ndarray  # int64: each part's level
    moves: SumMoves  # over 2 * parts positions: each part's Left moves, then its Right moves
    searched: np.ndarray  # bool, one per component: a part's number, else a stored key
    part: Callable[[int], Any]  # part i, as ``board_parts`` gives a part the table does not hold


@dataclass(frozen=True)
class CompiledMoves:
    """A capability: a numba-compiled move generator.

    ``kernel(key, args, out_keys, out_moves) -> count`` writes one position's
    child keys and move codes into the buffers (each ``max_moves`` long);
    ``make_args()`` builds the ``args`` tuple it needs (scratch arrays in it
    may be overwritten; each caller gets its own). With it, the solvers run
    one compiled loop per batch that calls the generator directly, compiled
    once per game and machine and kept in a cache keyed on the game's source.
    Without it, the game gives ``children(keys)`` and the solvers read its arrays.
    """

    kernel: Any
    make_args: Callable[[], tuple]


@dataclass(frozen=True)
class QueenMoves:
    """A capability: the moves are a chess queen's toward the corner.

    A position is a pair a <= b of whole numbers up to ``top`` (the board is
    symmetric: ``b a`` is the same position). A move lowers one coordinate by any
    d >= 1, or both by the same d, and nothing else; the level is a + b. Move codes
    are ``smaller + d`` (d taken from the smaller coordinate), ``larger + d`` (from
    the larger one) and ``both + d``. ``pairs(keys)`` gives the (n, 2) int64 array
    of each key's a and b. Such games get a solver that never lists moves
    (solve/queen.py); without it they are solved move by move.
    """

    top: int
    smaller: int
    larger: int
    both: int
    pairs: Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class DiagramBites:
    """A capability: the moves are bites out of a Young diagram.

    A position is a Young diagram in a ``rows`` x ``cols`` box keyed by its
    lattice-path rank (``young.rank``). A move picks a square (r, c) of the
    diagram other than the corner (0, 0) and removes every square (i, j) with
    i >= r and j >= c; its code is ``r * cols + c``. The level is the number of
    squares. Such games get a solver that walks the bites itself
    (solve/bites.py); without it they are solved through the move generator.
    """

    rows: int
    cols: int


class Boards(Protocol):
    """A capability of partizan games: any board is a sum of stored parts (Domineering's regions).

    With it, a lookup takes any board: its parts are read from the table
    (``negated``: the stored part is the board part's mirror image with the
    players swapped, worth the negative), and a part larger than the table is
    valued by searching its moves down to parts the table holds. Without it,
    lookups take the table's own positions only.
    """

    def read_board(self, text: str) -> Any:
        """Any board, as written."""

    def spell_board(self, board: Any) -> str:
        """A board's notation."""

    def board_level(self, board: Any) -> int:
        """A board's level, as its positions' levels are counted."""

    def board_parts(self, board: Any) -> list[tuple[Any, int | None, bool]]:
        """(part, its stored key or None if the table is too small for it, negated) for each part."""

    def board_moves(self, board: Any) -> tuple[list[tuple[int, Any]], list[tuple[int, Any]]]:
        """Left's and Right's moves of a board as (move code, board after the move)."""

    def part_graph(self, parts: list[Any], check: Callable[[int], None]) -> PartGraph | None:
        """The graph of ``parts`` (each a part the table does not hold, as ``board_parts`` gives it) and of
        every part their moves lead to that the table does not hold, in compiled loops for a search too large
        for Python; ``check(parts found)``, called every few thousand parts, may raise to end it. None where
        the game has no such loops, or they do not take these parts: the search stays in Python."""
