"""One class per kind of game: the only place that knows what is special about a kind.

The generic layers (build, query, the command line) never ask what kind a
game is: they bind its kind to it, ``kind = kind_of(game)``, and ask the kind
object for what they need (``base.Kind``): ``kind.columns()``,
``kind.solver()``, ``kind.lookup(...)``. Where they hold no game, only a
table's manifest (SQL over its files), ``kind_named(manifest.kind)`` gives
the class, which answers what holds for every game of the kind.
"""

from __future__ import annotations

import importlib

from tablebase.errors import TablebaseError
from tablebase.games import Game
from tablebase.kinds.artifacts import Artifact, ArtifactCheck
from tablebase.kinds.budget import Bounds, Budget, batch_fits, searching
from tablebase.kinds.kind import Footprint, Kind, StoredTable
from tablebase.kinds.trust import SOURCE_CHANGED, Trust

#: each kind by its name, as manifests record it, and where its class is: imported at the first table of
#: the kind, so that reading an impartial table does not import the partizan kind's CGT algebra
KINDS = {"impartial": "tablebase.kinds.impartial:Impartial", "partizan": "tablebase.kinds.partizan:Partizan",
         "scored": "tablebase.kinds.scored:Scored"}


def kind_of(game: Game | type[Game], symmetry: bool = False) -> Kind:
    """The game's kind, bound to it (a game class will do for what only its declarations decide); ``symmetry``:
    its table keeps one position of each orbit (``Kind.symmetry``)."""
    return kind_named(game.kind)(game, symmetry=symmetry)


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


__all__ = ["KINDS", "SOURCE_CHANGED", "Artifact", "ArtifactCheck", "Bounds", "Budget", "Footprint", "Kind",
           "StoredTable", "Trust", "batch_fits", "kind_named", "kind_of", "known_kind", "searching"]
