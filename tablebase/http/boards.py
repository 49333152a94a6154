"""The board of a position's page: drawn by its game, large enough to read, with moves outlined on it and its
cells links to the positions a click sets up.

A board is scaled by its picture's size, so that its larger side is about
``BOARD_PX`` pixels whatever the game draws, and the regions of a sum about
``REGION_PX``. What a move changes, and which positions a click offers, are
the game's to say (``Game.highlight``, the links of its picture): the page
outlines the move, Left's solid and Right's dashed so that colour is not the
only sign, and keeps the links to positions its table holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from markupsafe import Markup

from tablebase.games.drawing import Picture
from tablebase.games.shapes import BLUE, HIGHLIGHT, RED

BOARD_PX = 420  # the larger side of a position's board
LINE_PX = 200  # the larger side of each board of a line of best play
REGION_PX = 160  # the larger side of each region of a sum
MOST_PER_UNIT = 120  # pixels a unit at most: a small picture (a word in a box) is not blown up
COLOURS = {"Left": (BLUE, False, "blue"), "Right": (RED, True, "red, dashed"), None: (HIGHLIGHT, False, "cyan")}


class Outline(NamedTuple):
    """A move outlined on the board: its entry in the lookup's moves, and whose move it is, in words."""

    move: dict[str, Any]
    whose: str


def scale_for(picture: Picture, pixels: float) -> float:
    """Pixels a unit for the larger side of ``picture`` to be ``pixels`` long (at most ``MOST_PER_UNIT``)."""
    return min(pixels / max(picture.width, picture.height, 0.1), MOST_PER_UNIT)


def outlined(row: dict[str, Any], chosen: dict[str, Any] | None) -> list[Outline]:
    """The moves to outline: ``chosen`` if a move was asked for, else the best move (each side's, in a game
    of two sides, as the row names them)."""
    if chosen is not None:
        side = chosen.get("side")
        return [Outline(chosen, f"{side}'s move" if side else "the move")]
    two_sides = "best_left" in row
    best = [("Left", row.get("best_left")), ("Right", row.get("best_right"))] if two_sides else [
        (None, row.get("best_move"))]
    found = []
    for side, name in best:
        move = next((m for m in row["moves"] if m["move"] == name and m.get("side") == side), None)
        if move is not None:
            found.append(Outline(move, f"{side}'s best move" if side else "the best move"))
    return found


def position_board(game: Any, row: dict[str, Any], shown: list[Outline], href: Callable[[str], str | None],
                   pixels: float = BOARD_PX) -> tuple[Markup, list[str]]:
    """The board of ``row``'s position, about ``pixels`` across, the ``shown`` moves outlined and its cells links
    through ``href``, and what is outlined, in words."""
    picture = game.draw(row["position"])
    said = []
    for outline in shown:
        move = outline.move
        colour, dashed, named = COLOURS[move.get("side")]
        boxes = game.highlight(row["position"], move["move"], move["position"])
        picture.mark(boxes, colour, dashed)
        said.append(f"Outlined in {named}: {outline.whose}, {move['move']}." if boxes else
                    f"{outline.whose[0].upper()}{outline.whose[1:]}, {move['move']}, is not drawn on the board.")
    svg = picture.svg(scale_for(picture, pixels), href)
    if picture.clicks and "<a " in svg:  # what a click does, where a click does something
        said.append(picture.clicks)
    return Markup(svg), said


def region_boards(game: Any, positions: list[str]) -> list[Markup]:
    """The regions of a sum, smaller than the board they are part of, and all at one scale: the one that
    draws the largest about ``REGION_PX`` across, so that a region of two cells looks smaller than one of
    twelve."""
    pictures = [game.draw(position) for position in positions]
    scale = min((scale_for(p, REGION_PX) for p in pictures), default=1.0)
    return [Markup(p.svg(scale)) for p in pictures]
