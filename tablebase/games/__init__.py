"""Game rules, one module per game, behind the interface in ``base``."""

from __future__ import annotations

from typing import Any

from tablebase.errors import TablebaseError
from tablebase.games.base import Children, DiagramBites, Game, Option, QueenMoves, Texts
from tablebase.games.chomp import Chomp
from tablebase.games.domineering import Domineering
from tablebase.games.fibonacci_nim import FibonacciNim
from tablebase.games.green_hackenbush import GreenHackenbush
from tablebase.games.hackenbush import Hackenbush
from tablebase.games.nim import Nim
from tablebase.games.subtraction import Subtraction
from tablebase.games.tanhinmin import Tanhinmin
from tablebase.games.wythoff import Wythoff

GAMES: dict[str, type[Game]] = {
    g.name: g for g in (Nim, Subtraction, Wythoff, FibonacciNim, Chomp, GreenHackenbush, Tanhinmin, Hackenbush, Domineering)
}


def make_game(name: str, params: dict[str, Any]) -> Game:
    """The game ``name`` with these build options (keys with underscores or dashes)."""
    if name not in GAMES:
        raise TablebaseError(f"unknown game {name!r}; games are: {', '.join(GAMES)}")
    return GAMES[name](**{k.replace("-", "_"): v for k, v in params.items()})


__all__ = ["GAMES", "Children", "DiagramBites", "Game", "Option", "QueenMoves", "Texts", "make_game"]
