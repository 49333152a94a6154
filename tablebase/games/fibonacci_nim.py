"""Fibonacci nim: the first move takes any number but not all; then at most twice the last take.

A position is ``n k``: n tokens left, at most k may be taken now (k is capped at
n, so ``10 50`` is ``10 10``). A game on a heap of n starts at ``n n-1``, and a
single number is read as that start position. Taking t leads to ``n-t 2t``.
The key ranks pairs densely, ``n(n+1)/2 + k`` (``heaps.pair_key``); the level is n.
"""

from __future__ import annotations

from tablebase.games.base import Option, Texts
from tablebase.games.capabilities import CompiledMoves
from tablebase.games.drawing import Picture, heaps
from tablebase.games.heaps import (
    HeapGame,
    pair_count,
    pair_key,
    pair_keys,
    pair_of_key,
    pairs_of_keys,
)
from tablebase.games.notation import split_ints
from tablebase.jit import njit
from tablebase.lazy import np


@njit(cache=True)
def _moves(key, args, out_keys, out_moves):
    k, n = pair_of_key(key)
    for t in range(1, k + 1):
        left = n - t
        out_keys[t - 1] = pair_key(min(2 * t, left), left)
        out_moves[t - 1] = t
    return k


class FibonacciNim(HeapGame):
    name = "fibonacci-nim"
    summary = "Fibonacci nim: first move any number but not all, then at most twice the last take"
    notation = "'n k': n tokens, at most k may be taken now, e.g. '20 19'; a lone 'n' is the start 'n n-1'"
    options = (Option("max", int, "largest heap"),)
    top_limit = 100_000

    def __init__(self, **params):
        super().__init__(**params)
        self.key_space = pair_count(self.top)
        self.max_moves = self.top
        self.compiled_moves = CompiledMoves(_moves, tuple)

    def draw(self, position: str) -> Picture:
        """The heap, with the most that may be taken now under it; a click on a token or above the heap
        resizes it, the most that may be taken kept where it still fits."""
        numbers = self.parse_ints(position)
        n = numbers[0] if numbers else 0
        k = numbers[1] if len(numbers) > 1 else max(n - 1, 0)
        return heaps([n], f"Fibonacci nim {position}", [f"{n}, take ≤ {k}"], most=40,
                     resize=lambda _, size: f"{size} {min(k, size)}" if size <= self.top else None)

    @property
    def bounds(self) -> str:
        return f"0 <= k <= n <= {self.top}"

    @property
    def max_level(self) -> int:
        return self.top

    def level_size(self, level: int) -> int:
        return level + 1

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        return pair_keys(np.arange(start, stop, dtype=np.int64), level)

    def numbers(self, keys: np.ndarray) -> np.ndarray:
        return pairs_of_keys(keys)[:, ::-1]  # n, then k

    def parse(self, text: str) -> int:
        n, k = self._tokens(text)
        return pair_keys(k, n)

    def locate(self, text: str) -> tuple[int, int]:
        """The key and the level, the tokens n, from the text read once."""
        n, k = self._tokens(text)
        return pair_keys(k, n), n

    def _tokens(self, text: str) -> tuple[int, int]:
        """n and k (capped at n) of a text; checked."""
        values = self.parse_ints(text)
        if len(values) == 1:
            values = [values[0], max(values[0] - 1, 0)]
        if len(values) != 2:
            raise self.position_error(text, "expected 'n k' or a lone heap size 'n'")
        n, k = values
        if n < 0 or k < 0:
            raise self.position_error(text, "numbers cannot be negative")
        if n > self.top:
            raise self.position_error(text, "outside the table")
        return n, min(k, n)

    def parse_many(self, texts: Texts) -> np.ndarray:
        pairs, counts, ok = split_ints(texts, 2)
        n = pairs[:, 0]
        k = np.where(counts == 1, np.maximum(n - 1, 0), np.minimum(pairs[:, 1], n))
        ok &= (counts >= 1) & (n <= self.top)
        return self.parse_rest(texts, np.where(ok, pair_keys(k, n), 0), ok)

    def level_of(self, key: int) -> int:
        return int(pair_of_key(key)[1])

    def levels_of(self, keys: np.ndarray) -> np.ndarray:
        return pairs_of_keys(np.asarray(keys, dtype=np.int64))[:, 1].copy()
