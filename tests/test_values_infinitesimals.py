"""The values table's infinitesimals: ``is_infinitesimal``, ``atomic_weight`` and
``reduced_canonical_form`` of every form, against their definitions, and the SQL that finds
the infinitesimal Domineering regions with their atomic weights.

* A form is infinitesimal when both its stops are 0; the stops are recomputed here from the
  stored options by their definition (a number is its own stops; otherwise the left stop is
  the largest right stop of a Left option, the right stop the least left stop of a Right one).
* A reduced canonical form differs from its form by an infinitesimal, is its own reduced
  form, and is the one cgt-py (an independent engine) gives.
* Atomic weights: none where the form is not infinitesimal. All-small forms (every follower
  with a move for one player has moves for both, read from the stored options) always have
  one, and it obeys the two-ahead rule of Lessons in Play (Albert, Nowakowski and Wolfe,
  Chapter 9): a weight of 2 or more means the form is positive, -2 or less negative.
  CGSuite's documentation (CanonicalShortGame.AtomicWeight) defines the weight of n.^ + *m
  as n, which the uptimals here must show.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from oracles import NUMBER_TEXT, stops_by_options

import tablebase
from tablebase.cgt import ZERO, parse

sys.path.insert(0, str(Path(__file__).parent / "cgt"))
from cgt_helpers import import_cgt_py  # noqa: E402

NUMBER = NUMBER_TEXT
UPS_AND_STARS = re.compile(r"(\^+|v+|\^\d+|v\d+)?(\*\d*)?")


def view(root: Path, table: str) -> list[dict]:
    with tablebase.open(root) as tb:
        return tb.sql(f"SELECT * FROM {table}_values").to_pylist()


@pytest.fixture(scope="module", params=[("domineering", {"max_cells": 10}),
                                        ("hackenbush", {"max_edges": 6, "colors": "BRG", "shape": "stalk"})])
def values(request, built):
    game, params = request.param
    root, table = built(game, **params)
    return view(root, table)


def test_columns_by_their_definitions(values):
    by_id = {v["id"]: v for v in values}

    stops = stops_by_options(by_id)

    def all_small(i: int) -> bool:
        v = by_id[i]
        if not v["left_ids"] and not v["right_ids"]:
            return True
        return bool(v["left_ids"]) and bool(v["right_ids"]) and all(map(all_small, v["left_ids"] + v["right_ids"]))

    infinitesimals = 0
    for v in values:
        g = parse(v["value"])
        infinitesimal = stops(v["id"]) == (0, 0)
        assert v["is_infinitesimal"] == infinitesimal, v["value"]
        reduced = parse(v["reduced_canonical_form"])
        assert (g - reduced).left_stop == (g - reduced).right_stop == 0, v["value"]
        assert reduced.reduced_canonical_form == reduced
        if not infinitesimal:
            assert v["atomic_weight"] is None, v["value"]
            continue
        infinitesimals += 1
        assert reduced == ZERO
        if all_small(v["id"]):
            weight = parse(v["atomic_weight"])
            if weight >= parse("2"):
                assert g > ZERO, v["value"]
            if weight <= parse("-2"):
                assert g < ZERO, v["value"]
        if UPS_AND_STARS.fullmatch(v["value"]):
            ups = re.match(r"(\^+|v+)(\d*)", v["value"])
            n = 0 if ups is None else (int(ups[2]) if ups[2] else len(ups[1])) * (1 if ups[1][0] == "^" else -1)
            assert v["atomic_weight"] == str(n), v["value"]
    assert infinitesimals >= 5  # the tables do have infinitesimals to check


def test_reduced_forms_agree_with_cgt_py(values):
    cgt_py = import_cgt_py()
    memo: dict = {}

    def ours(form):
        key = repr(form)
        if key not in memo:
            from tablebase.cgt import from_options

            memo[key] = from_options([ours(x) for x in form.left_options], [ours(x) for x in form.right_options])
        return memo[key]

    def braced(g) -> str:
        if g.is_number:
            return str(g)
        return "{%s|%s}" % (",".join(map(braced, g.left_options)), ",".join(map(braced, g.right_options)))

    for v in values:
        theirs = cgt_py.CanonicalForm(braced(parse(v["value"]))).reduced
        assert ours(theirs) == parse(v["reduced_canonical_form"]), v["value"]


def test_sql_finds_infinitesimal_regions_and_their_atomic_weights(built):
    root, table = built("domineering", max_cells=10)
    with tablebase.open(root) as tb:
        rows = tb.sql(
            f"SELECT r.position, r.value, v.atomic_weight FROM {table} r JOIN {table}_values v ON r.value_id = v.id "
            "WHERE v.is_infinitesimal ORDER BY r.key"
        ).to_pylist()
        everything = tb.sql(f"SELECT value FROM {table}").to_pylist()
    assert rows and len(rows) == sum(parse(r["value"]).is_infinitesimal for r in everything)
    weights = set()
    for r in rows:
        g = parse(r["value"])
        assert g.is_infinitesimal
        assert r["atomic_weight"] == (str(g.atomic_weight) if g.is_atomic else None), r["position"]
        weights.add(r["atomic_weight"])
    assert {"0", "1", "-1"} <= weights  # *, ^ and v all occur among Domineering regions of 10 cells
