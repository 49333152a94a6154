"""What building a table asks of each kind of game: the building half of ``tablebase.kinds``.

One builder per kind (``impartial.py``, ``partizan.py``, ``scored.py``),
bound to a game as written (``builder_of``): the engine's listing of its
positions where it does not list them itself, its solver, what a worker
holds per position, the probe index's rules, how its artifacts are made
(``artifact_build.py``: a partizan table's values table, ``values_build.py``; an octal
table's figures, ``heap_figures.py``) and an oracle that ``check-game``
compares the solver with. Once listed, a builder holds the reading kind
bound to the listed form (``Builder.kind``). The build, verify, check-game
and ``tablebase index`` ask a builder; a program that only reads never
imports this package, nor the solvers and the exploration it imports.
"""

from __future__ import annotations

import importlib

from tablebase.builders.artifact_build import ArtifactBuild, ArtifactCheck, Say
from tablebase.builders.builder import Builder, Footprint, Wide
from tablebase.games import Game
from tablebase.kinds import known_kind

#: each kind's builder by the kind's name, imported at the first game of the kind
BUILDERS = {"impartial": "tablebase.builders.impartial:ImpartialBuilder",
            "partizan": "tablebase.builders.partizan:PartizanBuilder",
            "scored": "tablebase.builders.scored:ScoredBuilder"}


def builder_of(game: Game, symmetry: bool = False) -> Builder:
    """The game's builder, bound to it as written; ``symmetry``: its table keeps one position of each orbit."""
    return builder_named(game.kind)(game, symmetry)


def builder_named(name: str) -> type[Builder]:
    """The builder class of a kind by its name, as manifests record it."""
    known_kind(name)
    module, _, cls = BUILDERS[name].partition(":")
    builder: type[Builder] = getattr(importlib.import_module(module), cls)
    return builder


__all__ = ["BUILDERS", "ArtifactBuild", "ArtifactCheck", "Builder", "Footprint", "Say", "Wide", "builder_named",
           "builder_of"]
