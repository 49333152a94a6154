"""Green Hackenbush on rooted trees: cut an edge and lose everything above it.

A tree is written in brackets with the ground as the outer pair: ``()`` is the
bare ground, ``(())`` one edge, ``(()())`` two edges at the ground, ``((()))`` a
stalk of two. The trees are Hackenbush's (``trees``) with every edge green:
the two games read, spell, order and cut them alike.
"""

from __future__ import annotations

from functools import lru_cache

from tablebase.games import trees
from tablebase.games.base import Option, Texts
from tablebase.games.capabilities import Children
from tablebase.games.drawing import Picture
from tablebase.games.keyed import KeyedImpartialGame
from tablebase.games.shapes import GREEN, Box
from tablebase.games.tree_pictures import bracket_tree, cut_edge, tree_picture
from tablebase.lazy import np


class GreenHackenbush(KeyedImpartialGame):
    """Green Hackenbush on rooted trees keyed by their brackets (``trees.bracket_key``), the level the number
    of edges. Keys are sparse, so the solver looks children up by search rather than by rank."""

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
        """The tree standing on the ground, every edge green and numbered as the moves that cut it."""
        return tree_picture(bracket_tree(position.strip(), {"": GREEN}), f"Green Hackenbush {position}")

    def highlight(self, position: str, move: str, after: str) -> list[Box]:
        """The edge a cut cuts, by its number on the picture."""
        return cut_edge(self.draw(position), move)

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
        return np.array(sorted(trees.bracket_key(t) for t in trees.trees(level, "G")), dtype=np.int64)

    def level_size(self, level: int) -> int:
        return trees.count(level, 1)  # counted, not listed: the plan needs only sizes

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        return self._level(level)[start:stop]

    def children(self, keys: np.ndarray) -> Children:
        offsets = [0]
        child_keys: list[int] = []
        for key in np.asarray(keys, dtype=np.int64):
            after = trees.cuts(trees.tree_of_bracket_key(int(key)))
            child_keys.extend(trees.bracket_key(t) for _, t in after)
            offsets.append(len(child_keys))
        # A move's code is the edge's number, 1..edges, in the order trees.cuts() gives.
        moves = [i for a, b in zip(offsets, offsets[1:]) for i in range(1, b - a + 1)]
        return Children(
            np.array(offsets, dtype=np.int64),
            np.array(child_keys, dtype=np.int64),
            np.array(moves, dtype=np.int64),
        )

    def format_positions(self, keys: np.ndarray) -> Texts:
        return Texts.from_strings([trees.spell(trees.tree_of_bracket_key(int(k))) for k in keys])

    def parse(self, text: str) -> int:
        try:
            tree = trees.read(text, "")
        except ValueError as e:
            raise self.position_error(text, str(e)) from None
        if trees.edges(tree) > self.top:
            raise self.position_error(text, "outside the table")
        return trees.bracket_key(tree)

    def level_of(self, key: int) -> int:
        return (int(key).bit_length() - 1) // 2 - 1

    def move_name(self, move: int) -> str:
        return f"cut {move}"
