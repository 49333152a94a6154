"""Domineering on connected regions: Left places vertical dominoes, Right horizontal ones.

A position is one connected region of empty cells, written as CGSuite does:
rows of ``.`` (empty) and ``#`` (filled), top row first, joined by ``|``
(``..#|...``); other separators (``/``, ``,``, spaces, newlines) are read too.
The level is the number of empty cells. A move is named by its domino's two
cells, columns as letters from ``a`` and rows as numbers from 1 at the top:
``b1-b2`` (vertical, Left), ``a3-b3`` (horizontal, Right).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from tablebase.errors import UsageError
from tablebase.games import regions as R
from tablebase.games.base import Option, Texts
from tablebase.games.capabilities import PartGraph, SumMoves
from tablebase.games.drawing import Picture, board
from tablebase.games.keyed import KeyedPartizanGame
from tablebase.games.shapes import Box
from tablebase.lazy import np

MAX_CELLS = R.MAX_KEY_CELLS  # 15: boards are at most 15 columns wide


class Domineering(KeyedPartizanGame):
    """Domineering on connected regions, each stored once for its symmetries and its transpose.

    Each region is stored once for the four symmetries that keep its value (the two flips and the half
    turn) and once for its transpose too, which is worth the negative (rows and columns swap, and so do
    the players): see ``regions.normal_form``. A move that splits a region leads to the sum of its parts; a
    cell that no domino can use any more is filled, so parts of one cell are left out. Keys hold the normal
    form's number of cells on top, then its box and the rank of its cells within the box
    (``regions.pack``). A move is named by the two cells of the domino in the stored orientation.
    """

    name = "domineering"
    summary = "Domineering on connected regions of empty cells; Left places vertical dominoes"
    notation = "rows of '.' (empty) and '#' (filled), top first, joined by '|': '..#|...'"
    move_notation = ("the domino's two cells, column letter and row number from the top-left: "
                     "'b1-b2' (Left), 'a3-b3' (Right)")
    options = (
        Option("max-cells", int, "largest number of empty cells"),
        Option("max-rows", int, "largest number of rows (in either orientation)", required=False),
        Option("max-cols", int, "largest number of columns (in either orientation)", required=False),
    )

    def __init__(self, **params):
        super().__init__(**params)
        self.top = self.int_param("max_cells", 1, MAX_CELLS)
        rows = self.params.get("max_rows", self.top)
        cols = self.params.get("max_cols", self.top)
        if rows < 1 or cols < 1:
            raise UsageError("domineering: --max-rows and --max-cols must be at least 1")
        # The stored orientation is never taller than wide, so the table holds
        # every region that fits the box in one orientation or the other.
        self.short, self.long = min(rows, cols, self.top), min(max(rows, cols), self.top)
        self.max_moves = 2 * self.top
        self.boards = self  # any board is a sum of stored regions (the Boards capability)
        self._forms: dict[int, tuple[int, ...]] = {}  # per level, for as long as the game lives
        self._keys: dict[int, np.ndarray] = {}

    def draw(self, position: str) -> Picture:
        """The board's cells, filled ones dark; columns lettered and rows numbered as moves name them.

        A click on a cell empties or fills it, where every region of the board that makes is stored (a
        board with a region larger than the table is valued by search: not a click away)."""
        text = position.strip()
        rows = text.split("|") if text and text != self.spell_board(0) else []
        return board(rows, f"Domineering {position}", cycle=".#", offered=self._stored_regions)

    def _stored_regions(self, text: str) -> bool:
        return all(key is not None for _, key, _ in self.board_parts(self.read_board(text)))

    def highlight(self, position: str, move: str, after: str) -> list[Box]:
        """The domino's two cells, read from the move's name: the board after a move is written cropped, so
        its cells are not where they were in the picture of the board before."""
        rows = position.strip().split("|")
        cells = [(int(r) - 1, ord(c) - ord("a")) for c, r in re.findall(r"([a-o])(\d+)", move)]
        if not all(0 <= r < len(rows) and 0 <= c < len(rows[r]) and rows[r][c] == "." for r, c in cells):
            return []  # named on another spelling of the board: no guess
        return self.draw(position).boxes(cells)

    @property
    def table(self) -> str:
        name = f"domineering_c{self.top}"
        if "max_rows" in self.params or "max_cols" in self.params:
            name += f"_{self.params.get('max_rows', self.top)}x{self.params.get('max_cols', self.top)}"
        return name

    @property
    def bounds(self) -> str:
        return f"connected regions of at most {self.top} empty cells within {self.short}x{self.long} (either way round)"

    @property
    def max_level(self) -> int:
        return self.top

    # -- positions -----------------------------------------------------------
    def holds(self, height: int, width: int, cells: int) -> bool:
        """Whether a region whose normal form has this size is in the table."""
        return cells <= self.top and height <= self.short and width <= self.long

    def _level_forms(self, level: int) -> tuple[int, ...]:
        """Board masks (at the origin) of the level's regions, in key order (kept: each grows the one below)."""
        if level in self._forms:
            return self._forms[level]
        if level == 0:
            return ()
        if level == 1:
            forms = {(1, 1, 1, False)}
        else:
            forms = R.grow(set(self._level_forms(level - 1)))
        keys = sorted({R.pack(h, w, m) for h, w, m, _ in forms if self.holds(h, w, level)})
        self._forms[level] = tuple(R.board_of(*R.unpack(k)) for k in keys)
        return self._forms[level]

    def _level(self, level: int) -> np.ndarray:
        if level not in self._keys:
            self._keys[level] = np.array([self.key_of_board(m)[0] for m in self._level_forms(level)], dtype=np.int64)
        return self._keys[level]

    def level_size(self, level: int) -> int:
        return len(self._level(level))

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        return self._level(level)[start:stop]

    def key_of_board(self, region: int) -> tuple[int | None, bool, bool]:
        """(key, transposed, stored) of a connected region given as a board mask.

        The key is that of the stored normal form, None for a region of more
        than MAX_CELLS cells (a looked-up board may hold one); when
        ``transposed`` is true the region's value is the negative of the stored one.
        """
        _, key, flip, h, w, n = _keyed_form(R.at_origin(region))
        return key, flip, self.holds(h, w, n)

    def board_of_key(self, key: int) -> int:
        return R.board_of(*R.unpack(int(key)))

    # -- any board (the Boards capability), and moves --------------------------------
    def read_board(self, text: str) -> int:
        """The board mask of any board, as written (not cropped, not normalised)."""
        try:
            return R.read(text)
        except ValueError as e:
            raise self.position_error(text, str(e)) from None

    def spell_board(self, board: int) -> str:
        return R.spell(board) or "(empty)"

    def board_level(self, board: int) -> int:
        return board.bit_count()  # empty cells

    def board_parts(self, board: int) -> list[tuple[int, int | None, bool]]:
        """Each region a domino still fits: its normal form as a board, its key if the table
        holds it (else None), and whether it is the normal form's transpose (worth the negative).
        Lone cells are dead and left out; the parts come in key order."""
        parts = []
        for region in R.live_components(board):
            part, key, flip, h, w, n = _keyed_form(R.at_origin(region))
            parts.append((part, key if self.holds(h, w, n) else None, flip))
        return sorted(parts, key=lambda p: (p[1] is None, p[1] or 0, p[2], p[0]))

    def board_moves(self, board: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """Left's (vertical) and Right's (horizontal) dominoes: (move code, board after)."""
        sides = []
        for spots, step, vertical in ((R.vertical_spots(board), R.STRIDE, 1), (R.horizontal_spots(board), 1, 0)):
            moves = []
            while spots:
                b = spots & -spots
                spots ^= b
                moves.append(((b.bit_length() - 1) << 1 | vertical, board ^ b ^ (b << step)))
            sides.append(moves)
        return sides[0], sides[1]

    def part_graph(self, parts: list[int], check: Callable[[int], None]) -> PartGraph | None:
        """The graph of regions beyond the table from ``parts``, in compiled loops (``region_graph``)."""
        from tablebase.games.region_graph import part_graph  # only a large search asks: it needs NumPy

        roots = []
        for part in parts:
            h, w, m, _ = R.normal_form(part)
            roots.append((h, w, m))
        return part_graph(roots, self.top, self.short, self.long, check)

    def left_right_moves(self, keys: np.ndarray) -> tuple[SumMoves, SumMoves]:
        sides = [([0], [], [0], [], []), ([0], [], [0], [], [])]  # offsets, codes, starts, keys, negate
        for key in np.asarray(keys, dtype=np.int64).tolist():
            for (offsets, codes, starts, parts, negate), moves in zip(sides, self.board_moves(self.board_of_key(key))):
                for code, after in moves:
                    codes.append(code)
                    for _, part, flip in self.board_parts(after):  # moves from stored regions stay in the table
                        parts.append(part)
                        negate.append(flip)
                    starts.append(len(parts))
                offsets.append(len(codes))
        return tuple(
            SumMoves(*(np.array(x, dtype=np.bool_ if i == 4 else np.int64) for i, x in enumerate(side)))
            for side in sides
        )

    def move_name(self, move: int) -> str:
        cell, vertical = move >> 1, move & 1
        r, c = divmod(cell, R.STRIDE)
        r2, c2 = (r + 1, c) if vertical else (r, c + 1)
        return f"{_column(c)}{r + 1}-{_column(c2)}{r2 + 1}"

    # -- text -------------------------------------------------------------------
    def format_positions(self, keys: np.ndarray) -> Texts:
        return Texts.from_strings([R.spell(self.board_of_key(k)) for k in np.asarray(keys).tolist()])

    def parse(self, text: str) -> int:
        """The stored key of a connected region; mind that a region stored as its
        transpose is worth the negative of the stored value (``key_of_board``)."""
        board = self.read_board(text)
        parts = R.components(board)
        if len(parts) != 1:
            raise self.position_error(text, "not one connected region (look it up as a sum of its regions)")
        key, _, stored = self.key_of_board(parts[0])
        if not stored:
            raise self.position_error(text, "outside the table")
        return key

    def level_of(self, key: int) -> int:
        return R.cells_of_key(int(key))


@lru_cache(maxsize=1 << 18)
def _keyed_form(region: int) -> tuple[int, int | None, bool, int, int, int]:
    """(normal form as a board, its key or None, transposed, height, width, cells) of a region at the origin.

    Regions recur (after different moves, in different positions): worth a cache.
    """
    h, w, m, flip = R.normal_form(region)
    n = m.bit_count()
    return R.board_of(h, w, m), (R.pack(h, w, m) if n <= MAX_CELLS else None), flip, h, w, n


def _column(c: int) -> str:
    return chr(ord("a") + c)
