"""The engine's listing of a game's positions, for games that do not list their own levels.

A plain game (positions as Python values) is explored forward from its start
positions (``explore.py``, with batches played on workers by ``expand.py``)
and its positions numbered by level and notation (``numbering.py``); a keyed
game that gives ``start_keys()`` is listed level by level in numpy batches
(``levels.list_keys``). Either way the result is a ``Listing``, and the game's
keyed form over it (``forms.py``) is what the solvers and lookups work with.

Nothing here is about a kind of game: a kind says what an exploration needs
of its games (``PlainRules``) and completes the listed form with its moves.
This package knows games and errors, and nothing of Dask, files or solvers.
"""

from __future__ import annotations

from tablebase.listing.expand import Chunk, PlainRules, expand_chunk
from tablebase.listing.explore import Exploration
from tablebase.listing.forms import ListedKeyedGame, ListedPlainGame, one_part
from tablebase.listing.levels import LevelRows, Listing, distinct, gather, level_rows, level_table, list_keys

__all__ = [
    "Chunk",
    "Exploration",
    "LevelRows",
    "ListedKeyedGame",
    "ListedPlainGame",
    "Listing",
    "PlainRules",
    "distinct",
    "expand_chunk",
    "gather",
    "level_rows",
    "level_table",
    "list_keys",
    "one_part",
]
