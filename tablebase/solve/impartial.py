"""Solving impartial games: Grundy value (mex), outcome, remoteness, best move.

Given the keys of one partition of a level and the values of the lower levels,
compute every row: games with dense keys and a compiled move generator in a
single compiled loop, other games from all their moves at once (``children``),
children of sparse keys found by binary search; both settle a position by the
same compiled rule (``_settle``). Misère outcomes are kept for games that ask.
"""

from __future__ import annotations

import os
from pathlib import Path

import numba
from numba.cpython.unsafe.numbers import trailing_zeros

from tablebase.games import ImpartialForm
from tablebase.games.loops import children_of, compiled_loop
from tablebase.jit import compile_all
from tablebase.lazy import np, pa
from tablebase.solve import LevelByLevel, Place
from tablebase.solve.figures import check, held_dtypes
from tablebase.solve.kernels import DENSE, DENSE_RUN
from tablebase.solve.rows import impartial_rows

compile_all()  # the games' functions these loops call are compiled ones from here on

NO_MOVE = -1


@numba.njit(cache=True, inline="always")
def mex_of(low, high, seen):
    """The least Grundy value missing from a set held in two bit masks (values below
    128, kept in registers while the moves are looked at) and ``seen`` (the rest):
    the first clear bit, then the first False."""
    mex = int(trailing_zeros(~low))
    if mex == 64:
        mex = 64 + int(trailing_zeros(~high))
        if mex == 128:
            while seen[mex]:
                mex += 1
    return mex


@numba.njit(cache=True, inline="always")
def slowest_move(n, child, moves, remoteness):
    """A lost position's best move among ``moves[:n]`` (children ``child[:n]``): the child of
    greatest remoteness, ties to the smallest code; and that remoteness. (NO_MOVE, 0) if none."""
    hold, hold_r = NO_MOVE, 0
    for i in range(n):
        r = remoteness[child[i]]
        m = moves[i]
        if hold == NO_MOVE or r > hold_r or (r == hold_r and m < hold):
            hold, hold_r = m, r
    return hold, hold_r


@numba.njit(cache=True)
def _settle(n, child, moves, grundy, remoteness, misere, seen, use_misere):
    """Grundy value, remoteness and best move of one position; and, where ``use_misere``, its misère
    remoteness and best misère move (else 0 and NO_MOVE).

    Remoteness is the number of moves to the end when the winner hurries and the loser delays (Winning
    Ways). The best move of a won position goes to a lost child of least remoteness; of a lost position, to
    the child of greatest remoteness; ties go to the smallest move code, so the choice is deterministic.
    Misère play (who cannot move wins) has the same rules on its own figures, a position without moves
    being won in 0 moves: a misère remoteness is even exactly where the player to move wins, so it is
    the misère outcome too, and ``misere`` holds it alone.

    ``child[:n]`` index the children in ``grundy`` and ``remoteness``. The two
    are kept apart because every child's Grundy value is read but only a lost
    child's remoteness (lost positions are rare): the array read at random for
    every move is then as small as it can be. ``seen`` (all False, longer
    than n) holds the Grundy values of 128 and more (see ``mex_of``).
    """
    if n == 0:
        return 0, 0, NO_MOVE, 0, NO_MOVE
    low = np.uint64(0)
    high = np.uint64(0)
    spill = False
    win, win_r = NO_MOVE, 0  # quickest move to a lost child
    mis_win, mis_win_r = NO_MOVE, 0  # the same in misère play
    for i in range(n):
        c = child[i]
        g = grundy[c]
        # Marked here, not by a helper shared with solve/bites.py: in this loop over
        # every move, a helper returning the masks made both solvers slower.
        if g < 64:
            low |= np.uint64(1) << np.uint64(g)
        elif g < 128:
            high |= np.uint64(1) << np.uint64(g - 64)
        elif g < n:
            seen[g] = True
            spill = True
        if g == 0:
            r = remoteness[c]
            m = moves[i]
            if win == NO_MOVE or r < win_r or (r == win_r and m < win):
                win, win_r = m, r
        if use_misere:
            mr = misere[c]
            if mr & 1:  # the child is lost in misère play
                m = moves[i]
                if mis_win == NO_MOVE or mr < mis_win_r or (mr == mis_win_r and m < mis_win):
                    mis_win, mis_win_r = m, mr
    mex = mex_of(low, high, seen)
    if spill:
        for i in range(n):
            g = grundy[child[i]]
            if 128 <= g < n:
                seen[g] = False
    mis_r, mis_best = 0, NO_MOVE
    if use_misere:
        if mis_win != NO_MOVE:
            mis_r, mis_best = mis_win_r + 1, mis_win
        else:
            mis_best, mis_r = slowest_move(n, child, moves, misere)
            mis_r += 1
    if mex > 0:
        return mex, win_r + 1, win, mis_r, mis_best
    # Lost: the slowest move of all (a second pass, needed only for lost positions).
    hold, hold_r = slowest_move(n, child, moves, remoteness)
    return 0, hold_r + 1, hold, mis_r, mis_best


