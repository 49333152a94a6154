"""Solving impartial games whose moves are a chess queen's toward the corner (Wythoff's game).

A position is a pair a <= b; a move lowers one coordinate, or both by the same
amount (``QueenMoves`` in games/capabilities.py). Enumerating every move costs
about a + b + a per position; this solver does without, keeping a bitset of
the Grundy values seen on each line and diagonal (``QueenSolver``).
"""

from __future__ import annotations

import numba

from tablebase.errors import TablebaseError
from tablebase.games import ImpartialForm
from tablebase.jit import compile_all
from tablebase.lazy import np, pa
from tablebase.solve import LevelByLevel
from tablebase.solve.rows import impartial_rows

compile_all()  # the games' functions these loops call are compiled ones from here on

NO_MOVE = -1
_ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
_ONE = np.uint64(1)


@numba.njit(cache=True, nogil=True)
def _lowest_zero(x):
    """The index of the lowest 0 bit of x (x is not all ones)."""
    v = ~x
    n = 0
    for width in (32, 16, 8, 4, 2, 1):
        low = (_ONE << np.uint64(width)) - _ONE
        if v & low == 0:
            v >>= np.uint64(width)
            n += width
    return n


@numba.njit(cache=True, nogil=True)
def _mex(row_a, row_b, diagonal, start):
    # Words below ``start`` are full in one of the sets, so in their union too.
    for w in range(start, row_a.shape[0]):
        x = row_a[w] | row_b[w] | diagonal[w]
        if x != _ALL:
            return w * 64 + _lowest_zero(x)
    return -1  # cannot happen: the sets are sized beyond the largest possible value


@numba.njit(cache=True, nogil=True)
def _solve(pairs, lines, diagonals, full, far, lost, codes, out_g, out_r, out_best):
    """Grundy value, remoteness and best move of each pair (a, b), all of one level."""
    smaller, larger, both = codes[0], codes[1], codes[2]
    n = lines.shape[0]
    for t in range(pairs.shape[0]):
        a, b = pairs[t, 0], pairs[t, 1]
        d = b - a
        g = _mex(lines[a], lines[b], diagonals[d], max(full[a], full[b], full[n + d]))
        out_g[t] = g
        if b == 0:
            out_r[t], out_best[t] = 0, NO_MOVE
        elif g > 0:
            # Won: the quickest of at most three lost children.
            best, best_r = NO_MOVE, 0
            y, r = lost[a, 0], lost[a, 1]  # lost cell {a, y} of line a, reached by lowering b to y
            if 0 <= y < b:
                code = (min(smaller, larger) if a == b else larger) + (b - y)
                if best == NO_MOVE or r < best_r or (r == best_r and code < best):
                    best, best_r = code, r
            y, r = lost[b, 0], lost[b, 1]  # lost cell {y, b} of line b, reached by lowering a to y
            if a < b and 0 <= y < a:
                code = smaller + (a - y)
                if best == NO_MOVE or r < best_r or (r == best_r and code < best):
                    best, best_r = code, r
            x, r = lost[n + d, 0], lost[n + d, 1]  # lost cell (x, x + d) of the diagonal
            if 0 <= x < a:
                code = both + (a - x)
                if best == NO_MOVE or r < best_r or (r == best_r and code < best):
                    best, best_r = code, r
            out_r[t], out_best[t] = best_r + 1, best
        else:
            # Lost: the slowest of all moves, in the order and with the codes of the rules.
            best, best_r = NO_MOVE, 0
            for k in range(1, a + 1):
                r, code = far[a - k, b], smaller + k
                if best == NO_MOVE or r > best_r or (r == best_r and code < best):
                    best, best_r = code, r
            for k in range(1, b + 1):
                c = b - k
                r, code = far[min(a, c), max(a, c)], larger + k
                if best == NO_MOVE or r > best_r or (r == best_r and code < best):
                    best, best_r = code, r
            for k in range(1, a + 1):
                r, code = far[a - k, b - k], both + k
                if best == NO_MOVE or r > best_r or (r == best_r and code < best):
                    best, best_r = code, r
            out_r[t], out_best[t] = best_r + 1, best


@numba.njit(cache=True, inline="always")
def _add_bit(sets, i, word, bit, full, f):
    """Add a bit to set i and move its count of leading full words (``full[f]``) on."""
    sets[i, word] |= bit
    while full[f] < sets.shape[1] and sets[i, full[f]] == _ALL:
        full[f] += 1


@numba.njit(cache=True, nogil=True)
def _take_in(pairs, grundy, remoteness, lines, diagonals, full, far, lost):
    """Add solved positions to the lines' and diagonals' sets and lost cells."""
    bits = lines.shape[1] * 64
    n = lines.shape[0]
    for t in range(pairs.shape[0]):
        a, b = pairs[t, 0], pairs[t, 1]
        g = np.int64(grundy[t])
        far[a, b] = remoteness[t]
        if g < bits:  # larger values (only in damaged rows) cannot change a mex
            word, bit = g // 64, _ONE << np.uint64(g % 64)
            _add_bit(lines, a, word, bit, full, a)
            _add_bit(lines, b, word, bit, full, b)
            _add_bit(diagonals, b - a, word, bit, full, n + b - a)
        if g == 0:
            r = remoteness[t]
            lost[a, 0], lost[a, 1] = b, r
            lost[b, 0], lost[b, 1] = a, r
            lost[n + b - a, 0], lost[n + b - a, 1] = a, r


