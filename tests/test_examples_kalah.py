"""examples/kalah.py, built through the command line, against an oracle written here from the rules.

The oracle does not import the example: it keeps a board as the 2m + 2
houses of the usual mancala drawing (South's pits, South's store, North's
pits, North's store, sowing order), sows round them skipping the opponent's
store, and values every position by a plain negamax of the final difference
of the stores, the player who sows a last seed into the store moving again.
Every stored row's outcome, score and plies is compared with it, and each
best move by where it leads; ``check-game`` finds no defects; a lookup marks
the extra turns; the board is drawn.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from helpers import build_job, reachable, tablebase

import tablebase as tb_api
from tablebase.http.verdicts import move_verdict

pytestmark = pytest.mark.slow  # the command and the session's cluster: see conftest.py

KALAH = f"{Path(__file__).resolve().parent.parent / 'examples' / 'kalah.py'}:Kalah"
SIZES = [(1, 1), (2, 1), (2, 2), (3, 1), (3, 2)]  # (pits, seeds)


def table(pits: int, seeds: int) -> str:
    return f"kalah_pits{pits}_seeds{seeds}"


# -- the oracle -----------------------------------------------------------------------------------
# A board: (houses, mover), houses a tuple of 2m + 2 counts: South's pits 0..m-1, South's store m,
# North's pits m+1..2m, North's store 2m+1; mover 0 South, 1 North.


def store(m: int, side: int) -> int:
    return m if side == 0 else 2 * m + 1


def pits_of(m: int, side: int) -> range:
    return range(m) if side == 0 else range(m + 1, 2 * m + 1)


def play(m: int, board: tuple, pit: int) -> tuple[tuple, bool]:
    """Sow a pit (an index into the houses): the board after it (captures made, and the game's end
    not yet scored) and whether its mover moves again."""
    houses, mover = list(board[0]), board[1]
    skip = store(m, 1 - mover)
    seeds, at = houses[pit], pit
    houses[pit] = 0
    while seeds:
        at = (at + 1) % (2 * m + 2)
        if at != skip:
            houses[at] += 1
            seeds -= 1
    if at == store(m, mover):
        return (tuple(houses), mover), True
    opposite = 2 * m - at
    if at in pits_of(m, mover) and houses[at] == 1 and houses[opposite]:
        houses[store(m, mover)] += 1 + houses[opposite]
        houses[at] = houses[opposite] = 0
    return (tuple(houses), 1 - mover), False


def moves(m: int, board: tuple) -> dict[str, tuple[tuple, bool]]:
    """Each move by the name of its pit's cell on the drawn board (South's row 2 from column b, North's
    row 1 with its first pit at the right), none once a row is empty."""
    houses, mover = board
    if not any(houses[i] for i in pits_of(m, 0)) or not any(houses[i] for i in pits_of(m, 1)):
        return {}
    out = {}
    for k, i in enumerate(pits_of(m, mover)):
        if houses[i]:
            column = k + 1 if mover == 0 else m - k
            out["abcde"[column] + str(2 - mover)] = play(m, board, i)
    return out


@cache
def negamax(m: int, board: tuple) -> tuple[int, str, int]:
    """(the mover's final lead with best play, outcome N/P/D, plies: the winner hurrying, the loser
    delaying; 0 for a draw, which stores none)."""
    houses, mover = board
    options = moves(m, board)
    if not options:
        lead = sum(houses[i] for i in [*pits_of(m, mover), store(m, mover)]) - sum(
            houses[i] for i in [*pits_of(m, 1 - mover), store(m, 1 - mover)])
        return lead, "N" if lead > 0 else "P" if lead < 0 else "D", 0
    seen = []  # (lead, wins, draws, plies) of each move for its mover
    for child, again in options.values():
        lead, outcome, plies = negamax(m, child)
        if not again:
            lead, outcome = -lead, {"N": "P", "P": "N", "D": "D"}[outcome]
        seen.append((lead, outcome, plies + 1))
    best = max(lead for lead, _, _ in seen)
    outcome = "N" if best > 0 else "P" if best < 0 else "D"
    if outcome == "N":
        plies = min(p for lead, o, p in seen if o == "N")
    elif outcome == "P":
        plies = max(p for _, _, p in seen)
    else:
        plies = 0
    return best, outcome, plies


def spell(m: int, board: tuple) -> str:
    houses, mover = board
    north = [houses[2 * m + 1], *reversed(houses[m + 1:2 * m + 1])]
    return " ".join(map(str, [*north, "/", *houses[:m], houses[m], "SN"[mover]]))


def every_board(m: int, seeds: int) -> dict[str, tuple]:
    start = ((seeds,) * m + (0,) + (seeds,) * m + (0,), 0)
    return reachable(start, lambda b: [child for child, _ in moves(m, b).values()], lambda b: spell(m, b))


# -- the tables -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory, scheduler) -> Path:
    return build_job(tmp_path_factory.mktemp("kalah"), scheduler, KALAH, [{"pits": p, "seeds": s} for p, s in SIZES])


def stored(root: Path, pits: int, seeds: int) -> list[dict]:
    with tb_api.open(root, [KALAH]) as tb:
        return tb.sql(f"SELECT * FROM {table(pits, seeds)}").to_pylist()


@pytest.mark.parametrize("pits, seeds", SIZES)
def test_every_row_against_negamax(built, pits, seeds):
    """Exactly the reachable positions, each with the oracle's outcome, score and plies; each best
    move leads where the oracle says: to the best score, and to a quickest win or a longest defence."""
    check_against_negamax(built, pits, seeds)


def test_levels_with_extra_turns_are_solved_whole_however_small_the_partitions(tmp_path, scheduler):
    """An extra turn keeps its level (the seeds on the board), so the listing records such levels and the
    build never cuts them, even where the partitions are far smaller than a level; the rows are still the
    oracle's."""
    result = tablebase("build", KALAH, "--pits", 3, "--seeds", 2, "--partition-rows", 16, "--out", tmp_path,
                       "--scheduler", scheduler, "--quiet")
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / table(3, 2) / "_manifest.json").read_text())
    assert manifest["listing"]["kept"]
    assert max(manifest["listing"]["sizes"]) > 16 and all(parts == 1 for _, parts, _ in manifest["plan"])
    check_against_negamax(tmp_path, 3, 2)