@numba.njit(cache=True)
def _solve_sparse(offsets, child, moves, grundy, remoteness, misere, out_g, out_r, out_best, out_mr, out_mbest):
    most = 0
    for t in range(offsets.shape[0] - 1):
        most = max(most, offsets[t + 1] - offsets[t])
    seen = np.zeros(most + 2, dtype=np.bool_)
    use_misere = misere.shape[0] > 0
    for t in range(offsets.shape[0] - 1):
        a, b = offsets[t], offsets[t + 1]
        out_g[t], out_r[t], out_best[t], out_mr[t], out_mbest[t] = _settle(
            b - a, child[a:b], moves[a:b], grundy, remoteness, misere, seen, use_misere
        )


class KnownValues:
    """The Grundy values, remoteness and misère remoteness (which is the misère outcome too) of positions
    solved so far.

    Dense games keep arrays indexed by key; sparse games keep arrays sorted by key.
    ``wide``: which figures a dense game holds at their bound's type, the others
    in one byte (solve/figures.py); None: all at their bound's type.
    """

    def __init__(self, game: ImpartialForm, place: Place | None = None,
                 wide: frozenset[str] | None = None) -> None:
        self.dense = game.key_space is not None
        self.dtype = game.value_dtype  # the rows' type
        self.held = held_dtypes(game, wide if self.dense else None)
        size = game.key_space if self.dense else 0
        #: the folder the dense arrays are mapped from, shared with other processes
        self.shared = place(size * self.bytes_per_key(game, wide)) if self.dense and place else None
        self.keys = np.empty(0, dtype=np.int64)
        self.grundy = self._array("grundy", size, self.held["grundy"])
        self.remoteness = self._array("remoteness", size, self.held["remoteness"])
        # held as the remoteness is: their bound is the same, the longest play
        self.misere = self._array("misere", size if game.misere else 0, self.held["remoteness"])
        self.with_misere = bool(game.misere)
        self.levels: set[int] = set()

    @staticmethod
    def bytes_per_key(game: ImpartialForm, wide: frozenset[str] | None = None) -> int:
        """Bytes of the values held for each key (``wide`` as for the arrays)."""
        held = held_dtypes(game, wide)
        return sum(np.dtype(t).itemsize for t in held.values()) + (
            np.dtype(held["remoteness"]).itemsize if game.misere else 0)

    def check(self, grundy: np.ndarray, remoteness: np.ndarray, misere: np.ndarray | None = None) -> None:
        """Raise ``FigureOverflow`` if figures solved or read back do not fit the arrays' types."""
        check("grundy", grundy, self.held["grundy"])
        check("remoteness", remoteness, self.held["remoteness"])
        if misere is not None:
            check("remoteness", misere, self.held["remoteness"])

    def _array(self, name: str, size: int, dtype) -> np.ndarray:
        """Zeros, in this process's memory or mapped from a file that other processes map too."""
        if self.shared is None or size == 0:
            return np.zeros(size, dtype=dtype)
        path = self.shared / name
        nbytes = size * np.dtype(dtype).itemsize
        with open(path, "a+b") as f:  # made if missing, never truncated: another process may be writing it
            if os.fstat(f.fileno()).st_size < nbytes:
                os.ftruncate(f.fileno(), nbytes)  # unwritten bytes read as zeros
        return np.memmap(path, dtype=dtype, mode="r+", shape=(size,))

    def add(
        self, keys: np.ndarray, grundy: np.ndarray, remoteness: np.ndarray, misere: np.ndarray | None
    ) -> None:
        if self.dense:
            self.check(grundy, remoteness, misere)  # before any is written: a value that does not fit never wraps
            self.grundy[keys] = grundy
            self.remoteness[keys] = remoteness
            if self.with_misere:
                self.misere[keys] = misere
            return
        keys = np.concatenate([self.keys, keys])
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.grundy = np.concatenate([self.grundy, grundy.astype(self.held["grundy"])])[order]
        self.remoteness = np.concatenate([self.remoteness, remoteness.astype(self.held["remoteness"])])[order]
        if self.with_misere:
            self.misere = np.concatenate([self.misere, misere.astype(self.held["remoteness"])])[order]

    def index(self, keys: np.ndarray) -> np.ndarray:
        """Where each key's values are; every key must be known."""
        if self.dense:
            return keys
        where = np.searchsorted(self.keys, keys)
        if len(keys) and (where.max() >= len(self.keys) or not np.array_equal(self.keys[where], keys)):
            raise RuntimeError("a move leads to a position of a level that is not loaded")
        return where


