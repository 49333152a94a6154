"""Reading and writing many positions at once, compiled: whole numbers from a buffer of texts, Young
diagrams (Chomp's rows, Nim's heaps) straight to their ranks, and rows of numbers written as texts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.games.base import Texts
from tablebase.jit import compiled, njit
from tablebase.lazy import np
from tablebase.threads import in_parts


def on_threads(read: Callable[..., Any], texts: Texts, *args: Any) -> list[Any]:
    """``read(offsets, data, *args)`` of consecutive parts of a batch, one a core, on threads
    (``threads.in_parts``); what each part gave, in order. The compiled readers let go of the interpreter's
    lock, so the parts are read at once; before they are compiled the batch is one part, read here."""
    offsets = texts.offsets.astype(np.int64)
    if not compiled():
        return [read(offsets, texts.data, *args)]
    return in_parts(len(offsets) - 1, lambda a, b: read(offsets[a : b + 1], texts.data, *args))


@njit(cache=True)
def _split_ints(offsets, data, width):
    n = offsets.shape[0] - 1
    values = np.zeros((n, width), dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    ok = np.ones(n, dtype=np.bool_)
    for i in range(n):
        k = 0
        current = -1  # the number being read, -1 between numbers
        for p in range(offsets[i], offsets[i + 1]):
            ch = data[p]
            if 48 <= ch <= 57:
                current = (0 if current < 0 else current * 10) + (ch - 48)
                if current > 2**40:
                    ok[i] = False
                    break
            elif ch == 32 or ch == 44 or ch == 9:  # space, comma, tab
                if current >= 0:
                    if k == width:
                        ok[i] = False
                        break
                    values[i, k] = current
                    k += 1
                    current = -1
            else:
                ok[i] = False
                break
        if ok[i] and current >= 0:
            if k == width:
                ok[i] = False
            else:
                values[i, k] = current
                k += 1
        counts[i] = k
    return values, counts, ok


def split_ints(texts: Texts, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Up to ``width`` whole numbers per text: a values matrix (zero-padded), counts, and
    whether each text was only numbers and separators with at most ``width`` of them."""
    return _split_ints(texts.offsets.astype(np.int64), texts.data, width)


@njit(cache=True, nogil=True)
def read_diagrams(offsets, data, rows, cols, binom, sort, least, count, order, zeros):
    """Ranks and squares of diagrams written as their row lengths (whole numbers between spaces, commas or
    tabs), read straight from a buffer of texts in one pass; ``sort``: the lengths in any order (Nim's
    heaps), else non-increasing (Chomp's rows); ``least``: the top row's fewest squares. ``ok`` is false
    for a text that is not such a diagram of the box: it is read again one by one, for another spelling
    or its error. ``plain``: whether every text read ``ok`` is also written plainly, as
    ``written_plainly(texts, count, order, zeros)`` asks (said in the same pass: a second one would cost as
    much as the first)."""
    n = offsets.shape[0] - 1
    keys = np.zeros(n, dtype=np.int64)
    levels = np.zeros(n, dtype=np.int64)
    ok = np.zeros(n, dtype=np.bool_)
    lengths = np.zeros(rows, dtype=np.int64)
    plain = True
    for i in range(n):
        k = 0
        current = -1  # the number being read, -1 between numbers
        good = True
        spelt = True  # written plainly so far
        for p in range(offsets[i], offsets[i + 1]):
            ch = data[p]
            if 48 <= ch <= 57:
                if current == 0:
                    spelt = False  # a leading zero
                current = (0 if current < 0 else current * 10) + (ch - 48)
                if current > cols:  # no diagram of the box has such a row
                    good = False
                    break
            elif ch == 32 or ch == 44 or ch == 9:
                if current < 0 or ch != 32:
                    spelt = False  # a separator first, two in a row, or not one space
                if current >= 0:
                    if k == rows:
                        good = False
                        break
                    if current == 0 and not zeros or _out_of_order(current, lengths[k - 1], k, order):
                        spelt = False
                    lengths[k] = current
                    k += 1
                    current = -1
            else:
                good = False
                break
        if not good:
            continue
        if current >= 0:
            if k == rows:
                continue
            if current == 0 and not zeros or _out_of_order(current, lengths[k - 1], k, order):
                spelt = False
            lengths[k] = current
            k += 1
        else:
            spelt = False  # empty, or a separator last
        if count and k != count:
            spelt = False
        for j in range(k, rows):
            lengths[j] = 0
        if sort:  # a few numbers: insertion sort, largest first
            for j in range(1, k):
                v = lengths[j]
                m = j
                while m > 0 and lengths[m - 1] < v:
                    lengths[m] = lengths[m - 1]
                    m -= 1
                lengths[m] = v
        if lengths[0] < least:
            continue
        r = 0
        squares = 0
        for j in range(rows):
            if j > 0 and lengths[j] > lengths[j - 1]:
                good = False
                break
            r += binom[lengths[j] + rows - 1 - j, rows - j]
            squares += lengths[j]
        if good:
            keys[i], levels[i], ok[i] = r, squares, True
            plain = plain and spelt
    return keys, levels, ok, plain


