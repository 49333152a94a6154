"""Canonical forms of empty Domineering rectangles: tablebase.cgt against cgt-py.

Run: python benchmarks/bench_cgt_domineering.py [--sizes 3x4,4x4,4x5,5x5] [--evaluator levels|recursive]

Both engines value every region the board can come to: a board splits into
its connected regions, its value is the sum of theirs, and regions are
memoised after moving them to the origin (cgt-py does the same, in Rust,
with a transposition table). Left places vertical dominoes, Right
horizontal ones. Neither side uses the board's symmetries, so the algebra
builds the same canonical forms in both.

The game side of ours runs in one of two ways:

* ``levels`` (the default) finds the regions level by level with numpy, as
  tablebase's own solvers do, and then values them from the fewest cells up:
  one ``from_option_ids`` per region and one ``sum_ids`` per distinct list of
  parts' values. What is left in Python is mostly the algebra.
* ``recursive`` is a plain recursive search over bitmasks in Python; most
  of its time goes to cutting boards into regions, not to the algebra.

Printed per board: our total seconds, the seconds spent inside the algebra
(``from_option_ids`` and ``sum_ids``, timed call by call), cgt-py's seconds
measured in the same run, and the two ratios (ours / cgt-py). The algebra's
caches are shared across sizes, as cgt-py's transposition table is. The two
engines' results are checked to be the same value. Figures are printed, not
asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from tablebase.cgt import Value, from_option_ids, from_options, sum_ids


class Timed:
    """The algebra's two entry points, adding up the seconds spent inside them."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def options(self, lefts: list[int], rights: list[int]) -> int:
        t = time.perf_counter()
        g = from_option_ids(lefts, rights)
        self.seconds += time.perf_counter() - t
        return g

    def sum(self, parts: list[int]) -> int:
        t = time.perf_counter()
        g = sum_ids(parts)
        self.seconds += time.perf_counter() - t
        return g


