"""A canonical form's figures, as a table's rows give them, and the rule that ranks a side's moves.

``Figures`` of a form, computed once per form; ``best_move`` picks a side's
best move by ``move_rank``. The partizan solver and a table's lookups both
choose by it, so that a lookup's best move is the stored one.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from .game import Value
from .stable import atomic_weight_text, reduced_text, value_row

OUTCOMES = ["L", "R", "N", "P"]
NO_MOVE = -1


class Figures:
    """What a table's rows and lookups say of one canonical form, computed once per form."""

    __slots__ = ("text", "stable", "outcome", "mean", "temperature", "left_stop", "right_stop",
                 "birthday", "is_number", "left_ids", "right_ids", "left_options", "right_options", "id")

    def __init__(self, g: int) -> None:
        row = value_row(g, infinitesimals=False)
        game = Value(g)
        self.id = g
        self.text: str = row["text"]
        self.stable: int = row["id"]
        self.outcome: int = OUTCOMES.index(game.outcome)
        # Exact, as the algebra has them: the files hold them as doubles, lookups as they are.
        self.mean = Fraction(row["mean"])
        self.temperature = Fraction(row["temperature"])
        self.left_stop = Fraction(row["left_stop"])
        self.right_stop = Fraction(row["right_stop"])
        self.birthday: int = row["birthday"]
        self.is_number: bool = row["is_number"]
        self.left_ids: list[int] = row["left_ids"]
        self.right_ids: list[int] = row["right_ids"]
        self.left_options = frozenset(x.id for x in game.left_options)
        self.right_options = frozenset(x.id for x in game.right_options)

    # Only the values table asks for these; lookups do not pay for a heating by *.
    @property
    def atomic_weight(self) -> str | None:
        """CGSuite's atomic weight, None where the form has none."""
        return atomic_weight_text(self.id)

    @property
    def reduced(self) -> str:
        """The reduced canonical form: the simplest form infinitesimally close."""
        return reduced_text(self.id)


def best_move(figures: Callable[[int], Figures], options: frozenset, values: list[int],
              codes: list[int], left: bool) -> int:
    """The code of the best of one side's moves (values: their results' ids), or -1 if none.

    ``options`` are the canonical options of that side; ``move_rank`` says how moves rank.
    """
    best, best_rank = NO_MOVE, None
    for v, code in zip(values, codes):
        rank = move_rank(figures(v), v in options, code, left)
        if best_rank is None or rank > best_rank:
            best, best_rank = code, rank
    return best


def move_rank(result: Figures, canonical: bool, code: int, left: bool) -> tuple:
    """How good a move is for the side that makes it, the larger the better: to a canonical option of that
    side (undominated, not reversed away), then to a win when that side moves first, then the best stop for
    the mover (Left: the highest right stop of the result; Right: the lowest left stop), then the smallest
    code."""
    if left:
        return canonical, result.outcome in (0, 3), result.right_stop, -code
    return canonical, result.outcome in (1, 3), -result.left_stop, -code
