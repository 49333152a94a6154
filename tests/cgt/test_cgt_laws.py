"""Algebraic laws on random canonical forms (hypothesis)."""

from __future__ import annotations

from cgt_helpers import games
from hypothesis import given, settings

from tablebase.cgt import ZERO, from_options

SETTINGS = settings(max_examples=150, deadline=None)


@SETTINGS
@given(games(), games())
def test_sum_is_commutative(g, h):
    assert g + h == h + g


@SETTINGS
@given(games(), games(), games())
def test_sum_is_associative(g, h, k):
    assert (g + h) + k == g + (h + k)


@SETTINGS
@given(games())
def test_difference_with_itself_is_zero(g):
    assert g - g == ZERO
    assert (g - g).id == ZERO.id


@SETTINGS
@given(games())
def test_canonical_forms_are_fixed_points(g):
    rebuilt = from_options(g.left_options, g.right_options)
    assert rebuilt.id == g.id
    # no option of a canonical form is dominated
    for side, better in ((g.left_options, lambda a, b: a <= b), (g.right_options, lambda a, b: b <= a)):
        for a in side:
            assert not any(b != a and better(a, b) for b in side)


@SETTINGS
@given(games())
def test_negation_is_an_involution(g):
    assert -(-g) == g
    assert (-g).left_options == [-x for x in g.right_options] or sorted(
        x.id for x in (-g).left_options) == sorted((-x).id for x in g.right_options)


@SETTINGS
@given(games(), games(), games())
def test_comparison_is_a_partial_order(g, h, k):
    assert g <= g
    if g <= h and h <= g:
        assert g == h
    if g <= h and h <= k:
        assert g <= k
    assert (g <= h) == (g - h <= ZERO) == (ZERO <= h - g)


@SETTINGS
@given(games(), games())
def test_compare_is_consistent(g, h):
    c = g.compare(h)
    assert c == {"<": ">", ">": "<", "=": "=", "||": "||"}[h.compare(g)]
    assert (c == "<") == (g < h)
    assert (c == "||") == g.is_confused_with(h)


@SETTINGS
@given(games(), games())
def test_adding_order_preserving(g, h):
    if g <= h:
        assert g + h <= h + h


@SETTINGS
@given(games())
def test_outcome_matches_comparison_with_zero(g):
    expected = {(True, True): "P", (True, False): "L", (False, True): "R", (False, False): "N"}
    assert g.outcome == expected[(g >= ZERO, g <= ZERO)]


@SETTINGS
@given(games(), games())
def test_stops_and_mean_of_sums(g, h):
    assert g.left_stop >= g.right_stop or g.is_number
    assert (g + h).mean == g.mean + h.mean
    assert g.right_stop <= g.mean <= g.left_stop
