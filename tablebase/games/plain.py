"""The plain form of a game: its rules in plain Python, one class per kind.

A position is any hashable Python value (an int, a string, a tuple, a
frozenset); equal positions must be equal values. You give where play
starts, each position's level, its moves and its notation; the engine finds
every position forward from the start, numbers the positions itself (by
level, then by notation), and solves them on its Dask workers. Every move
must lead to a lower level (a scored game's moves may also stay in it: a pass).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar, NamedTuple

from tablebase.games.base import Game

Position = Hashable
Move = Any  # hashable and ordered among the game's moves


class PlainGame(Game):
    """What every plain game gives, whatever its kind.

    A move is any value that sorts among the game's other moves (an int, a string, a tuple); where two
    moves are equally good, the table's best move is the smallest. The engine calls these methods in its
    own processes, so they must depend only on the game's options and the position. Each must return in
    bounded time: the listing stops, naming the method and the position, when the calls for one position
    take longer than ``--position-seconds``.
    """

    keyed = False

    @abstractmethod
    def start_positions(self) -> Iterable[Position]:
        """Where play starts: the table holds these and every position reachable from them."""

    @abstractmethod
    def level(self, position: Position) -> int:
        """A whole number >= 0 that every move lowers (the solve order), e.g. the pieces left.

        An ``int`` (not a float or a bool) of at most ``base.MAX_LEVEL``.
        """

    @abstractmethod
    def format(self, position: Position) -> str:
        """The position's one canonical spelling (equal positions, equal text; different, different)."""

    @abstractmethod
    def read(self, text: str) -> Position:
        """The position a text spells (any accepted spelling); raise ``self.position_error`` if none.

        ``read(format(p))`` must give ``p`` back: never None, nor another position.
        """

    def move_name(self, move: Move) -> str:
        """How a move is written in the table and in lookups (one name per move)."""
        return str(move)

    def canonical(self, position: Position) -> Position:
        """The representative of the position's orbit under the game's symmetries (a board or its mirror).

        Optional. A build asked for symmetry (``--symmetry``) keeps one position
        of each orbit: every start position and every move's child is replaced by
        its representative. It must be a position of the same level and the same
        figures, give one representative to every position of an orbit, and be
        its own representative. Without it, the game has no symmetry (every
        position is its own orbit) and ``--symmetry`` is refused.
        """
        return position


def declares_symmetry(game: object) -> bool:
    """Whether a plain game (or its class) gives its positions' representatives (``PlainGame.canonical``)."""
    cls = game if isinstance(game, type) else type(game)
    return issubclass(cls, PlainGame) and cls.canonical is not PlainGame.canonical


class ImpartialGame(PlainGame):
    """An impartial game in normal play: both players have the same moves, and who cannot move loses.

    The table holds each position's Grundy value, outcome (P: the player to
    move loses, N: wins), remoteness and best move; with ``misere = True`` also
    its outcome when who cannot move wins.
    """

    kind = "impartial"
    #: also store each position's outcome in misère play
    misere: ClassVar[bool] = False

    @abstractmethod
    def moves(self, position: Position) -> Iterable[tuple[Move, Position]]:
        """Every move of the position and where it leads, as (move, position) pairs."""

    def components(self, position: Position) -> Sequence[Position]:
        """The independent parts a position falls into (Kayles' rows, a take-and-break game's heaps).

        Without it every position is one part. With it, a move leads to a sum of
        parts, only parts are stored, and a position's Grundy value is the XOR of
        its parts' (the Sprague-Grundy theorem): a table of single rows answers
        for every sum of rows. Each part must be a position of the game that is
        played alone exactly as it is played in the sum; ``check-game`` solves
        positions whole and compares them with the XOR of their parts. What a sum
        does not determine is not stored: remoteness and misère outcomes.
        """
        return (position,)


class PartizanGame(PlainGame):
    """A short partizan game in normal play: Left and Right have their own moves.

    The table holds each position's canonical value (CGSuite's notation), its
    outcome class, mean, temperature and each side's best move.
    """

    kind = "partizan"

    @abstractmethod
    def left_moves(self, position: Position) -> Iterable[tuple[Move, Position]]:
        """Left's moves of the position and where they lead."""

    @abstractmethod
    def right_moves(self, position: Position) -> Iterable[tuple[Move, Position]]:
        """Right's moves of the position and where they lead."""

    def components(self, position: Position) -> Sequence[Position]:
        """The independent parts a position falls into, whose values add up to its value.

        Without it every position is one part. With it, moves lead to sums of
        parts, and only parts are stored: a table stays small when its
        positions keep falling apart (CGSuite's decomposition).
        """
        return (position,)


class Outcome(IntEnum):
    """Who wins a finished position of a scored game, from the view of the player to move."""

    LOSS = 0
    WIN = 1
    DRAW = 2


#: The largest score a table stores (its sign aside): the solver keeps scores in one byte.
MAX_SCORE = 127


class Result(NamedTuple):
    """How a finished game ended, for the player to move: the outcome and a score.

    The score counts in the winner's favour (e.g. the cards the loser keeps);
    the solver makes the winner maximise it and the loser minimise it. It is
    a whole number from -MAX_SCORE to MAX_SCORE.
    """

    outcome: Outcome
    score: int = 0


@dataclass(frozen=True, slots=True)
class Again:
    """Where a scored game's move leads when the same player moves again (Kalah's extra turn).

    ``moves`` yields ``(move, Again(child))`` for such a move: the child's
    value is the mover's own (not the opponent's, as after other moves), and
    the move counts as one ply. Not a position itself: the table holds the child.
    """

    position: Position


class ScoredGame(PlainGame):
    """A game whose finished positions have a result the game gives: a win, a loss or a draw.

    Positions without moves are finished and ``result`` says how they ended;
    play may go round in circles through moves that stay in a level (a
    pass), and positions that neither player can win are draws. The table
    holds the outcome (N: the player to move wins, P: loses, D: draw), the
    plies to the end with the winner hurrying and the loser delaying, and a
    best move; with ``scores = True`` also the score and the best move for
    it; with a ``pass_move``, how many passes each player makes.
    """

    kind = "scored"
    #: results carry a score worth playing for (else only the outcome counts)
    scores: ClassVar[bool] = False
    #: the move that passes (its count is kept per player); None: the game has no passes
    pass_move: ClassVar[Move | None] = None

    @abstractmethod
    def moves(self, position: Position) -> Iterable[tuple[Move, Position | Again]]:
        """Every move of the position and where it leads; none once the game is over.

        A move after which the same player moves again leads to ``Again(child)``.
        """

    def result(self, position: Position) -> Result:
        """How a position without moves ended, as a ``Result``; by default the player to move has lost (normal play)."""
        return Result(Outcome.LOSS)
