"""One class per kind of game, as a table of it is read: the only place that knows what is special about a kind.

A reader binds a stored table's kind to its game and keyed form (``kind_of``)
and asks it; with only a manifest (SQL over a table's files),
``kind_named(manifest.kind)`` gives the class. Nothing here imports what
building a table takes (``tablebase.builders``).
"""

from __future__ import annotations

import importlib
from typing import Any

from tablebase.errors import TablebaseError
from tablebase.games import Game
from tablebase.kinds.artifacts import Artifact
from tablebase.kinds.budget import Bounds, Budget, batch_fits, searching
from tablebase.kinds.kind import Kind, Rows, StoredTable
from tablebase.kinds.trust import SOURCE_CHANGED, Trust

#: each kind by its name, as manifests record it, and where its class is: imported at the first table of
#: the kind, so that reading an impartial table does not import the partizan kind's CGT algebra
KINDS = {"impartial": "tablebase.kinds.impartial:Impartial", "partizan": "tablebase.kinds.partizan:Partizan",
         "scored": "tablebase.kinds.scored:Scored"}


def kind_of(game: Game, symmetry: bool = False, listing: dict[str, Any] | None = None,
            rows: Rows | None = None) -> Kind:
    """A built table's kind, bound to its game and the game's keyed form: the game itself where it lists its own
    levels, else its form over the listing the table's manifest records (``listing``: its sizes, move names
    and bound on moves; ``rows(level, start, stop)``: a level's notation, from the table's rows).
    ``symmetry``: the table keeps one position of each orbit (``Kind.symmetry``)."""
    listing = listing or {}
    return kind_named(game.kind).bound(game, symmetry, listing.get("sizes"), listing.get("move_names"), rows,
                                      listing.get("max_moves", 0))


def known_kind(name: str) -> None:
    """TablebaseError unless ``name`` is a kind's (its module is not imported)."""
    if name not in KINDS:
        raise TablebaseError(f"no kind of game {name!r}; kinds are {', '.join(KINDS)}")


def kind_named(name: str) -> type[Kind]:
    """The class of a kind by its name, as manifests record it."""
    known_kind(name)
    module, _, cls = KINDS[name].partition(":")
    kind: type[Kind] = getattr(importlib.import_module(module), cls)
    return kind


__all__ = ["KINDS", "SOURCE_CHANGED", "Artifact", "Bounds", "Budget", "Kind", "Rows", "StoredTable", "Trust",
           "batch_fits", "kind_named", "kind_of", "known_kind", "searching"]
