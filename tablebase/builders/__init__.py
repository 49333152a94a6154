"""What building a table asks of each kind of game: the building half of ``tablebase.kinds``.

One builder per kind, bound to a game as written (``builder_of``): the
listing of its positions, its solver, its memory, its artifacts as they are
made (``artifact_build.py``), the probe index's rules and an oracle. A program
that only reads tables never imports this package.
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
