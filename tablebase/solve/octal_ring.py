"""The plain loop for codes that split in two after taking several numbers of tokens: each pair set once.

A heap n of .444 may take 1, 2 or 3 tokens and split the rest in two: its
options include the pair sets P(m) = {G(a) xor G(m - a) : 1 <= a <= m/2} of
m = n - 1, n - 2 and n - 3, and the plain loop (``octal_kernels``) marks each
P(m) again for every heap that reaches it. Here each P(m) is marked once, when
heap m + k0 needs it (k0 the smallest split size), in a ring of stamp rows
(``stamps[m % R, x] == m``: x is in P(m)) that the larger split sizes read.
"""

from __future__ import annotations

import numba

from tablebase.lazy import np
from tablebase.solve.octal_kernels import _mark_single, mark_split


def ring_rows(split2: np.ndarray) -> int:
    """R: rows enough that P(n - k) for every split size k lie in different rows."""
    return int(split2.max() - split2.min()) + 1


def new_stamps(split2: np.ndarray, size: int) -> np.ndarray:
    """An empty ring for values below ``size`` (no row holds any m >= 0)."""
    return np.full((ring_rows(split2), size), -1, dtype=np.int64)


@numba.njit(cache=True)
def ring_sweep(g, n0, n1, whole, take, split2, distinct, stamps, seen, limit):
    """G(n) for n0 <= n < n1 (split2 ascending, no split into three heaps), as ``plain_sweep`` does and
    with its returns: n1, or earlier when a value reached half of ``seen`` or would exceed ``limit``.
    The ring is filled again on entry, so the caller may hand in new, empty arrays after growing them.
    For codes without a sparse space (docs/octal.md) this quadratic part is all the time there is."""
    half = seen.size // 2
    rows = stamps.shape[0]
    k0 = split2[0]
    for m in range(max(2, n0 - split2[split2.size - 1]), n0 - k0):
        mark_split(g, m, distinct, stamps[m % rows], m)
    for n in range(n0, n1):
        m = n - k0
        if m >= 2:
            mark_split(g, m, distinct, stamps[m % rows], m)
        _mark_single(g, n, whole, take, seen)
        v = 0
        while True:
            hit = seen[v] == n
            for i in range(split2.size):
                mm = n - split2[i]
                if not hit and mm >= 2 and stamps[mm % rows, v] == mm:
                    hit = True
            if not hit:
                break
            v += 1
        if v > limit:
            return n
        g[n] = v
        if v >= half:
            return n + 1
    return n1
