"""examples/connect_four.py, built through the command line, against a brute-force oracle written here.

The oracle does not import the example: a board is a tuple of columns, each
the discs in it from the bottom up; a line is found by walking from every
disc in four directions; every position is valued by a plain minimax
(winner hurrying, loser delaying, a full board drawn). Each stored row of
the small boards is compared with it, each best move by where it leads.
On 4 x 4 the empty board is a draw, as is known (Connect-Four is a draw on
every board 4 wide and 4 high), and the table holds 161,029 positions, as
many as the oracle reaches.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from helpers import build_job, reachable, tablebase

import tablebase as tb_api

pytestmark = pytest.mark.slow  # the command and the session's cluster: see conftest.py

CONNECT_FOUR = f"{Path(__file__).resolve().parent.parent / 'examples' / 'connect_four.py'}:ConnectFour"
SMALL = [(3, 3, 3), (4, 3, 4), (4, 3, 3), (3, 4, 3)]  # (rows, cols, connect), each checked row by row


def table(rows: int, cols: int, connect: int) -> str:
    return f"connectfour_rows{rows}_cols{cols}_connect{connect}"


# -- the oracle -----------------------------------------------------------------------------------


def line(columns: tuple, rows: int, connect: int) -> bool:
    """Does any player have ``connect`` discs in a row?"""
    at = {(c, r): disc for c, column in enumerate(columns) for r, disc in enumerate(column)}
    for (c, r), disc in at.items():
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            if all(at.get((c + k * dc, r + k * dr)) == disc for k in range(connect)):
                return True
    return False


def drops(columns: tuple, rows: int, connect: int) -> dict[str, tuple]:
    """Each move by its column's letter, none once a line is made."""
    if line(columns, rows, connect):
        return {}
    disc = "X" if sum(len(c) for c in columns) % 2 == 0 else "O"
    return {"abcdefg"[c]: columns[:c] + (columns[c] + (disc,),) + columns[c + 1:]
            for c in range(len(columns)) if len(columns[c]) < rows}


@cache
def minimax(columns: tuple, rows: int, connect: int) -> tuple[str, int]:
    """(outcome N/P/D for the player to move, plies)."""
    options = drops(columns, rows, connect)
    if not options:
        return ("P" if line(columns, rows, connect) else "D"), 0
    seen = [minimax(child, rows, connect) for child in options.values()]
    wins = [plies + 1 for outcome, plies in seen if outcome == "P"]
    if wins:
        return "N", min(wins)
    if any(outcome == "D" for outcome, _ in seen):
        return "D", 0
    return "P", max(plies for _, plies in seen) + 1


def spell(columns: tuple, rows: int) -> str:
    return "|".join("".join(col[r] if r < len(col) else "." for col in columns) for r in reversed(range(rows)))


def every_board(rows: int, cols: int, connect: int) -> dict[str, tuple]:
    return reachable(((),) * cols, lambda b: drops(b, rows, connect).values(), lambda b: spell(b, rows))


# -- the tables -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory, scheduler) -> Path:
    return build_job(tmp_path_factory.mktemp("connect_four"), scheduler, CONNECT_FOUR,
                     [{"rows": r, "cols": c, "connect": k} for r, c, k in SMALL])


def stored(root: Path, name: str) -> list[dict]:
    with tb_api.open(root, [CONNECT_FOUR]) as tb:
        return tb.sql(f"SELECT * FROM {name}").to_pylist()


@pytest.mark.parametrize("rows, cols, connect", SMALL)
def test_every_row_against_minimax(built, rows, cols, connect):
    check_against_minimax(built, rows, cols, connect)


def test_levels_no_move_keeps_are_cut_in_parts(tmp_path, scheduler):
    """Every drop adds a disc, so the listing finds no move that keeps its level: a scored game's levels are
    then cut into parts like any other game's, and a worker holds a part of a level, not the whole of it.
    The rows are still the oracle's, the moves between parts of a level being none."""
    result = tablebase("build", CONNECT_FOUR, "--rows", 4, "--cols", 3, "--connect", 3, "--partition-rows", 64,
                       "--out", tmp_path, "--scheduler", scheduler, "--quiet")
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / table(4, 3, 3) / "_manifest.json").read_text())
    assert manifest["listing"]["kept"] == []
    assert any(parts > 1 for _, parts, _ in manifest["plan"])
    check_against_minimax(tmp_path, 4, 3, 3)


def check_against_minimax(built: Path, rows: int, cols: int, connect: int) -> None:
    boards = every_board(rows, cols, connect)
    found = stored(built, table(rows, cols, connect))
    assert sorted(r["position"] for r in found) == sorted(boards)
    for row in found:
        board = boards[row["position"]]
        outcome, plies = minimax(board, rows, connect)
        assert (row["outcome"], row["plies"]) == (outcome, None if outcome == "D" else plies), row
        options = drops(board, rows, connect)
        if not options:
            assert row["best_move"] is None
            continue
        child_outcome, child_plies = minimax(options[row["best_move"]], rows, connect)
        assert child_outcome == {"N": "P", "P": "N", "D": "D"}[outcome], row
        if outcome != "D":
            assert child_plies + 1 == plies, row


def test_the_default_four_by_four_board_is_a_draw(tmp_path, scheduler):
    result = tablebase("build", CONNECT_FOUR, "--out", tmp_path, "--scheduler", scheduler, "--quiet")
    assert result.returncode == 0, result.stderr
    rows = stored(tmp_path, table(4, 4, 4))
    assert len(rows) == len(every_board(4, 4, 4)) == 161029
    start = next(r for r in rows if r["position"] == "....|....|....|....")
    assert (start["outcome"], start["plies"]) == ("D", None)


def test_check_game_finds_no_defects():
    result = tablebase("check-game", CONNECT_FOUR, "--rows", 3, "--cols", 3, "--connect", 3, "--quiet")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("no defects"), result.stdout


@pytest.mark.parametrize("text, why", [("....|....|....", "rows"), ("X...|....|....|....", "above an empty"),
                                       ("....|....|....|.Z..", "rows")])
def test_a_bad_board_is_refused_in_one_line(text, why):
    from tablebase.errors import PositionError
    from tablebase.games import find_game

    with pytest.raises(PositionError, match=why):
        find_game(CONNECT_FOUR)[0](rows=4, cols=4, connect=4).read(text)


def test_connect_four_draws_its_board():
    from tablebase.games import find_game
    from tablebase.games.shapes import Rect, Text

    picture = find_game(CONNECT_FOUR)[0](rows=4, cols=4, connect=4).draw("....|....|.O..|.XX.")
    assert sum(isinstance(s, Rect) for s in picture.shapes) == 16
    assert [s.text for s in picture.shapes if isinstance(s, Text) and s.text in "XO"] == ["O", "X", "X"]
