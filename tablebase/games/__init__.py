"""The public game API, and the built-in games.

Write a game as a subclass of one kind's class (docs/games.md): in plain form,
positions as Python values (``ImpartialGame``, ``PartizanGame``, ``ScoredGame``),
or in keyed form, positions as int64 keys in numpy batches (``KeyedImpartialGame``,
``KeyedPartizanGame``, ``KeyedScoredGame``, with the optional capabilities).
Games are found by reference (``registry``); the built-in modules are imported
only when a game of theirs is asked for.
"""

from __future__ import annotations

from tablebase.games.base import Game, Option, Texts
from tablebase.games.capabilities import Boards, Children, CompiledMoves, DiagramBites, PartGraph, QueenMoves, SumMoves
from tablebase.games.forms import ImpartialForm, KeyedForm, PartizanForm, ScoredForm
from tablebase.games.keyed import AGAIN, KEY_BITS, KeyedGame, KeyedImpartialGame, KeyedPartizanGame, KeyedScoredGame
from tablebase.games.plain import (
    Again,
    ImpartialGame,
    Outcome,
    PartizanGame,
    PlainGame,
    Result,
    ScoredGame,
)
from tablebase.games.registry import (
    BUILTIN,
    GameSource,
    find_game,
    game_names,
    load_game,
    make_game,
)

__all__ = [
    "AGAIN",
    "BUILTIN",
    "KEY_BITS",
    "Again",
    "Boards",
    "Children",
    "CompiledMoves",
    "DiagramBites",
    "Game",
    "GameSource",
    "ImpartialForm",
    "ImpartialGame",
    "KeyedForm",
    "KeyedGame",
    "KeyedImpartialGame",
    "KeyedPartizanGame",
    "KeyedScoredGame",
    "Option",
    "Outcome",
    "PartGraph",
    "PartizanForm",
    "PartizanGame",
    "PlainGame",
    "QueenMoves",
    "Result",
    "ScoredForm",
    "ScoredGame",
    "SumMoves",
    "Texts",
    "find_game",
    "game_names",
    "load_game",
    "make_game",
]
