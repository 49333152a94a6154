"""Atomic weights and reduced canonical forms against their definitions and published values.

Sources:
  [LIP]   Albert, Nowakowski and Wolfe, Lessons in Play, Chapter 9 (all-small games): the
          atomic weight of an all-small game is additive, aw(n.^ + *m) = n, aw(-G) = -aw(G),
          and the two-ahead rule: aw(G) >= 2 implies G > 0 (and aw(G) <= -2 implies G < 0).
  [SIE]   A. N. Siegel, Combinatorial Game Theory, Chapter II.6 (reduced canonical form): the
          reduced canonical form of G is the simplest game infinitesimally close to G; games
          infinitesimally close to each other have the same one.
  [CGS-T] CGSuite's test cases (CanonicalShortGameTestCase.scala): {^^^|vv}.AtomicWeight is
          {1|0}, {1|^^||^} has 2, {1|^^^||^} is not atomic, {3||2*|1*} reduces to {3||2|1}.
"""

from __future__ import annotations

import pytest
from cgt_helpers import canonical, dicotic_games, games
from hypothesis import given, settings

from tablebase.cgt import ZERO, CGTError, integer, nimber, number_up_star, parse, up

SETTINGS = settings(max_examples=150, deadline=None)


@SETTINGS
@given(dicotic_games())
def test_dicotic_games_are_all_small_and_atomic(raw):
    g = canonical(raw)
    assert g.is_all_small and g.is_infinitesimal and g.is_atomic


@SETTINGS
@given(dicotic_games())
def test_two_ahead_rule(raw):
    # [LIP]
    g = canonical(raw)
    w = g.atomic_weight
    if w >= 2:
        assert g > ZERO
    if w <= -2:
        assert g < ZERO


@SETTINGS
@given(dicotic_games(max_leaves=6), dicotic_games(max_leaves=6))
def test_atomic_weight_is_additive(a, b):
    # [LIP]
    g, h = canonical(a), canonical(b)
    assert (g + h).atomic_weight == g.atomic_weight + h.atomic_weight
    assert (-g).atomic_weight == -g.atomic_weight


@pytest.mark.parametrize("ups", range(-4, 5))
@pytest.mark.parametrize("nim", range(0, 4))
def test_atomic_weight_of_ups_and_stars(ups, nim):
    # [LIP] aw(n.^ + *m) = n
    assert number_up_star(0, ups, nim).atomic_weight == integer(ups)


def test_published_atomic_weights():
    # [CGS-T]
    assert str(parse("{^^^|vv}").atomic_weight) == "{1|0}"
    assert parse("{1|^^||^}").atomic_weight == integer(2)
    assert not parse("{1|^^^||^}").is_atomic
    with pytest.raises(CGTError, match="not atomic"):
        parse("{1|-1}").atomic_weight  # not infinitesimal


@SETTINGS
@given(games())
def test_reduced_form_is_infinitesimally_close_and_reduced(g):
    # [SIE]
    r = g.reduced_canonical_form
    assert (r - g).is_infinitesimal
    assert r.reduced_canonical_form == r
    if g.is_infinitesimal:
        assert r == ZERO


@SETTINGS
@given(games(), dicotic_games(max_leaves=5))
def test_infinitesimally_close_games_reduce_alike(g, raw):
    # [SIE] G and G + e (e infinitesimal) have the same reduced canonical form.
    assert (g + canonical(raw)).reduced_canonical_form == g.reduced_canonical_form
    assert (g + nimber(3) + up(2)).reduced_canonical_form == g.reduced_canonical_form


def test_published_reduced_forms():
    # [CGS-T]
    assert str(parse("{3||2*|1*}").reduced_canonical_form) == "{3||2|1}"
    assert str(parse("{3/2*|1/2||{0|-3},{-1*,{-1/2|-1*}|-5/2}}").reduced_canonical_form) == \
        "{3/2|1/2||{0|-3},{-1/2|-1||-5/2}}"
    assert parse("73/16v9*8").reduced_canonical_form == parse("73/16")
