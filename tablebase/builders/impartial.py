"""Building impartial tables: the mex solvers, their memory, the heaps' figures, a plain recursive oracle.

Which solver a game gets follows from its capabilities (queen moves, diagram
bites, sums of components, heaps solved in order: solve/). A game whose moves
lead to sums of components is explored and solved as its parts; its oracle
searches whole positions, never split, so that a ``components`` that does
not describe the rules shows.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

from tablebase.builders.builder import Builder, Footprint, Wide
from tablebase.builders.heap_figures import HeapFigures
from tablebase.builders.misere_figures import MisereFigures
from tablebase.builders.misere_quotient import MisereQuotientBuild
from tablebase.games import ImpartialForm, SumMoves
from tablebase.games.loops import children_of
from tablebase.kinds.impartial import Impartial, in_components
from tablebase.lazy import np
from tablebase.listing.rules import PlainRules
from tablebase.probe_writer import Rules, impartial_rules
from tablebase.solve import Place, Solver


class ImpartialBuilder(Builder):
    kind_class = Impartial
    artifacts = (HeapFigures(), MisereFigures(), MisereQuotientBuild())

    @cached_property
    def sums(self) -> bool:
        """Whether the game's moves lead to sums of stored components."""
        return in_components(self.game)

    @property
    def heap_sequence(self) -> bool:
        """Whether the game's values are solved in order of heaps, a block a level (the octal games)."""
        return bool(getattr(self.game, "heap_sequence", False))

    @property
    def whole_levels(self) -> bool:  # type: ignore[override]
        """A block of heaps is solved whole: its smaller heaps are moves of its larger ones."""
        return self.heap_sequence

    @property
    def same_level(self) -> bool:  # type: ignore[override]
        return self.heap_sequence

    def game_rules(self) -> PlainRules:
        return PlainRules((self.game.moves,), split=self.game.components if self.sums else None)

    def symmetry_refusal(self) -> str | None:
        if self.sums:  # a sum's lookup reads its parts' moves as stored, not through their representatives
            return "its positions are sums of components, whose lookups do not map parts to representatives"
        return super().symmetry_refusal()

    def moves_of(self, keys: np.ndarray, game: Any = None) -> list[SumMoves]:
        if self.sums:
            return [(self.keyed if game is None else game).sum_moves(keys)]
        return super().moves_of(keys, game)

    def solver(self, place: Place | None = None, fresh: bool = False, wide: Wide = None) -> Solver:
        """Queen moves, diagram bites, sums and heaps solved in order have solvers of their own (solve/queen.py,
        bites.py, sums.py, octal_table.py).

        The solvers (and numba with them) are imported where one is asked for, not with the builder: a
        process that only lists positions or plans a build needs none.
        """
        from tablebase.solve.bites import BiteSolver
        from tablebase.solve.impartial import ImpartialSolver
        from tablebase.solve.octal_table import OctalSolver
        from tablebase.solve.queen import QueenSolver
        from tablebase.solve.sums import SumSolver

        game: ImpartialForm = self.keyed
        if self.heap_sequence:
            return OctalSolver(game, fresh)
        if self.sums:
            return SumSolver(game)
        if game.queen is not None and not game.misere:
            return QueenSolver(game)
        if game.bites is not None and not game.misere:
            return BiteSolver(game, place, fresh, wide)
        return ImpartialSolver(game, place, fresh, wide)

    def footprint(self, wide: Wide = None) -> Footprint:
        from tablebase.solve.impartial import KnownValues

        game = self.keyed
        if self.heap_sequence:  # the run's own values (two bytes a heap, four past 65,535), not shared; rows
            return Footprint(4, 200, 40, False)
        if self.sums:  # each part's key and value, sorted; a partition's moves and parts as Python lists
            return Footprint(16, 400 + 60 * max(game.max_moves, 1), 40, False)
        item = np.dtype(game.value_dtype).itemsize
        # keys and solved arrays; Arrow rows (key, text offsets, figures, move codes); the Parquet
        # writer's encoded copy; twice over for the temporaries of concatenation. The text itself:
        # in the rows, half again in the encoded copy, twice over.
        per_row = 2 * (8 + 3 * item + 9 + (8 + 4 + 2 * item + 6) + 4)
        if game.compiled_moves is None:
            per_row += 2 * 16 * max(game.max_moves, 1)  # each position's moves listed at once
        dense = game.key_space is not None
        # Sparse values keep their keys beside them.
        per_key = KnownValues.bytes_per_key(game, wide if dense else None) + (0 if dense else 8)
        mapped = dense and not (game.queen is not None and not game.misere)  # the queen solver keeps its own
        return Footprint(per_key, per_row, (8 + 2 * item) * 2, dense, per_notation_byte=3, mapped=mapped)

    @classmethod
    def rules_for(cls, columns: list[str]) -> Rules:
        return impartial_rules(columns)

    @property
    def indexed_from_values(self) -> bool:
        """The solvers that hold every figure the index stores in arrays over the key space: the generic one
        and the bites' (not the queen's, the heaps' or the sums'); not where misère figures are kept, whose
        best misère move the index stores from the rows."""
        game = self.keyed
        return (game.key_space is not None and not self.heap_sequence and not self.sums
                and not game.misere and game.queen is None)

    @property
    def parts_in_key_order(self) -> bool:
        return super().parts_in_key_order or self.heap_sequence  # a block of heaps a level

    def oracle(self) -> Callable[[int], dict[str, Any]]:
        """Grundy value (mex), remoteness and misère outcome and remoteness from the definitions, by recursion
        on keys.

        A game with components is searched whole instead: each stored part's value from its moves to
        whole positions, never split, so that a ``components`` that does not describe the rules shows.
        """
        if self.sums:
            return _whole(self.game, self.keyed)
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
            if game.misere:  # who cannot move wins, in 0 moves
                lost = [c["misere_remoteness"] for c in children if c["misere_outcome"] == "P"]
                found["misere_outcome"] = "N" if lost or not children else "P"
                found["misere_remoteness"] = 0 if not children else 1 + (
                    min(lost) if lost else max(c["misere_remoteness"] for c in children))
            memo[key] = found
            return found

        return figures


def _whole(game: Any, keyed: Any) -> Callable[[int], dict[str, Any]]:
    """Grundy values of stored parts by the definition on whole positions (plain games), or by recursion
    over their moves' sums (keyed games, whose moves only come as sums)."""
    memo: dict[Any, int] = {}

    def mex(values: set[int]) -> int:
        g = 0
        while g in values:
            g += 1
        return g

    def whole(position: Any) -> int:
        if position not in memo:
            memo[position] = mex({whole(child) for _, child in game.moves(position)})
        return memo[position]

    def part(key: int) -> int:
        if key not in memo:
            side = keyed.sum_moves(np.array([key], dtype=np.int64))
            results = set()
            for j in range(len(side.moves)):
                x = 0
                for k in side.keys[side.starts[j]:side.starts[j + 1]].tolist():
                    x ^= part(k)
                results.add(x)
            memo[key] = mex(results)
        return memo[key]

    def figures(key: int) -> dict[str, Any]:
        g = part(key) if game.keyed else whole(game.read(keyed.text(key)))
        return {"grundy": g, "outcome": "N" if g else "P"}

    return figures