def solve(game: ImpartialForm, keys: np.ndarray, known: KnownValues, fresh: bool = False) -> dict[str, np.ndarray]:
    """Solve the positions ``keys`` (all of one level) from the values of lower levels.

    Returns arrays: grundy, remoteness, best_move (move code or -1), and, for
    games that keep misère figures, misere_remoteness and misere_best_move.
    """
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    n = len(keys)
    out_g = np.empty(n, dtype=known.dtype)
    out_r = np.empty(n, dtype=known.dtype)
    out_best = np.empty(n, dtype=np.int64)
    out_mr = np.empty(n, dtype=known.dtype)
    out_mbest = np.empty(n, dtype=np.int64)
    values = (known.grundy, known.remoteness, known.misere, out_g, out_r, out_best, out_mr, out_mbest)
    compiled = game.compiled_moves
    if known.dense and compiled is not None:
        compiled_loop(DENSE, compiled.kernel, fresh)(keys, compiled.make_args(), game.max_moves, *values)
    elif n:
        offsets, child_keys, moves = children_of(game, keys, fresh)
        _solve_sparse(offsets, known.index(child_keys), moves, *values)
    rows = {"grundy": out_g, "remoteness": out_r, "best_move": out_best}
    if known.with_misere:
        rows["misere_remoteness"], rows["misere_best_move"] = out_mr, out_mbest
    return rows


class ImpartialSolver(LevelByLevel):
    """Solves an impartial game's levels in order, remembering the values of the levels it has seen.

    ``fresh``: compile the game's loops anew instead of loading them from the cache.
    """

    def __init__(self, game: ImpartialForm, place: Place | None = None, fresh: bool = False,
                 wide: frozenset[str] | None = None) -> None:
        self.game = game
        self.fresh = fresh
        self.known = KnownValues(game, place, wide)
        self.load_compiled()
        self.columns = ["key", "grundy", "remoteness"] + (["misere_remoteness"] if game.misere else [])

    def load_compiled(self) -> None:
        """Load the compiled loop now, not in the first task."""
        if self.known.dense and self.game.compiled_moves is not None:
            compiled_loop(DENSE, self.game.compiled_moves.kernel, self.fresh)

    @property
    def levels(self) -> set[int]:
        return self.known.levels

    @property
    def shared(self) -> Path | None:
        return self.known.shared

    def remember(self, level: int, rows: pa.Table | None, whole: bool = True) -> None:
        """Take in stored rows of a level (None: none); ``whole``: the level is now complete."""
        if rows is not None and rows.num_rows:
            misere = rows["misere_remoteness"].to_numpy() if self.game.misere else None
            self.known.add(
                rows["key"].to_numpy(), rows["grundy"].to_numpy(), rows["remoteness"].to_numpy(), misere
            )
        if whole:
            self.known.levels.add(level)

    def solve(self, keys: np.ndarray, compact: bool = False) -> pa.Table:
        """The rows of these positions of one level, in key order."""
        return impartial_rows(self.game, keys, solve(self.game, keys, self.known, self.fresh), compact)

    def solve_span(self, levels: list[tuple[int, np.ndarray]], compact: bool = False) -> tuple[pa.Table, np.ndarray]:
        """Whole levels in order: with dense keys and a compiled generator, all in one compiled call."""
        compiled, known = self.game.compiled_moves, self.known
        if not (known.dense and compiled is not None) or not levels:
            return super().solve_span(levels, compact)
        keys = np.ascontiguousarray(np.concatenate([k for _, k in levels]), dtype=np.int64)
        n = len(keys)
        out = {"grundy": np.empty(n, dtype=known.dtype), "remoteness": np.empty(n, dtype=known.dtype),
               "best_move": np.empty(n, dtype=np.int64), "misere_remoteness": np.empty(n, dtype=known.dtype),
               "misere_best_move": np.empty(n, dtype=np.int64)}
        compiled_loop(DENSE_RUN, compiled.kernel, self.fresh)(
            keys, compiled.make_args(), self.game.max_moves, known.grundy, known.remoteness, known.misere,
            out["grundy"], out["remoteness"], out["best_move"], out["misere_remoteness"], out["misere_best_move"])
        # The loop wrote each figure into the arrays as it went: one that did not fit wrapped there, and
        # the run is given up before any file is written from it (the build starts again, held wide).
        known.check(out["grundy"], out["remoteness"], out["misere_remoteness"] if known.with_misere else None)
        if not known.with_misere:
            del out["misere_remoteness"], out["misere_best_move"]
        known.levels.update(level for level, _ in levels)
        marks = np.repeat(np.array([level for level, _ in levels], dtype=np.int32), [len(k) for _, k in levels])
        return impartial_rows(self.game, keys, out, compact), marks