class Levels:
    """Every region of a rows x cols board found level by level with numpy, then valued bottom-up.

    A board is an int64 bitmask with cell (r, c) at bit ``r * stride + c``;
    ``stride = cols + 1`` leaves an empty column between rows, so shifting
    by 1 never carries a cell into the next row.
    """

    def __init__(self, rows: int, cols: int, algebra: Timed) -> None:
        if rows * (cols + 1) + cols + 1 > 62:
            raise SystemExit(f"{rows}x{cols} does not fit in an int64 bitmask")
        self.rows, self.cols, self.s = rows, cols, cols + 1
        self.bits = rows * self.s
        self.row = (1 << cols) - 1
        self.algebra = algebra

    def _to_origin(self, comp: np.ndarray) -> np.ndarray:
        s = self.s
        low = np.log2((comp & -comp).astype(np.float64)).astype(np.int64)  # exact below 2^53
        comp = comp >> ((low // s) * s)
        cols, k = comp.copy(), s
        while k < self.bits:  # fold every row onto the first one
            cols |= cols >> k
            k *= 2
        cols &= self.row
        return comp >> np.log2((cols & -cols).astype(np.float64)).astype(np.int64)

    def _regions(self, boards: np.ndarray) -> np.ndarray:
        """Each board's connected regions moved to the origin, one per column (0: none)."""
        s, rest, out = self.s, boards.copy(), []
        while rest.any():
            live = rest != 0
            comp = rest & -rest
            while True:
                grown = (comp | comp << 1 | comp >> 1 | comp << s | comp >> s) & rest
                if np.array_equal(grown, comp):
                    break
                comp = grown
            moved = np.zeros_like(comp)
            moved[live] = self._to_origin(comp[live])
            out.append(moved)
            rest ^= comp
        return np.stack(out, axis=1) if out else np.zeros((len(boards), 1), dtype=np.int64)

    def value(self) -> int:
        full = sum(self.row << (r * self.s) for r in range(self.rows))
        cells = self.rows * self.cols
        pending: dict[int, list[np.ndarray]] = {cells: [np.array([full], dtype=np.int64)]}
        regions: dict[int, np.ndarray] = {}
        moves: dict[int, tuple] = {}
        for c in range(cells, 0, -1):  # find: a move leaves regions of fewer cells
            if c not in pending:
                continue
            here = regions[c] = np.unique(np.concatenate(pending.pop(c)))
            owner, side, board = [], [], []
            for s, step in ((0, self.s), (1, 1)):  # Left: cells b, b + stride; Right: b, b + 1
                spots = here & (here >> step)
                for p in range(self.bits):
                    at = np.nonzero((spots >> p) & 1)[0]
                    owner.append(at)
                    side.append(np.full(len(at), s))
                    board.append(here[at] ^ ((1 << p) | (1 << (p + step))))
            owner_a, side_a = np.concatenate(owner), np.concatenate(side)
            boards, which = np.unique(np.concatenate(board), return_inverse=True)
            parts = self._regions(boards)
            counts = np.bitwise_count(parts)
            for n in np.unique(counts[parts != 0]):
                pending.setdefault(int(n), []).append(np.unique(parts[counts == n]))
            order = np.lexsort((side_a, owner_a))
            moves[c] = (owner_a[order] * 2 + side_a[order], which[order], parts, counts)
        values: dict[int, np.ndarray] = {}
        for c in sorted(regions):  # value: a region's parts after a move are all smaller
            values[c] = self._level(len(regions[c]), *moves[c], regions, values)
        return int(values[cells][0])

    def _level(self, n: int, key, which, parts, counts, regions, values) -> np.ndarray:
        algebra = self.algebra
        ids = np.zeros_like(parts)  # 0 is the id of the game 0, so empty slots add nothing
        for k in np.unique(counts[parts != 0]):
            at = counts == k
            ids[at] = values[int(k)][np.searchsorted(regions[int(k)], parts[at])]
        board = ids[:, 0].copy()
        several = np.nonzero((parts != 0).sum(axis=1) > 1)[0]
        if len(several):
            rows = np.ascontiguousarray(np.sort(ids[several], axis=1))
            keys = rows.view(np.dtype((np.void, rows.itemsize * rows.shape[1]))).ravel()
            _, first, back = np.unique(keys, return_index=True, return_inverse=True)
            sums = np.array([algebra.sum(r) for r in rows[first].tolist()], dtype=np.int64)
            board[several] = sums[back.ravel()]
        results = board[which].tolist()
        bounds = np.searchsorted(key, np.arange(2 * n + 1)).tolist()
        return np.array([algebra.options(results[bounds[2 * i]:bounds[2 * i + 1]],
                                         results[bounds[2 * i + 1]:bounds[2 * i + 2]]) for i in range(n)],
                        dtype=np.int64)


class Recursive:
    """Values of Domineering boards by a plain recursive search, memoised by region."""

    def __init__(self, rows: int, cols: int, algebra: Timed) -> None:
        self.rows, self.cols, self.stride = rows, cols, cols + 1
        self.row = (1 << cols) - 1
        self.algebra = algebra
        self.regions: dict[int, int] = {}  # region moved to the origin -> id
        self.boards: dict[int, int] = {}  # any board -> id

    def value(self) -> int:
        return self.board(sum(self.row << (r * self.stride) for r in range(self.rows)))

    def board(self, mask: int) -> int:
        g = self.boards.get(mask)
        if g is None:
            parts, rest, s = [], mask, self.stride
            while rest:
                comp = rest & -rest
                while True:
                    grown = (comp | comp << 1 | comp >> 1 | comp << s | comp >> s) & rest
                    if grown == comp:
                        break
                    comp = grown
                rest &= ~comp
                parts.append(self.region(self._to_origin(comp)))
            g = parts[0] if len(parts) == 1 else self.algebra.sum(parts)
            self.boards[mask] = g
        return g

    def _to_origin(self, comp: int) -> int:
        s = self.stride
        low = (comp & -comp).bit_length() - 1
        comp >>= (low // s) * s
        cols, m = 0, comp
        while m:
            cols |= m & self.row
            m >>= s
        return comp >> ((cols & -cols).bit_length() - 1)

    def region(self, mask: int) -> int:
        g = self.regions.get(mask)
        if g is None:
            s, sides = self.stride, []
            for step in (s, 1):
                results, spots = [], mask & (mask >> step)
                while spots:
                    b = spots & -spots
                    spots ^= b
                    results.append(self.board(mask ^ b ^ (b << step)))
                sides.append(results)
            g = self.regions[mask] = self.algebra.options(*sides)
        return g


def _import_cgt_py():
    """cgt-py, with the tests' stand-ins for the widget modules it imports but does not need."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "cgt"))
    from cgt_helpers import install_widget_stand_ins

    install_widget_stand_ins()
    import cgt_py

    return cgt_py


def from_cgt_py(form, memo: dict) -> Value:
    """Our value of a cgt-py CanonicalForm, rebuilt from its option tree."""
    key = repr(form)
    g = memo.get(key)
    if g is None:
        g = from_options([from_cgt_py(x, memo) for x in form.left_options],
                         [from_cgt_py(x, memo) for x in form.right_options])
        memo[key] = g
    return g


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="3x4,4x4,4x5,5x5", help="rows x columns, comma separated")
    ap.add_argument("--evaluator", choices=["levels", "recursive"], default="levels")
    ap.add_argument("--no-cgt-py", action="store_true", help="time tablebase.cgt only")
    args = ap.parse_args()
    cgt_py = None if args.no_cgt_py else _import_cgt_py()
    evaluator = Levels if args.evaluator == "levels" else Recursive
    print(f"{'board':<7}{'ours s':>8}{'algebra s':>11}{'cgt-py s':>10}{'ratio':>7}{'algebra ratio':>15}  value")
    for size in args.sizes.split(","):
        rows, cols = (int(x) for x in size.lower().split("x"))
        algebra = Timed()
        t0 = time.perf_counter()
        value = Value(evaluator(rows, cols, algebra).value())
        ours_s = time.perf_counter() - t0
        theirs_s = float("nan")
        if cgt_py is not None:
            grid = "|".join("." * cols for _ in range(rows))
            t0 = time.perf_counter()
            form = cgt_py.Domineering(grid).canonical_form
            theirs_s = time.perf_counter() - t0
            if from_cgt_py(form, {}) != value:
                raise SystemExit(f"{size}: engines disagree: {value} vs {form!r}")
        ratio, algebra_ratio = (ours_s / theirs_s, algebra.seconds / theirs_s) if theirs_s > 0 else (np.nan, np.nan)
        print(f"{size:<7}{ours_s:>8.2f}{algebra.seconds:>11.2f}{theirs_s:>10.2f}{ratio:>7.2f}{algebra_ratio:>15.2f}"
              f"  {value}", flush=True)


if __name__ == "__main__":
    main()
