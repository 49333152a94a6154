"""Nim with a fixed number of heaps: take any number of tokens from one heap.

A position is the multiset of heap sizes, written in increasing order with the
empty heaps (``0 3 5 7``). Sorted in decreasing order the heaps form a Young
diagram in a heaps x max-heap box, so positions rank densely (see ``young``)
and the level is the number of tokens left. Misère outcomes are stored too.
"""

from __future__ import annotations

import numba
import numpy as np

from tablebase.errors import TablebaseError
from tablebase.games import young
from tablebase.games.base import Option, Texts
from tablebase.games.drawing import Picture, heaps
from tablebase.games.keyed import CompiledMoves, KeyedImpartialGame
from tablebase.games.notation import split_ints


@numba.njit(cache=True)
def _moves(key, args, out_keys, out_moves):
    heaps, top, binom, sizes, work = args
    young.unrank_into(key, heaps, top, binom, sizes)
    n = 0
    for j in range(heaps):
        h = sizes[j]
        if h == 0 or (j + 1 < heaps and sizes[j + 1] == h):
            continue  # equal heaps give equal moves: use the last of a run
        for v in range(h):
            work[:] = sizes
            # Lower heap j to v and slide it down to keep the order decreasing.
            i = j
            while i + 1 < heaps and work[i + 1] > v:
                work[i] = work[i + 1]
                i += 1
            work[i] = v
            out_keys[n] = young.rank(work, binom)
            out_moves[n] = h * (top + 1) + v
            n += 1
    return n


class Nim(KeyedImpartialGame):
    name = "nim"
    summary = "Nim: take any number of tokens from one heap; also stores misère outcomes"
    notation = "heap sizes in any order, e.g. '3 5 7' (missing heaps are empty)"
    move_notation = "'h->v': a heap of h tokens is left with v"
    options = (
        Option("heaps", int, "number of heaps"),
        Option("max-heap", int, "largest heap size"),
    )
    misere = True

    def __init__(self, **params):
        super().__init__(**params)
        self.heaps = self.int_param("heaps", 1, 64)
        self.top = self.int_param("max_heap", 0, 1_000_000)
        self.binom = young.binomials(self.heaps + self.top)
        self.key_space = int(self.binom[self.heaps + self.top, self.heaps])
        if self.key_space > 2**40:
            raise TablebaseError(f"nim: {self.heaps} heaps of at most {self.top} make too many positions")
        self.max_moves = self.heaps * self.top
        self._sizes = young.level_sizes(self.heaps, self.top)
        self.compiled_moves = CompiledMoves(_moves, self._kernel_args)

    def draw(self, position: str) -> Picture:
        """The heaps side by side, each counted underneath."""
        sizes = self.parse_ints(position)
        return heaps(sizes + [0] * (self.heaps - len(sizes)), f"Nim {position}")

    @property
    def table(self) -> str:
        return f"nim_{self.heaps}x{self.top}"

    @property
    def bounds(self) -> str:
        return f"{self.heaps} heaps of at most {self.top} tokens"

    @property
    def max_level(self) -> int:
        return self.heaps * self.top

    def level_size(self, level: int) -> int:
        return int(self._sizes[level])

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        count = young.completions(self.heaps, self.top)
        return young.level_keys(level, start, stop, self.heaps, self.top, self.binom, count)

    def _kernel_args(self) -> tuple:
        scratch = np.empty(self.heaps, dtype=np.int64)
        return (self.heaps, self.top, self.binom, scratch, scratch.copy())

    def format_positions(self, keys: np.ndarray) -> Texts:
        sizes = young.unrank_many(np.asarray(keys, dtype=np.int64), self.heaps, self.top, self.binom)
        counts = np.full(len(sizes), self.heaps, dtype=np.int64)
        return young.format_rows(sizes[:, ::-1], counts)

    def parse(self, text: str) -> int:
        sizes = sorted(self.parse_ints(text), reverse=True)
        if any(h < 0 for h in sizes):
            raise self.position_error(text, "heap sizes cannot be negative")
        while len(sizes) > self.heaps and sizes[-1] == 0:
            sizes.pop()
        if len(sizes) > self.heaps or (sizes and sizes[0] > self.top):
            raise self.position_error(text, "outside the table")
        padded = np.zeros(self.heaps, dtype=np.int64)
        padded[: len(sizes)] = sizes
        return int(young.rank(padded, self.binom))

    def parse_many(self, texts: Texts) -> np.ndarray:
        sizes, _, ok = split_ints(texts, self.heaps)
        sizes = np.ascontiguousarray(-np.sort(-sizes, axis=1))
        ok &= sizes[:, 0] <= self.top
        keys = np.zeros(len(ok), dtype=np.int64)
        keys[ok] = young.rank_many(sizes[ok], self.binom)
        return self.parse_rest(texts, keys, ok)

    def level_of(self, key: int) -> int:
        return int(young.unrank_many(np.array([key], dtype=np.int64), self.heaps, self.top, self.binom).sum())

    def move_name(self, move: int) -> str:
        h, v = divmod(move, self.top + 1)
        return f"{h}->{v}"
