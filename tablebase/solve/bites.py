"""Solving impartial games whose moves are bites out of a Young diagram (Chomp).

The generic dense solver asks the game for each position's moves, written
into buffers, and then reads them back to take the mex; a Chomp position has
many moves, each a single lookup, so that round trip is a large share of the
solving. This solver walks the bites itself and looks each child up as it
goes (``DiagramBites`` in games/capabilities.py, ``BiteSolver``).
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
def _solve(keys, generate, size, first, count, rows, cols, binom, term, grundy, remoteness, store, g_limit, r_limit,
           out_g, out_r, out_best, spell, digits, width, data, offsets):
    """Solve the positions ``keys``, or, with ``generate``, the diagrams of ``size`` squares numbered from
    ``first`` on in rank order, writing their keys into ``keys``; with ``store``, write each position's
    Grundy value and remoteness into ``grundy`` and ``remoteness`` as it is solved (its children are all of
    lower levels: nothing solved here is read here); with ``spell``, also write their notation
    (``young.Speller``). Returns the notation's bytes and -1, or the place of a position whose figure would
    not fit the held arrays (``g_limit``, ``r_limit``), which is not stored."""
    p = 0
    lengths = np.empty(rows, dtype=np.int64)
    share = np.empty(rows, dtype=np.int64)  # each row's share of the position's rank
    seen = np.zeros(rows * cols + 2, dtype=np.bool_)  # Grundy values of 128 and more
    children = np.empty(rows * cols, dtype=np.int64)  # for lost positions only
    codes = np.empty(rows * cols, dtype=np.int64)
    rank = 0
    for t in range(keys.shape[0]):
        # A level's keys come in rank order: most are the next diagram of the same size, whose rows from the
        # first that changed get their shares again; the rank is their sum, checked against the key.
        changed = young.next_of_size(lengths, rows, cols) if t else -1
        if changed >= 0:
            for r in range(changed, rows):
                rank -= share[r]
                share[r] = term[lengths[r], r]
                rank += share[r]
        if generate:
            if t == 0:
                young.nth_of_size(size, first, rows, cols, count, lengths)
            if t == 0 or changed < 0:
                rank = 0
                for r in range(rows):
                    share[r] = term[lengths[r], r]
                    rank += share[r]
            keys[t] = rank
        key = keys[t]
        if not generate and (changed < 0 or rank != key):
            young.unrank_into(key, rows, cols, binom, lengths)
            rank = 0
            for r in range(rows):
                share[r] = term[lengths[r], r]
                rank += share[r]
        if spell:  # here the diagram is at hand: spelling it later would walk the keys again
            p = young.write_diagram(lengths, rows, digits, width, data, p)
            offsets[t + 1] = p
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
        else:  # lost: the slowest bite of all
            n = young.bites(key, lengths, share, term, rows, cols, children, codes)
            hold, hold_r = slowest_move(n, children, codes, remoteness)
            out_r[t], out_best[t] = (hold_r + 1, hold) if hold != NO_MOVE else (0, NO_MOVE)
        if store:
            if mex > g_limit or out_r[t] > r_limit:
                return p, t
            grundy[key] = mex
            remoteness[key] = out_r[t]
    return p, -1


class BiteSolver(ImpartialSolver):
    """Solves a game of bites out of Young diagrams; remembers lower levels as the generic solver does.

    The walk over the bites is ``young.bites``; the first pass repeats it inline so that no move is written
    down, and marks each child's Grundy value in the generic solver's set (``mex_of``) where it finds it.
    The rules are the generic solver's (solve/impartial.py): remoteness with the winner hurrying and the
    loser delaying; a won position moves to a lost child of least remoteness, a lost one to the child of
    greatest remoteness; ties go to the smallest move code. Only lost positions, which are few, list their
    bites, with ``young.bites``, to find the slowest (``slowest_move``).
    """

    def __init__(self, game: ImpartialForm, place: Place | None = None, fresh: bool = False,
                 wide: frozenset[str] | None = None) -> None:
        if game.bites is None or game.misere or game.key_space is None:
            raise TablebaseError(f"{game.name}: not a game of bites out of Young diagrams in normal play")
        rows, cols = game.bites.rows, game.bites.cols
        self.shape = (rows, cols, young.binomials(rows + cols), young.row_terms(rows, cols))
        self.count = young.completions(rows, cols)
        self.speller = young.Speller(rows, cols)
        super().__init__(game, place, fresh, wide)

    def load_compiled(self) -> None:
        self.solve_arrays(np.empty(0, dtype=np.int64), spell=True)

    def solve_arrays(self, keys: np.ndarray | None, spell: bool = False, part: tuple[int, int, int] | None = None,
                     store: bool = False) -> dict[str, Any]:
        """Grundy value, remoteness and best move (code or -1) of positions of one level: ``keys``, or
        ``part`` = (level, start, stop), the level's positions start..stop-1, whose keys are found as they
        are solved ("keys"); with ``spell``, also their notation ("texts"), written as the loop reaches each
        diagram; with ``store``, the figures written into the values held as each is solved."""
        generate = keys is None
        if generate:
            level, first, stop = part  # type: ignore[misc]
            keys = np.empty(stop - first, dtype=np.int64)
        else:
            level, first = 0, 0
            keys = np.ascontiguousarray(keys, dtype=np.int64)
            if len(keys) and (keys.min() < 0 or keys.max() >= self.game.key_space):
                raise TablebaseError(f"{self.game.name}: keys outside the table")  # the loop checks no bounds
        n = len(keys)
        known = self.known
        out: dict[str, Any] = {
            "grundy": np.empty(n, dtype=known.dtype),
            "remoteness": np.empty(n, dtype=known.dtype),
            "best_move": np.empty(n, dtype=np.int64),
            "keys": keys,
        }
        limits = [np.iinfo(known.grundy.dtype).max, np.iinfo(known.remoteness.dtype).max]

        def solve(start: int, stop: int, data: np.ndarray, offsets: np.ndarray) -> int:
            p, over = _solve(keys[start:stop], generate, level, first + start, self.count, *self.shape,
                             known.grundy, known.remoteness, store, *limits, out["grundy"][start:stop],
                             out["remoteness"][start:stop], out["best_move"][start:stop], spell,
                             self.speller.digits, self.speller.width, data, offsets)
            if over >= 0:
                t = start + over
                known.check(out["grundy"][t : t + 1], out["remoteness"][t : t + 1])  # raises FigureOverflow
            return p

        if spell:
            out["texts"] = self.speller.spell(n, solve)
        else:
            solve(0, n, np.empty(0, dtype=np.uint8), np.zeros(1, dtype=np.int64))
        return out

    def solve(self, keys: np.ndarray, compact: bool = False) -> pa.Table:
        """The rows of these positions of one level, in key order (without the position text if ``compact``)."""
        solved = self.solve_arrays(keys, spell=not compact)
        return impartial_rows(self.game, keys, solved, compact, texts=solved.get("texts"))

    def solve_part(self, level: int, start: int, stop: int, compact: bool = False) -> pa.Table:
        """The rows of positions start..stop-1 of a level, found, solved and taken in in one compiled pass."""
        solved = self.solve_arrays(None, spell=not compact, part=(level, start, stop), store=True)
        return impartial_rows(self.game, solved["keys"], solved, compact, texts=solved.get("texts"))
