"""The engine's listing of a game's positions, for games that do not list their own levels.

A plain game (positions as Python values) is explored forward from its start
positions (``explore.py``, with batches played on workers by ``expand.py``)
and its positions numbered by level and notation (``numbering.py``); a keyed
game that gives ``start_keys()`` is listed level by level in numpy batches
(``levels.list_keys``). Either way the result is a ``Listing``, and the game's
keyed form over it (``forms.py``) is what the solvers and lookups work with.

The game's own code runs under limits (``limits.py``): a time per position,
a number of positions, a range of levels; what it returns is checked on the
way (``checked.py``), each failure one line naming the method and position.

Nothing here is about a kind of game: a kind says what an exploration needs
of its games (``PlainRules``) and completes the listed form with its moves.
This package knows games and errors, and nothing of Dask, files or solvers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tablebase.lazy import exports

if TYPE_CHECKING:
    from tablebase.listing.expand import Chunk, expand_chunk
    from tablebase.listing.explore import Exploration
    from tablebase.listing.game_limits import (
        LimitReached,
        Limits,
        current_limits,
        limits_set,
    )
    from tablebase.listing.levels import (
        LevelRows,
        Listing,
        distinct,
        gather,
        level_rows,
        level_table,
        list_keys,
    )
    from tablebase.listing.listed_forms import ListedKeyedGame, ListedPlainGame, one_part
    from tablebase.listing.rules import PlainRules

# Each name is imported with its submodule when it is first used (a reader of tables imports the
# listed forms, never the exploration).
_EXPORTS = {
    "expand": ("Chunk", "expand_chunk"),
    "explore": ("Exploration",),
    "listed_forms": ("ListedKeyedGame", "ListedPlainGame", "one_part"),
    "levels": ("LevelRows", "Listing", "distinct", "gather", "level_rows", "level_table", "list_keys"),
    "game_limits": ("LimitReached", "Limits", "current_limits", "limits_set"),
    "rules": ("PlainRules",),
}
__getattr__ = exports(__name__, _EXPORTS)
__all__ = [
    "Chunk",
    "Exploration",
    "LevelRows",
    "LimitReached",
    "Limits",
    "ListedKeyedGame",
    "ListedPlainGame",
    "Listing",
    "PlainRules",
    "current_limits",
    "distinct",
    "expand_chunk",
    "gather",
    "level_rows",
    "level_table",
    "limits_set",
    "list_keys",
    "one_part",
]
