"""The algebra against the definition of game equality, by plain search.

G = H means G - H is a second-player win. Here "G - H" is never computed by
the algebra: the search plays the sum of the raw tree of G and the negated
raw tree of H directly, so it shares no code with tablebase.cgt's sums,
simplification or comparison.
"""

from __future__ import annotations

from fractions import Fraction

from cgt_helpers import (
    canonical,
    is_second_player_win,
    left_wins_moving_second,
    negate,
    outcome_by_play,
    raw_games,
    raw_of,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.cgt import number_up_star


@settings(max_examples=300, deadline=None)
@given(raw_games())
def test_game_minus_its_canonical_form_is_a_second_player_win(raw):
    g = canonical(raw)
    assert is_second_player_win(raw, negate(raw_of(g)))


@settings(max_examples=200, deadline=None)
@given(raw_games(max_leaves=6), raw_games(max_leaves=6))
def test_comparison_agrees_with_play(a, b):
    g, h = canonical(a), canonical(b)
    # G <= H  iff  H - G >= 0  iff  Left wins H - G when Right starts.
    assert (g <= h) == left_wins_moving_second(b, negate(a))
    assert (h <= g) == left_wins_moving_second(a, negate(b))
    assert (g == h) == is_second_player_win(a, negate(b))


@settings(max_examples=200, deadline=None)
@given(raw_games(max_leaves=6), raw_games(max_leaves=6))
def test_sum_agrees_with_play(a, b):
    total = canonical(a) + canonical(b)
    assert is_second_player_win(a, b, negate(raw_of(total)))


@settings(max_examples=200, deadline=None)
@given(raw_games())
def test_outcome_agrees_with_play(raw):
    assert canonical(raw).outcome == outcome_by_play(raw)


EMPTY = ((), ())
ONE = ((EMPTY,), ())


def raw_nimber(k: int):
    opts = tuple(raw_nimber(j) for j in range(k))
    return (opts, opts)


RAW_UP = ((EMPTY,), (raw_nimber(1),))
RAW_HALF = ((EMPTY,), (ONE,))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([(0, (), 0), (1, (ONE,), 0), (Fraction(1, 2), (RAW_HALF,), 0),
                        (-1, (), 1)]), st.integers(-3, 3), st.integers(0, 3))
def test_closed_forms_by_definition(number, ups, nim):
    """x + n.^ + *k kept in closed form equals the sum played out in full."""
    x, raw_x, negate_x = number
    parts = list(raw_x) + [raw_nimber(nim)]
    parts += [RAW_UP if ups > 0 else negate(RAW_UP)] * abs(ups)
    if negate_x:
        parts.append(negate(ONE))
    g = number_up_star(x, ups, nim)
    assert is_second_player_win(*parts, negate(raw_of(g)))


def simplest_by_search(a, b):
    """The number born first strictly between a and b (None = unbounded), by search."""
    born = [Fraction(0)]
    seen = {Fraction(0)}
    for _ in range(14):
        if any((a is None or a < x) and (b is None or x < b) for x in born):
            # among those born on the same day only one lies strictly between
            return next(x for x in born if (a is None or a < x) and (b is None or x < b))
        points = sorted(seen)
        born = [points[0] - 1, points[-1] + 1] + [(p + q) / 2 for p, q in zip(points, points[1:])]
        seen.update(born)
    raise AssertionError("not found")


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.none(), st.builds(Fraction, st.integers(-12, 12), st.sampled_from([1, 2, 4, 8]))),
       st.one_of(st.none(), st.builds(Fraction, st.integers(-12, 12), st.sampled_from([1, 2, 4, 8]))))
def test_options_that_are_numbers_give_the_simplest_number_between(a, b):
    from tablebase.cgt import dyadic, from_options

    if a is not None and b is not None and a >= b:
        return
    g = from_options([] if a is None else [dyadic(a)], [] if b is None else [dyadic(b)])
    assert g.is_number and g.number == simplest_by_search(a, b)


def raw_ordinal_sum(base, raw_h):
    """G:H played out: a move in the base G removes H; a move in H keeps G (Conway, On Numbers
    and Games, Ch. 15; Winning Ways, Ch. 2 for Hackenbush stalks)."""
    lefts, rights = base
    return (lefts + tuple(raw_ordinal_sum(base, x) for x in raw_h[0]),
            rights + tuple(raw_ordinal_sum(base, x) for x in raw_h[1]))


@settings(max_examples=150, deadline=None)
@given(raw_games(max_leaves=5), raw_games(max_leaves=5))
def test_ordinal_sum_agrees_with_play(a, b):
    # The base is G's canonical form; H counts by its value only, so H is played as a raw tree.
    g, h = canonical(a), canonical(b)
    result = g.ordinal_sum(h)
    assert is_second_player_win(raw_ordinal_sum(raw_of(g), b), negate(raw_of(result)))


def test_hackenbush_stalks_as_ordinal_sums():
    # Winning Ways, Ch. 2: a blue edge with a red one on top is 1/2; BBR = 3/2; BRR = 1/4; BRB = 3/4.
    from tablebase.cgt import integer

    blue, red = integer(1), integer(-1)
    assert blue.ordinal_sum(red) == Fraction(1, 2)
    assert integer(2).ordinal_sum(red) == Fraction(3, 2)
    assert blue.ordinal_sum(integer(-2)) == Fraction(1, 4)
    assert blue.ordinal_sum(red).ordinal_sum(blue) == Fraction(3, 4)
