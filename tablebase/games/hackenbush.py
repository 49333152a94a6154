"""Red-Blue(-Green) Hackenbush on stalks and rooted trees.

Left (Blue) cuts ``B`` edges, Right (Red) cuts ``R`` edges, either player cuts
``G`` (green) edges; whatever is no longer connected to the ground falls.

A stalk is written from the ground up, ``BRRG``; the bare ground is ``-``.
A tree uses the bracket notation of Green Hackenbush, ground outermost, with
each edge's colour before its bracket: ``(B()R(G()))``. A bracket with no
letter is a green edge, so a green tree is spelt exactly as in the
``green-hackenbush`` table. Branches are listed smallest first (by edges, then
by spelling), so a tree has one spelling.

Keys: a stalk is 2 bits per edge (B=1, R=2, G=3, ground first) behind a
leading 1; a tree is its spelling as bits behind a leading 1, each edge
written as ``1``, its two colour bits, its branches, then ``0``. Both sort
trees of one size in a fixed order and fit 63 bits for the sizes allowed. A
move is named after the edge it cuts: ``cut i``, edges numbered from 1 up a
stalk, or in the order of their brackets in a tree's spelling.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from tablebase.errors import TablebaseError
from tablebase.games.base import Option, Texts
from tablebase.games.drawing import BLUE, GREEN, GREY, RED, Picture, bracket_tree, tree_picture
from tablebase.games.keyed import KeyedPartizanGame, SumMoves

COLOURS = "BRG"
CODE = {"B": 1, "R": 2, "G": 3}
LEFT_CUTS = {"B", "G"}
RIGHT_CUTS = {"R", "G"}

# A tree is the tuple of its branches in canonical order; a branch is
# (colour, tree): the edge at its foot and what stands on it.
Tree = tuple


# Memos of trees met while solving: bounded, so that a long-running server does not grow without end.
@lru_cache(maxsize=1 << 18)
def edges(tree: Tree) -> int:
    return sum(1 + edges(sub) for _, sub in tree)


@lru_cache(maxsize=1 << 18)
def spell(tree: Tree) -> str:
    """The tree's brackets, green edges without a letter: ``(B()(R()))``."""
    return "(" + "".join(("" if c == "G" else c) + spell(sub) for c, sub in tree) + ")"


def _order(branch: tuple[str, Tree]) -> tuple[int, str]:
    return (1 + edges(branch[1]), ("" if branch[0] == "G" else branch[0]) + spell(branch[1]))


def canonical(branches) -> Tree:
    return tuple(sorted(branches, key=_order))


@lru_cache(maxsize=1 << 18)
def tree_key(tree: Tree) -> int:
    key = 1
    for colour, sub in tree:
        inner = tree_key(sub)  # 1 followed by the branches' bits
        width = inner.bit_length() - 1
        key = (((key << 3 | 4 | CODE[colour]) << width | (inner ^ 1 << width)) << 1)
    return key


def tree_of_key(key: int) -> Tree:
    bits = bin(key)[3:]
    stack: list[list] = [[]]
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


def read_tree(text: str) -> Tree:
    """Parse coloured brackets into a canonical tree; ValueError if malformed."""
    stack: list[list] = []
    colours: list[str] = []
    pending = "G"
    root: Tree | None = None
    for ch in text:
        if ch.upper() in CODE:
            pending = ch.upper()
        elif ch == "(":
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
        elif not ch.isspace():
            raise ValueError(f"unexpected character {ch!r}")
    if stack or root is None:
        raise ValueError("unbalanced brackets")
    return root


def tree_cuts(tree: Tree) -> list[tuple[str, Tree]]:
    """(colour, tree after the cut) for each edge, in the order the edges are spelt."""
    out: list[tuple[str, Tree]] = []
    for i, (colour, sub) in enumerate(tree):
        rest = tree[:i] + tree[i + 1 :]
        out.append((colour, canonical(rest)))
        for c, pruned in tree_cuts(sub):
            out.append((c, canonical(rest + ((colour, pruned),))))
    return out


@lru_cache(maxsize=32)
def trees(size: int, colours: str) -> tuple[Tree, ...]:
    """Every tree of ``size`` edges coloured from ``colours``, in canonical form."""
    if size == 0:
        return ((),)
    branches = sorted(((c, t) for e in range(size) for t in trees(e, colours) for c in colours), key=_order)
    out: list[Tree] = []

    def grow(budget: int, first: int, chosen: list) -> None:
        if budget == 0:
            out.append(tuple(chosen))
            return
        for i in range(first, len(branches)):
            cost = 1 + edges(branches[i][1])
            if cost <= budget:
                chosen.append(branches[i])
                grow(budget - cost, i, chosen)
                chosen.pop()

    grow(size, 0, [])
    return tuple(out)


def stalk_key(stalk: str) -> int:
    key = 1
    for c in stalk:
        key = key << 2 | CODE[c]
    return key


def stalk_of_key(key: int) -> str:
    n = (int(key).bit_length() - 1) // 2
    return "".join(COLOURS[(key >> 2 * (n - 1 - i) & 3) - 1] for i in range(n))


