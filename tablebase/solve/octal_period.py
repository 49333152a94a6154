"""Periods of Grundy values proven by the Guy-Smith argument, and the split of values into rare and common.

``find_period`` proves a period from the values up to ``Period.proven_at``:
the theorem, its proof, and why Grundy's game is not covered are in
docs/octal.md, "Periods". ``choose_split`` picks, per code, the mask that
makes the fewest heaps rare, counted for every mask at once as a
Walsh-Hadamard transform of the histogram of values (docs/octal.md, "The
sparse-space method").
"""

from __future__ import annotations

from dataclasses import dataclass

import numba

from tablebase.games.octal_code import OctalCode, OctalCodeError, parse_code
from tablebase.lazy import np

MAX_MASK_BITS = 22  # values up to four million; beyond that the transform costs more than it saves
HISTOGRAM_SLICE = 1 << 24  # values counted at a time (bincount holds them as 64-bit numbers)


@dataclass(frozen=True)
class Period:
    """G(n + period) = G(n) for every n >= preperiod, proven by the values up to heap ``proven_at``."""

    preperiod: int
    period: int
    proven_at: int


def proof_heap(code: OctalCode, preperiod: int, period: int) -> int:
    """The largest heap whose value the periodicity check for (preperiod, period) reads."""
    h = code.most_heaps
    return h * max(preperiod, 1) + h * period + code.largest_removal - 1


def _as_values(values: np.ndarray) -> np.ndarray:
    g = np.asarray(values)
    if g.ndim != 1 or not np.issubdtype(g.dtype, np.integer):
        raise OctalCodeError(f"Grundy values are a one-dimensional integer array, not {g.dtype} of shape {g.shape}")
    return np.ascontiguousarray(g)


