"""Comparisons in the calculator (``G < H``, ``G <> H``, ...) against the definition, by play.

G <= H means H - G >= 0: Left wins H - G when Right moves first. So every
relation of G to H is a set of outcome classes of H - G, and the search in
cgt_helpers plays H - G on raw trees (H's tree beside G's negated tree), with
no code of tablebase.cgt. Each operator's meaning is CGSuite's:
  [CGS-O]  lib/core/src/main/scala/org/cgsuite/lang/Ops.scala (Leq, Lt, Confused,
           LConfused, GConfused, ...) in github.com/aaron-siegel/cgsuite, commit e909ab8b.
  [CGS-W]  the same repository, lib/core/src/main/resources/org/cgsuite/help/docs/
           tutorials/getting-started/using-the-worksheet.cgsh: "less than or confused
           with, greater than or confused with, confused with"; `^^ > *`, `0 <| ^*`.
  [CGS-E]  the same repository, lib/core/src/test/scala/org/cgsuite/lang/EvalTest.scala:
           ("Confused", "3 <> 3+*", "true").
  [CGS-P]  the same repository, lib/core/src/main/scala/org/cgsuite/core/
           CanonicalShortGameOps.java (pow, powTo) and lib/core/src/test/scala/org/cgsuite/
           lang/GameTest.scala (^.Pow(3) is ^<3>, ^.PowTo(3) is ^[3]): for G = {0|H},
           G.Pow(n) = {0 | H - G.PowTo(n-1)} and G.PowTo(n) = {G.PowTo(n-1) | H}, PowTo(0) = 0.
  [WW]     Berlekamp, Conway and Guy, Winning Ways: G || H (confused, fuzzy) when
           neither G <= H nor G >= H; ^ = {0|*} > 0 but below every positive number; * and
           every nonzero nimber are confused with 0; ^^ = {0|^*}; +-x + +-x = 0.
"""

from __future__ import annotations

import json

import pytest
from cgt_helpers import EMPTY, RawGame, is_second_player_win, negate, outcome_by_play, raw_games, raw_of
from hypothesis import given, settings

from tablebase.cgt import CGTError, evaluate, format_report, parse
from tablebase.cgt._compare import RELATIONS

# [CGS-O] G op H holds exactly when the outcome class of H - G is one of these.
DEFINITION = {
    "<=": {"L", "P"},       # H - G >= 0
    ">=": {"R", "P"},       # H - G <= 0
    "<": {"L"},             # G <= H and not H <= G
    ">": {"R"},
    "==": {"P"},            # G <= H and H <= G
    "!=": {"L", "R", "N"},
    "<>": {"N"},            # neither: H - G is fuzzy
    "||": {"N"},            # [WW]'s sign for the same; CGSuite spells it <>
    "<|": {"L", "N"},       # not H <= G: Left wins H - G moving first
    "|>": {"R", "N"},       # not G <= H: Right wins H - G moving first
}


def raw_text(raw: RawGame) -> str:
    """A raw tree written in CGSuite's braces, option by option: ``{{|}|}`` is 1."""
    lefts, rights = raw
    return "{" + ",".join(map(raw_text, lefts)) + "|" + ",".join(map(raw_text, rights)) + "}"


def by_play(g: str, op: str, h: str) -> bool:
    """``G op H`` decided by playing H - G on the canonical forms' trees."""
    return outcome_by_play(raw_of(parse(h)), negate(raw_of(parse(g)))) in DEFINITION[op]


def test_every_operator_has_a_definition():
    assert set(DEFINITION) == set(RELATIONS)


@settings(max_examples=150, deadline=None)
@given(raw_games(max_leaves=6), raw_games(max_leaves=6))
def test_each_operator_agrees_with_play(a, b):
    expected = outcome_by_play(b, negate(a))
    g, h = raw_text(a), raw_text(b)
    for op, classes in DEFINITION.items():
        assert evaluate(f"{g} {op} {h}") == {"value": expected in classes}, (g, op, h)


@pytest.mark.parametrize("g, op, h, expected", [
    ("^", ">", "0", True),              # [WW]
    ("^", "<=", "0", False),
    ("*", "||", "0", True),             # [WW]
    ("*", "<>", "0", True),
    ("*", "==", "0", False),
    ("0", "<|", "*", True),
    ("*2", "||", "*", True),            # [WW]: *2 - * = *3, a nonzero nimber
    ("^", "<>", "*", True),             # [WW]: ^ - * = ^*, which is fuzzy
    ("{1|0}", "||", "1/2", True),       # [WW]: {1|0} - 1/2 = +-1/2
    ("{1|0}", "<", "{2|0}", True),
    ("{1|0} + {1|0}", "==", "1", True),  # [WW]: 1/2 +- 1/2, twice
    ("^", "<", "1", True),              # [WW]: ^ is below every positive number
    ("^", "<", "1/2", True),
    ("^", "<", "1/4", True),
    ("^", "<", "1/64", True),
    ("^^", ">", "*", True),             # [CGS-W]
    ("0", "<|", "^*", True),            # [CGS-W]
    ("3", "<>", "3+*", True),           # [CGS-E]
    ("^", ">", "^<2>", True),           # each ^<n+1> is infinitesimal next to ^<n>
    ("^<2>", ">", "^<3>", True),
    ("^<3>", ">", "0", True),
    ("{0|^*}", "==", "^^", True),       # [WW]
    ("{0|^*}", "==", "^.Pow(2)", False),
    ("^.Pow(2)", "==", "{0|v*}", True),  # [CGS-P]: ^<2> = {0 | * - ^}
    ("^<3>", "==", "{0|v[2]*}", True),   # [CGS-P]: ^<n> = {0 | * - ^[n-1]}
    ("^<3>", "==", "{0|v<2>*}", False),
    ("^.PowTo(3)", "==", "^ + ^<2> + ^<3>", True),
])
def test_published_facts(g, op, h, expected):
    assert by_play(g, op, h) == expected  # the fact itself, from the definition
    assert evaluate(f"{g} {op} {h}") == {"value": expected}