class Hackenbush(KeyedPartizanGame):
    name = "hackenbush"
    summary = "Red-Blue(-Green) Hackenbush on stalks or rooted trees: Left cuts B, Right cuts R, both cut G"
    notation = "a stalk from the ground up, 'BRRG' ('-' for bare ground); a tree in brackets with edge colours, '(B()R(G()))' (no letter: green)"
    move_notation = "'cut i': the i-th edge, counted up a stalk or in the order of a tree's brackets"
    options = (
        Option("max-edges", int, "largest number of edges"),
        Option("colors", str, "edge colours, BR or BRG", required=False),
        Option("shape", str, "stalk or tree", required=False),
    )

    def __init__(self, **params):
        super().__init__(**params)
        self.params.setdefault("colors", "BR")
        self.params.setdefault("shape", "stalk")
        self.colours = self.params["colors"].upper()
        self.shape = self.params["shape"].lower()
        if self.colours not in ("BR", "BRG"):
            raise TablebaseError(f"hackenbush: --colors must be BR or BRG, got {self.params['colors']!r}")
        if self.shape not in ("stalk", "tree"):
            raise TablebaseError(f"hackenbush: --shape must be stalk or tree, got {self.params['shape']!r}")
        self.params["colors"], self.params["shape"] = self.colours, self.shape
        self.top = self.int_param("max_edges", 0, 24 if self.shape == "stalk" else 14)
        self.max_moves = self.top
        self._levels: dict[int, np.ndarray] = {}  # each level's keys, for as long as the game lives

    def draw(self, position: str) -> Picture:
        """The stalk or tree standing on the ground, edges blue (Left's), red (Right's) or green (both)."""
        text = position.strip()
        colours = {"B": BLUE, "R": RED, "G": GREEN, "": GREEN}
        if text.startswith("("):
            return tree_picture(bracket_tree(text, colours), f"Hackenbush {position}")
        stalk: list = []
        for letter in reversed(text.replace("-", "")):
            stalk = [(colours.get(letter, GREY), stalk)]
        return tree_picture(stalk, f"Hackenbush {position}")

    @property
    def table(self) -> str:
        return f"hackenbush_{self.shape}_{self.colours.lower()}_e{self.top}"

    @property
    def bounds(self) -> str:
        return f"{self.shape}s of at most {self.top} edges coloured {self.colours}"

    @property
    def max_level(self) -> int:
        return self.top

    def _level(self, level: int) -> np.ndarray:
        if level in self._levels:
            return self._levels[level]
        if self.shape == "tree":
            keys = [tree_key(t) for t in trees(level, self.colours)]
        else:
            keys = [stalk_key(s) for s in _stalks(level, self.colours)]
        self._levels[level] = np.array(sorted(keys), dtype=np.int64)
        return self._levels[level]

    def level_size(self, level: int) -> int:
        if self.shape == "stalk":
            return len(self.colours) ** level
        return len(self._level(level))

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        return self._level(level)[start:stop]

    def _cuts(self, key: int) -> list[tuple[str, int]]:
        """(colour, key after the cut) for each edge, in move-code order."""
        if self.shape == "stalk":
            s = stalk_of_key(key)
            return [(c, stalk_key(s[:i])) for i, c in enumerate(s)]
        return [(c, tree_key(t)) for c, t in tree_cuts(tree_of_key(key))]

    def left_right_moves(self, keys: np.ndarray) -> tuple[SumMoves, SumMoves]:
        sides = ([0], [], []), ([0], [], [])  # offsets, move codes, child keys
        for key in np.asarray(keys, dtype=np.int64).tolist():
            cuts = self._cuts(key)
            for (offsets, codes, children), allowed in zip(sides, (LEFT_CUTS, RIGHT_CUTS)):
                for code, (colour, child) in enumerate(cuts, 1):
                    if colour in allowed:
                        codes.append(code)
                        children.append(child)
                offsets.append(len(codes))
        return tuple(
            SumMoves(
                np.array(offsets, dtype=np.int64),
                np.array(codes, dtype=np.int64),
                np.arange(len(codes) + 1, dtype=np.int64),  # every move leads to one position
                np.array(children, dtype=np.int64),
                np.zeros(len(codes), dtype=np.bool_),
            )
            for offsets, codes, children in sides
        )

    def format_positions(self, keys: np.ndarray) -> Texts:
        if self.shape == "stalk":
            return Texts.from_strings([stalk_of_key(int(k)) or "-" for k in keys])
        return Texts.from_strings([spell(tree_of_key(int(k))) for k in keys])

    def parse(self, text: str) -> int:
        if self.shape == "stalk":
            stalk = "".join(text.split()).upper()
            if stalk in ("-", "0"):
                stalk = ""
            bad = set(stalk) - set(self.colours)
            if bad:
                raise self.position_error(text, f"edges are {' or '.join(self.colours)}, not {sorted(bad)[0]!r}")
            if len(stalk) > self.top:
                raise self.position_error(text, "outside the table")
            return stalk_key(stalk)
        try:
            tree = read_tree(text)
        except ValueError as e:
            raise self.position_error(text, str(e)) from None
        if edges(tree) > self.top:
            raise self.position_error(text, "outside the table")
        if "G" not in self.colours and _has_green(tree):
            raise self.position_error(text, "this table has no green edges (a bracket without a letter is green)")
        return tree_key(tree)

    def level_of(self, key: int) -> int:
        bits = int(key).bit_length() - 1
        return bits // 2 if self.shape == "stalk" else bits // 4

    def move_name(self, move: int) -> str:
        return f"cut {move}"


def _has_green(tree: Tree) -> bool:
    return any(c == "G" or _has_green(sub) for c, sub in tree)


@lru_cache(maxsize=8)
def _stalks(size: int, colours: str) -> list[str]:
    if size == 0:
        return [""]
    return [s + c for s in _stalks(size - 1, colours) for c in colours]
