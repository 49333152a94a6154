"""The engine's listing of a game's positions, for games that do not list their own levels.

A plain game (positions as Python values) is explored forward from its start
positions (``explore.py``, with batches played on workers by ``expand.py``)
and its positions numbered by level and notation (``numbering.py``); a keyed
game that gives ``start_keys()`` is listed level by level in numpy batches
(``levels.list_keys``). Either way the result is a ``Listing``, and the game's
keyed form over it (``tablebase.listed``) is what the solvers and lookups work with.

The game's own code runs under limits (``game_limits.py``): a time per position,
a number of positions, a range of levels; what it returns is checked on the
way (``checked.py``), each failure one line naming the method and position.

Nothing here is about a kind of game: a kind's builder says what an
exploration needs of its games (``PlainRules``, ``tablebase.builders``).
This package is the building half's: it knows games, the listed forms and
errors, and nothing of Dask, files or solvers; a program that only reads
tables never imports it.
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
    from tablebase.listing.levels import Listing, level_rows, level_table, list_keys
    from tablebase.listing.rules import PlainRules

# Each name is imported with its submodule when it is first used: a worker that plays a share imports
# what that takes, not the whole exploration.
_EXPORTS = {
    "expand": ("Chunk", "expand_chunk"),
    "explore": ("Exploration",),
    "levels": ("Listing", "level_rows", "level_table", "list_keys"),
    "game_limits": ("LimitReached", "Limits", "current_limits", "limits_set"),
    "rules": ("PlainRules",),
}
__getattr__ = exports(__name__, _EXPORTS)
__all__ = [
    "Chunk",
    "Exploration",
    "LimitReached",
    "Limits",
    "Listing",
    "PlainRules",
    "current_limits",
    "expand_chunk",
    "level_rows",
    "level_table",
    "limits_set",
    "list_keys",
]
