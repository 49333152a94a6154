"""The algebra's caches stay within their limits, and answers do not depend on what they hold.

Canonical forms themselves are interned once each for good (ids must stay valid); every
derived result lives in a bounded cache. These tests shrink the limits so that a modest
workload overflows every cache many times over.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from cgt_helpers import rectangle

from tablebase.cgt import _cache, _table, cache_info, clear_caches, parse, value_row

WORKLOAD = ["{2|-1/2}", "+-{1,{2|0}}", "{3||2*|1*}", "^<3>*", "{1|^^||^}", "Tiny({3|1})"]
TIGHT = 64  # small enough that the workload overflows every cache, large enough to finish quickly


def answers() -> list:
    """Many kinds of derived results, as texts and numbers."""
    out = []
    games = [parse(t) for t in WORKLOAD] + [rectangle(2, 4)]
    for g in games:
        for h in games:
            s = g + h - parse("^*")
            out += [str(s), s.compare(g), str(s.thermograph), str(s.cool(Fraction(1, 2))), str(s.freeze),
                    str(s.reduced_canonical_form), [str(x) for x in s.incentives], str(g.ordinal_sum(parse("*")))]
        out.append(value_row(g))
    return out


@pytest.fixture
def small_caches():
    limits = {name: c.limit for name, c in _cache._REGISTRY.items()}
    for c in _cache._REGISTRY.values():
        c.limit = TIGHT
    yield
    for name, c in _cache._REGISTRY.items():
        c.limit = limits[name]


def test_answers_do_not_depend_on_the_cache_limits(small_caches):
    for c in _cache._REGISTRY.values():
        c.limit = 1 << 20
    roomy = answers()
    clear_caches()
    for c in _cache._REGISTRY.values():
        c.limit = TIGHT
    tight = answers()
    assert tight == roomy
    for name, (entries, limit) in cache_info().items():
        assert entries <= limit == TIGHT, name


def test_every_cache_is_bounded():
    answers()
    info = cache_info()
    assert {"leq", "sum", "negative", "construct", "thermograph", "text"} <= set(info)
    for name, (entries, limit) in info.items():
        assert 0 <= entries <= limit, name


def test_forms_stay_valid_and_are_not_made_twice():
    g = parse(WORKLOAD[1]) + parse("^")
    text = str(g)
    answers()
    forms = _table.size()
    clear_caches()
    assert str(g) == text and parse(text) == g
    answers()  # the same questions again: every form they need is already interned
    assert _table.size() == forms


def test_a_cache_forgets_its_oldest_half():
    c = _cache.BoundedCache("test", 4)
    for k in range(4):
        c.put(k, k)
    c.put(4, 4)
    assert list(c) == [2, 3, 4]
    with pytest.raises(ValueError):
        _cache.BoundedCache("tiny", 1)