def check_against_negamax(built: Path, pits: int, seeds: int) -> None:
    rows = stored(built, pits, seeds)
    boards = every_board(pits, seeds)
    assert sorted(r["position"] for r in rows) == sorted(boards)
    for row in rows:
        board = boards[row["position"]]
        lead, outcome, plies = negamax(pits, board)
        assert (row["outcome"], row["score"], row["plies"]) == (outcome, lead, None if outcome == "D" else plies), row
        options = moves(pits, board)
        if not options:
            assert row["best_move"] is None and row["best_score_move"] is None
            continue
        for column, check in (("best_score_move", 0), ("best_move", 2)):
            child, again = options[row[column]]
            figures = negamax(pits, child)
            if check == 0:
                assert (figures[0] if again else -figures[0]) == lead, (row, column)
            elif outcome != "D":
                assert figures[2] + 1 == plies, (row, column)


def test_one_pit_one_seed_is_a_draw(built):
    """Worked by hand: South sows its only seed into its store and moves again with an empty row:
    the game is over, North keeps its seed, one each. One ply, and a draw stores none."""
    (start,) = [r for r in stored(built, 1, 1) if r["position"] == "0 1 / 1 0 S"]
    assert (start["outcome"], start["score"], start["plies"]) == ("D", 0, None)


def test_lookup_marks_the_extra_turns(built):
    """From the start of 3 pits of 2 seeds, South's second pit (c2) ends in South's store: the lookup
    marks it, with the figures of the position after it, where South moves again; the explorer says
    whether each move wins or loses for the player who makes it."""
    with tb_api.open(built, [KALAH]) as tb:
        found = tb.lookup(table(3, 2), "0 2 2 2 / 2 2 2 0 S")
        again = {m["move"] for m in found["moves"] if m.get("again")}
        assert again == {"c2"}
        after = next(m for m in found["moves"] if m["move"] == "c2")
        assert after["position"] == "0 2 2 2 / 2 0 3 1 S"
        lead, outcome, _ = negamax(3, every_board(3, 2)[after["position"]])
        assert (after["outcome"], after["score"]) == (outcome, lead)
        for move in found["moves"]:  # the explorer's words for each move, from the mover's view
            _, outcome, _ = negamax(3, every_board(3, 2)[move["position"]])
            mover = {"N": "wins", "P": "loses", "D": "draw"}[outcome]
            if not move.get("again"):
                mover = {"wins": "loses", "loses": "wins", "draw": "draw"}[mover]
            assert move_verdict(move).startswith(mover), move


def test_check_game_finds_no_defects():
    result = tablebase("check-game", KALAH, "--pits", 2, "--seeds", 2, "--quiet")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("no defects"), result.stdout


def test_kalah_draws_its_board():
    """Each house's seeds written in its cell, the stores at the ends; a move outlines the houses it changes."""
    from tablebase.games import find_game
    from tablebase.games.shapes import Rect, Text

    game = find_game(KALAH)[0](pits=3, seeds=2)
    picture = game.draw("0 2 2 2 / 2 2 2 0 S")
    assert sum(isinstance(s, Rect) for s in picture.shapes) == 10
    assert [s.text for s in picture.shapes if isinstance(s, Text) and s.cell is not None] == list("02222220")
    boxes = game.highlight("0 2 2 2 / 2 2 2 0 S", "c2", "0 2 2 2 / 2 0 3 1 S")
    assert len(boxes) == 3  # the pit sown, the pit and the store it reached
    assert picture.svg().startswith("<svg") and "0 2 2 2 / 2 2 2 0 S" in picture.title
