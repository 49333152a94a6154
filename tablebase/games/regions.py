"""Regions of grid cells as bit masks: reading, splitting, normal forms, enumeration.

A board is an int whose bit ``16 * r + c`` is the cell in row ``r`` and
column ``c`` (columns 0..14). Column 15 is never used, so shifting a mask by
one bit moves every cell sideways without carrying it into the next row; a
shift by 16 moves it a row. Flood fills and domino spots are then a few
integer operations. A region is stored by its normal form (``normal_form``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from math import comb

STRIDE = 16
MAX_COLS = 15


def valid(rows: int) -> int:
    """The mask of every usable cell of the first ``rows`` rows."""
    return sum(((1 << MAX_COLS) - 1) << (STRIDE * r) for r in range(rows))


def cells(mask: int) -> list[tuple[int, int]]:
    """(row, column) of each cell, in bit order."""
    out = []
    while mask:
        b = mask & -mask
        i = b.bit_length() - 1
        out.append((i >> 4, i & 15))
        mask ^= b
    return out


def mask_of(points) -> int:
    m = 0
    for r, c in points:
        m |= 1 << (STRIDE * r + c)
    return m


def component(mask: int) -> int:
    """The connected part of ``mask`` holding its lowest cell."""
    comp = mask & -mask
    while True:
        grown = (comp | comp << 1 | comp >> 1 | comp << STRIDE | comp >> STRIDE) & mask
        if grown == comp:
            return comp
        comp = grown


def components(mask: int) -> list[int]:
    """The connected parts of a board (orthogonal neighbours)."""
    out = []
    while mask:
        comp = component(mask)
        out.append(comp)
        mask ^= comp
    return out


def live_components(mask: int) -> list[int]:
    """The parts on which a domino still fits: a lone cell is dead and left out."""
    return [c for c in components(mask) if c & (c - 1)]


def vertical_spots(mask: int) -> int:
    """Cells whose neighbour below is also in the board (tops of vertical dominoes)."""
    return mask & (mask >> STRIDE)


def horizontal_spots(mask: int) -> int:
    """Cells whose right neighbour is also in the board (left ends of horizontal dominoes)."""
    return mask & (mask >> 1)


def at_origin(mask: int) -> int:
    """The board moved up and left until it touches the top row and the left column."""
    low = (mask & -mask).bit_length() - 1
    mask >>= low - (low & 15)
    cols, m = 0, mask
    while m:
        cols |= m
        m >>= STRIDE
    cols &= (1 << STRIDE) - 1
    return mask >> ((cols & -cols).bit_length() - 1)


def bounding(points: list[tuple[int, int]]) -> tuple[list[int], list[int], int, int]:
    rs = [r for r, _ in points]
    cs = [c for _, c in points]
    r0, c0 = min(rs), min(cs)
    return [r - r0 for r in rs], [c - c0 for c in cs], max(rs) - r0 + 1, max(cs) - c0 + 1


# -- keys ----------------------------------------------------------------------
# A key is ``cells << 56 | offset(cells, height, width) + rank``: the number of
# cells on top, then the (height, width) boxes of that many cells one after the
# other, and inside a box the colex rank of the set of cells among the
# ``height * width`` places (row-major). A connected region of n cells has
# height + width <= n + 1, so every level's ranks fit 56 bits (n = 15 needs
# 49), where plain row-major masks would need up to 64 bits (an 8 x 8 box)
# besides the box. Boards are at most 15 columns wide, hence 15 cells.
# Colex order is the order of the masks as integers, so keys sort a level's
# regions by box, then by row-major mask, as the masks themselves did.
MAX_KEY_CELLS = MAX_COLS
_LEVEL_SHIFT = 56
_PLACES = 8 * 8  # the largest box, for 15 cells
_BINOMIAL = [[comb(p, j) for j in range(MAX_KEY_CELLS + 1)] for p in range(_PLACES + 1)]
# For unranking: the binomials C(p, j) of each j, by p (non-decreasing in p).
_BY_SIZE = [[_BINOMIAL[p][j] for p in range(_PLACES + 1)] for j in range(MAX_KEY_CELLS + 1)]


def _boxes(cells: int) -> list[tuple[int, int]]:
    """The (height, width) boxes, never taller than wide, that a connected region of ``cells`` may fill."""
    return [(h, w) for h in range(1, cells + 1) for w in range(h, cells + 2 - h) if h * w >= cells]


_OFFSETS: dict[tuple[int, int, int], int] = {}  # (cells, height, width) -> first rank of that box
_STARTS: list[list[int]] = [[]]  # per number of cells: the boxes' first ranks, ascending
_SHAPES: list[list[tuple[int, int]]] = [[]]
for _n in range(1, MAX_KEY_CELLS + 1):
    _start, _firsts = 0, []
    for _h, _w in _boxes(_n):
        _OFFSETS[(_n, _h, _w)] = _start
        _firsts.append(_start)
        _start += comb(_h * _w, _n)
    assert _start < 1 << _LEVEL_SHIFT
    _STARTS.append(_firsts)
    _SHAPES.append(_boxes(_n))


def pack(height: int, width: int, compact: int) -> int:
    """The key of a normal form: its size, box and the colex rank of its row-major mask."""
    n = compact.bit_count()
    if not 0 < n <= MAX_KEY_CELLS or (n, height, width) not in _OFFSETS or compact >> (height * width):
        raise ValueError(f"no key for a {height}x{width} region of {n} cells")
    rank, j, binomial = _OFFSETS[(n, height, width)], 0, _BINOMIAL
    while compact:
        b = compact & -compact
        compact ^= b
        j += 1
        rank += binomial[b.bit_length() - 1][j]
    return n << _LEVEL_SHIFT | rank


def unpack(key: int) -> tuple[int, int, int]:
    """(height, width, row-major mask) of a key made by :func:`pack`."""
    n, rank = key >> _LEVEL_SHIFT, key & ((1 << _LEVEL_SHIFT) - 1)
    if not 0 < n <= MAX_KEY_CELLS:
        raise ValueError(f"{key} is not a region's key")
    box = bisect_right(_STARTS[n], rank) - 1
    height, width = _SHAPES[n][box]
    rank -= _STARTS[n][box]
    mask = 0
    for j in range(n, 0, -1):
        p = bisect_right(_BY_SIZE[j], rank) - 1
        mask |= 1 << p
        rank -= _BINOMIAL[p][j]
    if mask >> (height * width):
        raise ValueError(f"{key} is not a region's key")
    return height, width, mask


def cells_of_key(key: int) -> int:
    """How many cells the region of a key has (its level)."""
    return key >> _LEVEL_SHIFT


def normal_form(mask: int) -> tuple[int, int, int, bool]:
    """(height, width, row-major mask, transposed) of a region's normal form.

    The normal form is the smallest key over the region's images under the eight symmetries of the
    square, taken in the orientation that is at most as tall as it is wide; ``transposed`` says whether a
    transpose (a reflection in a diagonal) was used to reach it. Domineering uses this to store a region
    and its transpose once: swapping rows and columns swaps the players. Its width is at most ``MAX_COLS``,
    so that ``board_of`` can lay it on a board: a region taller than ``MAX_COLS`` rows stays upright, and
    since it has more than ``MAX_KEY_CELLS`` cells it is never stored, only searched.
    """
    mask = at_origin(mask)
    rows = []
    while mask:
        rows.append(mask & ROW)
        mask >>= STRIDE
    width = 0
    for r in rows:
        width |= r
    width = width.bit_length()
    height = len(rows)
    best = None
    if height <= width or height > MAX_COLS:  # too tall to lie down: upright, the one orientation a board holds
        best = (height, width, _least_image(rows, width), False)
    if width <= height <= MAX_COLS:
        cols = [0] * width
        for i, r in enumerate(rows):
            while r:
                b = r & -r
                r ^= b
                cols[b.bit_length() - 1] |= 1 << i
        m = _least_image(cols, height)
        if best is None or m < best[2]:
            best = (width, height, m, True)
    return best


ROW = (1 << MAX_COLS) - 1
# _REVERSED[w][r]: the w-bit row r read right to left (a mirror image)
_REVERSED = [[int(format(r, f"0{w}b")[::-1], 2) if w else 0 for r in range(1 << w)] for w in range(MAX_COLS + 1)]


def _least_image(rows: list[int], width: int) -> int:
    """The least row-major mask of the rows under the two flips and the half turn."""
    reverse = _REVERSED[width]
    mirrored = [reverse[r] for r in rows]
    # Row-major masks compare as their rows read from the last one up, so the
    # least image is the one whose reversed row list is least: compare lists.
    least = min(rows, rows[::-1], mirrored, mirrored[::-1])[::-1]
    m = 0
    for i, r in enumerate(least):
        m |= r << (i * width)
    return m


def board_of(height: int, width: int, compact: int) -> int:
    """The board mask (at the origin) of a row-major mask."""
    m = 0
    for r in range(height):
        m |= ((compact >> (r * width)) & ((1 << width) - 1)) << (STRIDE * r)
    return m


def spell(mask: int) -> str:
    """Rows of ``.`` (empty) and ``#`` (filled), top first, cropped, joined by ``|``."""
    if not mask:
        return ""
    rs, cs, h, w = bounding(cells(mask))
    grid = [["#"] * w for _ in range(h)]
    for r, c in zip(rs, cs):
        grid[r][c] = "."
    return "|".join("".join(row) for row in grid)


