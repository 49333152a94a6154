"""Pictures of positions: a few shapes that a game's ``draw`` returns, shown as SVG or on a matplotlib axes.

A game draws in its own units (one cell, one token: 1.0), y pointing down
as in SVG. A picture is a list of shapes, not markup, so that the explorer
and ``tablebase plot`` show the same drawing, and so that every text is
escaped in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple
from xml.sax.saxutils import escape, quoteattr

SCALE = 32  # SVG pixels per unit

# The palette of the pictures: each side's colour and the neutral ones.
BLUE, RED, GREEN = "#2563eb", "#dc2626", "#16a34a"
INK, PAPER, GREY, LIGHT = "#1f2937", "#ffffff", "#9ca3af", "#e5e7eb"

#: colours of outcome letters (L Left, R Right, N next player, P previous player, D draw): here, beside the
#: palette, so that the explorer's charts and ``tablebase plot`` colour an outcome alike without either
#: importing the other
OUTCOME_COLOURS = {"P": GREEN, "N": "#f97316", "L": BLUE, "R": RED, "D": GREY}


class Rect(NamedTuple):
    x: float
    y: float
    w: float
    h: float
    fill: str
    stroke: str = INK


class Circle(NamedTuple):
    x: float
    y: float
    r: float
    fill: str
    stroke: str = INK


class Line(NamedTuple):
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str = INK
    width: float = 0.08  # in units


class Text(NamedTuple):
    x: float
    y: float  # the baseline
    text: str
    size: float = 0.5
    fill: str = INK
    anchor: str = "middle"  # start, middle or end


@dataclass
class Picture:
    """Shapes within a ``width`` x ``height`` box of units, and a title for readers and screen readers."""

    width: float
    height: float
    title: str = ""
    shapes: list[Any] = field(default_factory=list)

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = INK) -> None:
        self.shapes.append(Rect(x, y, w, h, fill, stroke))

    def circle(self, x: float, y: float, r: float, fill: str, stroke: str = INK) -> None:
        self.shapes.append(Circle(x, y, r, fill, stroke))

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = INK, width: float = 0.08) -> None:
        self.shapes.append(Line(x1, y1, x2, y2, stroke, width))

    def text(self, x: float, y: float, text: str, size: float = 0.5, fill: str = INK, anchor: str = "middle") -> None:
        self.shapes.append(Text(x, y, str(text), size, fill, anchor))

    # -- shown ------------------------------------------------------------------------
    def svg(self, scale: float = SCALE) -> str:
        """A standalone SVG document (every text escaped)."""
        w, h = max(self.width, 0.1), max(self.height, 0.1)
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(w * scale)}" height="{_n(h * scale)}" '
               f'viewBox="0 0 {_n(w)} {_n(h)}" role="img" class="board">']
        if self.title:
            out.append(f"<title>{escape(self.title)}</title>")
        for s in self.shapes:
            out.append(_svg_shape(s))
        out.append("</svg>")
        return "\n".join(out)

    def plot(self, ax: Any) -> None:
        """The shapes on a matplotlib axes, y pointing down as in SVG."""
        from matplotlib.lines import Line2D
        from matplotlib.patches import Circle as MplCircle
        from matplotlib.patches import Rectangle

        points = 72 / 2.5  # font points per unit, for a figure of about 2.5 units an inch
        for s in self.shapes:
            if isinstance(s, Rect):
                ax.add_patch(Rectangle((s.x, s.y), s.w, s.h, facecolor=_mpl(s.fill), edgecolor=_mpl(s.stroke),
                                       linewidth=1))
            elif isinstance(s, Circle):
                ax.add_patch(MplCircle((s.x, s.y), s.r, facecolor=_mpl(s.fill), edgecolor=_mpl(s.stroke),
                                       linewidth=1))
            elif isinstance(s, Line):
                ax.add_line(Line2D([s.x1, s.x2], [s.y1, s.y2], color=s.stroke, linewidth=s.width * points,
                                   solid_capstyle="round"))
            else:
                ax.text(s.x, s.y, s.text, fontsize=s.size * points, color=s.fill,
                        ha={"start": "left", "end": "right"}.get(s.anchor, "center"), va="baseline")
        ax.set_xlim(0, max(self.width, 0.1))
        ax.set_ylim(max(self.height, 0.1), 0)
        ax.set_aspect("equal")
        ax.axis("off")


def _n(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".")


def _mpl(colour: str) -> str:
    return "none" if colour == "none" else colour


def _svg_shape(s: Any) -> str:
    if isinstance(s, Rect):
        return (f'<rect x="{_n(s.x)}" y="{_n(s.y)}" width="{_n(s.w)}" height="{_n(s.h)}" fill={quoteattr(s.fill)} '
                f'stroke={quoteattr(s.stroke)} stroke-width="0.04"/>')
    if isinstance(s, Circle):
        return (f'<circle cx="{_n(s.x)}" cy="{_n(s.y)}" r="{_n(s.r)}" fill={quoteattr(s.fill)} '
                f'stroke={quoteattr(s.stroke)} stroke-width="0.04"/>')
    if isinstance(s, Line):
        return (f'<line x1="{_n(s.x1)}" y1="{_n(s.y1)}" x2="{_n(s.x2)}" y2="{_n(s.y2)}" stroke={quoteattr(s.stroke)} '
                f'stroke-width="{_n(s.width)}" stroke-linecap="round"/>')
    return (f'<text x="{_n(s.x)}" y="{_n(s.y)}" font-size="{_n(s.size)}" fill={quoteattr(s.fill)} '
            f'text-anchor={quoteattr(s.anchor)} font-family="sans-serif">{escape(s.text)}</text>')


# -- pictures several games share ---------------------------------------------------------
def text_box(text: str, title: str = "") -> Picture:
    """The position's notation in a box: the picture of a game that draws nothing of its own."""
    width = max(2.0, 0.32 * len(text) + 1)
    p = Picture(width, 1.6, title or text)
    p.rect(0.1, 0.1, width - 0.2, 1.4, "#f9fafb")
    p.text(width / 2, 1.0, text, 0.5, anchor="middle")
    return p


