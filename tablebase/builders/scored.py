"""Building scored tables: levels solved by retrograde analysis, whole where a move keeps its level.

A scored game's moves may keep their level (a pass, an extra turn), so its
listing lets them (``same_level``), and its oracle iterates to a fixed point
(play may go in circles).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.builders.builder import Builder, Footprint, Wide
from tablebase.games import AGAIN, KEY_BITS, Outcome, PlainGame, ScoredForm, SumMoves
from tablebase.games.loops import children_of
from tablebase.kinds.scored import Scored
from tablebase.lazy import np
from tablebase.listing.rules import PlainRules
from tablebase.solve import Place, Solver

LETTER = {Outcome.LOSS: "P", Outcome.WIN: "N", Outcome.DRAW: "D"}


class ScoredBuilder(Builder):
    kind_class = Scored
    same_level = True

    @property
    def whole_levels(self) -> bool:  # type: ignore[override]
        """Levels are solved whole where a move may keep its level (a pass, an extra turn): such moves tie
        a level's positions together. A game whose listing found no such move (Connect-Four) has its
        large levels cut in parts, as any other kind's, and a worker holds a part, not its largest level."""
        return self._kind is None or getattr(self.keyed, "kept_levels", None) != frozenset()

    def game_rules(self) -> PlainRules:
        return PlainRules((self.game.moves,), result_of=_result_of(self.game), same_level=True, again=True)

    def moves_of(self, keys: np.ndarray, game: Any = None) -> list[SumMoves]:
        """The moves of a batch of keys, each to its child without the mark of an extra turn."""
        side = super().moves_of(keys, game)[0]
        return [side._replace(keys=side.keys & KEY_BITS)]

    def solver(self, place: Place | None = None, fresh: bool = False, wide: Wide = None) -> Solver:
        from tablebase.solve.scored import ScoredSolver  # numba with it: only where a table is solved

        return ScoredSolver(self.keyed, fresh)

    def footprint(self, wide: Wide = None) -> Footprint:
        # Per position of the level in flight, at the peak: the scan's offers and counters, the
        # moves that stay in the level and their reverse, a retrograde run's state (the solver
        # frees each array once done with it), the best moves and the Arrow rows with their text:
        # about 120 bytes and the text, as measured on Tanhinmin (158 bytes a position for K = 6,
        # H = 5). Moves read from a listing are counted with the listing (``listed_bytes``).
        text = 2 * self.keyed.max_level + 8
        return Footprint(10, 120 + text, 2 * (8 + 6), True)  # five 16-bit figures per key

    def oracle(self) -> Callable[[int], dict[str, Any]]:
        """Outcome and plies from the definitions, by iterating to a fixed point (play may go in circles)."""
        game = self.keyed
        memo: dict[int, dict[str, Any]] = {}

        def figures(key: int) -> dict[str, Any]:
            if not memo:
                _solve_all(game, memo)
            return memo[key]

        return figures


class _result_of:  # noqa: N801 - a picklable function of the game, sent to workers with it
    """How a plain scored game's position without moves ended, as (outcome, score)."""

    def __init__(self, game: PlainGame) -> None:
        self.game = game

    def __call__(self, p: Any) -> tuple[int, int]:
        found = self.game.result(p)
        return int(Outcome(found[0])), int(found[1])


def _solve_all(game: ScoredForm, memo: dict[int, dict[str, Any]]) -> None:
    """Every position of the table, valued in rounds: round r settles the positions r plies from the end.

    A position is won in round r if a child was lost in round r - 1 (the winner
    hurries), lost in round r if every child is won and the last was won in
    round r - 1 (the loser delays); what no round settles is drawn. A child
    after an extra turn (its key marked ``AGAIN``) counts the other way
    round: the mover wins through it if it is won.
    """
    keys = [int(k) for level in range(game.max_level + 1) for k in game.level_keys(level, 0, game.level_size(level))]
    offsets, child, _ = children_of(game, np.array(keys, dtype=np.int64))
    moves = {k: child[offsets[i]:offsets[i + 1]].tolist() for i, k in enumerate(keys)}
    turned = {"N": "P", "P": "N"}

    def seen(c: int) -> tuple[str, int] | None:
        """A child's (outcome, round) as the mover's opponent sees it, None while unsettled."""
        v = value.get(c & KEY_BITS)
        return v if v is None or c < AGAIN else (turned[v[0]], v[1])

    finals = [k for k in keys if not moves[k]]
    outcome, _ = game.results(np.array(finals, dtype=np.int64)) if finals else ([], [])
    value: dict[int, tuple[str, int]] = {k: (LETTER[Outcome(int(o))], 0) for k, o in zip(finals, outcome)}
    drawn_ends = {k for k, v in value.items() if v[0] == "D"}
    for k in drawn_ends:
        del value[k]
    waiting = [k for k in keys if k not in value and k not in drawn_ends]
    r = 1
    while True:
        settled = {}
        for k in waiting:
            known = [seen(c) for c in moves[k]]
            if any(v is not None and v == ("P", r - 1) for v in known):
                settled[k] = ("N", r)
            elif all(v is not None and v[0] == "N" for v in known) and max(v[1] for v in known) == r - 1:
                settled[k] = ("P", r)
        if not settled:
            break
        value.update(settled)
        waiting = [k for k in waiting if k not in settled]
        r += 1
    for k in keys:
        letter, plies = value.get(k, ("D", 0))
        memo[k] = {"outcome": letter, "plies": plies if letter != "D" else None}
