"""Grundy values of take-and-break heaps (octal and hexadecimal games, Grundy's game) at research scale.

    values = grundy_values("0.16", 10**6)            # G(0..10^6), numpy uint16 (uint32 if values grow)
    period = find_period(values, "0.16")             # Period(preperiod=105351, period=149459, proven_at=...)
    rare = rare_values(values, "0.16")               # the rare heaps, their values, the largest value

The compiled loops are in ``octal_kernels.py``, the rules in ``games/octal_code.py``,
periods and rare values in ``octal_period.py``; ``docs/octal.md`` gives the
definitions and sources, and ``solve`` how a run goes.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from tablebase.games.octal_code import (
    GRUNDY,
    NAMED,
    OctalCode,
    OctalCodeError,
    check_size,
    parse_code,
)
from tablebase.lazy import np
from tablebase.solve.octal_kernels import (
    FIRST,
    index_values,
    pair_bits,
    plain_sweep,
    sparse_sweep,
)
from tablebase.solve.octal_period import (
    Period,
    RareSplit,
    RareValues,
    choose_split,
    find_period,
    rare_values,
)
from tablebase.solve.octal_ring import new_stamps, ring_sweep

__all__ = [
    "GRUNDY", "NAMED", "OctalCode", "OctalCodeError", "OctalSequence", "Period", "ProgressLine", "RareSplit",
    "RareValues", "check_size", "find_period", "grundy_values", "heap_value", "parse_code", "rare_values", "solve",
]

Progress = Callable[[int, int], None]
METHODS = ("auto", "sparse", "plain")
MAX_HEAPS = 1 << 34  # 32 GiB of values: more than any machine here holds
WARMUP = 1024  # heaps solved plainly before the first choice of rare values
CHUNK_SECONDS = 0.25
PERIOD_GROWTH = 1.1  # heaps grown by between looks for a period: a look costs time in proportion to the heaps
PROGRESS_EVERY = 0.5  # seconds between calls of ``progress``; a chunk takes about CHUNK_SECONDS
CHECKED_PREFIX = 256  # heaps of a saved prefix recomputed to catch values of another code
PARTNER_HEAPS = 1 << 17  # the sparse loop's partners are heaps below this (RareSplit.partners) ...
PARTNERS_PER_VALUE = 64  # ... and at most this many of each value


@dataclass
class OctalSequence:
    """What a run found: G(0..n_max); the period, if the values prove one; the split of rare
    values used last (None for the plain loop); and how many heaps were computed rather than
    copied from a proven period."""

    values: np.ndarray
    period: Period | None
    split: RareSplit | None
    computed: int


class _Solver:
    """The state of one run between chunks: the values, the arrays sized to them, the loop in use."""

    def __init__(self, code: OctalCode, n_max: int, method: str, split: RareSplit | None) -> None:
        self.code, self.method, self.fixed_split = code, method, split
        self.g = np.zeros(n_max + 1, dtype=np.uint16)
        self.n = 0
        self.whole, self.take, self.split2, self.split3 = code.arrays()
        # several split sizes and no split into three: the plain loop marks each pair set once (octal_ring.py)
        self.ring = self.split2.size >= 2 and not self.split3.size
        self.split: RareSplit | None = None
        self.rare = np.zeros(0, dtype=np.int64)
        self.n_rare = self.rare_at_choice = 0
        self.next_choice = 0
        self.next_check, self.chunk = 512, 1024  # the next look for a period; heaps a chunk
        self.period: Period | None = None  # once proven, the rest was copied from it
        self.computed = 0  # heaps computed before the period was proven
        self._size_arrays()

    # -- arrays that depend on the largest value ---------------------------------------------
    def _size_arrays(self) -> None:
        """Arrays for values below ``half``: a power of two above every value, so every XOR fits."""
        top = int(self.g[: self.n].max(initial=0))
        self.half = 1 << max(1, top.bit_length())
        if self.split is not None:  # room for both kinds of value above every option
            lowest = (self.split.mask & -self.split.mask).bit_length() - 1
            self.half = max(self.half, 2 << lowest)
        self.seen = np.full(2 * self.half, -1, dtype=np.int64)
        self.limit = np.iinfo(self.g.dtype).max
        words = (self.half + 63) // 64
        if self.code.split3:
            self.pairs = np.zeros((self.g.size, words), dtype=np.uint64)
            for s in range(2, self.n):
                pair_bits(self.g, s, self.pairs[s])
            self.by_value = np.zeros((self.half, words), dtype=np.uint64)
        else:
            self.pairs = self.by_value = np.zeros((0, 1), dtype=np.uint64)
        self.stamps = new_stamps(self.split2, self.seen.size) if self.ring else None
        if self.split is not None:
            self._tables()

    def _tables(self) -> None:
        """The loop's view of the split (parities and values of each class) and its value index."""
        par = self.split.parity_table(self.seen.size)
        values = [np.flatnonzero(par == side).astype(np.int64) for side in (0, 1)]
        self.tables = (par, values[0], values[1], int(self.split.by_position), self.split.parity_heap)
        size = self.seen.size
        self.index = (np.zeros((size, FIRST), np.int64), np.zeros(size, np.int64), np.zeros(size, np.int64),
                      np.zeros(size, np.int64))
        index_values(self.g, self.n, *self.index)
        self.trial = np.array([1, 0, 0], dtype=np.int64)
        self._partners()

    def _partners(self) -> None:
        """The partners of the sparse loop's search, chosen again each time the heaps double
        until they reach PARTNER_HEAPS."""
        heaps = self.split.partners(self.g[: min(self.n, PARTNER_HEAPS)], PARTNERS_PER_VALUE)
        self.partners = (heaps, self.g[heaps].astype(np.int64), int(heaps.max(initial=0)))
        self.partners_from = max(self.n, 1)

    def _widen(self) -> None:
        """A value no longer fits the dtype: continue in uint32."""
        if self.g.dtype == np.uint32:
            raise OctalCodeError(f"octal code {self.code}: a Grundy value above 2^32 at heap {self.n}")
        self.g = self.g.astype(np.uint32)
        self._size_arrays()

    # -- which loop ----------------------------------------------------------------------------
    def choose(self) -> None:
        """Choose the rare values again (or for the first time), or stay with the plain loop."""
        self.next_choice = max(2 * self.n, WARMUP)
        if self.method == "plain" or not self.code.split2 or self.code.split3:
            return
        if self.fixed_split is not None:
            split = self.fixed_split
        else:
            chosen = choose_split(self.g[: self.n], self.code)
            if chosen is None or (self.method == "auto" and 4 * chosen[1] > self.n):
                self.split = None
                return
            split = chosen[0]
        self.split = split
        self._size_arrays()
        rare = split.rare_heaps(self.g[: self.n])
        rare = rare[rare > 0]  # heap 0 is never a part of a split
        self.rare = np.zeros(rare.size + max(1024, rare.size), dtype=np.int64)
        self.rare[: rare.size] = rare
        self.n_rare = self.rare_at_choice = rare.size

    def due_for_choice(self) -> bool:
        if self.split is None:
            return self.n >= self.next_choice
        grown = self.n_rare > 2 * self.rare_at_choice + 256
        return grown and self.fixed_split is None

    # -- one chunk -----------------------------------------------------------------------------
    def run(self, stop: int) -> None:
        """Solve heaps n.. up to ``stop`` (exclusive) or until an array must grow; then grow it."""
        if self.split is None and self.ring:
            self.n = ring_sweep(self.g, self.n, stop, self.whole, self.take, self.split2, self.code.distinct,
                              self.stamps, self.seen, self.limit)
        elif self.split is None:
            self.n = plain_sweep(self.g, self.n, stop, self.whole, self.take, self.split2, self.split3,
                               self.code.distinct, self.seen, self.pairs, self.by_value, self.limit)
        else:
            if self.partners_from < PARTNER_HEAPS:
                if self.n >= 2 * self.partners_from:
                    self._partners()
                stop = min(stop, 2 * self.partners_from)
            self.n, self.n_rare = sparse_sweep(
                self.g, self.n, stop, self.whole, self.take, self.split2, self.code.distinct, self.tables,
                self.rare, self.n_rare, self.seen, self.index, self.partners, self.trial, self.limit,
            )
        # The arrays grow before the next chunk even when this one ended at ``stop``: its last heap
        # may be the one whose value outgrew them.
        if self.n and self.g[self.n - 1] >= self.half:
            self._size_arrays()
        elif self.split is not None and self.n_rare == self.rare.size:
            self.rare = np.concatenate((self.rare, np.zeros(self.rare.size, dtype=np.int64)))
        elif self.n != stop:
            self._widen()

    def solve_all(self, progress: Progress | None, use_period: bool) -> tuple[Period | None, int]:
        """Every heap up to n_max (``advance``); returns the period and the heaps computed."""
        n_max = self.g.size - 1
        self.advance(n_max + 1, progress, use_period)
        if self.period is not None:
            return self.period, self.computed
        return (find_period(self.g, self.code) if use_period else None), self.n

    def advance(self, stop: int, progress: Progress | None = None, use_period: bool = True) -> None:
        """Heaps up to ``stop`` (exclusive) in chunks of about CHUNK_SECONDS, telling ``progress``
        between them; with ``use_period``, looking for a proven period each time the heaps grow by a
        tenth, and once one is found copying every value up to n_max from it (``period``, ``computed``).
        A table's build calls it a block of heaps at a time, with the same result as one call."""
        n_max = self.g.size - 1
        stop = min(stop, n_max + 1)
        last_call = time.monotonic()
        while self.n < stop:
            if use_period and self.n >= self.next_check:
                self.next_check = max(int(self.n * PERIOD_GROWTH), self.n + 512)
                found = find_period(self.g[: self.n], self.code)
                if found is not None:
                    self.period, self.computed = found, self.n
                    _fill_periodic(self.g, self.n, found)
                    self.n = n_max + 1
                    break
            if self.due_for_choice():
                self.choose()
            began, before = time.monotonic(), self.n
            end = min(stop, self.n + self.chunk, self.next_check if use_period else stop)
            self.run(end if self.split is not None else min(end, max(self.next_choice, self.n + 1)))
            if self.n > before:
                rate = (self.n - before) / max(time.monotonic() - began, 1e-6)
                self.chunk = int(min(max(1, rate * CHUNK_SECONDS), 4 * self.chunk))
            if progress is not None and self.n < stop and time.monotonic() - last_call >= PROGRESS_EVERY:
                progress(self.n - 1, n_max)
                last_call = time.monotonic()
        if progress is not None and self.n:
            progress(self.n - 1, n_max)


