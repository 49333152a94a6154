"""Reading and printing CGSuite's notation."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from hypothesis import given, settings

from cgt_helpers import games
from tablebase.cgt import CGTSyntaxError, dyadic, from_options, integer, nimber, number_up_star, parse, up


@settings(max_examples=300, deadline=None)
@given(games())
def test_parse_of_str_is_the_same_form(g):
    assert parse(str(g)).id == g.id


@settings(max_examples=200, deadline=None)
@given(games(), games())
def test_numbers_print_in_lowest_terms(g, h):
    text = str(g + h)
    assert not re.search(r"/1(?!\d)", text), text
    assert not re.search(r"\d/(?!\d)", text), text


@settings(max_examples=100, deadline=None)
@given(games(), games())
def test_parse_of_a_printed_sum(g, h):
    assert parse(f"{g} + ({h}) - {g}") == h
    assert parse(f"-({g})") == -g


@pytest.mark.parametrize("game, text", [
    (integer(5), "5"),
    (dyadic(Fraction(-3, 8)), "-3/8"),
    (nimber(1), "*"),
    (nimber(3), "*3"),
    (up(1), "^"),
    (up(2), "^^"),
    (up(3), "^3"),
    (up(-1), "v"),
    (up(-2), "vv"),
    (up(-3), "v3"),
    (number_up_star(0, 1, 1), "^*"),
    (number_up_star(Fraction(1, 2), 1, 1), "1/2^*"),
    (number_up_star(-1, 1, 0), "-1^"),
    (number_up_star(2, -2, 3), "2vv*3"),
    (number_up_star(1, 0, 1), "1*"),
])
def test_closed_forms_print_like_cgsuite(game, text):
    assert str(game) == text
    assert parse(text) == game


@pytest.mark.parametrize("text", [
    "+-1", "+-{3|2}", "{2|1/2||0}", "{3||2|1}", "2Tiny(2)", "Miny(2)", "Tiny({3|1})",
    "+-{0,{{2|0},2Tiny(2)|{2|0},Miny(2)}}", "{2|-1/2}", "-1Miny(2)", "+-(1*)", "{1*|-1/2}",
    "{^|*||*|||*}", "{0,v*|vv}", "+-{1,{2|0}}", "{1|0,*}", "{3|2|||1|0||-1|-2}",
])
def test_cgsuite_forms_print_back_unchanged(text):
    assert str(parse(text)) == text


def test_slashes_nest_up_to_four_then_braces():
    g = parse("0")
    for k in range(1, 6):
        g = from_options([integer(k)], [g])
    # {5|{4|{3|{2|{1|0}}}}}: a form that would need four slashes keeps its braces
    assert str(g) == "{5|{4||||3|||2||1|0}}"
    assert parse(str(g)) == g


def test_tiny_and_miny_values():
    tiny2 = parse("Tiny(2)")
    assert tiny2 == parse("{0||0|-2}") and tiny2 > 0 and tiny2 < up(1)
    assert parse("Miny(2)") == -tiny2
    assert parse("2Tiny(2)") == integer(2) + tiny2
    assert parse("Tiny({3|1})") == parse("{0||0|{-1|-3}}")


@pytest.mark.parametrize("text, column, words", [
    ("{2|1", 5, "expected '|' or '}'"),
    ("{2|1} + ", 9, "expected a game"),
    ("3/5", 3, "power of 2"),
    ("{1||2||3}", 1, "ambiguous"),
    ("(1 + *", 7, "expected ')'"),
    ("{1 2|0}", 4, "expected ',', '|' or '}'"),
    ("x", 1, "unexpected 'x'"),
    ("Tiny 2", 6, "expected '('"),
    ("", 1, "expected a game"),
])
def test_syntax_errors_say_where_in_one_line(text, column, words):
    with pytest.raises(CGTSyntaxError) as info:
        parse(text)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"at column {column}: ")
    assert words in message
    assert isinstance(info.value, ValueError)
