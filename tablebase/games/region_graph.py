"""Domineering's regions beyond a table in compiled loops: every part a search meets, and each of its moves.

A board larger than a table is valued by searching its moves down to the
regions the table holds. ``part_graph`` walks that search's graph once, in
functions numba compiles (``tablebase.jit``), each region in a layout of its
own (``fits``) with the normal forms and keys of ``regions``; a region the table
does not hold becomes a part of the graph, numbered once however many moves
lead to it. What is left to Python is the algebra: adding values, and each
part's canonical form from its options.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from tablebase.games import regions as R
from tablebase.games.capabilities import PartGraph, SumMoves
from tablebase.jit import compile_if_installed, compiled, njit
from tablebase.lazy import np

BITS = 63  # a part's mask with its guard column, in an int64
CHUNK = 2048  # parts expanded between two calls of the caller's check
DONE, MORE, ROOM, LARGE = 0, 1, 2, 3  # what an expansion ended on
_EMPTY = -1


def fits(height: int, width: int) -> bool:
    """Whether a part of this box fits the compiled layout: a row-major mask of its normal form with a guard
    column right of each row (``h * (w + 1)`` bits), so that a flood fill is a few shifts, as ``regions``
    does with its 16-bit rows, in 63 bits (a 5x9 box, or a column of 31 cells)."""
    return height * (width + 1) <= BITS


@lru_cache(maxsize=1)
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """``regions``' key tables as arrays: each (cells, height, width) box's first rank, and the binomials."""
    n = R.MAX_KEY_CELLS + 1
    offsets = np.full((n, n, n), -1, dtype=np.int64)
    for (cells, h, w), first in R._OFFSETS.items():
        offsets[cells, h, w] = first
    return offsets, np.array(R._BINOMIAL, dtype=np.int64)


@njit(cache=True, nogil=True)
def _count(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, nogil=True)
def _low(x):
    """The index of the lowest set bit of ``x`` (not 0)."""
    i = 0
    while not (x >> i) & 1:
        i += 1
    return i


@njit(cache=True, nogil=True)
def _reverse(row, width):
    out = 0
    for _ in range(width):
        out = out << 1 | (row & 1)
        row >>= 1
    return out


@njit(cache=True, nogil=True)
def _least(rows, height, width):
    """The least row-major mask of ``rows`` under the two flips and the half turn (``regions._least_image``)."""
    a = b = c = d = 0
    for j in range(height):
        r = rows[j]
        m = _reverse(r, width)
        down, up = (height - 1 - j) * width, j * width
        a |= r << down
        b |= r << up
        c |= m << down
        d |= m << up
    return min(min(a, b), min(c, d))


@njit(cache=True, nogil=True)
def _normal(region, stride, board_rows, rows, columns):
    """(height, width, row-major mask, transposed) of a region's normal form, as ``regions.normal_form``
    gives it; the region is a mask in ``board_rows`` rows of ``stride`` bits."""
    full = (1 << (stride - 1)) - 1
    top, height, span = -1, 0, 0
    for r in range(board_rows):
        row = (region >> (r * stride)) & full
        if row:
            if top < 0:
                top = r
            height = r - top + 1
            span |= row
        if top >= 0:
            rows[r - top] = row
    left = _low(span)
    width = 0
    while span >> (left + width):
        width += 1
    for j in range(height):
        rows[j] >>= left
    best, h, w, flip = -1, height, width, False
    if height <= width or height > R.MAX_COLS:
        best = _least(rows, height, width)
    if width <= height <= R.MAX_COLS:
        for c in range(width):
            columns[c] = 0
        for j in range(height):
            row = rows[j]
            while row:
                low = row & -row
                columns[_low(low)] |= 1 << j
                row ^= low
        m = _least(columns, width, height)
        if best < 0 or m < best:
            best, h, w, flip = m, width, height, True
    return h, w, best, flip


@njit(cache=True, nogil=True)
def _key(height, width, mask, cells, offsets, binomial):
    """``regions.pack``: the key of a normal form the table may hold."""
    rank, j = offsets[cells, height, width], 0
    while mask:
        low = mask & -mask
        mask ^= low
        j += 1
        rank += binomial[_low(low), j]
    return cells << 56 | rank


@njit(cache=True, nogil=True)
def _slot(shape, mask, table, shapes, masks):
    """The slot of part (shape, mask) in the open-addressed ``table`` of part numbers, or of the empty slot
    where it would go."""
    high = len(table) - 1
    mixed = mask ^ (mask >> 29) ^ (mask >> 47) ^ (shape << 7)
    i = (mixed * 0x9E3779B1) & high
    while True:
        p = table[i]
        if p == _EMPTY or (masks[p] == mask and shapes[p] == shape):
            return i
        i = (i + 1) & high


@njit(cache=True, nogil=True)
def _rehash(table, shapes, masks, count):
    for p in range(count):
        table[_slot(shapes[p], masks[p], table, shapes, masks)] = p


@njit(cache=True, nogil=True)
def _expand(start, count, shapes, masks, levels, table, offsets, codes, starts, keys, negate, searched, moves,
            parts, top, short, long, key_offsets, binomial, rows, columns):
    """Expand parts ``start``, ``start + 1``, ... (``count`` are known): each one's Left moves, then its Right
    moves, each to the regions it leaves, stored keys or parts (numbered as they are first met).

    Returns (what it ended on, the next part to expand, parts known, moves written, components written).
    Each part's room is made sure of first: ROOM asks the caller for larger arrays, LARGE says a region
    does not fit the layout, MORE that ``CHUNK`` parts were expanded."""
    p = start
    while p < count:
        if p - start == CHUNK:
            return MORE, p, count, moves, parts
        height, width, cells = shapes[p] >> 8, shapes[p] & 255, levels[p]
        most = cells * cells  # each of at most 2 * cells moves leaves at most cells / 2 regions
        if (moves + 2 * cells > len(codes) or parts + most > len(keys) or count + most > len(masks)
                or 2 * (count + most) > len(table)):
            return ROOM, p, count, moves, parts
        stride = width + 1
        board = 0
        for r in range(height):
            board |= ((masks[p] >> (r * width)) & ((1 << width) - 1)) << (r * stride)
        for side in range(2):
            step = stride if side == 0 else 1
            spots = board & (board >> step)
            while spots:
                spot = spots & -spots
                spots ^= spot
                at = _low(spot)
                codes[moves] = (16 * (at // stride) + at % stride) << 1 | (1 - side)
                left = board ^ spot ^ (spot << step)
                while left:
                    region = left & -left
                    while True:
                        grown = (region | region << 1 | region >> 1 | region << stride | region >> stride) & left
                        if grown == region:
                            break
                        region = grown
                    left ^= region
                    if not region & (region - 1):
                        continue  # a lone cell: dead
                    h, w, m, flip = _normal(region, stride, height, rows, columns)
                    n = _count(m)
                    negate[parts] = flip
                    if n <= top and h <= short and w <= long:
                        keys[parts], searched[parts] = _key(h, w, m, n, key_offsets, binomial), False
                    else:
                        if h * (w + 1) > BITS:
                            return LARGE, p, count, moves, parts
                        shape = h << 8 | w
                        i = _slot(shape, m, table, shapes, masks)
                        if table[i] == _EMPTY:
                            table[i], shapes[count], masks[count], levels[count] = count, shape, m, n
                            count += 1
                        keys[parts], searched[parts] = table[i], True
                    parts += 1
                moves += 1
                starts[moves] = parts
            offsets[2 * p + side + 1] = moves
        p += 1
    return DONE, p, count, moves, parts


def _grown(array: np.ndarray, size: int) -> np.ndarray:
    out = np.empty(max(size, 2 * len(array)), dtype=array.dtype)
    out[:len(array)] = array
    return out


def part_graph(roots: list[tuple[int, int, int]], top: int, short: int, long: int,
               check: Callable[[int], None]) -> PartGraph | None:
    """The graph of the parts ``roots`` (each a normal form: height, width, row-major mask) and of every part
    their moves lead to that the table of regions of at most ``top`` cells within ``short`` x ``long`` does
    not hold; ``check(parts found)`` between chunks may raise to end it. None if a part does not ``fit``, or
    where numba is not installed (the loops would run as Python, slower than the search they stand for)."""
    if not all(fits(h, w) for h, w, _ in roots):
        return None
    compile_if_installed()
    if not compiled():
        return None
    size = 1 << 12
    shapes, masks, levels = (np.empty(size, dtype=np.int64) for _ in range(3))
    table = np.full(4 * size, _EMPTY, dtype=np.int64)
    codes, starts = np.empty(size, dtype=np.int64), np.zeros(size + 1, dtype=np.int64)
    keys, negate, searched = np.empty(size, dtype=np.int64), np.empty(size, np.bool_), np.empty(size, np.bool_)
    offsets = np.zeros(2 * size + 1, dtype=np.int64)
    count, numbers = 0, []
    for h, w, m in roots:
        shape = h << 8 | w
        i = _slot(shape, m, table, shapes, masks)
        if table[i] == _EMPTY:
            table[i], shapes[count], masks[count], levels[count] = count, shape, m, m.bit_count()
            count += 1
        numbers.append(int(table[i]))
    key_offsets, binomial = _tables()
    rows, columns = np.zeros(BITS + 1, dtype=np.int64), np.zeros(BITS + 1, dtype=np.int64)
    p = moves = parts = 0
    while True:
        ended, p, count, moves, parts = _expand(p, count, shapes, masks, levels, table, offsets, codes, starts,
                                                keys, negate, searched, moves, parts, top, short, long,
                                                key_offsets, binomial, rows, columns)
        check(count)
        if ended == DONE:
            break
        if ended == LARGE:
            return None
        if ended == ROOM:  # the arrays short of the part's room, doubled
            cells = int(levels[p])
            most = cells * cells
            if moves + 2 * cells > len(codes):
                codes, starts = _grown(codes, moves + 2 * cells), _grown(starts, moves + 2 * cells + 1)
            if parts + most > len(keys):
                keys, negate, searched = (_grown(a, parts + most) for a in (keys, negate, searched))
            if count + most > len(masks):
                shapes, masks, levels = (_grown(a, count + most) for a in (shapes, masks, levels))
                offsets = _grown(offsets, 2 * len(masks) + 1)
            if 2 * (count + most) > len(table):
                table = np.full(2 * len(table), _EMPTY, dtype=np.int64)
                _rehash(table, shapes, masks, count)
    shapes, masks = shapes[:count], masks[:count]

    def part(i: int) -> Any:
        shape = int(shapes[i])
        return R.board_of(shape >> 8, shape & 255, int(masks[i]))

    # Views of the arrays as grown (no second copy of the largest while they are made).
    return PartGraph(np.array(numbers, dtype=np.int64), levels[:count],
                     SumMoves(offsets[:2 * count + 1], codes[:moves], starts[:moves + 1], keys[:parts],
                              negate[:parts]), searched[:parts], part)
