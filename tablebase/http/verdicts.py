"""A position's outcome in words, and each move's from the mover's view: who wins, and how soon.

The words are chosen by the figures a row has, as the charts are, so that no
kind of game is named here (``position_verdict``, ``move_verdict``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

SIDES = {"L": "Left", "R": "Right"}
FIRST = {"L": "Left wins, whoever moves first.", "R": "Right wins, whoever moves first.",
         "N": "The player to move wins: Left if Left moves first, Right if Right moves first.",
         "P": "The player to move loses: Right wins if Left moves first, Left wins if Right moves first."}
READINGS = {
    "remoteness": "A count of moves is the remoteness: moves to the end of the game, the winner hurrying and "
                  "the loser putting it off.",
    "plies": "A count of plies is moves by either player to the end, the winner hurrying and the loser putting "
             "it off.",
}


class Verdict(NamedTuple):
    said: list[str]  # sentences, the outcome first
    reading: str  # how to read the counts in them, or ""


def position_verdict(row: dict[str, Any]) -> Verdict:
    """The outcome of the position of ``row`` (a lookup's result) in words, chosen by the figures it has:

    - ``remoteness``: moves to the end, the winner hurrying and the loser
      delaying (``outcome`` N: the player to move wins, P: loses);
    - ``plies``: the same counted in plies, null for a draw (``outcome`` D),
      with the ``score`` where the table keeps one (signed from the mover's view);
    - ``best_left``: two sides, Left and Right; ``outcome`` is the outcome class,
      L or R (that side wins, whoever moves first), N (whoever moves first wins)
      or P (whoever moves first loses);
    - ``misere_outcome``: the outcome in misère play, where a player who cannot
      move wins; ``misere_note``: why a sum's is unknown.
    """
    outcome = row.get("outcome")
    if "best_left" in row:
        return Verdict([FIRST[outcome]] if outcome in FIRST else [], "")
    said = [_player_to_move(row)] if outcome in ("N", "P", "D") else []
    if row.get("misere_outcome") in ("N", "P"):
        misere = row.get("misere_remoteness")
        soon = "" if misere is None else " at once" if misere == 0 else f" in {_plural(misere, ('move', 'moves'))}"
        said.append(f"In misère play (a player who cannot move wins), the player to move "
                    f"{'wins' if row['misere_outcome'] == 'N' else 'loses'}{soon}.")
    elif row.get("misere_note"):
        said.append(f"In misère play (a player who cannot move wins), {row['misere_note']}.")
    counts = [name for name in READINGS if row.get(name) is not None]
    return Verdict(said, READINGS[counts[0]] if counts and outcome != "D" else "")


def _player_to_move(row: dict[str, Any]) -> str:
    outcome = row["outcome"]
    if outcome == "D":
        return "A draw: neither player can force a win."
    count = _count(row)
    if count is not None and count[0] == 0:
        return f"The player to move has {'won' if outcome == 'N' else 'lost'}: the game is over."
    words = f"The player to move {'wins' if outcome == 'N' else 'loses'}"
    if count is not None:
        words += f" in {_plural(*count)}"
    return words + _by(row.get("score")) + "."


def move_verdict(move: dict[str, Any]) -> str:
    """A move's result for the player who makes it, from the figures of the position it leads to: seen from
    the other side (a move to a position the next player loses in 5 wins in 6), but after a move marked
    ``again`` (the same player moves again), the mover's own."""
    outcome = move.get("outcome")
    side = move.get("side")
    if side is not None:  # the opponent moves next: the mover wins if the result is theirs or lost by the next
        return "wins" if outcome in (side[0], "P") else "loses" if outcome in ("L", "R", "N") else ""
    if outcome == "D":
        return "draw"
    if outcome not in ("N", "P"):
        return ""
    again = bool(move.get("again"))  # the mover moves again: the figures are the mover's own
    words = "wins" if (outcome == "N") == again else "loses"
    count = _count(move)
    if count is not None:
        words += f" in {_plural(count[0] + 1, count[1])}"
    score = move.get("score")
    words += _by(None if score is None else score if again else -score)
    if move.get("misere_outcome") in ("N", "P"):
        misere = move.get("misere_remoteness")
        soon = "" if misere is None else f" in {_plural(misere + 1, ('move', 'moves'))}"
        words += f" (misère: {'wins' if move['misere_outcome'] == 'P' else 'loses'}{soon})"
    return words


def _count(row: dict[str, Any]) -> tuple[int, tuple[str, str]] | None:
    """(moves to the end, what they are counted in), from remoteness or plies, or None if neither is there."""
    for name, unit in (("remoteness", ("move", "moves")), ("plies", ("ply", "plies"))):
        if row.get(name) is not None:
            return row[name], unit
    return None


def _plural(n: int, unit: tuple[str, str]) -> str:
    return f"{n:,} {unit[0] if n == 1 else unit[1]}"


def _by(score: int | None) -> str:
    """A score in words: the size of the win or loss (a score is signed from the mover's view)."""
    return f", by a score of {abs(score)}" if score else ""