def _check_prefix(code: OctalCode, start: np.ndarray, n_max: int) -> np.ndarray:
    """A saved prefix, checked on its first heaps against the rules (values of another code
    would otherwise go on silently)."""
    prefix = np.asarray(start)
    if prefix.ndim != 1 or not np.issubdtype(prefix.dtype, np.integer) or prefix.size == 0:
        raise OctalCodeError("start: saved Grundy values are a nonempty one-dimensional integer array")
    if int(prefix.min()) < 0 or int(prefix.max()) >= 1 << 32:
        raise OctalCodeError("start: saved Grundy values lie between 0 and 2^32")
    head = solve(code, min(prefix.size, CHECKED_PREFIX) - 1, method="plain", use_period=False).values
    wrong = np.flatnonzero(head != prefix[: head.size])
    if wrong.size:
        n = int(wrong[0])
        raise OctalCodeError(
            f"start: the saved values are not those of {code}: heap {n} has {prefix[n]}, the rules give {head[n]}"
        )
    return prefix[: n_max + 1]


def _fill_periodic(g: np.ndarray, n: int, period: Period) -> None:
    """g[i] = g[i - p] for every i >= n, in blocks that double (n - p >= preperiod)."""
    e, p = period.preperiod, period.period
    while n < g.size:
        span = p * ((n - e) // p)
        step = min(span, g.size - n)
        g[n: n + step] = g[n - span: n - span + step]
        n += step


def solve(code: OctalCode | str, n_max: int, *, progress: Progress | None = None, start: np.ndarray | None = None,
          use_period: bool = True, method: str = "auto", split: RareSplit | None = None) -> OctalSequence:
    """G(0..n_max) of the game ``code``, with the period and the rare values used.

    ``method``: "auto" (the sparse loop where rare heaps are few, else the plain one),
    "sparse" (always, with ``split`` or the best split of the first heaps), or "plain".
    ``progress(n, n_max)`` is called at least once a second with the largest heap solved. A run goes in
    chunks of about ``CHUNK_SECONDS``, so that between chunks it can grow its arrays, choose again which
    values are rare, and look for a period: once the values prove one (Guy-Smith), the rest follow from it
    and are copied instead of computed (``use_period=False`` computes every heap). ``start`` resumes from
    values saved earlier."""
    code = parse_code(code)
    if isinstance(n_max, bool) or not isinstance(n_max, (int, np.integer)) or not 0 <= n_max < MAX_HEAPS:
        raise OctalCodeError(f"n_max: a number of heaps from 0 to {MAX_HEAPS - 1}, not {n_max!r}")
    if method not in METHODS:
        raise OctalCodeError(f"method: one of {', '.join(METHODS)}, not {method!r}")
    if method == "sparse" and (not code.split2 or code.split3):
        raise OctalCodeError(f"octal code {code}: the sparse method needs splits into two heaps and none into three")
    if split is not None and split.mask == 0:
        raise OctalCodeError("split: the mask 0 makes every value rare")
    if split is not None and split.by_position and any((k - split.parity_heap) % 2 for k in code.split2):
        raise OctalCodeError(f"octal code {code}: rare heaps by position need every split size of one parity")
    check_size(code, int(n_max))
    solver = _Solver(code, int(n_max), method, split)
    if start is not None:
        prefix = _check_prefix(code, start, int(n_max))
        if int(prefix.max()) > solver.limit:
            solver.g = solver.g.astype(np.uint32)
        solver.g[: prefix.size] = prefix
        solver.n = prefix.size
        solver._size_arrays()
    solver.next_choice = 0 if split is not None else 64 if method == "sparse" else WARMUP
    period, computed = solver.solve_all(progress, use_period)
    return OctalSequence(solver.g, period, solver.split, computed)


def grundy_values(code: OctalCode | str, n_max: int, *, progress: Progress | None = None,
                  start: np.ndarray | None = None, use_period: bool = True, method: str = "auto",
                  split: RareSplit | None = None) -> np.ndarray:
    """G(0..n_max) of the game ``code``: see ``solve``, whose values this returns."""
    return solve(code, n_max, progress=progress, start=start, use_period=use_period, method=method,
                 split=split).values


def heap_value(values: np.ndarray, n: int, period: Period | None = None) -> int:
    """G(n) from computed values, or beyond them from a proven period."""
    if 0 <= n < len(values):
        return int(values[n])
    if n >= 0 and period is not None:
        e, p = period.preperiod, period.period
        return int(values[e + (n - e) % p])
    raise OctalCodeError(f"heap {n}: beyond the {len(values):,} values computed, and no proven period")


class ProgressLine:
    """A ``progress`` callback that writes one line a second: heaps done, the rate, and the time
    left at the rate of the last second (the plain loop slows down as heaps grow)."""

    def __init__(self, label: str, stream: TextIO = sys.stderr, every: float = 1.0) -> None:
        self.label, self.stream, self.every = label, stream, every
        self.began = self.last_time = time.monotonic()
        self.last_done = 0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last_time < self.every and done < total:
            return
        rate = (done - self.last_done) / max(now - self.last_time, 1e-9)
        left = (total - done) / rate if rate > 0 else float("inf")
        eta = "done" if done >= total else f"ETA {_clock(left)}" if left != float("inf") else "ETA unknown"
        self.stream.write(
            f"{self.label}: heap {done:,} of {total:,} ({100 * done / max(total, 1):.1f}%), "
            f"{rate:,.0f} heaps/s, {_clock(now - self.began)} so far, {eta}\n"
        )
        self.stream.flush()
        self.last_time, self.last_done = now, done


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
