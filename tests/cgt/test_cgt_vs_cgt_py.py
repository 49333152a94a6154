"""Differential tests against cgt-py (a Rust engine; a test-only dependency).

cgt-py prints its own notation (e.g. ``^2*`` for ``^^*`` and no slashes), so
values are compared through their game trees: cgt-py's canonical form is
rebuilt option by option in our algebra and must give the same id.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from cgt_helpers import games, import_cgt_py, rectangle
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.cgt import Value, from_options, parse

cgt_py = import_cgt_py()
CF = cgt_py.CanonicalForm


def ours(form, memo: dict | None = None) -> Value:
    """Rebuild a cgt-py CanonicalForm in tablebase.cgt, option by option."""
    memo = {} if memo is None else memo
    key = repr(form)
    if key not in memo:
        memo[key] = from_options([ours(x, memo) for x in form.left_options],
                                 [ours(x, memo) for x in form.right_options])
    return memo[key]


def braced(g: Value) -> str:
    """``g`` written with explicit braces down to numbers, which cgt-py can read."""
    if g.is_number:
        return str(g)
    return "{%s|%s}" % (",".join(braced(x) for x in g.left_options),
                        ",".join(braced(x) for x in g.right_options))


def number(d) -> Fraction:
    """A cgt-py DyadicRationalNumber as a Fraction."""
    text = repr(d).split("'")[1]
    return Fraction(text)


SETTINGS = settings(max_examples=120, deadline=None)


@SETTINGS
@given(games())
def test_same_canonical_form(g):
    theirs = CF(braced(g))
    assert ours(theirs) == g


@SETTINGS
@given(games())
def test_same_stops_temperature_and_birthday(g):
    theirs = CF(braced(g))
    assert number(theirs.left_stop) == g.left_stop
    assert number(theirs.right_stop) == g.right_stop
    assert theirs.birthday == g.birthday
    if not g.is_number:
        assert number(theirs.temperature) == g.temperature


@SETTINGS
@given(games(), games(), games())
def test_same_sums_and_differences(g, h, k):
    a, b, c = (CF(braced(x)) for x in (g, h, k))
    assert ours(a + b - c) == g + h - k
    assert ours(-(a - b)) == h - g


@SETTINGS
@given(games(), games())
def test_same_comparisons(g, h):
    a, b = CF(braced(g)), CF(braced(h))
    assert (a <= b) == (g <= h)
    assert (a == b) == (g == h)


@pytest.mark.parametrize("rows, cols", [(2, 2), (2, 4), (3, 3), (3, 4), (4, 2), (3, 5), (4, 4)])
def test_same_domineering_values(rows, cols):
    theirs = cgt_py.Domineering("|".join("." * cols for _ in range(rows))).canonical_form
    assert ours(theirs) == rectangle(rows, cols)


@pytest.mark.parametrize("text", ["^", "v3", "^*", "*7", "1/2^*", "-3/8", "{1|-1}", "{3|2}", "{0|^}"])
def test_cgt_py_reads_what_we_mean(text):
    # Texts both engines read the same way.
    assert ours(CF(text)) == parse(text)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.integers(2, 4), st.data())
def test_same_values_of_domineering_boards_with_holes(rows, cols, data):
    from cgt_helpers import domineering

    holes = data.draw(st.sets(st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1)), max_size=6))
    grid = "|".join("".join("#" if (r, c) in holes else "." for c in range(cols)) for r in range(rows))
    cells = frozenset((r, c) for r in range(rows) for c in range(cols) if (r, c) not in holes)
    theirs = cgt_py.Domineering(grid).canonical_form
    g = domineering(cells)
    assert ours(theirs) == g
    if not g.is_number:
        assert number(theirs.temperature) == g.temperature


def their_thermograph(form) -> str:
    """cgt-py's thermograph in CGSuite's text: 'Thermograph(Thermograph(Trajectory(m, [..], [..]), ...))'."""
    text = repr(form.thermograph).replace(" ", "")
    text = text.removeprefix("Thermograph(Thermograph(").removesuffix("))")
    return "Thermograph(" + text.replace("Trajectory(", "").replace(")", "") + ")"


@SETTINGS
@given(games())
def test_same_thermographs(g):
    assert their_thermograph(CF(braced(g))) == str(g.thermograph)


@SETTINGS
@given(games(), st.sampled_from(["-1/2", "0", "1/4", "1/2", "1", "3/2", "3"]))
def test_same_cooling(g, t):
    assert ours(CF(braced(g)).cool(t)) == g.cool(Fraction(t))


@SETTINGS
@given(games())
def test_same_reduced_canonical_forms(g):
    assert ours(CF(braced(g)).reduced) == g.reduced_canonical_form


@pytest.mark.parametrize("rows, cols", [(3, 3), (3, 4), (4, 4)])
def test_same_figures_of_domineering_rectangles(rows, cols):
    theirs = cgt_py.Domineering("|".join("." * cols for _ in range(rows))).canonical_form
    g = rectangle(rows, cols)
    assert their_thermograph(theirs) == str(g.thermograph)
    assert ours(theirs.reduced) == g.reduced_canonical_form
    assert ours(theirs.cool(1)) == g.cool(1)
