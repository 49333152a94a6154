"""A dense solver holds each figure in one byte, never wraps one that does not fit, and a build widens it."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from helpers import tablebase
from oracles import Oracle, subtraction_moves

import tablebase as tb_package
from tablebase.build.driver import WIDE_KEYS
from tablebase.builders import builder_of
from tablebase.games import make_game
from tablebase.solve.figures import FigureOverflow
from tablebase.solve.impartial import ImpartialSolver, KnownValues

NARROW = frozenset()  # what a build holds first: every figure in one byte


def test_a_build_holds_two_bytes_a_key_where_the_bounds_ask_four():
    """Chomp 17x17 and 18x18: bounds of 288 and 323 moves ask two bytes a figure; a build holds one each."""
    for rows in (17, 18):
        game = make_game("chomp", {"rows": rows, "cols": rows})
        assert game.value_dtype == np.uint16  # the rows' type, unchanged
        assert KnownValues.bytes_per_key(game) == 4
        assert KnownValues.bytes_per_key(game, NARROW) == 2
        assert KnownValues.bytes_per_key(game, frozenset({"remoteness"})) == 3
        assert builder_of(game).footprint(NARROW).per_key == 2


def test_a_value_that_does_not_fit_is_refused_before_anything_is_written():
    game = make_game("subtraction", {"set": "1,3,4", "max": 1000})
    known = KnownValues(game, wide=NARROW)
    keys = np.array([10, 11], dtype=np.int64)
    with pytest.raises(FigureOverflow, match="remoteness above 255"):
        known.add(keys, np.array([1, 2], dtype=np.uint16), np.array([7, 300], dtype=np.uint16), None)
    assert not known.grundy[keys].any() and not known.remoteness[keys].any()  # nothing wrapped into the arrays
    known.add(keys, np.array([1, 2], dtype=np.uint16), np.array([7, 255], dtype=np.uint16), None)
    assert known.remoteness[11] == 255


def test_a_run_whose_figures_pass_a_byte_is_given_up_never_wrapped():
    """Subtraction {1,3,4} up to 1000: remoteness reaches 572. The compiled run writes each figure into
    the arrays as it goes; held narrow, the run raises instead of returning wrapped rows."""
    game = make_game("subtraction", {"set": "1,3,4", "max": 1000})
    levels = [(n, np.array([n], dtype=np.int64)) for n in range(1001)]
    with pytest.raises(FigureOverflow, match="remoteness"):
        ImpartialSolver(game, wide=NARROW).solve_span(levels)
    rows, _ = ImpartialSolver(game, wide=frozenset({"remoteness"})).solve_span(levels)
    oracle = Oracle(subtraction_moves([1, 3, 4]))
    assert rows["grundy"].to_pylist() == [oracle.grundy(n) for n in range(1001)]  # ascending: shallow recursion
    assert rows["remoteness"].to_pylist() == [oracle.remoteness(n) for n in range(1001)]


@pytest.mark.slow  # worker processes
def test_a_build_widens_the_figure_that_did_not_fit_and_its_rows_are_right(tmp_path):
    """The build starts again with remoteness wide, resuming from what was written; every row matches a
    recursion on the rules that shares no code with the solver. (A table of fewer keys than ``WIDE_KEYS``
    holds its figures wide from the start.)"""
    assert 70_001 > WIDE_KEYS
    result = tablebase("build", "subtraction", "--set", "1,3,4", "--max", 70_000, "--partition-rows", 8192,
                       "--out", tmp_path, "--workers", 2)
    assert result.returncode == 0, result.stderr
    assert "a remoteness above 255 does not fit" in result.stderr and "holding it wide" in result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["positions"] == 70_001
    oracle = Oracle(subtraction_moves([1, 3, 4]))
    with tb_package.open(tmp_path) as tb:
        rows = tb.sql("SELECT key, grundy, remoteness FROM subtraction_s1_3_4_n70000 ORDER BY key").to_pylist()
    assert [(r["grundy"], r["remoteness"]) for r in rows] == [(oracle.grundy(n), oracle.remoteness(n))
                                                              for n in range(70_001)]
    assert max(r["remoteness"] for r in rows) > 255
    assert not (tmp_path / ".values").exists() and os.listdir(tmp_path) == ["subtraction_s1_3_4_n70000"]
