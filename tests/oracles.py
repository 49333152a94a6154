"""Plain solvers written from the rules alone: no ranks, no kernels, no code shared with tablebase.

Each game is a function from a position (a plain Python value) to the list of
(move description, next position). ``solve`` applies the definitions: the
Grundy value is the mex of the children's, remoteness follows Winning Ways
(winner hurries, loser delays), misère outcome with the no-move player winning.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Callable, Hashable


class Oracle:
    def __init__(self, moves: Callable[[Hashable], list[Hashable]]):
        self.moves = moves

    @lru_cache(maxsize=None)
    def grundy(self, p) -> int:
        seen = {self.grundy(c) for c in self.moves(p)}
        g = 0
        while g in seen:
            g += 1
        return g

    @lru_cache(maxsize=None)
    def remoteness(self, p) -> int:
        children = self.moves(p)
        if not children:
            return 0
        lost = [self.remoteness(c) for c in children if self.grundy(c) == 0]
        if lost:
            return 1 + min(lost)
        return 1 + max(self.remoteness(c) for c in children)

    @lru_cache(maxsize=None)
    def misere_wins(self, p) -> bool:
        children = self.moves(p)
        return not children or any(not self.misere_wins(c) for c in children)

    def optimal_children(self, p) -> set:
        """The children a best move may lead to."""
        children = set(self.moves(p))
        want = self.remoteness(p) - 1
        if self.grundy(p):
            return {c for c in children if self.grundy(c) == 0 and self.remoteness(c) == want}
        return {c for c in children if self.remoteness(c) == want}


# -- the rules, each from scratch -------------------------------------------------


def nim_moves(heaps: tuple) -> list[tuple]:
    out = set()
    for i, h in enumerate(heaps):
        for v in range(h):
            out.add(tuple(sorted(heaps[:i] + (v,) + heaps[i + 1 :])))
    return list(out)


def nim_positions(k: int, top: int) -> list[tuple]:
    return list(combinations_with_replacement(range(top + 1), k))


def subtraction_moves(amounts, take_all_below: int = 0):
    def moves(n: int) -> list[int]:
        if 0 < n < take_all_below:
            return [0]
        return [n - t for t in amounts if t <= n]

    return moves


def wythoff_moves(p: tuple) -> list[tuple]:
    a, b = p
    out = {tuple(sorted((a - d, b))) for d in range(1, a + 1)}
    out |= {tuple(sorted((a, b - d))) for d in range(1, b + 1)}
    out |= {(a - d, b - d) for d in range(1, min(a, b) + 1)}
    return list(out)


def wythoff_p_positions(top: int) -> set[str]:
    """Wythoff's lost positions up to top, written "a b": (floor(k phi), floor(k phi^2))."""
    phi = (1 + 5**0.5) / 2
    pairs = set()
    k = 0
    while math.floor(k * phi * phi) <= top:
        pairs.add(f"{math.floor(k * phi)} {math.floor(k * phi * phi)}")
        k += 1
    return pairs


def fibonacci_moves(p: tuple) -> list[tuple]:
    n, k = p
    return [(n - t, min(2 * t, n - t)) for t in range(1, min(k, n) + 1)]


def chomp_moves(board: frozenset) -> list[frozenset]:
    out = set()
    for r, c in board:
        if (r, c) != (0, 0):
            out.add(frozenset((x, y) for x, y in board if x < r or y < c))
    return list(out)


def chomp_board(text: str) -> frozenset:
    rows = [int(t) for t in text.split()]
    return frozenset((r, c) for r, n in enumerate(rows) for c in range(n))


def chomp_boards(rows: int, cols: int) -> list[frozenset]:
    """Every diagram with the poisoned corner, by closing the full bar under moves."""
    full = frozenset((r, c) for r in range(rows) for c in range(cols))
    seen = {full}
    todo = [full]
    while todo:
        for child in chomp_moves(todo.pop()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return list(seen)


def tree_parse(text: str):
    """Brackets to a nested tuple of children (order kept as written)."""
    stack = [[]]
    for ch in text:
        if ch == "(":
            stack.append([])
        elif ch == ")":
            node = tuple(stack.pop())
            stack[-1].append(node)
    (root,) = stack[0]
    return root


def tree_shape(tree) -> tuple:
    """An order-free identity of a rooted tree."""
    return tuple(sorted(tree_shape(c) for c in tree))


def tree_moves(tree) -> list:
    out = []
    for i, child in enumerate(tree):
        rest = tree[:i] + tree[i + 1 :]
        out.append(tree_shape(rest))
        for smaller in tree_moves(child):
            out.append(tree_shape(rest + (smaller,)))
    return out


def colon_value(tree) -> int:
    """The colon principle: a node is worth the XOR over its branches of (1 + branch value)."""
    v = 0
    for child in tree:
        v ^= 1 + colon_value(child)
    return v


def trees_up_to(edges: int) -> set:
    """Every rooted tree shape of at most this many edges, grown one leaf at a time."""
    shapes = {()}
    frontier = {()}
    for _ in range(edges):
        grown = set()
        for t in frontier:
            grown |= {tree_shape(g) for g in _add_leaf(t)}
        shapes |= grown
        frontier = grown
    return shapes


def _add_leaf(tree):
    yield tree + ((),)
    for i, child in enumerate(tree):
        for bigger in _add_leaf(child):
            yield tree[:i] + (bigger,) + tree[i + 1 :]


NUMBER_TEXT = re.compile(r"-?\d+(/\d+)?")


def stops_by_options(by_id: dict[int, dict]) -> Callable[[int], tuple[Fraction, Fraction]]:
    """Left and right stops of stored values, from their options' ids by the definition
    (a number is its own stops; else Left's best right stop of an option, Right's least left stop)."""

    def stops(i: int) -> tuple[Fraction, Fraction]:
        v = by_id[i]
        if NUMBER_TEXT.fullmatch(v["value"]):
            return Fraction(v["value"]), Fraction(v["value"])
        return max(stops(x)[1] for x in v["left_ids"]), min(stops(x)[0] for x in v["right_ids"])

    return stops
