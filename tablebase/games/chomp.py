"""Chomp on a rectangular bar: bite a square and everything below and to its right.

A position is a Young diagram, written as its row lengths top row first
(``5 5 3 2``); the poisoned square is the top-left corner. Taking it loses, so
we play the equivalent normal-play game in which the poisoned square cannot be
taken: the lone poisoned square (``1``) is the terminal, lost position. The
empty diagram is not a position. Keys are lattice-path ranks (see ``young``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from tablebase.errors import UsageError
from tablebase.games import notation, young
from tablebase.games.base import Option, Texts, small_numbers
from tablebase.games.capabilities import CompiledMoves, DiagramBites
from tablebase.games.drawing import Picture
from tablebase.games.keyed import KeyedImpartialGame
from tablebase.games.shapes import GREY, INK, LIGHT, Edit
from tablebase.jit import njit
from tablebase.lazy import np


@njit(cache=True)
def _moves(key, args, out_keys, out_moves):
    rows, cols, binom, lengths, term, share = args
    young.unrank_into(key, rows, cols, binom, lengths)
    for r in range(rows):
        share[r] = term[lengths[r], r]
    return young.bites(key, lengths, share, term, rows, cols, out_keys, out_moves)


# How the table writes a diagram (``notation.written_plainly``'s terms): any number of rows, the longest
# first, no empty row.
_SPELLING = (0, -1, False)


class Chomp(KeyedImpartialGame):
    name = "chomp"
    summary = "Chomp: bite a square and all squares below and right of it; the poisoned corner loses"
    notation = "row lengths top row first, non-increasing, e.g. '5 5 3 2'"
    move_notation = "the square bitten as (row,column), counted from the poisoned corner (1,1)"
    numeric = True  # positions are whole numbers: (7, 7, 5, 3) reads as "7 7 5 3"
    options = (
        Option("rows", int, "rows of the bar"),
        Option("cols", int, "columns of the bar"),
    )

    def __init__(self, **params):
        super().__init__(**params)
        self.rows = self.int_param("rows", 1, 30)
        self.cols = self.int_param("cols", 1, 30)
        self.box = young.Box(self.rows, self.cols)
        self.key_space = self.box.size
        self.absent_keys = (0,)  # the empty bar: its poisoned square has been taken
        if self.key_space > 2**40:
            raise UsageError(f"chomp: a {self.rows}x{self.cols} bar has too many positions")
        self.max_moves = self.rows * self.cols - 1  # every square but the poisoned one
        self.bites = DiagramBites(self.rows, self.cols)
        self.compiled_moves = CompiledMoves(_moves, self._kernel_args)

    def draw(self, position: str) -> Picture:
        """The bar as rows of squares, the poisoned square dark in the top-left corner; bitten squares faint.

        A click on a square makes the diagram end there: its row is cut or grown to it, the rows above grown
        to it and the rows below cut to it; on the last square of a row, that square is bitten off (with
        the squares below it). The poisoned square stays."""
        lengths = (self.parse_ints(position) + [0] * self.rows)[: self.rows]
        p = Picture(self.cols + 0.4, self.rows + 0.4, f"Chomp {position}")
        for r in range(self.rows):
            for c in range(self.cols):
                here = c < lengths[r]
                fill = INK if (r, c) == (0, 0) and here else ("#b45309" if here else LIGHT)
                p.rect(0.2 + c, 0.2 + r, 1, 1, fill, GREY if not here else INK, _ended_at(lengths, r, c), (r, c))
        p.clicks = ("A click on a square makes its row end there (rows above grown to it, rows below cut to it); "
                    "on the last square of a row, bites it off.")
        return p

    @property
    def table(self) -> str:
        return f"chomp_{self.rows}x{self.cols}"

    @property
    def bounds(self) -> str:
        return f"diagrams in a {self.rows} x {self.cols} box"

    @property
    def max_level(self) -> int:
        return self.rows * self.cols

    @property
    def max_remoteness(self) -> int:
        return self.max_level - 1  # every game ends at the lone poisoned square, level 1

    def level_size(self, level: int) -> int:
        return int(self._sizes[level])

    @cached_property
    def _sizes(self) -> np.ndarray:
        sizes = self.box.level_sizes()
        sizes[0] = 0  # the empty diagram is not a position
        return sizes

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        return self.box.level_keys(level, start, stop)

    def _kernel_args(self) -> tuple:
        term = young.row_terms(self.rows, self.cols)
        scratch = np.empty(self.rows, dtype=np.int64)
        return (self.rows, self.cols, self.box.binom, scratch, term, scratch.copy())

    def format_positions(self, keys: np.ndarray) -> Texts:
        return young.spell_diagrams(keys, self.rows, self.cols, self.box.binom)

    def parse(self, text: str) -> int:
        return self.box.rank(self._lengths(text))

    def locate(self, text: str) -> tuple[int, int]:
        return self._locate(text)

    def locator(self) -> Callable[[str], tuple[int, int]]:
        return self._locate

    @cached_property
    def _locate(self) -> Callable[[str], tuple[int, int]]:
        """``locate``: the key and the level, the squares left, both from the row lengths read once.

        The table's own spelling (small numbers between single spaces, the longest row first, no empty
        row) is read and checked in one expression, and each row's share of the rank carries its length
        in its low bits, so that one sum gives both; any other spelling goes through ``_lengths``, which
        reads every spelling and words every error. Everything it reads is a local: a probe of a text
        takes a few microseconds, and each attribute looked up on the game would add to it.
        """
        number, rows, shift = self._number, self.rows, (self.rows * self.cols).bit_length()
        packed, squares, share = self.box.packed_shares(shift), (1 << shift) - 1, list.__getitem__

        def locate(text: str) -> tuple[int, int]:
            try:
                lengths = list(map(number, text.split()))
                if lengths == sorted(lengths, reverse=True) and lengths[-1] and len(lengths) <= rows:
                    both = sum(map(share, packed, lengths))  # IndexError: a row longer than the bar
                    return both >> shift, both & squares
            except (KeyError, IndexError):  # not a small number; no number at all
                pass
            lengths = self._lengths(text)
            return self.box.rank(lengths), sum(lengths)

        return locate

    @cached_property
    def _number(self) -> Callable[[str], int]:
        """A small number's value from its usual spelling; KeyError for anything else."""
        return small_numbers().__getitem__

    def _lengths(self, text: str) -> list[int]:
        """The row lengths a text gives, top row first, the empty rows after them left out; checked."""
        lengths = self.parse_ints(text)
        while lengths and lengths[-1] == 0:
            lengths.pop()
        if not lengths:
            raise self.position_error(text, "the poisoned square must remain")
        if lengths[-1] < 0 or lengths != sorted(lengths, reverse=True):  # sorted: the quickest test in Python
            raise self.position_error(text, "row lengths must be non-increasing")
        if len(lengths) > self.rows or lengths[0] > self.cols:
            raise self.position_error(text, "outside the table")
        return lengths

    def parse_many(self, texts: Texts) -> np.ndarray:
        return self.locate_many(texts)[0]

    def locate_many(self, texts: Texts) -> tuple[np.ndarray, np.ndarray]:
        """Keys and levels, the squares left, from the row lengths read once."""
        return self.locate_spelt(texts)[:2]

    def locate_spelt(self, texts: Texts) -> tuple[np.ndarray, np.ndarray, bool]:
        return self.read_rest_spelt(texts, *self.box.read_many(texts, _SPELLING, least=1))

    def spelt_alike(self, texts: Texts) -> bool:
        """The rows that are not empty, the longest first."""
        return notation.written_plainly(texts, *_SPELLING)

    def level_of(self, key: int) -> int:
        return sum(self.box.lengths_of(key))

    def spell(self, key: int) -> str:
        return " ".join(str(n) for n in self.box.lengths_of(key) if n)

    def moves_of(self, key: int) -> list[tuple[int, int]]:
        return self.box.bites_of(key)

    def levels_of(self, keys: np.ndarray) -> np.ndarray:
        return self.box.levels_of(keys)

    def move_name(self, move: int) -> str:
        r, c = divmod(move, self.cols)
        return f"({r + 1},{c + 1})"


def _ended_at(lengths: list[int], r: int, c: int) -> tuple[Edit, ...]:
    """The diagram whose row ``r`` ends at column ``c``, rows above grown to it and rows below cut to it; if
    that is the diagram itself, the square bitten off instead (nothing if the poisoned square would go)."""
    ended = [max(n, c + 1) if i < r else c + 1 if i == r else min(n, c + 1) for i, n in enumerate(lengths)]
    said = f"row {r + 1} ends at column {c + 1}"
    if ended == lengths:
        ended, said = [n if i < r else min(n, c) for i, n in enumerate(lengths)], f"bite at ({r + 1},{c + 1})"
    if not ended[0]:
        return ()
    return (Edit(" ".join(str(n) for n in ended if n), said),)
