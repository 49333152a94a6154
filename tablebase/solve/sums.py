"""Solving impartial games whose moves lead to sums: Grundy values by mex over XORs of parts.

A game that declares a position's components (Kayles, take-and-break games)
stores only components; a move leads to a sum of them, whose Grundy value is
the XOR of its parts' (Sprague-Grundy). What a sum does not determine is not
kept: remoteness and misère outcomes. The best move of a won position is the
smallest move code to a sum of value 0; a lost position has none worth naming.
"""

from __future__ import annotations

import numba

from tablebase.games import ImpartialForm, SumMoves
from tablebase.jit import compile_all
from tablebase.lazy import np, pa
from tablebase.solve import LevelByLevel
from tablebase.solve.rows import part_rows

compile_all()  # the games' functions these loops call are compiled ones from here on

NO_MOVE = -1


@numba.njit(cache=True)
def _mex_of_sums(offsets, starts, part_values, codes, out_g, out_best):
    """Per position: the mex of its moves' XORs, and the smallest code of a move whose XOR is 0."""
    most = 0
    for t in range(offsets.shape[0] - 1):
        most = max(most, offsets[t + 1] - offsets[t])
    seen = np.zeros(most + 2, dtype=np.bool_)
    for t in range(offsets.shape[0] - 1):
        a, b = offsets[t], offsets[t + 1]
        best = NO_MOVE
        for j in range(a, b):
            x = 0
            for k in range(starts[j], starts[j + 1]):
                x ^= part_values[k]
            if x < seen.shape[0]:
                seen[x] = True
            if x == 0 and (best == NO_MOVE or codes[j] < best):
                best = codes[j]
        mex = 0
        while seen[mex]:
            mex += 1
        for j in range(a, b):  # cleared for the next position
            x = 0
            for k in range(starts[j], starts[j + 1]):
                x ^= part_values[k]
            if x < seen.shape[0]:
                seen[x] = False
        out_g[t] = mex
        out_best[t] = best


class SumSolver(LevelByLevel):
    """Solves an impartial game with components level by level, keeping each stored component's value."""

    shared = None  # sparse values, in this process

    def __init__(self, game: ImpartialForm) -> None:
        self.game = game
        self.columns = ["key", "grundy"]
        self.keys = np.empty(0, dtype=np.int64)
        self.values = np.empty(0, dtype=np.int64)
        self._levels: set[int] = set()

    @property
    def levels(self) -> set[int]:
        return self._levels

    def remember(self, level: int, rows: pa.Table | None, whole: bool = True) -> None:
        """Take in stored rows of a level (None: none); ``whole``: the level is now complete."""
        if rows is not None and rows.num_rows:
            keys = np.concatenate([self.keys, rows["key"].to_numpy()])
            order = np.argsort(keys, kind="stable")
            self.keys = keys[order]
            self.values = np.concatenate([self.values, rows["grundy"].to_numpy().astype(np.int64)])[order]
        if whole:
            self._levels.add(level)

    def value_of(self, keys: np.ndarray) -> np.ndarray:
        """The Grundy values of stored components (every key must be known)."""
        where = np.searchsorted(self.keys, keys)
        if len(keys) and (where.max(initial=0) >= len(self.keys) or not np.array_equal(self.keys[where], keys)):
            raise RuntimeError("a move leads to a part of a level that is not loaded")
        return self.values[where]

    def solve(self, keys: np.ndarray, compact: bool = False) -> pa.Table:
        """The rows of these positions of one level, in key order."""
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        moves: SumMoves = self.game.sum_moves(keys)
        grundy = np.empty(len(keys), dtype=np.int64)
        best = np.empty(len(keys), dtype=np.int64)
        _mex_of_sums(moves.offsets, moves.starts, self.value_of(moves.keys), moves.moves, grundy, best)
        narrow = grundy.astype(self.game.value_dtype)  # a Grundy value is at most the number of moves
        return part_rows(self.game, keys, narrow, best, compact)
