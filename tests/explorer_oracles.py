"""Oracles for the explorer's tests, independent of the solvers."""

from __future__ import annotations

import math

PHI = (1 + math.sqrt(5)) / 2


def wythoff_p_positions(top: int) -> set[tuple[int, int]]:
    """Wythoff's P-positions with both heaps at most ``top``, smaller first: (floor(k phi), floor(k phi^2))."""
    found = set()
    for k in range(top + 1):
        a, b = math.floor(k * PHI), math.floor(k * PHI * PHI)
        if b <= top:
            found.add((a, b))
    return found


def wythoff_outcome(position: str, top: int) -> str:
    a, b = sorted(int(t) for t in position.split())
    return "P" if (a, b) in wythoff_p_positions(top) else "N"
