"""Shared helpers for the tests of tablebase.cgt: random games, play by search, and cgt-py."""

from __future__ import annotations

import sys
import types
from fractions import Fraction
from functools import lru_cache

from hypothesis import strategies as st

from tablebase.cgt import Value, from_options, number_up_star

# A raw game is a pair (left options, right options) of raw games: a game
# tree with no simplification at all.
RawGame = tuple

EMPTY: RawGame = ((), ())


def raw_games(max_leaves: int = 8, width: int = 3) -> st.SearchStrategy:
    """Random raw game trees (small birthday)."""
    return st.recursive(
        st.just(EMPTY),
        lambda kids: st.tuples(
            st.lists(kids, max_size=width).map(tuple),
            st.lists(kids, max_size=width).map(tuple),
        ),
        max_leaves=max_leaves,
    )


def dicotic_games(max_leaves: int = 8, width: int = 3) -> st.SearchStrategy:
    """Random raw trees in which every position has moves for both players or for neither:
    the all-small games (every follower's value is infinitesimal)."""
    return st.recursive(
        st.just(EMPTY),
        lambda kids: st.tuples(
            st.lists(kids, min_size=1, max_size=width).map(tuple),
            st.lists(kids, min_size=1, max_size=width).map(tuple),
        ),
        max_leaves=max_leaves,
    )


# -- play by search: the definition, sharing no code with tablebase.cgt ---------

def negate(raw: RawGame) -> RawGame:
    """``-G``: the same tree with Left and Right swapped throughout."""
    lefts, rights = raw
    return (tuple(negate(x) for x in rights), tuple(negate(x) for x in lefts))


@lru_cache(maxsize=None)
def wins_moving_first(position: tuple, left_to_move: bool) -> bool:
    """Whether the player to move wins the sum of the raw games in ``position``."""
    side = 0 if left_to_move else 1
    for i, part in enumerate(position):
        for option in part[side]:
            after = position[:i] + (option,) + position[i + 1:]
            if not wins_moving_first(after, not left_to_move):
                return True
    return False


def is_second_player_win(*parts: RawGame) -> bool:
    return not wins_moving_first(parts, True) and not wins_moving_first(parts, False)


def left_wins_moving_second(*parts: RawGame) -> bool:
    """``sum >= 0``: Left wins when Right starts."""
    return not wins_moving_first(parts, False)


def outcome_by_play(*parts: RawGame) -> str:
    """The sum's outcome class: ``L`` (> 0), ``R`` (< 0), ``N`` (fuzzy) or ``P`` (= 0)."""
    left_first, right_first = wins_moving_first(parts, True), wins_moving_first(parts, False)
    return {(True, True): "N", (True, False): "L", (False, True): "R", (False, False): "P"}[left_first, right_first]


def canonical(raw: RawGame) -> Value:
    """Our canonical form of a raw tree (built bottom-up with from_options)."""
    lefts, rights = raw
    return from_options([canonical(x) for x in lefts], [canonical(x) for x in rights])


def raw_of(g: Value) -> RawGame:
    """The canonical form of ``g`` as a raw tree."""
    return (tuple(raw_of(x) for x in g.left_options), tuple(raw_of(x) for x in g.right_options))


dyadics = st.builds(
    lambda n, k: Fraction(n, 2**k), st.integers(-12, 12), st.integers(0, 3)
)
nus_values = st.builds(
    number_up_star, dyadics, st.integers(-4, 4), st.integers(0, 5)
)


@st.composite
def games(draw) -> Value:
    """Canonical forms of several shapes: raw trees, NUS values and their sums."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(nus_values)
    g = canonical(draw(raw_games()))
    if kind == 2:
        g = g + draw(nus_values)
    if kind == 3:
        g = g + canonical(draw(raw_games(max_leaves=5)))
    return g


@lru_cache(maxsize=None)
def domineering(cells: frozenset) -> Value:
    """Value of a Domineering board (Left places vertical dominoes), by its options."""
    lefts = [domineering(cells - {(r, c), (r + 1, c)}) for r, c in cells if (r + 1, c) in cells]
    rights = [domineering(cells - {(r, c), (r, c + 1)}) for r, c in cells if (r, c + 1) in cells]
    return from_options(lefts, rights)


def rectangle(rows: int, cols: int) -> Value:
    """Value of the empty Domineering board with these rows and columns."""
    return domineering(frozenset((r, c) for r in range(rows) for c in range(cols)))


def install_widget_stand_ins() -> None:
    """cgt-py's widget helpers import anywidget and traitlets at import time; its
    engine does not need them, so plain stand-ins do when they are missing."""

    class _Anything:
        def __init__(self, *args, **kwargs) -> None:
            pass

        def tag(self, **kwargs):
            return self

    def _stub_attribute(attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Anything

    for name in ("anywidget", "traitlets"):
        try:
            __import__(name)
        except ImportError:
            stub = types.ModuleType(name)
            stub.__getattr__ = _stub_attribute  # type: ignore[attr-defined]
            sys.modules[name] = stub


def import_cgt_py():
    """Import cgt-py (a test-only dependency, in the ``test`` extra)."""
    install_widget_stand_ins()
    import cgt_py

    return cgt_py
