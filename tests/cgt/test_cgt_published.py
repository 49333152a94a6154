"""Published values, each with its source.

Sources:
  [CGS-T]  CGSuite's own test cases, lib/core/src/test/scala/org/cgsuite/lang/
           CanonicalShortGameTestCase.scala (input, output, birthday, options,
           stops, temperature) in github.com/aaron-siegel/cgsuite.
  [CGS-C]  CGSuite, lib/core/src/test/scala/org/cgsuite/core/CanonicalShortGameTest.scala
           (the switch {3||2|1}: mean 9/4, temperature 3/4; sums of ups).
  [CGS-G]  CGSuite, lib/core/src/test/scala/org/cgsuite/lang/GameGridTest.scala
           (Domineering on the empty 4x4 grid).
  [WIKI]   Wikipedia, "Domineering": the 2x2 board is +-1, the 1x4 row is -2 and the
           2x3 board (2 rows, Left playing vertically) is {2|-1/2} with mean 3/4 and
           temperature 5/4.
  [BERL]   E. Berlekamp, class notes "2xN Domineering" (Math 275, Berkeley, 2003):
           1/2|-2 = -3/4 +- 5/4 and 5/2|1 = 7/4 +- 3/4.
  [WW]     Berlekamp, Conway and Guy, Winning Ways: ^ = {0|*}, ^* = {0,*|0},
           ^^* = {0|^}, and ^ + ^ = ^^.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from cgt_helpers import rectangle

from tablebase.cgt import ZERO, from_options, integer, parse


def texts(games) -> list[str]:
    return [str(g) for g in games]


@pytest.mark.parametrize(
    "source, text, printed, birthday, lefts, rights, stops, temperature",
    [
        ("CGS-T", "0", "0", 0, [], [], ("0", "0"), Fraction(-1)),
        ("CGS-T", "5", "5", 5, ["4"], [], ("5", "5"), Fraction(-1)),
        ("CGS-T", "-1/2", "-1/2", 2, ["-1"], ["0"], ("-1/2", "-1/2"), Fraction(-1, 2)),
        ("CGS-T", "25/16", "25/16", 6, ["3/2"], ["13/8"], ("25/16", "25/16"), Fraction(-1, 16)),
        ("CGS-T", "*8", "*8", 8, ["0", "*", "*2", "*3", "*4", "*5", "*6", "*7"],
         ["0", "*", "*2", "*3", "*4", "*5", "*6", "*7"], ("0", "0"), Fraction(0)),
        ("CGS-T", "^", "^", 2, ["0"], ["*"], ("0", "0"), Fraction(0)),
        ("CGS-T", "v*", "v*", 2, ["0"], ["0", "*"], ("0", "0"), Fraction(0)),
        ("CGS-T", "6+^*", "6^*", 8, ["6", "6*"], ["6"], ("6", "6"), Fraction(0)),
        ("CGS-T", "^*6", "^*6", 8, ["0"], ["*7"], ("0", "0"), Fraction(0)),
        ("CGS-T", "73/16+v9*8", "73/16v9*8", 27, ["73/16v8*9"], ["73/16"],
         ("73/16", "73/16"), Fraction(0)),
        ("CGS-T", "{0|*||*|||*||||*}", "^[4]", 5, ["^[3]"], ["*"], ("0", "0"), Fraction(0)),
        ("CGS-T", "{0||0|v*}", "{0|^<2>}", 4, ["0"], ["^<2>"], ("0", "0"), Fraction(0)),
    ],
)
def test_cgsuite_test_cases(source, text, printed, birthday, lefts, rights, stops, temperature):
    g = parse(text)
    assert str(g) == printed
    assert g.birthday == birthday
    assert texts(g.left_options) == lefts
    assert texts(g.right_options) == rights
    assert (str(g.left_stop), str(g.right_stop)) == stops
    assert g.temperature == temperature


def test_cgsuite_huge_integer():
    # [CGS-T] -1823437481924: birthday 1823437481924, Right option -1823437481923.
    g = parse("-1823437481924")
    assert g.birthday == 1823437481924
    assert texts(g.right_options) == ["-1823437481923"] and g.left_options == []


def test_cgsuite_switch_mean_and_temperature():
    # [CGS-C] switch = {3 | {2|1}}: mean 9/4, temperature 3/4; switch + switch
    # has Left option 5, and its Right option has Left options {4, {5|4}} and Right option 3.
    switch = from_options([integer(3)], [from_options([integer(2)], [integer(1)])])
    assert str(switch) == "{3||2|1}"
    assert switch.mean == Fraction(9, 4) and switch.temperature == Fraction(3, 4)
    doubled = switch + switch
    assert texts(doubled.left_options) == ["5"]
    (right,) = doubled.right_options
    assert texts(right.left_options) == ["4", "{5|4}"] and texts(right.right_options) == ["3"]
    assert doubled - switch == switch


def test_ups_and_stars():
    # [WW] and [CGS-C]
    up, star = parse("^"), parse("*")
    assert str(from_options([ZERO], [star])) == "^"
    assert str(from_options([ZERO, star], [ZERO])) == "^*"
    assert str(from_options([ZERO], [up])) == "^^*"
    assert str(parse("{0|^}")) == "^^*"
    assert str(up + up) == "^^" and texts((up + up).right_options) == ["^*"]
    assert str(up + star) == "^*"
    assert texts((up + up + up).right_options) == ["^^*"]
    assert up > ZERO and up.is_confused_with(star) and (up + star).is_confused_with(ZERO)


@pytest.mark.parametrize("text, mean, temperature", [
    ("{1/2|-2}", Fraction(-3, 4), Fraction(5, 4)),  # [BERL]
    ("{5/2|1}", Fraction(7, 4), Fraction(3, 4)),  # [BERL]
])
def test_berlekamp_switches(text, mean, temperature):
    g = parse(text)
    assert (g.mean, g.temperature) == (mean, temperature)


def test_domineering_small_boards():
    # [WIKI]
    assert str(rectangle(2, 2)) == "+-1"
    assert str(rectangle(1, 4)) == "-2"
    g = rectangle(2, 3)
    assert str(g) == "{2|-1/2}"
    assert g.mean == Fraction(3, 4) and g.temperature == Fraction(5, 4)
    assert g.outcome == "N"


def test_domineering_4x4():
    # [CGS-G] game.grid.Domineering(Grid.Empty(4,4)).CanonicalForm
    g = rectangle(4, 4)
    assert str(g) == "+-{0,{{2|0},2Tiny(2)|{2|0},Miny(2)}}"
    assert parse(str(g)) == g
