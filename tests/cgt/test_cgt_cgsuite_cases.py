"""CGSuite's own examples, typed into the calculator as CGSuite's tests type them.

Sources (github.com/aaron-siegel/cgsuite, commit e909ab8b):
  [CGS-T]  lib/core/src/test/scala/org/cgsuite/lang/CanonicalShortGameTestCase.scala:
           25 games, each with CGSuite's output and its results for (G).AtomicWeight,
           .Freeze, .Incentives, .ReducedCanonicalForm, .Thermograph, ... (kept in
           cgsuite_cases.json as transcribed).
  [CGS-E]  lib/core/src/test/scala/org/cgsuite/lang/EvalTest.scala: game specifiers,
           +- (unary and binary), uptimals, infix Heat, order of operations, integer
           multiples.
  [CGS-C]  lib/core/src/test/scala/org/cgsuite/lang/CompoundGameTestCase.scala: ordinal sums.
  [CGS-G]  lib/core/src/test/scala/org/cgsuite/lang/GameGraphTest.scala and GameGridTest.scala:
           printed canonical forms of Childish Hackenbush, Snort and Amazons positions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebase.cgt import CGTError, CGTSyntaxError, evaluate, parse

CASES = json.loads((Path(__file__).parent / "cgsuite_cases.json").read_text())["cases"]
CALLS = [(c["input"], method, expected) for c in CASES for method, expected in c.items()
         if method not in ("input", "output")]


def value(expr: str) -> str:
    """The result as CGSuite prints it (a truth value comes back as a bool)."""
    v = evaluate(expr)["value"]
    return v if isinstance(v, str) else json.dumps(v)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["input"][:30])
def test_cgsuite_prints_each_game_as_cgsuite(case):
    # [CGS-T]
    assert value(case["input"]) == case["output"]
    assert value(case["output"]) == case["output"]  # what CGSuite prints reads back as itself


@pytest.mark.parametrize("game, method, expected", CALLS, ids=lambda x: str(x)[:30])
def test_cgsuite_methods(game, method, expected):
    # [CGS-T], called as CGSuite's test calls them: s"($x).$method"
    expr = f"({game}).{method}"
    if expected.startswith("!!"):
        if "Integer out of bounds" in expected:
            # CGSuite's thermographs refuse integers past 32 bits; an integer's thermograph is a mast.
            assert value(expr) == f"Thermograph({game},[],[0],{game},[],[0])"
            return
        with pytest.raises(CGTError) as info:
            evaluate(expr)
        # CGSuite has UptimalExpansion only on uptimals ("Not a method ..."); here it is refused alike.
        words = "not atomic" if "not atomic" in expected else "not an uptimal"
        assert words in str(info.value), (expected, str(info.value))
    else:
        assert value(expr) == expected


@pytest.mark.parametrize("expr, expected", [
    # [CGS-E] "correctly interpret game specifiers"
    ("{0|^*5}", "^^*4"),
    ("{3|||2||1|0,*||||-1/2}", "{3|||2||1|0,*||||-1/2}"),
    ("+-1", "+-1"),
    ("+-(1/2)", "+-1/2"),
    ("+-{1,1+*}", "+-{1,1*}"),
    ("3+-1", "{4|2}"),
    ("+-1+-2+-3+-4", "+-{10|8||6|4|||4|2||0|-2}"),
    ("{0||0|-1}", "Tiny(1)"),
    ("{0||0|-1/4}", "Tiny(1/4)"),
    ("{0|||0||-1|-2}", "Tiny({2|1})"),
    ("{1|0||0}", "Miny(1)"),
    ("{0|v*}", "^<2>"),
    ("{0,*|v}", "^<2>*"),
    ("{^|*}", "^[2]"),
    ("{0,^*|0}", "^[2]*"),
    # [CGS-E] "process infix ops"
    ("* Heat 2", "+-2"),
    ("*2 Heat 2", "+-{2,{4|0}}"),
    ("^ Heat 2", "{2||0|-4}"),
    ("^* Heat 2", "{2,{4|0}|-2}"),
    ("^^ Heat 2", "{2||0,+-2|-4}"),
    ("^^ Heat *", "0"),
    # [CGS-E] "respect order of operations"
    ("5 - 3 + 4 - 8", "-2"),
    ("3 - 2 +- 6 - 7 +- 8 + 4", "{12|0||-4|-16}"),
    # [CGS-E] "Ups", "Integer plus canonical game", "Integer minus canonical game"
    ("^^^^^^+vvv*+^19*3+v14", "^8*2"),
    ("2 + (1+*)", "3*"),
    ("2 - (1+*)", "1*"),
])
def test_cgsuite_expressions(expr, expected):
    assert value(expr) == expected
    assert value(expected) == expected


def test_cgsuite_ambiguous_slashes_are_an_error():
    # [CGS-E] ("Ambiguous slashes", "{3|2|1}", "!!Syntax error.") and ("Floating slash", "1|0", ...)
    for text in ("{3|2|1}", "1|0"):
        with pytest.raises(CGTSyntaxError):
            evaluate(text)


def sum_of_copies(n: int, text: str):
    g = parse(text)
    total = parse("0")
    for _ in range(n):
        total = total + g
    return total


@pytest.mark.parametrize("n, game, expected", [
    # [CGS-E] "process game operations": integer * game is n copies (CGSuite's nCopies)
    (5, "{3||2|1}", "{12|||11||10,{11|10}|9Tiny({2|1})}"),
    (10, "1+^.Pow(2)+*4",
     "{10||10,10v*|{10vv,10v*||||10v3*,10vv|||10v4,10v3*||10v5*,10v4|{10v6,10v5*||||10v7*,10v6|||10v8,10v7*||"
     "10v9*,10v8|10v10}}}"),
    (9, "1+^.Pow(2)+*4",
     "{9,9*,9*2,9*3,9*4|{9*4,9v*5||||9vv*4,9v*5|||9v3*5,9vv*4||9v4*4,9v3*5|{9v5*5,9v4*4||||9v6*4,9v5*5|||"
     "9v7*5,9v6*4||9v8*4,9v7*5|9v9*5}}}"),
])
def test_cgsuite_integer_multiples(n, game, expected):
    assert str(sum_of_copies(n, game)) == expected
    assert str(parse(str(n)).norton_product(parse(game))) == expected  # CGSuite's n * G is the Norton product n.G


@pytest.mark.parametrize("g, h, expected", [
    # [CGS-C] ((g) : (h)).CanonicalForm
    ("1/2", "1/4", "9/16"),
    ("*5", "*6", "*11"),
    ("+-1", "^^", "{1,+-1|-1,{1,+-1,+-{1,+-1}|-1,+-1}}"),
    ("{1|0}", "0", "{1|0}"),
])
def test_cgsuite_ordinal_sums(g, h, expected):
    assert value(f"({g}) : ({h})") == expected
    assert str(parse(g).ordinal_sum(parse(h))) == expected


@pytest.mark.parametrize("printed", [
    "{0|^[4]*||vv}",  # [CGS-G] Childish Hackenbush lollipop
    "{4|0,+-1}", "+-{3|2}",  # [CGS-G] Snort
    "+-{3,{4|0,{1|0,*}},{4|{0,{1/2|0}|v},+-1,+-{1,{2|0}}}}",  # [CGS-G] Amazons("x...|o...")
])
def test_cgsuite_printed_forms_read_back_as_themselves(printed):
    assert value(printed) == printed
