"""Solving impartial games whose moves are bites out of a Young diagram (Chomp).

The generic dense solver asks the game for each position's moves, written
into buffers, and then reads them back to take the mex. For Chomp that round
trip costs about a third of the solving time: a position has up to rows x
cols moves and each is a single lookup. This solver walks the bites itself
and looks each child up as it goes (see ``DiagramBites`` in games/base.py).

The walk over the bites is ``young.bites``; the first pass repeats it inline
so that no move is written down, and marks each child's Grundy value in the
generic solver's set (``mex_of``) where it finds it.

The rules are the generic solver's (solve/impartial.py): remoteness with the
winner hurrying and the loser delaying; a won position moves to a lost child
of least remoteness, a lost one to the child of greatest remoteness; ties go
to the smallest move code. Only lost positions (a few per cent) list their
bites, with ``young.bites``, to find the slowest (``slowest_move``).
"""

from __future__ import annotations

from typing import Any

import numba

from tablebase.errors import TablebaseError
from tablebase.games import ImpartialForm, young
from tablebase.jit import compile_all
from tablebase.lazy import np, pa
from tablebase.solve import Place
from tablebase.solve.impartial import NO_MOVE, ImpartialSolver, mex_of, slowest_move
from tablebase.solve.rows import impartial_rows

compile_all()  # the games' functions these loops call are compiled ones from here on


@numba.njit(cache=True, nogil=True)
def _solve(keys, rows, cols, binom, term, grundy, remoteness, out_g, out_r, out_best, spell, digits, width, data,
           offsets):
    """Solve the positions ``keys``; with ``spell``, also write their notation (``young.Speller``)."""
    p = 0
    lengths = np.empty(rows, dtype=np.int64)
    share = np.empty(rows, dtype=np.int64)  # each row's share of the position's rank
    seen = np.zeros(rows * cols + 2, dtype=np.bool_)  # Grundy values of 128 and more
    children = np.empty(rows * cols, dtype=np.int64)  # for lost positions only
    codes = np.empty(rows * cols, dtype=np.int64)
    for t in range(keys.shape[0]):
        key = keys[t]
        # A level's keys come in rank order: most are the next diagram of the same size.
        if t == 0 or not (young.next_of_size(lengths, rows, cols) and young.rank(lengths, binom) == key):
            young.unrank_into(key, rows, cols, binom, lengths)
        if spell:  # here the diagram is at hand: spelling it later would walk the keys again
            p = young.write_diagram(lengths, rows, digits, width, data, p)
            offsets[t + 1] = p
        for r in range(rows):
            share[r] = term[lengths[r], r]
        low = np.uint64(0)
        high = np.uint64(0)
        spill = False
        win, win_r = NO_MOVE, 0  # the quickest move to a lost child
        # The walk of young.bites, each child looked up where it is found.
        height = rows
        for c in range(lengths[0]):
            while lengths[height - 1] <= c:
                height -= 1
            delta = 0
            for r in range(height - 1, -1, -1):
                delta += term[c, r] - share[r]
                if r == 0 and c == 0:
                    break  # the corner cannot be bitten
                child = key + delta
                g = grundy[child]  # marked as _settle marks it (solve/impartial.py)
                if g < 64:
                    low |= np.uint64(1) << np.uint64(g)
                elif g < 128:
                    high |= np.uint64(1) << np.uint64(g - 64)
                else:
                    seen[g] = True
                    spill = True
                if g == 0:
                    rc = remoteness[child]
                    m = r * cols + c
                    if win == NO_MOVE or rc < win_r or (rc == win_r and m < win):
                        win, win_r = m, rc
        mex = mex_of(low, high, seen)
        if spill:
            seen[:] = False
        out_g[t] = mex
        if mex > 0:
            out_r[t], out_best[t] = win_r + 1, win
            continue
        # Lost: the slowest bite of all.
        n = young.bites(key, lengths, share, term, rows, cols, children, codes)
        hold, hold_r = slowest_move(n, children, codes, remoteness)
        out_r[t], out_best[t] = (hold_r + 1, hold) if hold != NO_MOVE else (0, NO_MOVE)
    return p


class BiteSolver(ImpartialSolver):
    """Solves a game of bites out of Young diagrams; remembers lower levels as the generic solver does."""

    def __init__(self, game: ImpartialForm, place: Place | None = None, fresh: bool = False,
                 wide: frozenset[str] | None = None) -> None:
        if game.bites is None or game.misere or game.key_space is None:
            raise TablebaseError(f"{game.name}: not a game of bites out of Young diagrams in normal play")
        rows, cols = game.bites.rows, game.bites.cols
        self.shape = (rows, cols, young.binomials(rows + cols), young.row_terms(rows, cols))
        self.speller = young.Speller(rows, cols)
        super().__init__(game, place, fresh, wide)

    def load_compiled(self) -> None:
        self.solve_arrays(np.empty(0, dtype=np.int64), spell=True)

    def solve_arrays(self, keys: np.ndarray, spell: bool = False) -> dict[str, Any]:
        """Grundy value, remoteness and best move (code or -1) of positions of one level;
        with ``spell``, also their notation ("texts"), written as the loop reaches each diagram."""
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        n = len(keys)
        if n and (keys.min() < 0 or keys.max() >= self.game.key_space):
            raise TablebaseError(f"{self.game.name}: keys outside the table")  # the loop does not check bounds
        known = self.known
        out: dict[str, Any] = {
            "grundy": np.empty(n, dtype=known.dtype),
            "remoteness": np.empty(n, dtype=known.dtype),
            "best_move": np.empty(n, dtype=np.int64),
        }

        def solve(start: int, stop: int, data: np.ndarray, offsets: np.ndarray) -> int:
            return _solve(keys[start:stop], *self.shape, known.grundy, known.remoteness, out["grundy"][start:stop],
                          out["remoteness"][start:stop], out["best_move"][start:stop], spell,
                          self.speller.digits, self.speller.width, data, offsets)

        if spell:
            out["texts"] = self.speller.spell(n, solve)
        else:
            solve(0, n, np.empty(0, dtype=np.uint8), np.zeros(1, dtype=np.int64))
        return out

    def solve(self, keys: np.ndarray, compact: bool = False) -> pa.Table:
        """The rows of these positions of one level, in key order (without the position text if ``compact``)."""
        solved = self.solve_arrays(keys, spell=not compact)
        return impartial_rows(self.game, keys, solved, compact, texts=solved.get("texts"))