def find_period(values: np.ndarray, code: OctalCode | str) -> Period | None:
    """The least period p, and its least preperiod e, of the values G(0..len-1), if they prove it.

    None while no period is proven by these values (and always for Grundy's game).
    Periods are tried in increasing order and the first proven is the least period of
    the game: if d divides p and G repeats with period d, then it does so from e(d) <=
    e(p) on (the proven tail of p repeats the window [e(p), e(p) + p) for ever), so d's
    own check, which affords a larger preperiod than p's, passes too.
    """
    code = parse_code(code)
    g = _as_values(values)
    if code.distinct:
        return None
    t, h = code.largest_removal, code.most_heaps
    bounds = np.empty(max((g.size - t - h) // h, 0) + 1, dtype=np.uint32 if g.size < 2**32 else np.int64)
    p, e = least_proven_period(g, g.size, t, h, bounds)
    if p == 0:
        return None
    return Period(e, p, proof_heap(code, e, p))


@dataclass(frozen=True)
class RareSplit:
    """Which heaps are rare: those where parity(G(n) AND mask), XORed with the parity of
    n - parity_heap if ``by_position``, is 0. ``mask`` is a Python int; a negative one has
    ones in every bit above its highest zero (two's complement), as an infinite bitstring, so that a new
    larger value is common, as the mex of common values usually is. The parity is linear in XOR: a split
    gives a common value only if exactly one of its heaps is rare (Winning Ways, ch. 4, "Sparse space spells
    speed"; Flammenkamp, "Sparse- and common-positions of Sprague-Grundy values")."""

    mask: int
    by_position: bool = False
    parity_heap: int = 0

    def parity_table(self, size: int) -> np.ndarray:
        """parity(v AND mask) for v < size, as uint8."""
        v = np.arange(size, dtype=np.int64) & (self.mask & (size - 1))
        bits = np.zeros(size, dtype=np.uint8)
        while v.any():
            bits ^= (v & 1).astype(np.uint8)
            v >>= 1
        return bits

    def rare_heaps(self, values: np.ndarray) -> np.ndarray:
        """The heaps n (from 0) whose value is rare."""
        g = _as_values(values)
        size = 1 << max(1, int(g.max(initial=0)).bit_length())
        cls = self.parity_table(size)[g]
        if self.by_position:  # the heaps n with n - parity_heap odd change class (no array of heaps made)
            cls[(self.parity_heap + 1) % 2::2] ^= 1
        return np.flatnonzero(cls == 0)

    def partners(self, values: np.ndarray, per_value: int) -> np.ndarray:
        """Common heaps (from 1), the first ``per_value`` of each value, ordered first of every
        value, then second of every value, and so on. Two common heaps give a value rare for
        their sum, so heaps of many values met early give many of those values in few splits
        (the sparse loop's search for the rare values below the mex)."""
        g = _as_values(values)
        rare = np.zeros(g.size, dtype=bool)
        rare[self.rare_heaps(g)] = True
        rare[:1] = True  # heap 0 is never a part of a split
        heaps = np.flatnonzero(~rare)
        if heaps.size == 0:
            return heaps.astype(np.int64)
        by_value = heaps[np.argsort(g[heaps], kind="stable")]
        ordered = g[by_value]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
        rank = np.arange(by_value.size) - np.repeat(starts, np.diff(np.r_[starts, by_value.size]))
        keep = rank < per_value
        order = np.lexsort((ordered[keep], rank[keep]))
        return by_value[keep][order].astype(np.int64)

    def text(self, bits: int) -> str:
        """The mask as published: hexadecimal over the low ``bits`` bits, '+pos' for the domain type."""
        return f"{self.mask & ((1 << bits) - 1):x}" + ("+pos" if self.by_position else "")


def _walsh(hist: np.ndarray) -> np.ndarray:
    """W[x] = sum over v of hist[v] (-1)^popcount(v AND x) (the Walsh-Hadamard transform)."""
    w = hist.astype(np.int64)
    step = 1
    while step < w.size:
        blocks = w.reshape(-1, 2, step)
        w = np.stack((blocks[:, 0] + blocks[:, 1], blocks[:, 0] - blocks[:, 1]), axis=1).reshape(-1)
        step *= 2
    return w


def choose_split(values: np.ndarray, code: OctalCode) -> tuple[RareSplit, int] | None:
    """The split that makes the fewest heaps 1..len-1 rare, and that count; None if the code
    cannot use one (no split into two heaps, or a split into three)."""
    g = _as_values(values)[1:]
    if not code.split2 or code.split3 or g.size == 0:
        return None
    bits = max(1, int(g.max()).bit_length())
    if bits > MAX_MASK_BITS:
        return None
    size = 1 << bits
    low = np.int64(size - 1)
    counts = (g.size + _walsh(_histogram(g, size))) // 2
    counts[0] = g.size + 1  # the empty mask makes every heap rare
    best = int(np.argmin(counts))
    choice = (int(counts[best]), RareSplit(best | ~int(low)))
    if len({k & 1 for k in code.split2}) == 1:
        tp = code.split2[0]
        odd, even = g[tp % 2::2], g[(tp + 1) % 2::2]  # g[i] is heap i + 1: n - tp odd where i - tp is even
        even_w = _walsh(_histogram(even, size))
        odd_w = _walsh(_histogram(odd, size))
        by_pos = (even.size + even_w) // 2 + (odd.size - odd_w) // 2
        by_pos[0] = g.size + 1
        x = int(np.argmin(by_pos))
        if by_pos[x] < choice[0]:
            choice = (int(by_pos[x]), RareSplit(x | ~int(low), True, tp))
    return choice[1], choice[0]


def _histogram(values: np.ndarray, size: int) -> np.ndarray:
    """How many times each value 0..size-1 occurs, counted in slices: bincount widens what it counts to
    64 bits, which for a long run's values at once would be several times their own bytes."""
    counts = np.zeros(size, dtype=np.int64)
    for start in range(0, values.size, HISTOGRAM_SLICE):
        counts += np.bincount(values[start: start + HISTOGRAM_SLICE], minlength=size)
    return counts


@dataclass(frozen=True)
class RareValues:
    """The rare heaps of a run of values, their values, and the largest value of all."""

    split: RareSplit
    heaps: np.ndarray
    values: np.ndarray
    largest: int
    largest_heap: int

    @property
    def mask_text(self) -> str:
        """The mask as the published tables write it, over the bits of the largest value."""
        return self.split.text(max(1, self.largest.bit_length()))


def rare_values(values: np.ndarray, code: OctalCode | str, split: RareSplit | None = None) -> RareValues:
    """The rare heaps (heap 0 included when its value is rare) of G(0..len-1), under ``split``,
    or under the split that makes the fewest of them rare."""
    code = parse_code(code)
    g = _as_values(values)
    if split is None:
        chosen = choose_split(g, code)
        if chosen is None:
            raise OctalCodeError(f"octal code {code}: no rare and common values (it has no split into two heaps only)")
        split = chosen[0]
    heaps = split.rare_heaps(g)
    top = int(np.argmax(g)) if g.size else 0
    return RareValues(split, heaps, g[heaps].copy(), int(g[top]) if g.size else 0, top)


@numba.njit(cache=True)
def last_mismatch(g, p, top, low):
    """The largest n with low <= n <= top and G(n) != G(n + p), or -1."""
    n = top
    while n >= low:
        if g[n] != g[n + p]:
            return n
        n -= 1
    return -1


@numba.njit(cache=True)
def least_proven_period(g, size, t, h, top):
    """The least p for which the values g[:size] prove periodicity by the Guy-Smith argument
    (see the module's docstring): no n with L <= n < size - p has G(n) != G(n + p), where
    L = (size - h p - t) // h >= 1 is the largest preperiod the proof can afford.

    Returns (p, e) with e the exact preperiod of p in these values, or (0, 0). Periods are
    tried in increasing order, each scanned from the top down to its first mismatch. A
    mismatch of q = k p at n implies a mismatch of p at some n + i p >= n, so p's last
    mismatch bounds q's from above: multiples start their scan there, which keeps the
    multiples of a period that is seen but not yet proven from rescanning the whole tail
    (passed on only after a long clean run: a mismatch near the top costs the multiples
    little to find themselves). ``top``: room for those bounds, pmax + 1 numbers of the
    caller's type (32 bits below 2^32 heaps: half the bytes of 64).
    """
    pmax = (size - t - h) // h
    if pmax < 1:
        return 0, 0
    for p in range(1, pmax + 1):
        top[p] = size - p - 1
    for p in range(1, pmax + 1):
        low = (size - h * p - t) // h
        scan = np.int64(top[p])  # signed: the scans count down past 0
        at = last_mismatch(g, p, scan, low)
        if at < 0:
            return p, last_mismatch(g, p, min(scan, low - 1), 0) + 1
        if scan - at > 64:  # a long clean run: spare the multiples rescanning it
            for q in range(2 * p, pmax + 1, p):
                top[q] = min(top[q], at)
    return 0, 0
