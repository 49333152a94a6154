"""Nim with a fixed number of heaps: take any number of tokens from one heap.

A position is the multiset of heap sizes, written in increasing order with the
empty heaps (``0 3 5 7``). Sorted in decreasing order the heaps form a Young
diagram in a heaps x max-heap box, so positions rank densely (see ``young``)
and the level is the number of tokens left. Misère outcomes are stored too.
The positions, their keys and notation are ``heaps.HeapMultiset``'s; this
module gives the moves.
"""

from __future__ import annotations

from tablebase.games import young
from tablebase.games.base import Option
from tablebase.games.capabilities import CompiledMoves
from tablebase.games.heaps import HeapMultiset
from tablebase.jit import njit


@njit(cache=True)
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


class Nim(HeapMultiset):
    name = "nim"
    title = "Nim"
    summary = "Nim: take any number of tokens from one heap; also stores misère outcomes"
    move_notation = "'h->v': a heap of h tokens is left with v"
    options = (
        Option("heaps", int, "number of heaps"),
        Option("max-heap", int, "largest heap size"),
    )
    misere = True

    def __init__(self, **params):
        super().__init__(**params)
        self.max_moves = self.heaps * self.top
        self.compiled_moves = CompiledMoves(_moves, self.kernel_args)

    def moves_of(self, key: int) -> list[tuple[int, int]]:
        """``_moves`` of one position in plain Python, in its order: each heap of a run of equal ones once,
        lowered to each smaller size."""
        sizes, rank = self.box.lengths_of(key), self.box.rank
        found = []
        for j, h in enumerate(sizes):
            if h == 0 or (j + 1 < self.heaps and sizes[j + 1] == h):
                continue  # equal heaps give equal moves: the last of a run
            rest = sizes[:j] + sizes[j + 1:]
            for v in range(h):
                found.append((h * (self.top + 1) + v, rank(sorted(rest + [v], reverse=True))))
        return found

    def move_name(self, move: int) -> str:
        h, v = divmod(move, self.top + 1)
        return f"{h}->{v}"
