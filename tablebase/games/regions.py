"""Regions of grid cells as bit masks: reading, splitting, normal forms, enumeration.

A board is an int whose bit ``16 * r + c`` is the cell in row ``r`` and
column ``c`` (columns 0..14). Column 15 is never used, so shifting a mask by
one bit moves every cell sideways without carrying it into the next row; a
shift by 16 moves it a row. Flood fills and domino spots are then a few
integer operations.

A region's normal form is the smallest key over its images under the eight
symmetries of the square, taken in the orientation that is at most as tall
as it is wide; ``transposed`` says whether a transpose (a reflection in a
diagonal) was used to reach it. Domineering uses this to store a region and
its transpose once: swapping rows and columns swaps the players.
"""

from __future__ import annotations

import re

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


def pack(height: int, width: int, compact: int) -> int:
    """A key: height and width above a row-major mask of ``height * width`` bits."""
    return height << 59 | width << 55 | compact


def unpack(key: int) -> tuple[int, int, int]:
    return key >> 59, (key >> 55) & 15, key & ((1 << 55) - 1)


def normal_form(mask: int) -> tuple[int, int, int, bool]:
    """(height, width, row-major mask, transposed) of a region's normal form."""
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
    if height <= width:
        best = (height, width, _least_image(rows, width), False)
    if width <= height:
        cols = [sum(((r >> c) & 1) << i for i, r in enumerate(rows)) for c in range(width)]
        m = _least_image(cols, height)
        if best is None or m < best[2]:
            best = (width, height, m, True)
    return best


ROW = (1 << MAX_COLS) - 1


def _least_image(rows: list[int], width: int) -> int:
    """The least row-major mask of the rows under the two flips and the half turn."""
    mirrored = [int(format(r, f"0{width}b")[::-1], 2) for r in rows]
    best = None
    for image in (rows, rows[::-1], mirrored, mirrored[::-1]):
        m = 0
        for i, r in enumerate(image):
            m |= r << (i * width)
        if best is None or m < best:
            best = m
    return best


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


def grow(regions: set[int]) -> set[tuple[int, int, int, bool]]:
    """Normal forms of every region one cell larger than one of ``regions`` (board masks at the origin)."""
    out = set()
    for m in regions:
        shifted = m << (STRIDE + 1)  # room above and to the left
        rows = (shifted.bit_length() + STRIDE - 1) // STRIDE + 1
        around = (shifted << 1 | shifted >> 1 | shifted << STRIDE | shifted >> STRIDE) & ~shifted & valid(rows)
        while around:
            b = around & -around
            around ^= b
            out.add(normal_form(shifted | b))
    return out