def read(text: str) -> int:
    """A board from rows of ``.``/``#`` separated by ``|``, ``/``, ``,``, spaces or newlines.

    Short rows are padded with filled cells. ValueError if anything else appears.
    """
    rows = [r for r in re.split(r"[|/,\s]+", text.strip()) if r]
    if not rows:
        raise ValueError("no rows")
    bad = set("".join(rows)) - set(".#")
    if bad:
        raise ValueError(f"cells are '.' (empty) or '#' (filled), not {sorted(bad)[0]!r}")
    points = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "."]
    if not points:
        return 0
    if max(c for _, c in points) >= MAX_COLS:
        raise ValueError(f"boards are at most {MAX_COLS} columns wide")
    return mask_of(points)


_VALID = [valid(rows) for rows in range(MAX_COLS + 3)]
_COLUMN = 15  # bits of a cell's index that give its column


def grow(regions: set[int]) -> set[tuple[int, int, int, bool]]:
    """Normal forms of every region one cell larger than one of ``regions`` (board masks at the origin).

    The larger regions are first collected as placed (one set entry however
    many parents give them), so the dearer normal form is taken once each.
    """
    placed = set()
    add = placed.add
    for m in regions:
        shifted = m << (STRIDE + 1)  # room above and to the left
        rows = (shifted.bit_length() + STRIDE - 1) // STRIDE + 1
        around = (shifted << 1 | shifted >> 1 | shifted << STRIDE | shifted >> STRIDE) & ~shifted & _VALID[rows]
        while around:
            b = around & -around
            around ^= b
            i = b.bit_length() - 1
            # Back to the origin: a new cell in the top row leaves the rest one column in,
            # one in the left column leaves it one row down, any other both.
            add((shifted | b) >> (1 if i < STRIDE else STRIDE if not i & _COLUMN else STRIDE + 1))
    return {normal_form(m) for m in placed}