@njit(cache=True, nogil=True)
def _out_of_order(value, previous, k, order):
    return k > 0 and (order > 0 and value < previous or order < 0 and value > previous)


@njit(cache=True, nogil=True)
def _written_plainly(offsets, data, count, order, zeros):
    for i in range(offsets.shape[0] - 1):
        k = 0  # numbers read
        previous = 0
        value = -1  # the number being read; -1 before its first digit
        for p in range(offsets[i], offsets[i + 1]):
            d = np.int64(data[p]) - 48
            if 0 <= d <= 9:
                if value == 0:
                    return False  # a leading zero
                value = d if value < 0 else value * 10 + d
            elif d == -16 and value >= 0:  # one space after a number
                if value == 0 and not zeros or _out_of_order(value, previous, k, order):
                    return False
                previous, value, k = value, -1, k + 1
            else:
                return False
        if value < 0 or value == 0 and not zeros or _out_of_order(value, previous, k, order):
            return False  # empty, or a space last
        if count and k + 1 != count:
            return False
    return True


def written_plainly(texts: Texts, count: int, order: int, zeros: bool) -> bool:
    """Whether every text is whole numbers in decimal, without leading zeros, one space between them and
    none around: ``count`` of them (0: any), ascending (``order`` 1), descending (-1) or in any order (0),
    and 0 among them only if ``zeros``. A game whose ``format_positions`` writes its numbers so tells by
    this that texts read already spell their positions (``KeyedGame.spelt_alike``)."""
    return all(on_threads(_written_plainly, texts, count, order, zeros))


@njit(cache=True)
def _write_int(v, data, p, digits):
    """Write the decimal digits of v >= 0 at data[p:]; return the position after them."""
    k = 0
    while True:
        digits[k] = 48 + v % 10
        v //= 10
        k += 1
        if v == 0:
            break
    for d in range(k):
        data[p + d] = digits[k - 1 - d]
    return p + k


@njit(cache=True)
def join_ints(matrix, counts):
    """Format row i of ``matrix`` (its first counts[i] entries) as space-separated text."""
    n = matrix.shape[0]
    widest = 1
    for i in range(n):
        for j in range(counts[i]):
            v = matrix[i, j]
            digits = 1
            while v >= 10:
                v //= 10
                digits += 1
            widest = max(widest, digits)
    # One pass into a buffer sized for the widest numbers, then cut to length.
    data = np.empty(max(1, counts.sum()) * (widest + 1), dtype=np.uint8)
    offsets = np.zeros(n + 1, dtype=np.int64)
    digits_of = np.empty(widest + 1, dtype=np.uint8)
    p = 0
    for i in range(n):
        for j in range(counts[i]):
            if j > 0:
                data[p] = 32
                p += 1
            p = _write_int(matrix[i, j], data, p, digits_of)
        offsets[i + 1] = p
    return offsets, data[:p].copy()


def format_rows(matrix: np.ndarray, counts: np.ndarray) -> Texts:
    """Row i of ``matrix``, its first counts[i] numbers, as the text of a position: numbers between single spaces."""
    offsets, data = join_ints(np.ascontiguousarray(matrix, dtype=np.int64), counts.astype(np.int64))
    return Texts(offsets, data)
