"""The rows of an octal game's table: heap values from the sparse-space solver, a block of heaps at a time.

A level of the table is a block of heaps (``games/octal.py``), solved whole from
one continuing run of the octal solver (``octal.py``), which keeps its rare
heaps, its index and its look for a period between blocks, so that many
blocks cost what one call costs. Each row holds what a sum of heaps does not
spoil: the Grundy value, the outcome, and a won heap's best move
(``best_moves``); remoteness and misère outcomes of sums are not determined
by their parts, and the table has neither. A table built with ``--misere``
adds each heap's genus symbol (Conway's, ``misere/genus.py``) for the heaps
``genus_heaps`` names, null beyond them.
"""

from __future__ import annotations

import numba

from tablebase.games.octal import SIDE_BITS, TAKE_BITS, THREE, genus_heaps
from tablebase.lazy import np, pa
from tablebase.solve import LevelByLevel
from tablebase.solve.octal import (
    WARMUP,
    OctalCode,
    OctalCodeError,
    _Solver,
    find_period,
    rare_values,
)
from tablebase.solve.rows import part_rows

NO_MOVE = -1
# The values of the last table this process solved, by its game's work group (``Octal.work_group``), for
# the next table of a job whose code has the same values: it takes them instead of solving them again.
# Kept only while they are small: a table of 10^8 heaps would otherwise stay in a worker's memory.
_LAST: dict[str, tuple[np.ndarray, int]] = {}
KEPT_BYTES = 64 * 2**20


@numba.njit(cache=True)
def best_moves(g, lo, hi, whole, take, split2, split3, distinct, out):
    """out[n - lo]: the first move code, in code order, from heap n to a sum of value 0; -1 if none (a
    compiled search, which stops at the first it finds)."""
    for n in range(lo, hi):
        found = NO_MOVE
        if g[n] != 0:
            for k in range(65):  # codes k: a whole heap taken, or one heap left
                for w in whole:
                    if w == k and n == k:
                        found = k
                for t in take:
                    if t == k and k < n and g[n - k] == 0:
                        found = k
                if found != NO_MOVE:
                    break
            a = 1
            while found == NO_MOVE and 2 * a <= n:  # codes a * 128 + k: a heap of a left apart
                for k in split2:
                    rest = n - k
                    if 2 * a <= rest and not (distinct and 2 * a == rest) and g[a] == g[rest - a]:
                        found = (a << TAKE_BITS) | k
                        break
                a += 1
            a = 1
            while found == NO_MOVE and 3 * a <= n:  # three heaps a <= b <= c
                b = a
                while found == NO_MOVE and a + 2 * b <= n:
                    for k in split3:
                        rest = n - k
                        if a + 2 * b <= rest and g[a] ^ g[b] ^ g[rest - a - b] == 0:
                            found = THREE | (a << (SIDE_BITS + TAKE_BITS)) | (b << TAKE_BITS) | k
                            break
                    b += 1
                a += 1
        out[n - lo] = found


