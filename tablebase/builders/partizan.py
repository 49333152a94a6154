"""Building partizan tables: canonical forms solved level by level, a values table, a recursive oracle.

A plain game's moves lead to sums of its components, each side's apart. A
partizan table keeps every position (its lookups read each side's moves as
sums of stored parts, not through representatives) and its position text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.builders.builder import Builder, Footprint, Wide
from tablebase.builders.values_build import ValuesBuild
from tablebase.cgt import Value, from_option_ids, sum_ids
from tablebase.games import PartizanForm, SumMoves
from tablebase.kinds.partizan import Partizan
from tablebase.lazy import np
from tablebase.listing.rules import PlainRules
from tablebase.solve import Place, Solver
from tablebase.solve.partizan import PartizanSolver


class PartizanBuilder(Builder):
    kind_class = Partizan
    artifacts = (ValuesBuild(),)

    def game_rules(self) -> PlainRules:
        game = self.game
        return PlainRules((game.left_moves, game.right_moves), split=game.components)

    def symmetry_refusal(self) -> str | None:
        # A partizan lookup reads each side's moves as sums of stored parts, not through representatives.
        return "partizan tables do not keep one position of each orbit (their lookups read moves as stored)"

    def moves_of(self, keys: np.ndarray, game: Any = None) -> list[SumMoves]:
        return list((self.keyed if game is None else game).left_right_moves(keys))

    def solver(self, place: Place | None = None, fresh: bool = False, wide: Wide = None) -> Solver:
        return PartizanSolver(self.keyed)

    def compact_refusal(self) -> str | None:
        return "partizan lookups read rows by position"

    def footprint(self, wide: Wide = None) -> Footprint:
        # Each known position's value id in a dict (about 100 bytes), each distinct value's
        # figures; a partition's moves and rows as Python lists before they become Arrow
        # (measured on Domineering: about 1.9 KB a position with 24 moves).
        return Footprint(100, 400 + 60 * max(self.keyed.max_moves, 1), 200, False)

    def oracle(self) -> Callable[[int], dict[str, Any]]:
        """The canonical value from the definition {Left's options | Right's options}, by recursion on keys.

        A plain game is searched on whole positions, its moves never split into
        components, so that a ``components`` that does not describe the rules shows.
        """
        if not self.game.keyed:
            return _whole(self.game, self.keyed)
        game: PartizanForm = self.keyed
        memo: dict[int, Value] = {}

        def value(key: int) -> Value:
            if key not in memo:
                options = []
                for side in game.left_right_moves(np.array([key], dtype=np.int64)):
                    results = []
                    for j in range(len(side.moves)):
                        a, b = int(side.starts[j]), int(side.starts[j + 1])
                        total = Value(sum_ids([]))
                        for k, n in zip(side.keys[a:b].tolist(), side.negate[a:b].tolist()):
                            total = total + (-value(k) if n else value(k))
                        results.append(total.id)
                    options.append(results)
                memo[key] = Value(from_option_ids(*options))
            return memo[key]

        def figures(key: int) -> dict[str, Any]:
            g = value(key)
            return {"value": str(g), "outcome": g.outcome}

        return figures


def _whole(game: Any, keyed: Any) -> Callable[[int], dict[str, Any]]:
    """The canonical values of a plain game's stored positions by the definition on whole positions."""
    memo: dict[Any, Value] = {}

    def value(position: Any) -> Value:
        if position not in memo:
            options = ([value(child).id for _, child in moves(position)]
                       for moves in (game.left_moves, game.right_moves))
            memo[position] = Value(from_option_ids(*options))
        return memo[position]

    def figures(key: int) -> dict[str, Any]:
        g = value(game.read(keyed.text(key)))
        return {"value": str(g), "outcome": g.outcome}

    return figures
