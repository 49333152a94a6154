"""Red-Blue(-Green) Hackenbush on stalks and rooted trees.

Left (Blue) cuts ``B`` edges, Right (Red) cuts ``R`` edges, either player cuts
``G`` (green) edges; whatever is no longer connected to the ground falls. A
stalk is written from the ground up, ``BRRG`` (the bare ground ``-``); a tree in
the brackets of ``trees``, shared with Green Hackenbush, so that a green tree
is spelt exactly as in the ``green-hackenbush`` table.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from tablebase.errors import UsageError
from tablebase.games import trees
from tablebase.games.base import Option, Texts
from tablebase.games.capabilities import SumMoves
from tablebase.games.drawing import Picture
from tablebase.games.keyed import KeyedPartizanGame
from tablebase.games.shapes import BLUE, GREEN, GREY, RED, Box
from tablebase.games.tree_pictures import bracket_tree, cut_edge, tree_picture
from tablebase.games.trees import CODE, COLOURS, Tree
from tablebase.lazy import np

LEFT_CUTS = {"B", "G"}
RIGHT_CUTS = {"R", "G"}


def stalk_key(stalk: str) -> int:
    key = 1
    for c in stalk:
        key = key << 2 | CODE[c]
    return key


def stalk_of_key(key: int) -> str:
    n = (int(key).bit_length() - 1) // 2
    return "".join(COLOURS[(key >> 2 * (n - 1 - i) & 3) - 1] for i in range(n))


class Hackenbush(KeyedPartizanGame):
    """Red-Blue(-Green) Hackenbush on stalks or rooted trees.

    Keys: a stalk is 2 bits per edge (B=1, R=2, G=3, ground first) behind a leading 1 (``stalk_key``); a
    tree is ``trees.colour_key``. Both sort trees of one size in a fixed order and fit 63 bits for the
    sizes allowed. A move is named after the edge it cuts: ``cut i``, edges numbered from 1 up a stalk, or
    in the order of their brackets in a tree's spelling.
    """

    name = "hackenbush"
    summary = "Red-Blue(-Green) Hackenbush on stalks or rooted trees: Left cuts B, Right cuts R, both cut G"
    notation = ("a stalk from the ground up, 'BRRG' ('-' for bare ground); "
                "a tree in brackets with edge colours, '(B()R(G()))' (no letter: green)")
    # What each shape's table reads, as its errors say it: a stalk is a tree, and a tree without branches a stalk.
    SHAPE_NOTATION = {
        "stalk": "a stalk from the ground up, 'BRRG' ('-' for bare ground), or the same stalk as a tree in brackets, "
                 "'(B(R(R(G()))))'",
        "tree": "a tree in brackets with edge colours, '(B()R(G()))' (no letter: green), or a stalk from the ground "
                "up, 'BRRG' ('-' for bare ground)",
    }
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
            raise UsageError(f"hackenbush: --colors must be BR or BRG, got {self.params['colors']!r}")
        if self.shape not in ("stalk", "tree"):
            raise UsageError(f"hackenbush: --shape must be stalk or tree, got {self.params['shape']!r}")
        self.params["colors"], self.params["shape"] = self.colours, self.shape
        self.notation = self.SHAPE_NOTATION[self.shape]
        self.top = self.int_param("max_edges", 0, 24 if self.shape == "stalk" else 14)
        self.max_moves = self.top
        self._levels: dict[int, np.ndarray] = {}  # each level's keys, for as long as the game lives

    def draw(self, position: str) -> Picture:
        """The stalk or tree standing on the ground, edges blue (Left's), red (Right's) or green (both), each
        numbered as the moves that cut it."""
        text = position.strip()
        colours = {"B": BLUE, "R": RED, "G": GREEN, "": GREEN}
        if text.startswith("("):
            return tree_picture(bracket_tree(text, colours), f"Hackenbush {position}")
        stalk: list = []
        for letter in reversed(text.replace("-", "")):
            stalk = [(colours.get(letter, GREY), stalk)]
        return tree_picture(stalk, f"Hackenbush {position}")

    def highlight(self, position: str, move: str, after: str) -> list[Box]:
        """The edge a cut cuts, by its number on the picture."""
        return cut_edge(self.draw(position), move)

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
            keys = [trees.colour_key(t) for t in trees.trees(level, self.colours)]
        else:
            keys = [stalk_key(s) for s in _stalks(level, self.colours)]
        self._levels[level] = np.array(sorted(keys), dtype=np.int64)
        return self._levels[level]

    def level_size(self, level: int) -> int:
        if self.shape == "stalk":
            return len(self.colours) ** level
        return trees.count(level, len(self.colours))  # counted, not listed: the plan needs only sizes

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        return self._level(level)[start:stop]

    def _cuts(self, key: int) -> list[tuple[str, int]]:
        """(colour, key after the cut) for each edge, in move-code order."""
        if self.shape == "stalk":
            s = stalk_of_key(key)
            return [(c, stalk_key(s[:i])) for i, c in enumerate(s)]
        return [(c, trees.colour_key(t)) for c, t in trees.cuts(trees.tree_of_colour_key(key))]

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
        return Texts.from_strings([trees.spell(trees.tree_of_colour_key(int(k))) for k in keys])

    def parse(self, text: str) -> int:
        written = text.strip()
        if self.shape == "stalk":
            stalk = self._read_tree(text, as_stalk=True) if written.startswith("(") else self._read_stalk(text)
            if len(stalk) > self.top:
                raise self.position_error(text, "outside the table")
            return stalk_key(stalk)
        tree = self._read_tree(text) if written.startswith("(") or not written else _stalk_tree(self._read_stalk(text))
        if trees.edges(tree) > self.top:
            raise self.position_error(text, "outside the table")
        if "G" not in self.colours and _has_green(tree):
            raise self.position_error(text, "this table has no green edges (a bracket without a letter is green)")
        return trees.colour_key(tree)

    def _read_stalk(self, text: str) -> str:
        """A stalk's letters from the ground up, ``-`` the bare ground."""
        stalk = "".join(text.split()).upper()
        if stalk in ("-", "0"):
            stalk = ""
        bad = set(stalk) - set(self.colours)
        if bad:
            raise self.position_error(text, f"edges are {' or '.join(self.colours)}, not {sorted(bad)[0]!r}")
        return stalk

    def _read_tree(self, text: str, as_stalk: bool = False) -> Any:
        """A tree in brackets; with ``as_stalk``, the letters of a tree without branches."""
        try:
            tree = trees.read(text)
        except ValueError as e:
            raise self.position_error(text, str(e)) from None
        if not as_stalk:
            return tree
        stalk = ""
        while tree:
            if len(tree) > 1:
                raise self.position_error(text, "a tree that branches is not a stalk")
            (colour, tree), = tree
            stalk += colour
        return self._read_stalk(stalk or "-")

    def level_of(self, key: int) -> int:
        bits = int(key).bit_length() - 1
        return bits // 2 if self.shape == "stalk" else bits // 4

    def move_name(self, move: int) -> str:
        return f"cut {move}"


def _stalk_tree(stalk: str) -> Tree:
    """A stalk's letters, ground first, as the tree of one branch on each edge."""
    tree: Tree = ()
    for colour in reversed(stalk):
        tree = ((colour, tree),)
    return tree


def _has_green(tree: Tree) -> bool:
    return any(c == "G" or _has_green(sub) for c, sub in tree)


@lru_cache(maxsize=8)
def _stalks(size: int, colours: str) -> list[str]:
    if size == 0:
        return [""]
    return [s + c for s in _stalks(size - 1, colours) for c in colours]