class OctalSolver(LevelByLevel):
    """Solves an octal game's blocks of heaps in order, from one continuing run of the octal solver.

    A worker that did not solve the lower blocks itself (a resumed build, verify) takes their stored values
    in, and the run goes on from them: the rare values are chosen again and a period looked for at once.
    """

    shared = None  # the values are this process's

    def __init__(self, game, fresh: bool = False) -> None:
        """``fresh``: solve every value it is not given (verify's), never taking another table's."""
        self.game = game
        self.code: OctalCode = game.code
        self.columns = ["key", "grundy"]
        self._levels: set[int] = set()
        self.run = _Solver(self.code, game.top, "auto", None)
        self.run.next_choice = WARMUP
        self.known = 0  # heaps 0..known-1 have values, computed or taken in
        self.moved = False  # values were taken in past the run's own: it must start again from them
        self.group = None if fresh else game.work_group
        self._genera: list[str] | None = None  # the genus symbols of a table built with --misere, found once
        if self.group is not None and self.group in _LAST:
            values, known = _LAST[self.group]
            self._take_in(values[: min(known, game.top + 1)], 0)

    @property
    def levels(self) -> set[int]:
        return self._levels

    @property
    def values(self) -> np.ndarray:
        """G(0..known-1)."""
        return self.run.g[: self.known]

    def remember(self, level: int, rows: pa.Table | None, whole: bool = True) -> None:
        """Take in a stored block's values (those this run has not computed itself)."""
        if rows is not None and rows.num_rows:
            keys = rows["key"].to_numpy()
            lo = int(keys[0])
            if int(keys[-1]) + 1 > self.run.n:
                self._take_in(rows["grundy"].to_numpy(), lo)
        if whole:
            self._levels.add(level)

    def _take_in(self, values: np.ndarray, lo: int) -> None:
        """Values of heaps lo.. found elsewhere (stored, or by a code with the same values): the run goes on
        from them."""
        if not len(values):
            return
        if int(values.max()) > self.run.limit:
            self.run.g = self.run.g.astype(np.uint32)
            self.run.limit = np.iinfo(np.uint32).max
        hi = lo + len(values)
        self.run.g[lo:hi] = values
        self.known = max(self.known, hi)
        self.moved = True

    def _restart(self) -> None:
        """Go on from values taken in: the loop's arrays sized to them, the rare values chosen again."""
        run = self.run
        run.n, run.split, run.next_choice, run.next_check = self.known, None, WARMUP, 512
        run._size_arrays()
        self.moved = False

    def solve(self, keys: np.ndarray, compact: bool = False) -> pa.Table:
        """The rows of a block of consecutive heaps, every smaller heap known."""
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        lo, hi = int(keys[0]), int(keys[-1]) + 1
        if lo > self.known or hi - lo != len(keys):
            raise RuntimeError(f"octal: heaps {lo}..{hi - 1} asked for with only {self.known} smaller heaps known")
        if self.moved:
            self._restart()
        if hi > self.run.n:
            self.run.advance(hi)
        self.known = max(self.known, hi)
        g = self.run.g
        _LAST.clear()
        if self.group is not None and self.known * g.itemsize <= KEPT_BYTES:
            _LAST[self.group] = (g, self.known)
        code = self.code
        best = np.empty(hi - lo, dtype=np.int64)
        whole, take, split2, split3 = code.arrays()
        best_moves(g, lo, hi, whole, take, split2, split3, code.distinct, best)
        rows = part_rows(self.game, keys, g[lo:hi].astype(np.uint32), best, compact)
        heaps = genus_heaps(self.game.params)
        return rows if heaps is None else rows.append_column("genus", self._genus(heaps, lo, hi))

    def _genus(self, heaps: int, lo: int, hi: int) -> pa.Array:
        """The genus symbols of heaps lo..hi-1: those up to ``heaps`` found once (by their definition, a few
        seconds at most), null beyond."""
        if self._genera is None:
            from tablebase.misere.genus import genera

            self._genera = [row["genus"] for row in genera(self.code, heaps)]
        found = self._genera[lo:hi]
        return pa.array(found + [None] * (hi - lo - len(found)), pa.string())


RARE_LISTED = 10_000  # rare heaps listed in a manifest at most; past that only their count


def heap_figures(values: np.ndarray, code: OctalCode) -> dict:
    """What the values of heaps 0..N say of the game as a whole, as a manifest records it: the period
    if they prove one (else None), the largest value and its first heap, and the rare values (under the
    mask that makes the fewest heaps rare, listed up to RARE_LISTED of them; None for a code without
    splits into two heaps only)."""
    found = find_period(values, code)
    top = int(np.argmax(values)) if values.size else 0
    figures: dict = {
        "heaps": int(values.size),
        "period": None if found is None else
        {"preperiod": found.preperiod, "period": found.period, "proven_at": found.proven_at},
        "largest": int(values[top]) if values.size else 0, "largest_heap": top, "rare": None,
    }
    if code.split2 and not code.split3 and values.size > 1:
        try:
            rare = rare_values(values, code)
        except OctalCodeError:  # values too large for a mask (past 2^22)
            return figures
        figures["rare"] = {"mask": rare.mask_text, "count": int(rare.heaps.size)}
        if rare.heaps.size <= RARE_LISTED:
            figures["rare"].update(heaps=rare.heaps.tolist(), values=rare.values.astype(np.int64).tolist())
    return figures
