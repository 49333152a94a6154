"""The mainline (``Tablebase.line``, ``tablebase lookup --line``, ``/tables/{t}/line``) against the rules.

Every line is checked by rules written here from scratch: each move is legal, the line ends where the
player to move has none, and it ends as the figures say. An impartial line from a position alternates
its outcomes (N, P, N, ...) and lasts its remoteness; a scored line keeps the score (its size, the
sign turning with the mover) and ends with it; a partizan line, the sides taking turns, is lost by the
side left without a move, as the outcome class says for the side that moved first.
"""

from __future__ import annotations

import json
import urllib.parse
from functools import cache
from itertools import pairwise

import pytest
from helpers import assert_clean_error
from helpers import tablebase as command
from oracles import Oracle, chomp_board, chomp_moves, wythoff_moves
from served import get, running
from test_tanhinmin import final_score, moves, read

import tablebase
from tablebase.http.app import create_app
from tablebase.spelling import as_text


@pytest.fixture(scope="module")
def tables(built) -> dict[str, tuple]:
    return {name: built(game, **params) for name, (game, params) in {
        "chomp": ("chomp", {"rows": 4, "cols": 4}), "wythoff": ("wythoff", {"max": 20}),
        "domineering": ("domineering", {"max_cells": 6}), "tanhinmin": ("tanhinmin", {"max_card": 3, "max_hand": 2}),
    }.items()}


def every_line(root, table, first: str | None = None) -> list[dict]:
    with tablebase.open(root) as tb:
        return [tb.line(table, row["position"], first) for row in tb.sql(f"SELECT position FROM {table}").to_pylist()]


@pytest.mark.parametrize("name, moves_of, read_position", [
    ("chomp", chomp_moves, chomp_board),
    ("wythoff", wythoff_moves, lambda p: tuple(sorted(int(x) for x in p.split()))),
])
def test_an_impartial_line_alternates_its_outcomes_and_lasts_its_remoteness(tables, name, moves_of, read_position):
    oracle = Oracle(moves_of)
    for line in every_line(*tables[name]):
        steps, start = line["steps"], read_position(line["position"])
        assert len(steps) - 1 == oracle.remoteness(start) and line["ended"] == "no moves"
        for i, step in enumerate(steps):
            here = read_position(step["position"])
            assert step["outcome"] == ("N" if oracle.grundy(here) else "P")
            assert step["outcome"] == ("N", "P")[(i + (oracle.grundy(start) == 0)) % 2]  # N, P, N, ... or P, N, ...
            if i:
                assert here in oracle.optimal_children(read_position(steps[i - 1]["position"]))
        assert not moves_of(read_position(steps[-1]["position"])) and steps[-1]["move"] is None


def test_a_scored_line_keeps_the_score(tables):
    for line in every_line(*tables["tanhinmin"]):
        steps = line["steps"]
        for i, step in enumerate(steps):
            assert step["score"] == steps[0]["score"] * (-1) ** i
            if i:
                assert dict(moves(read(steps[i - 1]["position"])))[steps[i - 1]["move"]] == read(step["position"])
        last = read(steps[-1]["position"])
        assert not moves(last) and final_score(last) == steps[-1]["score"]


@cache
def dominoes(cells: frozenset, left: bool) -> list[frozenset]:
    """Where a side may play (Left places vertical dominoes)."""
    dr, dc = (1, 0) if left else (0, 1)
    return [cells - {(r, c), (r + dr, c + dc)} for r, c in cells if (r + dr, c + dc) in cells]


def cells_of(text: str) -> frozenset:
    if text == "(empty)":
        return frozenset()
    return frozenset((r, c) for r, row in enumerate(text.split("|")) for c, ch in enumerate(row) if ch == ".")


def placed(cells: frozenset) -> frozenset:
    """The cells moved to the top left corner (a board is spelt without its empty rows and columns)."""
    if not cells:
        return cells
    top, left = min(r for r, _ in cells), min(c for _, c in cells)
    return frozenset((r - top, c - left) for r, c in cells)


@cache
def wins_moving(cells: frozenset, left: bool) -> bool:
    return any(not wins_moving(after, not left) for after in dominoes(cells, left))


@pytest.mark.parametrize("first", ["Left", "Right"])
def test_a_partizan_line_is_lost_by_the_side_the_outcome_says(tables, first):
    lines = every_line(*tables["domineering"], first)
    for line in lines:
        steps = line["steps"]
        assert line["first"] == first and [s["mover"] for s in steps] == [
            ("Left", "Right")[(i + (first == "Right")) % 2] for i in range(len(steps))]
        for before, after in pairwise(steps):
            played = dominoes(cells_of(before["position"]), before["mover"] == "Left")
            assert placed(cells_of(after["position"])) in {placed(c) for c in played}
        loser = steps[-1]["mover"]
        assert not dominoes(cells_of(steps[-1]["position"]), loser == "Left")
        assert wins_moving(cells_of(line["position"]), first == "Left") == (loser != first), line
    assert {line["steps"][-1]["mover"] for line in lines} == {"Left", "Right"}


def wide_as_text(value):
    """Integers beyond 2**53 - 1 as strings, as the JSON API sends them."""
    if isinstance(value, dict):
        return {k: wide_as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [wide_as_text(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53 - 1:
        return str(value)
    return value


def test_the_command_and_the_api_give_the_library_s_line(tables):
    root, table = tables["domineering"]
    with tablebase.open(root) as tb:
        expected = json.loads(json.dumps(as_text(tb.line(table, "..|..|..", "Right"))))
        impartial = json.loads(json.dumps(as_text(tb.line(tables["chomp"][1], "4 4 3 1"))))
    said = command("lookup", "--db", str(root), table, "--line", "..|..|..", "--first", "right", "--json")
    assert said.returncode == 0, said.stderr
    assert json.loads(said.stdout) == expected
    printed = command("lookup", "--db", str(root), tables["chomp"][1], "--line", "4 4 3 1")
    assert printed.returncode == 0 and "7 moves" in printed.stdout and len(printed.stdout.splitlines()) == 10
    with running(create_app(root)) as url:
        where = f"{url}/tables/{table}/line?position={urllib.parse.quote('..|..|..')}&first=Right"
        status, body = get(where)
        assert status == 200 and json.loads(body) == wide_as_text(expected)  # a JavaScript client's safe integers
        status, body = get(f"{url}/tables/{tables['chomp'][1]}/line?position={urllib.parse.quote('4 4 3 1')}")
        assert status == 200 and json.loads(body) == impartial
        status, body = get(f"{url}/tables/{table}/line?position={urllib.parse.quote('..|..|..')}")
        assert status == 400 and b"Left or Right" in body
        status, body = get(f"{url}/tables/{table}/position?position={urllib.parse.quote('..|..|..')}")
        assert status == 200 and b"/line?position=" in body and b"first=Left" in body


@pytest.mark.parametrize("args, words", [
    (["domineering", "--line", "..|..|.."], ["Left or Right"]),
    (["chomp", "--line", "4 4 3 1", "--first", "Left"], ["partizan"]),
    (["chomp", "4 4 3 1", "--first", "Left"], ["--first goes with --line"]),
    (["domineering", "--line", "..|..|..", "--first", "up"], ["Left or Right", "'up'"]),
])
def test_bad_line_requests_are_one_line_errors(tables, args, words):
    root, table = tables[args[0]]
    result = command("lookup", "--db", str(root), table, *args[1:])
    assert_clean_error(result, *words)
