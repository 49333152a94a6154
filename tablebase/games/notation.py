"""Reading many positions at once: whole numbers from a buffer of texts, compiled; Young diagrams
(Chomp's rows, Nim's heaps) straight to their ranks."""

from __future__ import annotations

import numpy as np

from tablebase.games.base import Texts
from tablebase.jit import njit


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


@njit(cache=True)
def read_diagrams(offsets, data, rows, cols, binom, sort, least):
    """Ranks and squares of diagrams written as their row lengths (whole numbers between spaces, commas or
    tabs), read straight from a buffer of texts in one pass; ``sort``: the lengths in any order (Nim's
    heaps), else non-increasing (Chomp's rows); ``least``: the top row's fewest squares. ``ok`` is false
    for a text that is not such a diagram of the box: it is read again one by one, for another spelling
    or its error."""
    n = offsets.shape[0] - 1
    keys = np.zeros(n, dtype=np.int64)
    levels = np.zeros(n, dtype=np.int64)
    ok = np.zeros(n, dtype=np.bool_)
    lengths = np.zeros(rows, dtype=np.int64)
    for i in range(n):
        k = 0
        current = -1  # the number being read, -1 between numbers
        good = True
        for p in range(offsets[i], offsets[i + 1]):
            ch = data[p]
            if 48 <= ch <= 57:
                current = (0 if current < 0 else current * 10) + (ch - 48)
                if current > cols:  # no diagram of the box has such a row
                    good = False
                    break
            elif ch == 32 or ch == 44 or ch == 9:
                if current >= 0:
                    if k == rows:
                        good = False
                        break
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
            lengths[k] = current
            k += 1
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
    return keys, levels, ok
