"""Pictures of rooted trees standing on the ground (Hackenbush stalks and trees), each edge numbered.

Edges are numbered from 1 in the order of their brackets in the tree's
spelling (a stalk's from the ground up), as the Hackenbush games number
their moves ("cut 3" cuts edge 3): each edge is the cell ``("edge", n)``,
its line and its number, so that a move's edge is found on the picture
(``cut_edge``).
"""

from __future__ import annotations

import math
from typing import Any

from tablebase.games.drawing import Picture
from tablebase.games.shapes import GREY, INK, Box

STEP = 0.9  # an edge's height, in units
NUMBER_SIZE = 0.34  # an edge's number, in units
NUMBERS = "#4b5563"  # their colour: darker than the grid's grey, lighter than an edge


def tree(p: Picture, branches: list[tuple[str, Any]], x: float, y: float, width: float, step: float = STEP,
         numbered: list[int] | None = None) -> None:
    """Edges of a rooted tree drawn upward from (x, y): ``branches`` are (colour, branches) pairs, each given
    ``width`` in proportion to its leaves, and numbered in the order drawn (``numbered``: the last number
    given so far)."""
    numbered = [0] if numbered is None else numbered
    if not branches:
        return
    leaves = [_leaves(b) for _, b in branches]
    left = x - width / 2
    for (colour, sub), n in zip(branches, leaves):
        share = width * n / sum(leaves)
        top_x, top_y = left + share / 2, y - step
        numbered[0] += 1
        edge = ("edge", numbered[0])
        p.line(x, y, top_x, top_y, colour, 0.12, cell=edge)
        _number(p, numbered[0], (x, y), (top_x, top_y), edge)
        p.circle(top_x, top_y, 0.09, INK, INK)
        tree(p, sub, top_x, top_y, share, step, numbered)
        left += share


def _number(p: Picture, n: int, foot: tuple[float, float], top: tuple[float, float], edge: tuple) -> None:
    """The edge's number beside its middle, on the side it leans to (the right of an upright edge), away from
    the branches beside it."""
    (x1, y1), (x2, y2) = foot, top
    dx, dy = x2 - x1, y2 - y1
    length = math.hypot(dx, dy) or 1.0
    side = -1.0 if dx < -1e-6 else 1.0
    nx, ny = side * -dy / length, side * dx / length
    mx, my = (x1 + x2) / 2 + 0.26 * nx, (y1 + y2) / 2 + 0.26 * ny
    p.text(mx, my + NUMBER_SIZE / 3, str(n), NUMBER_SIZE, NUMBERS, "middle", cell=edge)


def _leaves(branches: list) -> int:
    return max(1, sum(_leaves(b) for _, b in branches))


def tree_depth(branches: list) -> int:
    return 1 + max((tree_depth(b) for _, b in branches), default=0) if branches else 0


def tree_leaves(branches: list) -> int:
    return _leaves(branches)


def bracket_tree(text: str, colours: dict[str, str]) -> list[tuple[str, Any]]:
    """The branches of a tree in bracket notation, ground outermost; a letter before a bracket is its edge's
    colour (``colours`` maps letters to colours, "" for an edge with no letter). ValueError if unbalanced."""
    pos = 0

    def branches() -> list[tuple[str, Any]]:
        nonlocal pos
        if pos >= len(text) or text[pos] != "(":
            raise ValueError("expected '('")
        pos += 1
        out = []
        while pos < len(text) and text[pos] != ")":
            letter = ""
            if text[pos] != "(":
                letter, pos = text[pos], pos + 1
            out.append((colours.get(letter, GREY), branches()))
        if pos >= len(text):
            raise ValueError("expected ')'")
        pos += 1
        return out

    found = branches()
    if pos != len(text):
        raise ValueError("text after the tree")
    return found


def tree_picture(branches: list[tuple[str, Any]], title: str) -> Picture:
    """A rooted tree standing on the ground, its edges numbered."""
    wide, tall = tree_leaves(branches), tree_depth(branches)
    p = Picture(max(wide * 0.9, 2) + 1, tall * STEP + 1.2, title)
    ground = tall * STEP + 0.7
    p.line(0.2, ground, p.width - 0.2, ground, "#92400e", 0.1)
    tree(p, branches, p.width / 2, ground, max(wide * 0.9, 2) - 0.2)
    p.circle(p.width / 2, ground, 0.1, INK)
    return p


def cut_edge(picture: Picture, move: str) -> list[Box]:
    """Where the move "cut n" is on a tree's picture: the box of edge n (none for another move)."""
    word, _, number = move.partition(" ")
    return picture.boxes([("edge", int(number))]) if word == "cut" and number.isdigit() else []
