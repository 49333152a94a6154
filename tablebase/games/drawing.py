"""Pictures of positions: a few shapes that a game's ``draw`` returns, shown as SVG or on a matplotlib axes.

A game draws in its own units (one cell, one token: 1.0), y pointing down
as in SVG. A picture (``Picture``) is a list of shapes, not markup, so that
the explorer and ``tablebase plot`` show the same drawing, and so that every
text is escaped in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from tablebase.games.shapes import GREY, INK, PAPER, SCALE, Box, Circle, Edit, Edits, Line, Mark, Rect, Text


@dataclass
class Picture:
    """Shapes within a ``width`` x ``height`` box of units, and a title for readers and screen readers.

    A shape may be a link (its edits: the positions a click on it leads to, which the explorer turns into
    URLs; matplotlib leaves them out), and may name the cell it draws (a square of a board, a token of a
    heap), so that the cells a move changes are found by comparing the pictures of the position before and
    after it (``changed``), whatever the game.

    ``clicks`` says in words what a click on the picture's links does, where it has any.
    """

    width: float
    height: float
    title: str = ""
    shapes: list[Any] = field(default_factory=list)
    clicks: str = ""

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = INK, link: Edits = (),
             cell: Hashable = None) -> None:
        self.shapes.append(Rect(x, y, w, h, fill, stroke, tuple(link), cell))

    def circle(self, x: float, y: float, r: float, fill: str, stroke: str = INK, link: Edits = (),
               cell: Hashable = None) -> None:
        self.shapes.append(Circle(x, y, r, fill, stroke, tuple(link), cell))

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = INK, width: float = 0.08,
             cell: Hashable = None) -> None:
        self.shapes.append(Line(x1, y1, x2, y2, stroke, width, cell))

    def text(self, x: float, y: float, text: str, size: float = 0.5, fill: str = INK, anchor: str = "middle",
             link: Edits = (), cell: Hashable = None) -> None:
        self.shapes.append(Text(x, y, str(text), size, fill, anchor, tuple(link), cell))

    def mark(self, boxes: list[Box], stroke: str, dashed: bool = False) -> None:
        """Outline the boxes (the cells a move changes) over everything drawn so far: boxes in a row or a
        column that touch (a domino's two cells, the tokens taken from a heap) as one."""
        for group in _touching(boxes):
            x0, y0 = min(b.x for b in group), min(b.y for b in group)
            whole = Box(x0, y0, max(b.x + b.w for b in group) - x0, max(b.y + b.h for b in group) - y0)
            width = min(max(0.12 * min(min(b.w, b.h) for b in group), 0.03), 0.14)  # in proportion to a cell
            self.shapes.append(Mark(whole, stroke, dashed, width, tuple(b.cell for b in group)))

    def boxes(self, cells: Iterable[Hashable]) -> list[Box]:
        """The box of each of ``cells`` that the picture draws, in the order given."""
        drawn = _cells(self)
        return [_box_of(drawn[c], c) for c in cells if c in drawn]

    # -- shown ------------------------------------------------------------------------
    def svg(self, scale: float = SCALE, href: Callable[[str], str | None] | None = None) -> str:
        """A standalone SVG document (every text escaped).

        With ``href``, a shape with edits is a link (``<a href>`` around it) to the URL that ``href`` gives
        its first edit it does not refuse (None: not offered); without, the picture has no links.
        """
        from tablebase.games.render import svg

        return svg(self, scale, href)

    def plot(self, ax: Any) -> None:
        """The shapes on a matplotlib axes, y pointing down as in SVG (links are left out)."""
        from tablebase.games.render import plot

        plot(self, ax)

def changed(before: Picture, after: Picture) -> list[Box]:
    """The boxes, in ``before``, of the cells whose look differs in ``after`` (a piece placed, a square
    bitten, a token taken): what a move changes, found by the cells the two pictures name alike."""
    old, new = _cells(before), _cells(after)
    return [_box_of(shapes, cell) for cell, shapes in old.items() if _look(shapes) != _look(new.get(cell, []))]


def _touching(boxes: list[Box]) -> list[list[Box]]:
    """The boxes as one group if they lie in one column or one row, each next to the one before; else each
    alone."""
    for along, across in ((1, 0), (0, 1)):  # a column (same x and width; by y), then a row (by x)
        ranked = sorted(boxes, key=lambda b: b[along])
        if len(ranked) > 1 and all(_next_to(a, b, along, across) for a, b in pairwise(ranked)):
            return [ranked]
    return [[b] for b in boxes]


def _next_to(a: Box, b: Box, along: int, across: int) -> bool:
    """Whether ``b`` follows ``a`` along one axis (x 0 or y 1), level with it across the other."""
    level = abs(b[across] - a[across]) < 1e-6 and abs(b[across + 2] - a[across + 2]) < 1e-6
    return level and b[along] - (a[along] + a[along + 2]) <= 0.3 * a[along + 2]


def _cells(picture: Picture) -> dict[Hashable, list[Any]]:
    found: dict[Hashable, list[Any]] = {}
    for s in picture.shapes:
        if getattr(s, "cell", None) is not None:
            found.setdefault(s.cell, []).append(s)
    return found


def _look(shapes: list[Any]) -> list[tuple]:
    """What a cell shows, whatever its place and links: its shapes' kinds, colours and texts."""
    return sorted((type(s).__name__, getattr(s, "fill", ""), getattr(s, "stroke", ""), getattr(s, "text", ""))
                  for s in shapes)


def _box_of(shapes: list[Any], cell: Hashable) -> Box:
    """The box around a cell's rectangles, circles and lines (around its text if it has nothing else)."""
    boxes = [(s.x, s.y, s.x + s.w, s.y + s.h) for s in shapes if isinstance(s, Rect)]
    pad = 1.35  # a token's box leaves room round it, so that its outline does not hide it
    boxes += [(s.x - pad * s.r, s.y - pad * s.r, s.x + pad * s.r, s.y + pad * s.r) for s in shapes
              if isinstance(s, Circle)]
    boxes += [(min(s.x1, s.x2) - 2 * s.width, min(s.y1, s.y2) - 2 * s.width, max(s.x1, s.x2) + 2 * s.width,
               max(s.y1, s.y2) + 2 * s.width) for s in shapes if isinstance(s, Line)]
    if not boxes:  # a text alone: about its size, above its baseline
        boxes = [(s.x - s.size / 2, s.y - s.size, s.x + s.size / 2, s.y + s.size / 4) for s in shapes]
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    return Box(x0, y0, max(b[2] for b in boxes) - x0, max(b[3] for b in boxes) - y0, cell)


# -- pictures several games share ---------------------------------------------------------
def text_box(text: str, title: str = "") -> Picture:
    """The position's notation in a box: the picture of a game that draws nothing of its own."""
    width = max(2.0, 0.32 * len(text) + 1)
    p = Picture(width, 1.6, title or text)
    p.rect(0.1, 0.1, width - 0.2, 1.4, "#f9fafb")
    p.text(width / 2, 1.0, text, 0.5, anchor="middle")
    return p


PIECE_NAMES = {".": "empty", "#": "filled"}


def board(rows: list[str], title: str, pieces: dict[str, str] | None = None, cycle: str = "",
          offered: Callable[[str], bool] | None = None) -> Picture:
    """A board of cells, rows top first: '.' empty, '#' filled, any other letter drawn in its cell (in the
    colour ``pieces`` gives it); columns lettered and rows numbered, as moves like 'b2' name them.

    With ``cycle`` (the pieces in turn, ".#" or ".XO"), a click on a cell puts the next piece there: the
    board's rows joined by '|' with that cell changed, the next piece after it where the table lacks that
    one; ``offered`` may refuse an edited board (one that is outside the table's bounds).
    """
    width = max((len(r) for r in rows), default=0)
    grid = [row.ljust(width, "#") for row in rows]
    p = Picture(width + 1.0, len(rows) + 1.0, title)
    for j in range(width):
        p.text(0.9 + j + 0.5, 0.6, _column(j), 0.4, GREY)
    for i, row in enumerate(grid):
        p.text(0.5, 0.9 + i + 0.68, str(i + 1), 0.4, GREY, "middle")
        for j, cell in enumerate(row):
            link = _cycled(grid, i, j, cycle, offered)
            p.rect(0.9 + j, 0.9 + i, 1, 1, INK if cell == "#" else PAPER, GREY, link, (i, j))
            if cell not in ".#":
                p.text(0.9 + j + 0.5, 0.9 + i + 0.72, cell, 0.62, (pieces or {}).get(cell, INK), link=link,
                       cell=(i, j))
    if cycle:
        turn = [PIECE_NAMES.get(c, c) for c in cycle + cycle[0]]
        p.clicks = f"A click on a cell changes it: {' → '.join(turn)}" + (
            " (skipping a piece where the table has no such position)." if len(cycle) > 2 else ".")
    return p


def _column(j: int) -> str:
    return chr(ord("a") + j) if j < 26 else str(j + 1)


def _cycled(grid: list[str], i: int, j: int, cycle: str, offered: Callable[[str], bool] | None) -> Edits:
    """The boards a click on cell (i, j) may lead to, the next piece in ``cycle`` first."""
    here = grid[i][j]
    if here not in cycle:
        return ()
    at = cycle.index(here)
    edits = []
    for step in range(1, len(cycle)):
        piece = cycle[(at + step) % len(cycle)]
        edited = "|".join(row[:j] + piece + row[j + 1:] if r == i else row for r, row in enumerate(grid))
        if offered is None or offered(edited):
            edits.append(Edit(edited, f"{_column(j)}{i + 1}: {PIECE_NAMES.get(piece, piece)}"))
    return tuple(edits)


def heaps(sizes: list[int], title: str, labels: list[str] | None = None, fill: str = "#f59e0b",
          most: int = 24, resize: Callable[[int, int], str | None] | None = None) -> Picture:
    """Heaps of tokens, one column each, counted underneath (a tall heap is cut at ``most`` and says so).

    Each token is cell ("token", heap, t), t from 0 at the ground. With ``resize`` (heap, size -> the
    position with that heap resized, or None outside the table), a click on a token makes its heap that
    many tokens tall (on the top token: takes it away), and a click on the space above a heap adds one.
    """
    tallest = min(max(sizes + [1]), most)
    p = Picture(max(len(sizes), 1) * 1.4 + 0.4, tallest * 0.5 + 1.8, title)
    ground = tallest * 0.5 + 0.6
    for i, size in enumerate(sizes):
        x = 0.9 + 1.4 * i
        for t in range(min(size, most)):
            link = _resized(resize, i, size, t + 1 if t + 1 < size else t)
            p.circle(x, ground - 0.25 - 0.5 * t, 0.22, fill, link=link, cell=("token", i, t))
        if size > most:
            p.text(x, 0.45, "⋮", 0.5)
        elif resize is not None:  # the space above the heap, up to the picture's top: one more token
            top = ground - 0.5 * size
            p.rect(x - 0.55, 0, 1.1, top, "none", "none", _resized(resize, i, size, size + 1))
        p.line(x - 0.55, ground, x + 0.55, ground, GREY, 0.06)
        p.text(x, ground + 0.55, str(size) if labels is None else labels[i], 0.45)
    if resize is not None:
        p.clicks = ("A click on a token makes its heap that tall (on the top token, takes that token away); "
                    "a click above a heap adds a token.")
    return p


def _resized(resize: Callable[[int, int], str | None] | None, heap: int, size: int, to: int) -> Edits:
    target = resize(heap, to) if resize is not None and to != size else None
    if target is None:
        return ()
    return (Edit(target, f"heap {heap + 1}: {to} token{'' if to == 1 else 's'}"),)
