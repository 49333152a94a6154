"""Canonical forms of empty Domineering rectangles: tablebase.cgt against cgt-py.

Run: python benchmarks/bench_cgt_domineering.py [--sizes 3x4,4x4,4x5,5x5]

Ours is a plain recursive evaluator over the algebra (Left places vertical
dominoes, Right horizontal ones): a board splits into its connected regions,
its value is the sum of theirs, and regions are memoised after moving them
to the origin. The algebra's caches are shared across sizes, as cgt-py's
are. The two engines' results are checked to be the same value. Figures are
printed, not asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tablebase.cgt import Game, from_option_ids, from_options, sum_ids

class Evaluator:
    """Values of Domineering boards over tablebase.cgt, memoised by region.

    A board of ``cols`` columns is an int bitmask with cell (r, c) at bit
    ``r * stride + c``; ``stride = cols + 1`` leaves an empty column between
    rows, so shifting by 1 never carries a cell into the next row.
    """

    def __init__(self, cols: int) -> None:
        self.stride = cols + 1
        self.row = (1 << cols) - 1
        self.regions: dict[int, int] = {}  # region moved to the origin -> id
        self.boards: dict[int, int] = {}  # any board -> id

    def board(self, mask: int) -> int:
        g = self.boards.get(mask)
        if g is None:
            parts = []
            rest = mask
            while rest:
                comp = self._component(rest)
                rest &= ~comp
                parts.append(self.region(self._to_origin(comp)))
            g = parts[0] if len(parts) == 1 else sum_ids(parts)
            self.boards[mask] = g
        return g

    def _component(self, mask: int) -> int:
        s = self.stride
        comp = mask & -mask
        while True:
            grown = (comp | comp << 1 | comp >> 1 | comp << s | comp >> s) & mask
            if grown == comp:
                return comp
            comp = grown

    def _to_origin(self, comp: int) -> int:
        s = self.stride
        low = (comp & -comp).bit_length() - 1
        comp >>= (low // s) * s
        cols = 0
        m = comp
        while m:
            cols |= m & self.row
            m >>= s
        return comp >> ((cols & -cols).bit_length() - 1)

    def region(self, mask: int) -> int:
        g = self.regions.get(mask)
        if g is not None:
            return g
        s = self.stride
        lefts = []
        spots = mask & (mask >> s)  # vertical dominoes: cells b and b + stride
        while spots:
            b = spots & -spots
            spots ^= b
            lefts.append(self.board(mask ^ b ^ (b << s)))
        rights = []
        spots = mask & (mask >> 1)  # horizontal dominoes: cells b and b + 1
        while spots:
            b = spots & -spots
            spots ^= b
            rights.append(self.board(mask ^ b ^ (b << 1)))
        g = from_option_ids(lefts, rights)
        self.regions[mask] = g
        return g

    def rectangle(self, rows: int, cols: int) -> int:
        row = (1 << cols) - 1
        return self.board(sum(row << (r * self.stride) for r in range(rows)))


def _import_cgt_py():
    """cgt-py, with the tests' stand-ins for the widget modules it imports but does not need."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "cgt"))
    from cgt_helpers import install_widget_stand_ins

    install_widget_stand_ins()
    import cgt_py

    return cgt_py


def from_cgt_py(form, memo: dict) -> Game:
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
    ap.add_argument("--no-cgt-py", action="store_true", help="time tablebase.cgt only")
    args = ap.parse_args()
    cgt_py = None if args.no_cgt_py else _import_cgt_py()
    print(f"{'board':<7}{'tablebase.cgt s':>16}{'cgt-py s':>10}{'ratio':>8}  value")
    for size in args.sizes.split(","):
        rows, cols = (int(x) for x in size.lower().split("x"))
        t0 = time.perf_counter()
        value = Game(Evaluator(cols).rectangle(rows, cols))
        ours_s = time.perf_counter() - t0
        theirs_s = float("nan")
        if cgt_py is not None:
            grid = "|".join("." * cols for _ in range(rows))
            t0 = time.perf_counter()
            form = cgt_py.Domineering(grid).canonical_form
            theirs_s = time.perf_counter() - t0
            if from_cgt_py(form, {}) != value:
                raise SystemExit(f"{size}: engines disagree: {value} vs {form!r}")
        ratio = ours_s / theirs_s if theirs_s == theirs_s and theirs_s > 0 else float("nan")
        print(f"{size:<7}{ours_s:>16.2f}{theirs_s:>10.2f}{ratio:>8.2f}  {value}", flush=True)


if __name__ == "__main__":
    main()
