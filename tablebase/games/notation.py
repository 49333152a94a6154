"""Reading many positions at once: whole numbers from a buffer of texts, compiled."""

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
