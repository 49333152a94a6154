"""One object per kind of game: the only place that knows what is special about a kind.

The generic layers (build, query, the command line) never ask what kind a
game is; they ask ``kind_of(game)`` for what they need (see ``base.Kind``).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from tablebase.errors import TablebaseError
from tablebase.games import Game
from tablebase.kinds.base import SOURCE_CHANGED, Artifact, ArtifactCheck, Footprint, Kind, StoredTable, table_game
from tablebase.kinds.impartial import Impartial
from tablebase.kinds.listing import Listing
from tablebase.kinds.partizan import Partizan
from tablebase.kinds.scored import Scored
from tablebase.solve.rows import positions_array as spelt

KINDS = MappingProxyType({k.name: k for k in (Impartial(), Partizan(), Scored())})


def kind_of(game: Game | Any) -> Kind:
    """The kind object of a game (in either form)."""
    return kind_named(game.kind)


def solver_for(game: Game | Any, place: Any = None, fresh: bool = False) -> Any:
    """The solver of a game that lists its own levels (the built-in games): its kind's choice."""
    return kind_of(game).solver(game, place, fresh)


def kind_named(name: str) -> Kind:
    """The kind object of a kind's name, as manifests record it."""
    try:
        return KINDS[name]
    except KeyError:
        raise TablebaseError(f"no kind of game {name!r}; kinds are {', '.join(KINDS)}") from None


__all__ = ["KINDS", "SOURCE_CHANGED", "Artifact", "ArtifactCheck", "Footprint", "Kind", "Listing", "StoredTable", "kind_named", "kind_of", "solver_for", "spelt", "table_game"]
