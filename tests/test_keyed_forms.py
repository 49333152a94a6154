"""The engine's keyed forms of a plain game have every method their kind's form protocol declares.

Solvers, lookups and probes work with ``KeyedForm`` and its kinds' protocols, never with how a game was
written. A plain game's keyed form is the engine's (``ListedPlainGame`` and each kind's subclass), so a
method added to a protocol and to ``KeyedGame`` but not to it would fail only where a plain game's table
is built or read.
"""

from __future__ import annotations

import pytest

from tablebase.games.forms import ImpartialForm, KeyedForm, PartizanForm, ScoredForm
from tablebase.games.keyed import KeyedGame
from tablebase.kinds.impartial import Impartial
from tablebase.kinds.partizan import Partizan
from tablebase.kinds.scored import Scored


def declared(protocol: type) -> set[str]:
    """The public methods a protocol and the protocols it extends declare."""
    return {name for klass in protocol.__mro__ if getattr(klass, "_is_protocol", False)
            for name, value in vars(klass).items() if callable(value) and not name.startswith("_")}


@pytest.mark.parametrize("kind, protocol", [(Impartial, ImpartialForm), (Partizan, PartizanForm),
                                            (Scored, ScoredForm)])
def test_a_plain_games_keyed_form_has_every_method_of_its_protocol(kind, protocol):
    methods = declared(protocol)
    assert {"locate", "locator", "parse", "level_of"} <= methods  # the protocol is read, not an empty set
    assert sorted(m for m in methods if not hasattr(kind.listed_class, m)) == []


def test_a_keyed_game_has_every_method_of_the_keyed_form():
    assert sorted(m for m in declared(KeyedForm) if not hasattr(KeyedGame, m)) == []
