"""Stable ids, values-table rows and the calculator."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cgt_helpers import games
from hypothesis import given, settings

from tablebase.cgt import CGTSyntaxError, evaluate, format_report, parse, stable_id, value_row

TEXTS = ["0", "*", "^", "-3/8", "{2|-1/2}", "+-{0,{{2|0},2Tiny(2)|{2|0},Miny(2)}}", "{3||2|1}", "2Tiny(2)"]
REPO = Path(__file__).resolve().parents[2]


def test_stable_ids_agree_across_processes():
    # The other process meets the values in reverse order, after unrelated ones.
    script = (
        "import json; from tablebase.cgt import parse, stable_id\n"
        "[parse(t) for t in ('{5|4||3}', '^3*2', '+-{7|6}')]\n"
        f"texts = {TEXTS!r}\n"
        "ids = {t: stable_id(parse(t)) for t in reversed(texts)}\n"
        "print(json.dumps(ids))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO)
    theirs = json.loads(out.stdout)
    assert theirs == {t: stable_id(parse(t)) for t in TEXTS}


@settings(max_examples=100, deadline=None)
@given(games(), games())
def test_stable_ids_are_63_bit_and_follow_equality(g, h):
    a, b = stable_id(g), stable_id(h)
    assert 0 <= a < 2**63
    assert (a == b) == (g == h)


def test_value_row():
    row = value_row(parse("{2|-1/2}"))
    assert row == {
        "id": stable_id(parse("{2|-1/2}")),
        "text": "{2|-1/2}",
        "left_ids": [stable_id(parse("2"))],
        "right_ids": [stable_id(parse("-1/2"))],
        "is_number": False,
        "number": None,
        "mean": "3/4",
        "temperature": "5/4",
        "left_stop": "2",
        "right_stop": "-1/2",
        "birthday": 3,
        "atomic_weight": None,  # not infinitesimal
        "reduced_canonical_form": "{2|-1/2}",
    }
    # CGSuite's test cases (CanonicalShortGameTestCase.scala): {0||0|v*} prints {0|^<2>}, atomic
    # weight 1, reduced canonical form 0.
    small = value_row(parse("{0||0|v*}"))
    assert (small["text"], small["atomic_weight"], small["reduced_canonical_form"]) == ("{0|^<2>}", "1", "0")
    assert value_row(parse("{1|^^^||^}"))["atomic_weight"] is None  # infinitesimal but not atomic
    number_row = value_row(parse("-3/8"))
    assert number_row["is_number"] and number_row["number"] == "-3/8"
    assert number_row["temperature"] == "-1/8" and number_row["birthday"] == 4


def test_evaluate():
    result = evaluate("{2|-1/2} + ^ - *")
    assert result == {
        "value": "{2^*|-1/2^*}",
        "outcome": "N",
        "left_stop": "2",
        "right_stop": "-1/2",
        "mean": "3/4",
        "temperature": "5/4",
    }
    assert evaluate("^ + ^")["value"] == "^^"
    assert evaluate("-(3/4) + 1")["value"] == "1/4"
    assert evaluate("{1|0} - {1|0}") == {
        "value": "0", "outcome": "P", "left_stop": "0", "right_stop": "0", "mean": "0", "temperature": "-1",
    }
    assert evaluate("^*")["outcome"] == "N" and evaluate("^")["outcome"] == "L" and evaluate("v3")["outcome"] == "R"


def test_evaluate_other_results():
    # CGSuite's test cases: ({3||2+*|1+*}).Thermograph and ^.Incentives.
    assert evaluate("{3||2+*|1+*}.Thermograph") == {"value": "Thermograph(9/4,[3/4],[0,-1],9/4,[3/4,1/2,0],[0,1,0,1])"}
    assert evaluate("^.Incentives") == {"value": "{^*}"}
    assert format_report(evaluate("^.IsInfinitesimal")) == "value       true"


def test_a_number_a_method_gives_is_the_number_alone():
    """G.Temperature is a number, not a game with an outcome and stops: {3|-1} has temperature 2 (half the
    difference of its options, a switch), mean 1, stops 3 and -1, and birthday 4 (3 is born on day 3)."""
    assert evaluate("{3|-1}.Temperature") == {"value": "2"}
    assert evaluate("{3|-1}.Mean") == {"value": "1"}
    assert evaluate("{3|-1}.LeftStop") == {"value": "3"} and evaluate("{3|-1}.RightStop") == {"value": "-1"}
    assert evaluate("{3|-1}.Birthday") == {"value": "4"}
    assert format_report(evaluate("{3|-1}.Temperature")) == "value       2"
    # Taken on as a game, it is one again: 2 heated by 1 is 2 (a number is left as it is), and {3|-1} + 2.
    assert evaluate("{3|-1}.Temperature.Heat(1)")["outcome"] == "L"
    assert evaluate("{3|-1} + {3|-1}.Temperature")["value"] == "{5|1}"


@pytest.mark.parametrize("text, said", [
    ("heat", "G.Heat(t)"), ("3 heat", "G.Heat(t)"), ("Cool", "G.Cool(t)"), ("overheat", "G.Overheat(s, t)"),
    ("{3|-1}.heat(1)", "did you mean Heat?"),
])
def test_a_method_written_as_a_game_says_how_it_is_written(text, said):
    with pytest.raises(CGTSyntaxError, match=re.escape(said)):
        evaluate(text)


def test_format_report():
    text = format_report(evaluate("{2|-1/2}"))
    assert "{2|-1/2}" in text and "3/4" in text and "5/4" in text and "N" in text
    assert len(text.splitlines()) == 5


def test_evaluate_reports_syntax_errors():
    with pytest.raises(CGTSyntaxError, match=r"^at column 5: expected '\|' or '}'"):
        evaluate("{2|1")


def test_docstring_examples():
    import doctest

    import tablebase.cgt
    import tablebase.cgt.calculator

    for module in (tablebase.cgt, tablebase.cgt.calculator):
        assert doctest.testmod(module).failed == 0


def test_cli_reads_negative_expressions_and_reports_errors_in_one_line():
    from helpers import assert_clean_error, tablebase

    plain = tablebase("cgt", "-1/2")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.splitlines()[0].split() == ["value", "-1/2"]
    for argv in (["--", "-1/2", "--json"], ["--json", "-1/2"], ["-1/2", "--json"]):
        result = tablebase("cgt", *argv)
        assert result.returncode == 0, (argv, result.stderr)
        assert json.loads(result.stdout)["value"] == "-1/2"
    # Words are joined, so a shell's splitting does not matter; +- between operands is CGSuite's.
    assert json.loads(tablebase("cgt", "3", "+-", "1", "--json").stdout)["value"] == "{4|2}"
    assert json.loads(tablebase("cgt", "-{1|0}", "--json").stdout)["value"] == "{0|-1}"
    assert_clean_error(tablebase("cgt", "{1|-1}.AtomicWeight"), "not atomic")
    assert_clean_error(tablebase("cgt", "--", "{1|-1}.Cool(-1)"), "must be > -1")
    assert_clean_error(tablebase("cgt", "^<0>"), "at column 2")
    assert_clean_error(tablebase("cgt", "--"), "expression")