def board(rows: list[str], title: str, pieces: dict[str, str] | None = None) -> Picture:
    """A board of cells, rows top first: '.' empty, '#' filled, any other letter drawn in its cell (in the
    colour ``pieces`` gives it); columns lettered and rows numbered, as moves like 'b2' name them."""
    width = max((len(r) for r in rows), default=0)
    p = Picture(width + 1.0, len(rows) + 1.0, title)
    for j in range(width):
        p.text(0.9 + j + 0.5, 0.6, chr(ord("a") + j) if j < 26 else str(j + 1), 0.4, GREY)
    for i, row in enumerate(rows):
        p.text(0.5, 0.9 + i + 0.68, str(i + 1), 0.4, GREY, "middle")
        for j, cell in enumerate(row.ljust(width, "#")):
            p.rect(0.9 + j, 0.9 + i, 1, 1, INK if cell == "#" else PAPER, GREY)
            if cell not in ".#":
                p.text(0.9 + j + 0.5, 0.9 + i + 0.72, cell, 0.62, (pieces or {}).get(cell, INK))
    return p


def heaps(sizes: list[int], title: str, labels: list[str] | None = None, fill: str = "#f59e0b",
          most: int = 24) -> Picture:
    """Heaps of tokens, one column each, counted underneath (a tall heap is cut at ``most`` and says so)."""
    tallest = min(max(sizes + [1]), most)
    p = Picture(max(len(sizes), 1) * 1.4 + 0.4, tallest * 0.5 + 1.8, title)
    ground = tallest * 0.5 + 0.6
    for i, size in enumerate(sizes):
        x = 0.9 + 1.4 * i
        for t in range(min(size, most)):
            p.circle(x, ground - 0.25 - 0.5 * t, 0.22, fill)
        if size > most:
            p.text(x, 0.45, "⋮", 0.5)
        p.line(x - 0.55, ground, x + 0.55, ground, GREY, 0.06)
        p.text(x, ground + 0.55, str(size) if labels is None else labels[i], 0.45)
    return p


def tree(p: Picture, branches: list[tuple[str, Any]], x: float, y: float, width: float, step: float = 0.9) -> None:
    """Edges of a rooted tree drawn upward from (x, y): ``branches`` are (colour, branches) pairs,
    each given ``width`` in proportion to its leaves."""
    if not branches:
        return
    leaves = [_leaves(b) for _, b in branches]
    left = x - width / 2
    for (colour, sub), n in zip(branches, leaves):
        share = width * n / sum(leaves)
        top_x, top_y = left + share / 2, y - step
        p.line(x, y, top_x, top_y, colour, 0.12)
        p.circle(top_x, top_y, 0.09, INK, INK)
        tree(p, sub, top_x, top_y, share, step)
        left += share


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
    """A rooted tree standing on the ground."""
    wide, tall = tree_leaves(branches), tree_depth(branches)
    p = Picture(max(wide * 0.9, 2) + 1, tall * 0.9 + 1.2, title)
    ground = tall * 0.9 + 0.7
    p.line(0.2, ground, p.width - 0.2, ground, "#92400e", 0.1)
    tree(p, branches, p.width / 2, ground, max(wide * 0.9, 2) - 0.2)
    p.circle(p.width / 2, ground, 0.1, INK)
    return p
