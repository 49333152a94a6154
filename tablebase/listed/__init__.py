"""A game over the engine's listing of its positions, as the solvers and the lookups read it.

A game that does not list its own levels is listed by the engine before it
is built (``tablebase.listing``); its keyed form is then the listing's
(``listed_forms.py``: ``ListedPlainGame``, each kind completing it with its moves,
and ``ListedKeyedGame``), each level's rows as ``LevelRows`` (``level_rows.py``).
A built table's listing is its rows' notation, so that reading a plain
game's table needs this package and none of the exploration.
"""

from tablebase.listed.level_rows import LevelRows, distinct, gather
from tablebase.listed.listed_forms import ListedKeyedGame, ListedPlainGame, level_of, one_part

__all__ = ["LevelRows", "ListedKeyedGame", "ListedPlainGame", "distinct", "gather", "level_of", "one_part"]
