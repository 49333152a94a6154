"""The mainline: best play from a position to the end, each position with its figures.

A line is a walk of lookups: from each position the move the table calls
best is played, until the player to move has none. Which move is best is
the kind's to say (``Choose``): an impartial table's ``best_move`` (the
quickest win, the longest defence), a scored table's ``best_score_move``
where it keeps a score (so the score is kept along the line) or else its
``best_move``, and for a partizan table the best move of the side to move,
the sides taking turns from the one named first. Play that can go round in
circles (a drawn scored position) is cut after ``MAX_STEPS`` moves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.errors import PositionError, UsageError

MAX_STEPS = 1000  # moves of a line at most: a draw may go round in circles
SIDES = {"left": "Left", "l": "Left", "right": "Right", "r": "Right"}
NOT_FIGURES = ("table", "moves", "warning")

#: (a lookup, the side to move or None) -> the move entry to play, or None where the line ends
Choose = Callable[[dict[str, Any], str | None], dict[str, Any] | None]


def side_named(first: str | None, sides: int) -> str | None:
    """The side to move first as the line needs it: Left or Right for a partizan table, none for the others."""
    if sides == 1:
        if first is not None:
            raise UsageError("only a partizan table's line starts with a side to move (Left or Right)")
        return None
    side = SIDES.get((first or "").strip().lower())
    if side is None:
        said = "" if first is None else f", not {first!r}"
        raise UsageError(f"a partizan table's line needs the side to move first: Left or Right{said}")
    return side


def best_line(lookup: Callable[[str], dict[str, Any]], text: str, choose: Choose, side: str | None) -> dict[str, Any]:
    """Best play from ``text``: each position's figures and the move played from it (None at the end)."""
    first = lookup(text)
    line: dict[str, Any] = {"table": first["table"], "position": first["position"]}
    if side is not None:
        line["first"] = side
    if "warning" in first:
        line["warning"] = first["warning"]
    steps: list[dict[str, Any]] = []
    looked: dict[str, Any] | None = first
    while looked is not None:
        chosen = choose(looked, side)
        step = {k: v for k, v in looked.items() if k not in NOT_FIGURES}
        if side is not None:
            step["mover"] = side
        step["move"] = None if chosen is None else chosen["move"]
        steps.append(step)
        if chosen is None:
            line["ended"] = "no moves" if side is None else f"{side} has no move"
            break
        if len(steps) > MAX_STEPS:
            line["ended"] = f"cut after {MAX_STEPS} moves (play may go round in circles)"
            break
        side = None if side is None else ("Right" if side == "Left" else "Left")
        try:
            looked = lookup(chosen["position"])
        except PositionError as e:  # a sum the table cannot read back (the empty board): its figures end the line
            steps.append({**{k: v for k, v in chosen.items() if k not in ("move", "side")},
                          **({"mover": side} if side else {}), "move": None})
            line["ended"] = f"the position reached cannot be looked up: {e}"
            break
    line["steps"] = steps
    return line


def by_figure(*names: str) -> Choose:
    """The move named by the first of these figures the lookup has (a lost sum names none: its best first)."""

    def choose(looked: dict[str, Any], side: str | None) -> dict[str, Any] | None:
        moves = looked.get("moves") or []
        name = next((looked[n] for n in names if n in looked), None)
        return next((m for m in moves if m["move"] == name), moves[0] if moves else None)

    return choose


def by_side(looked: dict[str, Any], side: str | None) -> dict[str, Any] | None:
    """A partizan table's best move for the side to move (Left's ``best_left``, Right's ``best_right``)."""
    name = looked.get("best_left" if side == "Left" else "best_right")
    return next((m for m in looked.get("moves") or [] if m.get("side") == side and m["move"] == name), None)
