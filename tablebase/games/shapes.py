"""The shapes a ``Picture`` is made of, and the palette they are drawn in.

A picture is a list of these, not markup: ``drawing.py`` assembles them into
pictures, ``render.py`` writes them as SVG or draws them with matplotlib.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import NamedTuple

SCALE = 32  # SVG pixels per unit

# The palette of the pictures: each side's colour and the neutral ones.
BLUE, RED, GREEN = "#2563eb", "#dc2626", "#16a34a"
INK, PAPER, GREY, LIGHT = "#1f2937", "#ffffff", "#9ca3af", "#e5e7eb"

#: colours of outcome letters (L Left, R Right, N next player, P previous player, D draw): here, beside the
#: palette, so that the explorer's charts and ``tablebase plot`` colour an outcome alike without either
#: importing the other
OUTCOME_COLOURS = {"P": GREEN, "N": "#f97316", "L": BLUE, "R": RED, "D": GREY}
#: the outline of a move on a board, where no side's colour says whose it is
HIGHLIGHT = "#0891b2"


class Edit(NamedTuple):
    """What a click on a shape does: the position it leads to (in the game's notation), and that in words,
    for the link's name and tooltip ("b2: X")."""

    position: str
    label: str


#: a shape's edits, the first that the table holds taken (a click on a tic-tac-toe cell: X, else O)
Edits = tuple[Edit, ...]


class Box(NamedTuple):
    """A rectangle of the picture, in its units: where a highlight goes; ``cell`` names what it outlines."""

    x: float
    y: float
    w: float
    h: float
    cell: Hashable = None


# Each shape may be a link (``link``: its edits) and may be one cell of a grid or one token of a heap
# (``cell``: a name the pictures of two positions share, so that what a move changes can be found).
class Rect(NamedTuple):
    x: float
    y: float
    w: float
    h: float
    fill: str
    stroke: str = INK
    link: Edits = ()
    cell: Hashable = None


class Circle(NamedTuple):
    x: float
    y: float
    r: float
    fill: str
    stroke: str = INK
    link: Edits = ()
    cell: Hashable = None


class Line(NamedTuple):
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str = INK
    width: float = 0.08  # in units
    cell: Hashable = None


class Text(NamedTuple):
    x: float
    y: float  # the baseline
    text: str
    size: float = 0.5
    fill: str = INK
    anchor: str = "middle"  # start, middle or end
    link: Edits = ()
    cell: Hashable = None


class Mark(NamedTuple):
    """An outline over the picture (a move highlighted) around the cells ``cells``: no fill, and clicks pass
    through it. A dashed one is drawn further inside its box, so that two marks of one box both show."""

    box: Box
    stroke: str
    dashed: bool = False
    width: float = 0.1
    cells: tuple = ()
