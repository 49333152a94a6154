"""Cram again, in the keyed form with a compiled move generator (the second step after cram.py).

The same game, the same notation and the same move codes as examples/cram.py,
so both tables hold the same rows (only the keys differ). Here a position *is*
its key: the bit mask of the filled cells, the first cell of the notation
(a1, top left) in the highest bit: cell r, c is bit cells - 1 - (r * cols + c).
The engine works on numpy batches of keys and calls the numba-compiled move
generator from its own compiled loop, instead of calling Python per move:

    tablebase check-game examples/cram_compiled.py:CramCompiled --rows 3 --cols 4
    tablebase build --game examples/cram_compiled.py:CramCompiled --rows 4 --cols 5 --out tb
    tablebase lookup --db tb cramcompiled_rows4_cols5 ".....|.....|.....|....."

What each piece buys (docs/games.md explains them and their fallbacks):

- ``compiled_moves``: the solver's compiled loop calls ``moves`` per position;
  without it the game would give ``children(keys)`` for whole batches.
- ``key_space``: keys are below 2**cells, so workers keep values in arrays
  indexed by key (two bytes per key here) instead of sorted arrays searched by
  key. Most masks are not positions (a position's filled cells are a union of
  dominoes), so past DENSE_CELLS cells the arrays would be mostly empty and
  the game falls back to sparse keys.
- ``lists_levels = False`` with ``start_keys()``: the engine finds the
  positions reachable from the empty board; counting them directly is hard.
"""

import numba
import numpy as np

from tablebase.errors import TablebaseError
from tablebase.games import CompiledMoves, KeyedImpartialGame, Option, Texts
from tablebase.games.drawing import board

DENSE_CELLS = 28  # up to 2**28 keys: 512 MiB of values per worker (or one shared copy)


@numba.njit(cache=True)
def moves(key, args, out_keys, out_moves):
    """Every domino that fits on the board ``key``: child key and move code (the domino's number)."""
    (dominoes,) = args
    n = 0
    for move in range(dominoes.shape[0]):
        cells = dominoes[move]
        if key & cells == 0:
            out_keys[n] = key | cells
            out_moves[n] = move
            n += 1
    return n


class CramCompiled(KeyedImpartialGame):
    name = "cramcompiled"
    summary = "Cram (keyed, compiled moves): place a domino on two empty cells, either way round; who cannot, loses"
    notation = "rows of '.' (empty) and '#' (filled) joined by '|', e.g. '..#|...'"
    move_notation = "the domino's two cells, column letter and row number: 'a1-b1'"
    options = (Option("rows", int, "rows of the board"), Option("cols", int, "columns of the board"))
    lists_levels = False  # the engine finds the levels from start_keys()

    def __init__(self, **params):
        super().__init__(**params)
        self.rows = self.int_param("rows", 1, 8)
        self.cols = self.int_param("cols", 1, 8)
        self.cells = self.rows * self.cols
        if self.cells > 62:
            raise TablebaseError(f"{self.name}: at most 62 cells (a position is an int64 bit mask)")
        # The dominoes in cram.py's order, so that a move code names the same domino in both tables.
        masks, self.names = [], []
        for r in range(self.rows):
            for c in range(self.cols):
                for r2, c2 in ((r, c + 1), (r + 1, c)):
                    if r2 < self.rows and c2 < self.cols:
                        masks.append(self.cell(r, c) | self.cell(r2, c2))
                        self.names.append(f"{chr(97 + c)}{r + 1}-{chr(97 + c2)}{r2 + 1}")
        self.dominoes = np.array(masks, dtype=np.int64)
        self.max_moves = len(masks)
        self.key_space = 1 << self.cells if self.cells <= DENSE_CELLS else None
        self.compiled_moves = CompiledMoves(moves, self.kernel_args)
        # The text is rows of cols cells with '|' between them: cell i (row-major) is at byte
        # i + i // cols and is bit cells - 1 - i of the key.
        self.width = self.cells + self.rows - 1
        self.spot = np.arange(self.cells) + np.arange(self.cells) // self.cols
        self.shift = np.arange(self.cells - 1, -1, -1, dtype=np.int64)

    def cell(self, r, c):
        # The first cell in the highest bit: keys next to each other differ in their last cells, so
        # rows next to each other in the files (sorted by key) share long prefixes of text, which
        # Parquet's prefix encoding stores once (see docs/games.md, "How big a table gets").
        return 1 << (self.cells - 1 - (r * self.cols + c))

    def kernel_args(self):
        return (self.dominoes,)

    # -- levels ------------------------------------------------------------------
    def start_keys(self):
        return np.array([0], dtype=np.int64)  # the empty board

    def level_of(self, key):
        return self.cells - int(key).bit_count()  # empty cells: every move fills two

    def levels_of(self, keys):
        return self.cells - np.bitwise_count(np.asarray(keys, dtype=np.int64)).astype(np.int64)

    def child_levels(self, level):
        return [level - 2] if level >= 2 else []  # workers read only the level two below

    # -- notation --------------------------------------------------------------------
    def format_positions(self, keys):
        keys = np.asarray(keys, dtype=np.int64)
        filled = (keys[:, None] >> self.shift) & 1
        text = np.full((len(keys), self.width), ord("|"), dtype=np.uint8)
        text[:, self.spot] = np.where(filled == 1, ord("#"), ord("."))
        offsets = np.arange(len(keys) + 1, dtype=np.int64) * self.width
        return Texts(offsets, text.reshape(-1))

    def parse(self, text):
        rows = text.replace("/", "|").split("|")
        if len(rows) != self.rows or any(len(row) != self.cols for row in rows):
            raise self.position_error(text, f"expected {self.rows} rows of {self.cols} cells")
        if set("".join(rows)) - set(".#"):
            raise self.position_error(text, "cells are '.' (empty) or '#' (filled)")
        return sum(self.cell(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#")

    def move_name(self, move):
        return self.names[move]

    def draw(self, position):
        """The board, filled cells dark, columns lettered and rows numbered as moves name them; a click on
        a cell fills or empties it (where the table holds the board that makes)."""
        return board(position.split("|"), f"Cram {position}", cycle=".#")
