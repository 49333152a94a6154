"""Reading and printing CGSuite's notation."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from cgt_helpers import games
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.cgt import CGTError, CGTSyntaxError, dyadic, from_options, integer, nimber, number_up_star, parse, up


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
    "^[4]", "{0,v*|vv}", "+-{1,{2|0}}", "{1|0,*}", "{3|2|||1|0||-1|-2}",
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
    # comparisons: one relation, between two games, outside braces and arguments
    ("1 < 2 < 3", 7, "comparisons do not chain"),
    ("^ == ^ != *", 8, "comparisons do not chain"),
    ("1 <", 4, "expected a game but the text ended"),
    ("< 1", 1, "unexpected '<'"),
    ("(1 < 2) < 3", 1, "< needs a game, not a boolean"),
    ("{1|0}.Thermograph < 1", 1, "< needs a game, not a thermograph"),
    ("1 == {1,2}", 6, "== needs a game, not a set of games"),
    ("{1 < 2|0}", 4, "expected ',', '|' or '}'"),
    ("{1|0}.Cool(1 < 2)", 14, "expected ')'"),
])
def test_syntax_errors_say_where_in_one_line(text, column, words):
    with pytest.raises(CGTSyntaxError) as info:
        parse(text)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"at column {column}: ")
    assert words in message
    assert isinstance(info.value, ValueError)


# -- uptimals ---------------------------------------------------------------------------
# [CGS-U] CGSuite's lib/core/src/test/scala/org/cgsuite/core/UptimalTest.scala builds
# ^<2> = {0|v*}, ^<3> = {0|v* - ^<2>}, ^<4> = {0|v* - ^<2> - ^<3>} from options and checks that
# x + *m + a1.^ + a2.^<2> + a3.^<3> + a4.^<4> has the expansion x *m . a1 a2 a3 a4.
# [CGS-P] CGSuite's Uptimal.appendTo (lib/core/src/main/scala/org/cgsuite/core/Uptimal.scala):
# an expansion that is one +-1 prints as ^<n>/v<n>, a run of equal +-1s as ^[n]/v[n] (after the
# number, before the nimber, in parentheses where an option needs them); others print in braces.

def up_powers():
    up1 = from_options([integer(0)], [nimber(1)])
    down_star = -up1 + nimber(1)
    up2 = from_options([integer(0)], [down_star])
    up3 = from_options([integer(0)], [down_star - up2])
    up4 = from_options([integer(0)], [down_star - up2 - up3])
    return [up1, up2, up3, up4]


POWERS = up_powers()


def expansion_text(x, nim, coefs):
    """CGSuite's UptimalExpansion text: number (unless only a nimber), *m, '.', digits, '-' after negatives."""
    coefs = list(coefs)
    while coefs and coefs[-1] == 0:
        coefs.pop()
    head = (str(dyadic(x)) if nim == 0 or x != 0 else "") + ("" if nim == 0 else "*" if nim == 1 else f"*{nim}")
    digits = "".join(f"{abs(c)}" + ("-" if c < 0 else "") for c in coefs) or "0"
    return f"{head}.{digits}"


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([Fraction(0), Fraction(1), Fraction(-5, 4)]), st.integers(0, 4),
       st.lists(st.integers(-3, 3), min_size=4, max_size=4))
def test_uptimal_expansions_agree_with_sums_of_ups(x, nim, coefs):
    # [CGS-U]
    g = dyadic(x) + nimber(nim)
    for c, power in zip(coefs, POWERS):
        for _ in range(abs(c)):
            g = g + (power if c > 0 else -power)
    assert g.uptimal_expansion == expansion_text(x, nim, coefs)
    assert parse(str(g)) == g


def compact_text(x, nim, coefs):
    """How [CGS-P] prints an uptimal of length >= 2, or None when it takes braces."""
    nonzero = [c for c in coefs if c]
    unit = len(nonzero) == 1 and abs(nonzero[0]) == 1
    unit_sum = abs(coefs[0]) == 1 and len(set(coefs)) == 1
    if not (unit or unit_sum):
        return None
    arrow = "^" if coefs[-1] > 0 else "v"
    star = "" if nim == 0 else "*" if nim == 1 else f"*{nim}"
    return (str(dyadic(x)) if x else "") + arrow + (f"<{len(coefs)}>" if unit else f"[{len(coefs)}]") + star


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([Fraction(0), Fraction(2), Fraction(-1, 2)]), st.integers(0, 3),
       st.lists(st.sampled_from([-1, 0, 1, 1, 2]), min_size=1, max_size=3).map(lambda c: c + [1]))
