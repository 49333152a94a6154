"""Impartial games: Grundy values by mex, outcome, remoteness, best move (and misère outcomes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tablebase.games import Children, ImpartialForm
from tablebase.kinds.base import Footprint, Kind, StoredTable
from tablebase.kinds.lookups import Listed, row_with_moves
from tablebase.listing import ListedPlainGame, PlainRules, one_part
from tablebase.solve import Place, Solver
from tablebase.solve.bites import BiteSolver
from tablebase.solve.impartial import ImpartialSolver, KnownValues
from tablebase.solve.kernels import children_of
from tablebase.solve.queen import QueenSolver


class ListedImpartialGame(ListedPlainGame):
    """A plain impartial game in keyed form, over its listing."""

    queen = None
    bites = None

    @property
    def misere(self) -> bool:
        return self.game.misere

    def plays(self) -> list[Callable[[Any], Any]]:
        return [lambda p: ((m, (c,)) for m, c in self.game.moves(p))]

    def children(self, keys: np.ndarray) -> Children:
        return one_part(self.side(keys, 0))


class Impartial(Kind):
    name = "impartial"
    listed_class = ListedImpartialGame

    def plain_rules(self) -> PlainRules:
        return PlainRules((self.game.moves,))

    def columns(self) -> list[str]:
        misere = ["misere_outcome"] if self.game.misere else []
        return ["key", "position", "grundy", "outcome", *misere, "remoteness", "best_move"]

    def solver(self, place: Place | None = None, fresh: bool = False) -> Solver:
        """Queen moves and diagram bites have solvers of their own (solve/queen.py, solve/bites.py)."""
        game: ImpartialForm = self.keyed
        if game.queen is not None and not game.misere:
            return QueenSolver(game)
        if game.bites is not None and not game.misere:
            return BiteSolver(game, place, fresh)
        return ImpartialSolver(game, place, fresh)

    def footprint(self) -> Footprint:
        game = self.keyed
        item = np.dtype(game.value_dtype).itemsize
        # keys and solved arrays; Arrow rows (key, text offsets, figures, move codes); the Parquet
        # writer's encoded copy; twice over for the temporaries of concatenation. The text itself:
        # in the rows, half again in the encoded copy, twice over.
        per_row = 2 * (8 + 3 * item + 9 + (8 + 4 + 2 * item + 6) + 4)
        if game.compiled_moves is None:
            per_row += 2 * 16 * max(game.max_moves, 1)  # each position's moves listed at once
        dense = game.key_space is not None
        per_key = KnownValues.bytes_per_key(game) + (0 if dense else 8)  # sparse values keep their keys
        return Footprint(per_key, per_row, (8 + 2 * item) * 2, dense, per_notation_byte=3)

    def lookup(self, table: StoredTable, text: str) -> dict[str, Any]:
        return row_with_moves(table, text, _best_first)

    def oracle(self) -> Callable[[int], dict[str, Any]]:
        """Grundy value (mex), remoteness and misère outcome from the definitions, by recursion on keys."""
        game = self.keyed
        memo: dict[int, dict[str, Any]] = {}

        def figures(key: int) -> dict[str, Any]:
            if key in memo:
                return memo[key]
            _, child_keys, _ = children_of(game, np.array([key], dtype=np.int64))
            children = [figures(c) for c in child_keys.tolist()]
            grundy = 0
            while any(c["grundy"] == grundy for c in children):
                grundy += 1
            lost = [c["remoteness"] for c in children if c["grundy"] == 0]
            remoteness = 0 if not children else 1 + (min(lost) if lost else max(c["remoteness"] for c in children))
            found = {"grundy": grundy, "outcome": "N" if grundy else "P", "remoteness": remoteness}
            if game.misere:
                found["misere_outcome"] = "N" if not children or any(c["misere_outcome"] == "P" for c in children) else "P"
            memo[key] = found
            return found

        return figures


def _best_first(listed: Listed) -> Listed:
    """As the solver chooses: moves to lost positions, quickest win first; then the longest defences."""
    return sorted(listed, key=lambda m: (m[1]["outcome"] != "P",
                                         m[1]["remoteness"] if m[1]["outcome"] == "P" else -m[1]["remoteness"],
                                         m[0]))
