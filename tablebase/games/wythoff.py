"""Wythoff's game: take any number from one heap, or the same number from both.

A position is two heaps ``a b`` with a <= b (``b a`` is the same position). The
key ranks pairs densely, ``b(b+1)/2 + a`` (``heaps.pair_key``), and the level is
a + b.
"""

from __future__ import annotations

from tablebase.games.base import Option, Texts
from tablebase.games.capabilities import CompiledMoves, QueenMoves
from tablebase.games.drawing import Picture
from tablebase.games.heaps import (
    HeapGame,
    pair_count,
    pair_key,
    pair_keys,
    pair_of_key,
    pairs_of_keys,
)
from tablebase.games.notation import split_ints, written_plainly
from tablebase.games.shapes import GREEN, GREY, LIGHT, PAPER, Box, Edit
from tablebase.jit import njit
from tablebase.lazy import np


@njit(cache=True)
def _moves(key, args, out_keys, out_moves):
    (top,) = args
    a, b = pair_of_key(key)
    n = 0
    for d in range(1, a + 1):
        out_keys[n] = pair_key(a - d, b)
        out_moves[n] = d
        n += 1
    for d in range(1, b + 1):
        out_keys[n] = pair_key(a, b - d)
        out_moves[n] = (top + 1) + d
        n += 1
    for d in range(1, a + 1):
        out_keys[n] = pair_key(a - d, b - d)
        out_moves[n] = 2 * (top + 1) + d
        n += 1
    return n


class Wythoff(HeapGame):
    name = "wythoff"
    summary = "Wythoff's game: take from one heap, or the same amount from both"
    notation = "two heap sizes, e.g. '3 5' (order does not matter)"
    move_notation = "'a-d' takes d from the first (smaller) heap, 'b-d' from the second, 'ab-d' from both"
    options = (Option("max", int, "largest heap"),)

    def __init__(self, **params):
        super().__init__(**params)
        self.key_space = pair_count(self.top)
        self.max_moves = 3 * self.top
        # The codes are those _moves gives: d, (top + 1) + d, 2 (top + 1) + d.
        self.queen = QueenMoves(self.top, 0, self.top + 1, 2 * (self.top + 1), pairs_of_keys)
        self.compiled_moves = CompiledMoves(_moves, self._kernel_args)

    def draw(self, position: str) -> Picture:
        """The queen on her board, the corner she heads for at the bottom left (heaps as its coordinates).

        A click on a square puts the queen there (within the table). A large board is drawn as a field with
        the queen in proportion, not as its squares."""
        a, b = (self.parse_ints(position) + [0, 0])[:2]
        side = max(a, b) + 2
        p = Picture(12.6, 12.6, f"Wythoff {position}")
        if side <= 24:
            for i in range(side):
                for j in range(side):
                    x, y, cell = _square(i, j, side)
                    to = f"{min(i, j)} {max(i, j)}"  # the same position either way round
                    moved = (Edit(to, f"queen to ({i}, {j}): {to}"),) if max(i, j) <= self.top else ()
                    p.rect(x, y, cell, cell, LIGHT if (i + j) % 2 else PAPER, GREY, moved if (i, j) != (a, b) else ())
            p.clicks = "A click on a square puts the queen there."
        else:
            p.rect(0.3, 0.3, 12, 12, "#f3f4f6", GREY)
        x, y, cell = _square(0, 0, side + (side > 24))
        p.rect(x, y, cell, cell, GREEN, GREY)
        x, y, cell = _square(a, b, side + (side > 24))
        x, y = x + cell / 2, y + cell / 2
        p.circle(x, y, max(cell * 0.38, 0.18), "#7c3aed")
        p.text(x, y - max(cell * 0.5, 0.3), f"({a}, {b})", 0.45)
        return p

    def highlight(self, position: str, move: str, after: str) -> list[Box]:
        """The queen's square before the move and after it (on the board of the position before): of the two
        ways round the position after is written, the one a queen's move reaches."""
        a, b = (self.parse_ints(position) + [0, 0])[:2]
        side = max(a, b) + 2 + (max(a, b) + 2 > 24)
        c, d = (self.parse_ints(after) + [0, 0])[:2]
        ways = [(i, j) for i, j in ((c, d), (d, c)) if i == a or j == b or a - i == b - j]
        boxes = []
        for i, j in ((a, b), ways[0] if ways else (c, d)):
            x, y, cell = _square(i, j, side)
            boxes.append(Box(x, y, cell, cell, (i, j)))
        return boxes

    @property
    def max_level(self) -> int:
        return 2 * self.top

    def _smallest_heaps(self, level: int) -> np.ndarray:
        # Ascending key within a level is descending a (b = level - a grows).
        return np.arange(level // 2, max(0, level - self.top) - 1, -1, dtype=np.int64)

    def level_size(self, level: int) -> int:
        return len(self._smallest_heaps(level))

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        a = self._smallest_heaps(level)[start:stop]
        return pair_keys(a, level - a)

    def _kernel_args(self) -> tuple:
        return (self.top,)

    def numbers(self, keys: np.ndarray) -> np.ndarray:
        return pairs_of_keys(keys)

    def parse(self, text: str) -> int:
        a, b = self._heaps(text)
        return pair_keys(a, b)

    def locate(self, text: str) -> tuple[int, int]:
        """The key and the level, a + b, from the two heaps read once."""
        a, b = self._heaps(text)
        return pair_keys(a, b), a + b

    def _heaps(self, text: str) -> tuple[int, int]:
        """The two heaps a text gives, the smaller first; checked."""
        values = self.parse_ints(text)
        if len(values) != 2:
            raise self.position_error(text, "expected two heap sizes")
        a, b = values if values[0] <= values[1] else values[::-1]
        if a < 0 or b > self.top:
            raise self.position_error(text, "outside the table")
        return a, b

    def parse_many(self, texts: Texts) -> np.ndarray:
        return self.locate_many(texts)[0]

    def locate_many(self, texts: Texts) -> tuple[np.ndarray, np.ndarray]:
        """Keys and levels, a + b, from the heaps read once."""
        pairs, counts, ok = split_ints(texts, 2)
        a, b = pairs.min(axis=1), pairs.max(axis=1)
        ok &= (counts == 2) & (b <= self.top)
        keys = self.parse_rest(texts, np.where(ok, pair_keys(a, b), 0), ok)
        levels = a + b
        if not ok.all():
            levels[~ok] = self.levels_of(keys[~ok])
        return keys, levels

    def spelt_alike(self, texts: Texts) -> bool:
        """The two heaps, the smaller first."""
        return written_plainly(texts, count=2, order=1, zeros=True)

    def level_of(self, key: int) -> int:
        a, b = pair_of_key(key)
        return int(a + b)

    def levels_of(self, keys: np.ndarray) -> np.ndarray:
        return pairs_of_keys(np.asarray(keys, dtype=np.int64)).sum(axis=1)

    def move_name(self, move: int) -> str:
        kind, d = divmod(move, self.top + 1)
        return ("a", "b", "ab")[kind] + f"-{d}"


def _square(i: int, j: int, side: int) -> tuple[float, float, float]:
    """Where square (i, j) is on a board of ``side`` squares drawn 12 units wide: x, y and its size."""
    cell = 12 / side
    return 0.3 + i * cell, 0.3 + 12 - (j + 1) * cell, cell
