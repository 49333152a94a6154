"""Temperature theory against its definitions and published values.

Sources:
  [SIE]   A. N. Siegel, Combinatorial Game Theory (AMS, 2013), Chapter II.5: G_t for t >= -1,
          the thermograph's walls are the stops of G_t, cooling by more than the temperature
          gives the mean, and cooling is a homomorphism, (G + H)_t = G_t + H_t (Thm II.5.14).
  [WW]    Berlekamp, Conway and Guy, Winning Ways, Chapter 6: heating is the inverse of
          cooling; Norton multiplication by an integer is repeated addition; overheating
          turns an integer n into n.s.
  [BERL]  E. Berlekamp, "2xN Domineering" (Math 275 notes, Berkeley, 2003): 1/2|-2 = -3/4 +- 5/4.
  [CGS-D] CGSuite's documentation of CanonicalShortGame (CanonicalShortGame.cgs in
          github.com/aaron-siegel/cgsuite): "G.Freeze is equal to G.Cool(G.Temperature) and is
          always infinitesimally close to a number"; temperature of m/2^n is -1/2^n.
  [WIKI]  Wikipedia, "Domineering": 2 rows x 3 columns is {2|-1/2}.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from cgt_helpers import games
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.cgt import ZERO, CGTError, Value, dyadic, from_options, integer, nimber, parse, up

SETTINGS = settings(max_examples=150, deadline=None)
temperatures = st.sampled_from([Fraction(-1, 2), Fraction(-1, 4), Fraction(0), Fraction(1, 4), Fraction(1, 2),
                                Fraction(1), Fraction(3, 2), Fraction(2), Fraction(3)])


def cooled_by_definition(g: Value, t: Fraction) -> Value:
    """G_t by [SIE]'s definition, on the canonical form, without the module's shortcuts:
    {G^L_t - t | G^R_t + t}, unless G_t' is infinitesimally close to a number x for some
    t' < t, then x. The least such t' is the temperature, found here from the thermograph."""
    if g.is_number and g.number == int(g.number):
        return g
    if g.temperature < t:
        return dyadic(g.mean)
    return from_options([cooled_by_definition(x, t) - dyadic(t) for x in g.left_options],
                        [cooled_by_definition(x, t) + dyadic(t) for x in g.right_options])


@SETTINGS
@given(games(), temperatures)
def test_cooling_follows_the_definition(g, t):
    assert g.cool(t) == cooled_by_definition(g, t)


@SETTINGS
@given(games(), temperatures)
def test_the_walls_are_the_stops_of_the_cooled_game(g, t):
    # [SIE] the thermograph at height t is (L(G_t), R(G_t)).
    cooled = g.cool(t)
    assert g.thermograph.value_at(t) == (cooled.left_stop, cooled.right_stop)


@SETTINGS
@given(games(), st.sampled_from([Fraction(1, 8), Fraction(1, 2), Fraction(1), Fraction(5)]))
def test_cooling_by_more_than_the_temperature_gives_the_mean(g, extra):
    cooled = g.cool(max(g.temperature, Fraction(-1, 2)) + extra)
    assert cooled.is_number and cooled.number == g.mean


@SETTINGS
@given(games())
def test_cooling_by_zero_changes_nothing(g):
    assert g.cool(0) == g


@SETTINGS
@given(games(), games(), temperatures)
def test_cooling_is_a_homomorphism(g, h, t):
    # [SIE] Theorem II.5.14
    assert (g + h).cool(t) == g.cool(t) + h.cool(t)
    assert (-g).cool(t) == -g.cool(t)


@SETTINGS
@given(games(), st.sampled_from([Fraction(1, 4), Fraction(1), Fraction(2)]))
def test_heating_then_cooling_gives_the_game_back(g, t):
    # [WW] heating is the inverse of cooling
    assert g.heat(t).cool(t) == g


def heated_by_definition(g: Value, t: Value) -> Value:
    if g.is_number:
        return g
    return from_options([heated_by_definition(x, t) + t for x in g.left_options],
                        [heated_by_definition(x, t) - t for x in g.right_options])


@SETTINGS
@given(games(), st.sampled_from(["1", "1/2", "*", "^", "{1|0}", "-1"]))
def test_heating_follows_the_definition(g, t):
    assert g.heat(parse(t)) == heated_by_definition(g, parse(t))


def overheated_by_definition(g: Value, s: Value, t: Value) -> Value:
    if g.is_number and g.number == int(g.number):
        total = ZERO
        for _ in range(abs(int(g.number))):
            total = total + (s if g.number > 0 else -s)
        return total
    return from_options([overheated_by_definition(x, s, t) + t for x in g.left_options],
                        [overheated_by_definition(x, s, t) - t for x in g.right_options])


@SETTINGS
@given(games(), st.sampled_from(["1", "1*", "^", "2"]), st.sampled_from(["1", "1*", "1/2"]))
def test_overheating_follows_the_definition(g, s, t):
    # [WW] an integer n becomes n copies of s; anything else {G^L + t | G^R - t}, overheated
    assert g.overheat(parse(s), parse(t)) == overheated_by_definition(g, parse(s), parse(t))


@SETTINGS
@given(games())
def test_freezing_is_infinitesimally_close_to_the_mean(g):
    # [CGS-D]
    frozen = g.freeze
    assert (frozen - dyadic(g.mean)).is_infinitesimal
    if frozen.uptimal_expansion is None:
        assert frozen == g.cool(g.temperature)


def test_published_temperatures_and_freezes():
    # [WIKI], [BERL]: {2|-1/2} = 3/4 +- 5/4, so cooled by 5/4 it is 3/4*, and 1/2|-2 = -3/4 +- 5/4.
    domineering = parse("{2|-1/2}")
    assert domineering.cool(Fraction(5, 4)) == parse("3/4*") == domineering.freeze
    assert domineering.cool(Fraction(1, 2)) == parse("{3/2|0}")
    assert parse("{1/2|-2}").freeze == parse("-3/4*")
    # [CGS-D] temperatures of numbers
    assert [parse(x).temperature for x in ("7", "-3/8", "25/16")] == [-1, Fraction(-1, 8), Fraction(-1, 16)]


def test_cooling_at_or_below_minus_one_is_refused():
    # [CGS-D] CanonicalShortGame.cool: "Invalid cooling temperature (must be > -1)"
    with pytest.raises(CGTError, match="must be > -1"):
        parse("{1|-1}").cool(-1)
    with pytest.raises(CGTError):
        parse("{1|-1}").cool(parse("*"))


@settings(max_examples=60, deadline=None)
@given(games(), st.integers(-4, 4))
def test_norton_multiples_of_an_integer_are_sums(g, n):
    # [WW] n.U is n copies of U (of -U when n < 0)
    total = ZERO
    for _ in range(abs(n)):
        total = total + (g if n > 0 else -g)
    assert integer(n).norton_product(g) == total


def test_thermograph_of_a_switch():
    # [SIE] {a|b} with a > b: walls a - t and b + t meet at t = (a - b)/2 over the mean (a + b)/2.
    th = parse("{3|-1}").thermograph
    assert (th.temperature, th.mast) == (2, 1)
    assert th.value_at(0) == (3, -1) and th.value_at(1) == (2, 0) and th.value_at(5) == (1, 1)
    assert str(th) == "Thermograph(1,[2],[0,-1],1,[2],[0,1])"
    assert th.left_wall.critical_points == [2] and th.right_wall.slopes == [0, 1]


@SETTINGS
@given(games())
def test_thermograph_agrees_with_mean_temperature_and_stops(g):
    th = g.thermograph
    assert (th.mast, th.temperature) == (g.mean, g.temperature)
    if not g.is_number:
        assert th.value_at(0) == (g.left_stop, g.right_stop)


def test_incentives_of_up_and_star():
    # [WW] ^'s incentives: Left's 0 - ^ = v, Right's ^ - * = ^*; the larger, ^*, is kept.
    assert [str(x) for x in up(1).incentives] == ["^*"]
    assert [str(x) for x in up(1).left_incentives] == ["v"]
    assert [str(x) for x in nimber(1).incentives] == ["*"]


@SETTINGS
@given(games())
def test_incentives_by_the_definition(g):
    raw = [x - g for x in g.left_options] + [g - x for x in g.right_options]
    kept = g.incentives
    assert set(kept) <= set(raw)
    for x in raw:  # every incentive is at most a kept one, and no kept one is below another
        assert any(x <= k for k in kept)
    assert not any(a != b and a <= b for a in kept for b in kept)
