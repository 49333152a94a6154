"""A ``Picture`` shown: written as SVG for the explorer's pages, or drawn on matplotlib axes for ``tablebase plot``.

Every text of a picture is escaped here, in one place. In SVG a shape with
edits may be a link (``<a href>`` around it, named by its edit's words), a
cell carries its name (``data-cell``) and an outline the names of the cells
it goes round (``data-cells``), so that a reader of the page can tell them
apart. matplotlib draws the shapes and leaves the links out.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Protocol
from xml.sax.saxutils import escape, quoteattr

from tablebase.games.shapes import Circle, Line, Mark, Rect


class Shown(Protocol):
    """What is shown of a ``drawing.Picture``: its box, title and shapes."""

    width: float
    height: float
    title: str
    shapes: list[Any]


def svg(picture: Shown, scale: float, href: Callable[[str], str | None] | None = None) -> str:
    """A standalone SVG document, ``scale`` pixels a unit; with ``href``, shapes with edits are links."""
    w, h = max(picture.width, 0.1), max(picture.height, 0.1)
    body = [_linked(s, href) if href and getattr(s, "link", ()) else _shape(s) for s in picture.shapes]
    # A picture with links is a group of them for screen readers; an image alone would hide them.
    role = "group" if any(b.startswith("<a ") for b in body) else "img"
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(w * scale)}" height="{_n(h * scale)}" '
            f'viewBox="0 0 {_n(w)} {_n(h)}" role="{role}" class="board">')]
    if picture.title:
        out.append(f"<title>{escape(picture.title)}</title>")
    out += body
    out.append("</svg>")
    return "\n".join(out)


def plot(picture: Shown, ax: Any) -> None:
    """The shapes on a matplotlib axes, y pointing down as in SVG (links are left out)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle as MplCircle
    from matplotlib.patches import Rectangle

    points = 72 / 2.5  # font points per unit, for a figure of about 2.5 units an inch
    for s in picture.shapes:
        if isinstance(s, Rect):
            ax.add_patch(Rectangle((s.x, s.y), s.w, s.h, facecolor=s.fill, edgecolor=s.stroke, linewidth=1))
        elif isinstance(s, Circle):
            ax.add_patch(MplCircle((s.x, s.y), s.r, facecolor=s.fill, edgecolor=s.stroke, linewidth=1))
        elif isinstance(s, Line):
            ax.add_line(Line2D([s.x1, s.x2], [s.y1, s.y2], color=s.stroke, linewidth=s.width * points,
                               solid_capstyle="round"))
        elif isinstance(s, Mark):
            b = _inside(s)
            ax.add_patch(Rectangle((b.x, b.y), b.w, b.h, facecolor="none", edgecolor=s.stroke,
                                   linewidth=s.width * points, linestyle="--" if s.dashed else "-"))
        else:
            ax.text(s.x, s.y, s.text, fontsize=s.size * points, color=s.fill,
                    ha={"start": "left", "end": "right"}.get(s.anchor, "center"), va="baseline")
    ax.set_xlim(0, max(picture.width, 0.1))
    ax.set_ylim(max(picture.height, 0.1), 0)
    ax.set_aspect("equal")
    ax.axis("off")


def _n(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".")


def _linked(s: Any, href: Callable[[str], str | None]) -> str:
    """A shape inside a link to its first edit that ``href`` offers, named by the edit's words; the shape alone
    if none is. A shape with nothing painted still takes clicks (the space above a heap)."""
    for edit in s.link:
        url = href(edit.position)
        if url is not None:
            return (f'<a href={quoteattr(url)} class="edit" aria-label={quoteattr(edit.label)}>'
                    f'<title>{escape(edit.label)}</title>{_shape(s, clickable=True)}</a>')
    return _shape(s)


def _inside(mark: Mark) -> Any:
    """A mark's box drawn inside its cells; a dashed mark further in, so that two marks of one box both show."""
    inset = mark.width * (1.7 if mark.dashed else 0.6)
    b = mark.box
    return b._replace(x=b.x + inset, y=b.y + inset, w=max(b.w - 2 * inset, 0), h=max(b.h - 2 * inset, 0))


def _shape(s: Any, clickable: bool = False) -> str:
    events = ' pointer-events="all"' if clickable else ""
    if isinstance(s, Rect):
        return (f'<rect x="{_n(s.x)}" y="{_n(s.y)}" width="{_n(s.w)}" height="{_n(s.h)}" fill={quoteattr(s.fill)} '
                f'stroke={quoteattr(s.stroke)} stroke-width="0.04"{_cell(s.cell)}{events}/>')
    if isinstance(s, Circle):
        return (f'<circle cx="{_n(s.x)}" cy="{_n(s.y)}" r="{_n(s.r)}" fill={quoteattr(s.fill)} '
                f'stroke={quoteattr(s.stroke)} stroke-width="0.04"{_cell(s.cell)}{events}/>')
    if isinstance(s, Line):
        return (f'<line x1="{_n(s.x1)}" y1="{_n(s.y1)}" x2="{_n(s.x2)}" y2="{_n(s.y2)}" stroke={quoteattr(s.stroke)} '
                f'stroke-width="{_n(s.width)}" stroke-linecap="round"{_cell(s.cell)}/>')
    if isinstance(s, Mark):
        b = _inside(s)
        dash = f' stroke-dasharray="{_n(s.width * 2)} {_n(s.width * 1.5)}"' if s.dashed else ""
        cells = ";".join(_name(c) for c in s.cells if c is not None)
        return (f'<rect class="mark" x="{_n(b.x)}" y="{_n(b.y)}" width="{_n(b.w)}" height="{_n(b.h)}" '
                f'rx="{_n(s.width)}" fill="none" stroke={quoteattr(s.stroke)} stroke-width="{_n(s.width)}"{dash} '
                f'data-cells={quoteattr(cells)} pointer-events="none"/>')
    return (f'<text x="{_n(s.x)}" y="{_n(s.y)}" font-size="{_n(s.size)}" fill={quoteattr(s.fill)} '
            f'text-anchor={quoteattr(s.anchor)} font-family="sans-serif"{_cell(s.cell)}{events}>'
            f"{escape(s.text)}</text>")


def _cell(cell: Hashable) -> str:
    """A cell's name as an attribute, so that a reader of the SVG (a test, a script) can tell cells apart."""
    return "" if cell is None else f" data-cell={quoteattr(_name(cell))}"


def _name(cell: Hashable) -> str:
    return " ".join(map(str, cell)) if isinstance(cell, tuple) else str(cell)
