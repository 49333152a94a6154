"""Saved Grundy values of Grundy's game checked against the definition, sharing no code with the solver.

    python benchmarks/check_grundy_values.py g.npy                  # 200 heaps drawn at random, and more
    python benchmarks/check_grundy_values.py g.npy --samples 1000 --seed 7

``g.npy`` holds G(0..N) as ``bench_octal.py --grundy-save`` keeps them. A heap splits
into two nonempty heaps of different sizes, so G(n) is the least value that is not
G(a) xor G(n - a) for any 1 <= a < n / 2. That mex is computed here, from the saved
values below n, at: every heap to 2,000; the heaps drawn at random; the first heap of
each new largest value; the last ten heaps; and every heap whose value is rare under
Flammenkamp's mask ...1110 (an even number of ones above the lowest bit) beyond 2,000.
Each check reads the n / 2 splits of its heap, so one near 2^30 takes about a second.
Prints what was checked and each heap whose saved value differs; exits 1 if any does.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import load_grundy_values  # noqa: E402


@numba.njit(cache=True)
def mex_of_splits(g, n):
    """The least value that no split of heap n into two unequal nonempty heaps gives."""
    seen = np.zeros(1 << 16, dtype=np.uint8)
    for a in range(1, (n + 1) // 2):
        seen[g[a] ^ g[n - a]] = 1
    v = 0
    while seen[v]:
        v += 1
    return v


def heaps_to_check(g: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """The heaps the module docstring lists, in increasing order."""
    n = g.size - 1
    rng = np.random.default_rng(seed)
    largest = np.maximum.accumulate(g)
    new_largest = np.flatnonzero(np.r_[True, largest[1:] > largest[:-1]])
    ones_above_lowest = np.array([bin(v >> 1).count("1") for v in range(int(g.max()) + 1)])
    rare = np.flatnonzero(ones_above_lowest[g] % 2 == 0)
    picked = [np.arange(min(n, 2000) + 1), rng.integers(0, n + 1, samples), new_largest,
              np.arange(max(0, n - 9), n + 1), rare[rare > 2000]]
    return np.unique(np.concatenate(picked))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("values", help="a .npy file of G(0..N)")
    parser.add_argument("--samples", type=int, default=200, help="heaps drawn at random")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    g = load_grundy_values(args.values, "check_grundy_values", mmap=True)
    g = np.ascontiguousarray(g)
    heaps = heaps_to_check(g, args.samples, args.seed)
    began, wrong = time.monotonic(), 0
    for n in heaps:
        want = mex_of_splits(g, int(n))
        if want != g[n]:
            wrong += 1
            print(f"heap {n}: saved {g[n]}, the definition gives {want}")
    print(f"{heaps.size:,} heaps of {g.size:,} checked by the definition in {time.monotonic() - began:.1f} s; "
          f"largest value {int(g.max())} (first at heap {int(np.argmax(g))}); {wrong} differ")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
