"""Green Hackenbush on rooted trees: cut an edge and lose everything above it.

A tree is written in brackets with the ground as the outer pair: ``()`` is the
bare ground, ``(())`` one edge, ``(()())`` two edges at the ground, ``((()))`` a
stalk of two. Subtrees are listed smallest first (by edges, then by spelling),
so one tree has one spelling. The key is that spelling read as bits behind a
leading 1 (``(`` = 1, ``)`` = 0); the level is the number of edges. Keys are
sparse, so the solver looks children up by search rather than by rank.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from tablebase.games.base import Option, Texts
from tablebase.games.drawing import GREEN, Picture, bracket_tree, tree_picture
from tablebase.games.keyed import Children, KeyedImpartialGame

Tree = tuple  # a node is the tuple of its child nodes, in canonical order


def _order(tree: Tree) -> tuple[int, str]:
    return (_edges(tree), spell(tree))


# Memos of trees met while solving: bounded, so that a long-running server does not grow without end.
@lru_cache(maxsize=1 << 18)
def _edges(tree: Tree) -> int:
    return sum(1 + _edges(child) for child in tree)


@lru_cache(maxsize=1 << 18)
def spell(tree: Tree) -> str:
    return "(" + "".join(spell(child) for child in tree) + ")"


def canonical(children: list[Tree] | tuple[Tree, ...]) -> Tree:
    return tuple(sorted(children, key=_order))


def key_of(tree: Tree) -> int:
    return int("1" + spell(tree).replace("(", "1").replace(")", "0"), 2)


def tree_of_key(key: int) -> Tree:
    return read(bin(key)[3:].replace("1", "(").replace("0", ")"))


def read(text: str) -> Tree:
    """Parse brackets into a canonical tree; ValueError if they do not nest."""
    stack: list[list[Tree]] = []
    root: Tree | None = None
    for ch in text:
        if ch == "(":
            if root is not None:
                raise ValueError("text after the ground's closing bracket")
            stack.append([])
        elif ch == ")":
            if not stack:
                raise ValueError("a ')' closes nothing")
            node = canonical(stack.pop())
            if stack:
                stack[-1].append(node)
            else:
                root = node
        elif not ch.isspace():
            raise ValueError(f"unexpected character {ch!r}")
    if stack or root is None:
        raise ValueError("unbalanced brackets")
    return root


def cuts(tree: Tree) -> list[Tree]:
    """The tree after cutting each edge, edges numbered in the order they are spelt."""
    out: list[Tree] = []
    for i, child in enumerate(tree):
        rest = tree[:i] + tree[i + 1 :]
        out.append(canonical(rest))
        for pruned in cuts(child):
            out.append(canonical(rest + (pruned,)))
    return out


@lru_cache(maxsize=32)
def trees(edges: int) -> tuple[Tree, ...]:
    """Every tree with this many edges, in canonical form."""
    if edges == 0:
        return ((),)
    smaller = [t for e in range(edges) for t in trees(e)]
    smaller.sort(key=_order)
    out: list[Tree] = []

    def grow(budget: int, first: int, chosen: list[Tree]) -> None:
        if budget == 0:
            out.append(tuple(chosen))
            return
        for i in range(first, len(smaller)):
            cost = 1 + _edges(smaller[i])
            if cost > budget:
                break  # subtrees come smallest first: none further fits
            chosen.append(smaller[i])
            grow(budget - cost, i, chosen)
            chosen.pop()

    grow(edges, 0, [])
    return tuple(out)


class GreenHackenbush(KeyedImpartialGame):
    name = "green-hackenbush"
    summary = "Green Hackenbush on rooted trees: cut an edge, everything above it falls"
    notation = "brackets, ground outermost: '()' bare ground, '(())' one edge, '(()(()))' an edge beside a stalk of two"
    move_notation = "'cut i': cut the i-th edge in the canonical spelling (its i-th '(' after the ground's)"
    options = (Option("max-edges", int, "largest number of edges"),)

    def __init__(self, **params):
        super().__init__(**params)
        self.top = self.int_param("max_edges", 0, 20)
        self.max_moves = self.top

    def draw(self, position: str) -> Picture:
        """The tree standing on the ground, every edge green."""
        return tree_picture(bracket_tree(position.strip(), {"": GREEN}), f"Green Hackenbush {position}")

    @property
    def table(self) -> str:
        return f"green_hackenbush_e{self.top}"

    @property
    def bounds(self) -> str:
        return f"trees of at most {self.top} edges"

    @property
    def max_level(self) -> int:
        return self.top

    @staticmethod
    @lru_cache(maxsize=64)
    def _level(level: int) -> np.ndarray:
        return np.array(sorted(key_of(t) for t in trees(level)), dtype=np.int64)

    def level_size(self, level: int) -> int:
        return len(trees(level))

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        return self._level(level)[start:stop]

    def children(self, keys: np.ndarray) -> Children:
        offsets = [0]
        child_keys: list[int] = []
        for key in np.asarray(keys, dtype=np.int64):
            after = cuts(tree_of_key(int(key)))
            child_keys.extend(key_of(t) for t in after)
            offsets.append(len(child_keys))
        # A move's code is the edge's number, 1..edges, in the order cuts() gives.
        moves = [i for a, b in zip(offsets, offsets[1:]) for i in range(1, b - a + 1)]
        return Children(
            np.array(offsets, dtype=np.int64),
            np.array(child_keys, dtype=np.int64),
            np.array(moves, dtype=np.int64),
        )

    def format_positions(self, keys: np.ndarray) -> Texts:
        return Texts.from_strings([spell(tree_of_key(int(k))) for k in keys])

    def parse(self, text: str) -> int:
        try:
            tree = read(text)
        except ValueError as e:
            raise self.position_error(text, str(e)) from None
        if _edges(tree) > self.top:
            raise self.position_error(text, "outside the table")
        return key_of(tree)

    def level_of(self, key: int) -> int:
        return (int(key).bit_length() - 1) // 2 - 1

    def move_name(self, move: int) -> str:
        return f"cut {move}"
