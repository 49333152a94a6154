"""What a kind says an exploration needs of its plain games: each side's moves, and how positions split and end.

A build that asks for the game's symmetry gets rules whose moves lead to
the representatives of their children's orbits (``reduced``), and start
positions taken to theirs: every part of the listing follows these rules,
so the listing keeps one position of each orbit and the solver sees a
smaller game of the same figures.

Its own module so that a kind, which names these rules when it is imported,
does not import the exploration that follows them: a program that only looks
positions up imports the kinds, never the listing's engine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tablebase.errors import TablebaseError
from tablebase.games import AGAIN, Again, PlainGame

# A side's moves of a position: (move, position) pairs.
Moves = Callable[[Any], Iterable[tuple[Any, Any]]]


@dataclass(frozen=True)
class PlainRules:
    """What a search needs of a plain game, as its kind puts it.

    ``sides``: each side's moves; ``split``: the parts a position reached falls
    into (None: it stays whole); ``result_of``: how a position without moves
    ended, (outcome, score) (None: the kind has no such results); ``same_level``:
    moves may keep their level; ``again``: a move may lead to ``Again(child)``, the same player
    moving again there (scored games); ``canonical``: the representative of a position's orbit, where the
    build asked for the game's symmetry (None: every position is listed as it is).

    A search records such a move's child by its number with ``AGAIN`` added
    (``extra_turn``), which the listing carries to the child's key.
    """

    sides: tuple[Moves, ...]
    split: Callable[[Any], Sequence[Any]] | None = None
    result_of: Callable[[Any], tuple[int, int]] | None = None
    same_level: bool = False
    again: bool = False
    canonical: Callable[[Any], Any] | None = None

    def reduced(self, canonical: Callable[[Any], Any]) -> PlainRules:
        """These rules with every move's child (and extra turn's) taken to the representative of its orbit."""
        return replace(self, sides=tuple(_ToRepresentatives(side, canonical) for side in self.sides),
                       canonical=canonical)

    def start_positions(self, game: PlainGame) -> Iterable[Any]:
        """The game's start positions, each taken to its representative where the rules are reduced."""
        given = game.start_positions()
        return given if self.canonical is None else map(self.canonical, given)

    def extra_turn(self, game: PlainGame, child: Again) -> tuple[Any, int]:
        """The position an ``Again`` leads to and the mark its number gets; refused where the kind has no extra
        turns."""
        if not self.again:
            raise TablebaseError(f"{game.name}: moves() gave Again(...), a move after which the same player moves "
                                 f"again; only scored games have such moves")
        return child.position, AGAIN


class _ToRepresentatives:
    """A side's moves, each child replaced by its orbit's representative: a picklable function of the game
    (an exploration sends its rules to the workers), named as the side's own for the listing's messages."""

    def __init__(self, moves: Moves, canonical: Callable[[Any], Any]) -> None:
        self.moves, self.canonical = moves, canonical
        self.__name__ = getattr(moves, "__name__", "moves")

    def __call__(self, position: Any) -> Iterator[tuple[Any, Any]]:
        canonical = self.canonical
        for move, child in self.moves(position):
            yield move, Again(canonical(child.position)) if child.__class__ is Again else canonical(child)
