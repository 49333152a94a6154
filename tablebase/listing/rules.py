"""What a kind says an exploration needs of its plain games: each side's moves, and how positions split and end.

Its own module so that a kind, which names these rules when it is imported,
does not import the exploration that follows them: a program that only looks
positions up imports the kinds, never the listing's engine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
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
    moving again there (scored games).

    A search records such a move's child by its number with ``AGAIN`` added
    (``extra_turn``), which the listing carries to the child's key.
    """

    sides: tuple[Moves, ...]
    split: Callable[[Any], Sequence[Any]] | None = None
    result_of: Callable[[Any], tuple[int, int]] | None = None
    same_level: bool = False
    again: bool = False

    def extra_turn(self, game: PlainGame, child: Again) -> tuple[Any, int]:
        """The position an ``Again`` leads to and the mark its number gets; refused where the kind has no extra
        turns."""
        if not self.again:
            raise TablebaseError(f"{game.name}: moves() gave Again(...), a move after which the same player moves "
                                 f"again; only scored games have such moves")
        return child.position, AGAIN