# -- the grammar -----------------------------------------------------------------------

@pytest.mark.parametrize("text, same_as", [
    ("1 + 1 == 2", "(1 + 1) == 2"),                 # comparisons bind loosest
    ("2 == 1 + 1", "2 == (1 + 1)"),
    ("- 1 < 0", "(-1) < 0"),
    ("^ Heat 2 > 1", "(^.Heat(2)) > 1"),            # even below infix methods
    ("{1|0} +- 1 <= 3", "({1|0} + (+-1)) <= 3"),
    ("^<1/2", "^ < 1/2"),                           # '<' not followed by digits and '>' compares
    ("^<>*", "^ <> *"),
    ("v<2> < 0", "{^*|0} < 0"),                     # ^<n> and v<n> are still uptimals
    ("(^ > 0)", "^ > 0"),
])
def test_grammar(text, same_as):
    assert evaluate(text) == evaluate(same_as)


def test_slashes_between_options_are_not_a_comparison():
    assert evaluate("{1||0}")["value"] == "{1|0}"
    assert evaluate("{2|1||0} || {2|1||0}") == {"value": False}


def test_a_comparison_is_no_game():
    # Malformed comparisons are with the other syntax errors, in test_cgt_notation.py.
    with pytest.raises(CGTError, match="is a boolean, not a game"):
        parse("1 < 2")


# -- reports and the command -------------------------------------------------------------

def test_truth_values_are_reported_as_booleans():
    assert evaluate("^ > 0") == {"value": True}
    assert json.dumps(evaluate("* > 0")) == '{"value": false}'
    assert format_report(evaluate("^ > 0")) == "value       true"
    assert format_report(evaluate("* > 0")) == "value       false"
    assert evaluate("^.IsNumber") == {"value": False}  # a method's truth value alike


def test_cli_compares():
    from helpers import assert_clean_error, tablebase

    plain = tablebase("cgt", "{1|0} < {2|0}")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.split() == ["value", "true"]
    assert tablebase("cgt", "*", ">", "0").stdout.split() == ["value", "false"]  # words are joined
    result = tablebase("cgt", "{1|0} || 1/2", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"value": True}
    assert_clean_error(tablebase("cgt", "1 < 2 < 3"), "at column 7", "do not chain")
    assert_clean_error(tablebase("cgt", "{1|0} <"), "expected a game")
    assert_clean_error(tablebase("cgt", "{1|0}.Thermograph <= 1"), "not a thermograph")


# -- ^.Pow and ^.PowTo, by their definitions -------------------------------------------------

STAR = ((EMPTY,), (EMPTY,))


def raw_sum(a: RawGame, b: RawGame) -> RawGame:
    """``A + B`` as a tree: a move in either part."""
    return (tuple(raw_sum(x, b) for x in a[0]) + tuple(raw_sum(a, y) for y in b[0]),
            tuple(raw_sum(x, b) for x in a[1]) + tuple(raw_sum(a, y) for y in b[1]))


def up_to(n: int) -> RawGame:
    """``^[n]`` = ``^.PowTo(n)`` = ``{^[n-1] | *}``, ``^[0]`` = 0 ([CGS-P])."""
    return EMPTY if n == 0 else ((up_to(n - 1),), (STAR,))


def up_nth(n: int) -> RawGame:
    """``^<n>`` = ``^.Pow(n)`` = ``{0 | * - ^[n-1]}`` ([CGS-P])."""
    return ((EMPTY,), (raw_sum(STAR, negate(up_to(n - 1))),))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_pow_and_pow_to_follow_their_definitions(n):
    for text in (f"^.Pow({n})", f"^<{n}>"):
        assert is_second_player_win(raw_of(parse(text)), negate(up_nth(n))), text
    for text in (f"^.PowTo({n})", f"^[{n}]"):
        assert is_second_player_win(raw_of(parse(text)), negate(up_to(n))), text
    # The cumulative power is the sum of the powers: ^[n] = ^ + ^<2> + ... + ^<n>.
    assert is_second_player_win(up_to(n), *(negate(up_nth(k)) for k in range(1, n + 1)))
