"""Rooted trees with coloured edges, in brackets: read, spelt, ordered, cut, listed and keyed.

Green Hackenbush and Hackenbush on trees play on the same trees and write
them the same way (``(B()R(G()))``: the ground the outer pair, a letter before
a bracket colouring its edge, green without one), so both take them from here.
In memory a tree is the tuple of its branches, each ``(colour, tree)``, kept
smallest first (``_order``), so that one tree has one tuple and one spelling.
Two keys spell a tree's brackets as bits (``bracket_key``, ``colour_key``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

Tree = tuple  # the tuple of its branches, each (colour, tree), in canonical order
Branch = tuple  # (colour, tree)

COLOURS = "BRG"
CODE = {"B": 1, "R": 2, "G": 3}


# Memos of trees met while solving: bounded, so that a long-running server does not grow without end.
@lru_cache(maxsize=1 << 18)
def edges(tree: Tree) -> int:
    """The number of edges of a tree."""
    return sum(1 + edges(sub) for _, sub in tree)


@lru_cache(maxsize=1 << 18)
def spell(tree: Tree) -> str:
    """The tree's brackets, green edges without a letter: ``(B()(R()))``."""
    return "(" + "".join(("" if c == "G" else c) + spell(sub) for c, sub in tree) + ")"


@lru_cache(maxsize=1 << 18)
def _order(branch: Branch) -> tuple[int, str]:
    """Branches sort by their edges, then by their spelling: the canonical order."""
    return (1 + edges(branch[1]), ("" if branch[0] == "G" else branch[0]) + spell(branch[1]))


def canonical(branches: Iterable[Branch]) -> Tree:
    """The tree of these branches, in canonical order."""
    return tuple(sorted(branches, key=_order))


def read(text: str, letters: str = COLOURS) -> Tree:
    """Parse brackets into a canonical tree; ValueError saying what is wrong if they do not make one.

    ``()`` is the bare ground, ``(())`` one edge, ``(()(()))`` an edge beside a stalk of two; a letter
    before a bracket colours its edge (``B``, ``R`` or ``G``), and a bracket without one is green.

    ``letters`` are the colour letters accepted before a bracket (either
    case); any other character but a bracket or a space is refused, so a
    game whose edges are all green gives none.
    """
    stack: list[list[Branch]] = []
    colours: list[str] = []
    pending = "G"
    root: Tree | None = None
    for ch in text:
        if ch == "(":
            if root is not None:
                raise ValueError("text after the ground's closing bracket")
            if stack:
                colours.append(pending)
            elif pending != "G":
                raise ValueError("the ground itself has no colour")
            pending = "G"
            stack.append([])
        elif ch == ")":
            if not stack:
                raise ValueError("a ')' closes nothing")
            node = canonical(stack.pop())
            if stack:
                stack[-1].append((colours.pop(), node))
            else:
                root = node
        elif ch.upper() in CODE and ch.upper() in letters:
            pending = ch.upper()
        elif not ch.isspace():
            raise ValueError(f"unexpected character {ch!r}")
    if stack or root is None:
        raise ValueError("unbalanced brackets")
    return root


def cuts(tree: Tree) -> list[tuple[str, Tree]]:
    """(colour, tree after the cut) for each edge, edges in the order their brackets are spelt.

    A cut edge takes everything above it along; the order numbers the moves.
    """
    out: list[tuple[str, Tree]] = []
    for i, (colour, sub) in enumerate(tree):
        rest = tree[:i] + tree[i + 1 :]
        out.append((colour, canonical(rest)))
        for c, pruned in cuts(sub):
            out.append((c, canonical(rest + ((colour, pruned),))))
    return out


@lru_cache(maxsize=32)
def trees(size: int, colours: str) -> tuple[Tree, ...]:
    """Every tree of ``size`` edges coloured from ``colours``, in canonical form.

    A tree is a multiset of branches, each a coloured edge under a smaller
    tree; choosing branches in canonical order, each no earlier than the one
    before, makes each multiset once.
    """
    if size == 0:
        return ((),)
    branches = sorted(((c, t) for e in range(size) for t in trees(e, colours) for c in colours), key=_order)
    out: list[Tree] = []

    def grow(budget: int, first: int, chosen: list[Branch]) -> None:
        if budget == 0:
            out.append(tuple(chosen))
            return
        for i in range(first, len(branches)):
            cost = 1 + edges(branches[i][1])
            if cost > budget:
                break  # branches come smallest first: none further fits
            chosen.append(branches[i])
            grow(budget - cost, i, chosen)
            chosen.pop()

    grow(size, 0, [])
    return tuple(out)


@lru_cache(maxsize=None)
def count(size: int, colours: int) -> int:
    """How many trees of ``size`` edges, each edge one of ``colours`` colours, there are: ``len(trees(...))``
    without listing them, which grows slow within a few edges.

    A tree is a multiset of branches, and there are ``colours * count(s - 1)`` branches of ``s`` edges,
    so the counts are the Euler transform of the branches' (the recurrence for rooted trees, OEIS
    A000081 with one colour): n t(n) = sum over j of c(j) t(n - j), where c(j) = sum over d | j of
    d * (branches of d edges).
    """
    if size == 0:
        return 1
    total = 0
    for j in range(1, size + 1):
        c = sum(d * colours * count(d - 1, colours) for d in range(1, j + 1) if j % d == 0)
        total += c * count(size - j, colours)
    return total // size


# -- keys -----------------------------------------------------------------------------
def bracket_key(tree: Tree) -> int:
    """The spelling's brackets as bits behind a leading 1, ``(`` = 1 and ``)`` = 0 (green trees only)."""
    return int("1" + spell(tree).replace("(", "1").replace(")", "0"), 2)


def tree_of_bracket_key(key: int) -> Tree:
    stack: list[list[Branch]] = [[]]
    for bit in bin(key)[4:-1]:  # the ground's own brackets left out
        if bit == "1":
            stack.append([])
        else:
            sub = canonical(stack.pop())
            stack[-1].append(("G", sub))
    return canonical(stack[0])


@lru_cache(maxsize=1 << 18)
def colour_key(tree: Tree) -> int:
    """Each edge as 1, its colour's two bits (B=1, R=2, G=3), its branches' bits, then 0; behind a leading 1."""
    key = 1
    for colour, sub in tree:
        inner = colour_key(sub)  # 1 followed by the branches' bits
        width = inner.bit_length() - 1
        key = (((key << 3 | 4 | CODE[colour]) << width | (inner ^ 1 << width)) << 1)
    return key


def tree_of_colour_key(key: int) -> Tree:
    bits = bin(key)[3:]
    stack: list[list[Branch]] = [[]]
    colours: list[str] = []
    i = 0
    while i < len(bits):
        if bits[i] == "1":
            colours.append(COLOURS[int(bits[i + 1 : i + 3], 2) - 1])
            stack.append([])
            i += 3
        else:
            sub = canonical(stack.pop())
            stack[-1].append((colours.pop(), sub))
            i += 1
    return canonical(stack[0])