def test_uptimals_print_as_cgsuite_prints_them(x, nim, coefs):
    g = dyadic(x) + nimber(nim)
    for n, c in enumerate(coefs, start=1):
        for _ in range(abs(c)):
            g = g + (up(1).pow(n) if c > 0 else -up(1).pow(n))
    expected = compact_text(x, nim, coefs)
    if expected is not None:
        assert str(g) == expected
        assert str(from_options([g], [integer(-5)])) == "{" + expected + "|-5}"
        hot = g + integer(3)  # the lone option of +- takes parentheses unless it is compact
        assert str(from_options([hot], [-hot])) == f"+-({compact_text(x + 3, nim, coefs)})"
    else:
        assert str(g).startswith("{")
    assert parse(str(g)) == g and parse(str(-g)) == -g


@pytest.mark.parametrize("text, form", [
    ("^<2>", "{0|v*}"), ("^<2>*", "{0,*|v}"), ("^[2]", "{^|*}"), ("^[2]*", "{0,^*|0}"),  # [CGS-E] EvalTest
    ("v<2>", "{^*|0}"), ("^<1>", "^"), ("^[1]", "^"), ("^[3]", "{^[2]|*}"), ("^<3>", "{0|v*-^<2>}"),
    ("5^<2>*3", "5 + {0|v*} + *3"), ("-1/2v[2]", "-1/2 - {^|*}"),
])
def test_uptimals_read(text, form):
    assert parse(text) == parse(form)
    assert parse("^.Pow(2) + ^.PowTo(3)") == parse("^<2> + ^[3]")


# -- the grammar --------------------------------------------------------------------------

@pytest.mark.parametrize("text, same_as", [
    ("3+-1", "{4|2}"),                                   # binary +-: 3 + (+-1)
    ("3 +- 1", "{4|2}"),
    ("3 + -1", "2"),                                     # + then a negative number
    ("+-1+-2", "(+-1) + (+-2)"),
    ("1 +- 1:1", "1 + +-(1:1)"),                         # binary +- takes an ordinal sum
    ("+-1:1", "(+-1):1"),                                # unary +- binds tighter than :
    ("-1:1", "(-1):1"),
    ("- 1:1", "(-1):1"),
    ("1:1:1", "(1:1):1"),
    ("1:-1", "1/2"),                                     # Hackenbush: blue then red is 1/2
    ("2 - 1:1", "2 - (1:1)"),
    ("{1|0}.Cool(1/2) + 1", "({1|0}.Cool(1/2)) + 1"),    # methods bind tightest
    ("-{1|0}.Cool(1/2)", "-({1|0}.Cool(1/2))"),
    ("{2|-1} Heat 1 + 1", "{2|-1}.Heat(2)"),             # infix methods bind loosest
    ("+-{1,2}", "{1,2|-1,-2}"),                          # a set after +- gives several options
    ("{3|1}.Overheat(1, 1/2)", "{7/2|1/2}"),             # 3 -> 3.1 + 1/2, 1 -> 1.1 - 1/2
])
def test_grammar(text, same_as):
    assert parse(text) == parse(same_as)


@pytest.mark.parametrize("text, column, words", [
    ("{1|0}.Frobnicate", 7, "no method 'Frobnicate'"),
    ("^<0>", 2, "at least 1"),
    ("^^<2>", 3, "at least 1"),
    ("{1|0} Freeze 2", 7, "unexpected 'Freeze'"),
    ("{1,2} + 1", 1, "needs a game"),
])
def test_grammar_errors_say_where(text, column, words):
    with pytest.raises(CGTSyntaxError) as info:
        parse(text)
    assert str(info.value).startswith(f"at column {column}: ") and words in str(info.value)


@pytest.mark.parametrize("text, words", [
    ("{1|0}.Cool(*)", "needs a number"),
    ("{1|0}.Pow(2)", "{0|H}"),
    ("{1|0}.Cool(1, 2)", "takes 1 argument"),
    ("{1|0}.Thermograph", "thermograph, not a game"),
    ("{1|0}.Thermograph + 1", "needs a game"),
])
def test_questions_without_an_answer_are_one_line_errors(text, words):
    with pytest.raises(CGTError) as info:
        parse(text)
    assert words in str(info.value) and "\n" not in str(info.value)