class QueenSolver(LevelByLevel):
    """Solves a queen-move game level by level from bitsets of its lines and diagonals.

    Call the cells {i, y} (either order) line i, and the cells (x, x + d)
    diagonal d. Solving level by level (a + b), the cells of line i already
    solved are exactly those a move along that line reaches, and the same holds
    for a diagonal. So one bitset per line and one per diagonal, holding the
    Grundy values seen there, give g(a, b) = mex(L[a] | L[b] | D[b-a]). Two
    positions of one level never share a line or a diagonal, so a level is
    solved from the levels below alone and then taken in.

    Remoteness and best move follow the rules of the generic solver
    (solve/impartial.py). Two lost positions on one line or diagonal would have
    a move between them, so each line and diagonal holds at most one; a won
    position has at most three lost children, found from the lines' and
    diagonals' lost cells. Only lost positions, which are few, look at all
    their moves. Everything the solver holds is rebuilt by ``remember`` from
    stored rows, so a worker that did not solve the lower levels reads them
    back from the store.
    """

    def __init__(self, game: ImpartialForm) -> None:
        if game.queen is None or game.misere:
            raise TablebaseError(f"{game.name}: not a game of queen moves in normal play")
        self.game = game
        self.queen = game.queen
        self.columns = ["key", "grundy", "remoteness"]
        self.dtype = game.value_dtype
        n = self.queen.top + 1
        # A Grundy value is at most the number of moves, 2a + b <= 3 top.
        words = 3 * self.queen.top // 64 + 1
        self.lines = np.zeros((n, words), dtype=np.uint64)
        self.diagonals = np.zeros((n, words), dtype=np.uint64)
        # Leading full words of each line's set, then of each diagonal's: the mex lies beyond.
        self.full = np.zeros(2 * n, dtype=np.int64)
        self.far = np.zeros((n, n), dtype=self.dtype)  # remoteness of (a, b) at [a, b]
        # Each line's lost cell (its other coordinate) and remoteness, then each
        # diagonal's (its smaller coordinate): kept apart from ``far`` so that a
        # won position reads three nearby pairs, not three far corners of the board.
        self.lost = np.full((2 * n, 2), -1, dtype=np.int64)
        self.codes = np.array([self.queen.smaller, self.queen.larger, self.queen.both], dtype=np.int64)
        self._levels: set[int] = set()
        self._highest = -1  # the highest level taken in
        self._recent = (np.empty(0, dtype=np.int64), np.empty((0, 2), dtype=np.int64))  # keys and pairs last solved

    shared = None  # keeps its values in this process

    @property
    def levels(self) -> set[int]:
        return self._levels

    def _pairs(self, keys: np.ndarray) -> np.ndarray:
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        if np.array_equal(keys, self._recent[0]):
            return self._recent[1]  # a level taken in just after it was solved
        pairs = np.ascontiguousarray(self.queen.pairs(keys), dtype=np.int64)
        self._recent = (keys.copy(), pairs)  # a copy: the caller may reuse its array
        return pairs

    def remember(self, level: int, rows: pa.Table | None, whole: bool = True) -> None:
        """Take in stored rows of a level (None: none); ``whole``: the level is now complete."""
        if rows is not None and rows.num_rows:
            pairs = self._pairs(rows["key"].to_numpy())
            # The compiled loop does not check bounds: rows of damaged files must not reach it.
            if pairs.min() < 0 or pairs.max() > self.queen.top or not np.all(pairs.sum(axis=1) == level):
                raise TablebaseError(f"{self.game.name}: rows given as level {level} hold keys of other positions")
            _take_in(
                pairs,
                rows["grundy"].to_numpy(),
                rows["remoteness"].to_numpy(),
                self.lines, self.diagonals, self.full, self.far, self.lost,
            )
        if whole:
            self._levels.add(level)
        self._highest = max(self._highest, level)

    def solve_arrays(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        """Grundy value, remoteness and best move (code or -1) of positions of one level."""
        pairs = self._pairs(keys)
        n = len(pairs)
        if n and self._highest > pairs[0].sum():
            # The sets would hold cells no move reaches. Cells of the level itself may
            # be in (another part of it solved here): no two of them share a line.
            raise RuntimeError("a queen-move level must be solved before any level above it is taken in")
        out = {
            "grundy": np.empty(n, dtype=self.dtype),
            "remoteness": np.empty(n, dtype=self.dtype),
            "best_move": np.empty(n, dtype=np.int64),
        }
        _solve(pairs, self.lines, self.diagonals, self.full, self.far, self.lost, self.codes,
               out["grundy"], out["remoteness"], out["best_move"])
        return out

    def solve(self, keys: np.ndarray, compact: bool = False) -> pa.Table:
        """The rows of these positions of one level, in key order (without the position text if ``compact``)."""
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        return impartial_rows(self.game, keys, self.solve_arrays(keys), compact)

    def solve_span(self, levels: list[tuple[int, np.ndarray]], compact: bool = False) -> tuple[pa.Table, np.ndarray]:
        """Whole levels in order, each taken in before the next; their rows made once for the run."""
        solved = []
        for level, keys in levels:
            keys = np.ascontiguousarray(keys, dtype=np.int64)
            out = self.solve_arrays(keys)
            _take_in(self._pairs(keys), out["grundy"], out["remoteness"],
                     self.lines, self.diagonals, self.full, self.far, self.lost)
            self._levels.add(level)
            self._highest = max(self._highest, level)
            solved.append((keys, out))
        keys = np.concatenate([k for k, _ in solved])
        out = {name: np.concatenate([o[name] for _, o in solved]) for name in ("grundy", "remoteness", "best_move")}
        marks = np.repeat(np.array([level for level, _ in levels], dtype=np.int32), [len(k) for k, _ in solved])
        return impartial_rows(self.game, keys, out, compact), marks
