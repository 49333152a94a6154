"""The three example games of examples/, built through the command line as their docstrings show.

Each table is checked row by row against oracles written from the rules alone
(tests/example_oracles.py: they import neither the example files nor the
engine's solvers), and against results published or worked out by hand:

* Cram (impartial): a brute-force Grundy value and remoteness of every board,
  and Gardner's symmetry rule for the empty rectangle;
* Toads and Frogs (partizan): values worked out by hand, and the definition of
  a value: the row minus its stored value is a second-player win, by plain
  search over the row's rules and the value's options;
* Tic-tac-toe (scored): the published counts of positions and finished games,
  and a plain minimax for the outcome and plies of every position.

Then the same for all three: ``tablebase verify`` passes, ``check-game`` finds
no defects, a finished position is looked up with no moves, lookups from memory
agree with SQL, and a malformed or unreachable position is refused: with
PositionError in Python, with one clean error line on the command line.

Child processes run at once where a test needs several (the builds, the
verifies, the command-line lookups): each spends most of its time importing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from example_oracles import (
    CramRules,
    every_row,
    hops,
    minimax,
    mover_wins,
    outcome_class,
    three_in_a_row,
    ttt_moves,
    ttt_reachable,
    ttt_read,
    ttt_spell,
    wins_moving_first,
)
from helpers import assert_clean_error
from oracles import Oracle

import tablebase
from tablebase.cgt import parse
from tablebase.errors import PositionError

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CRAM = f"{EXAMPLES / 'cram.py'}:Cram"
TOADS = f"{EXAMPLES / 'toads_and_frogs.py'}:ToadsAndFrogs"
TICTACTOE = f"{EXAMPLES / 'tictactoe.py'}:TicTacToe"
# A folder's own code never runs: lookups name the games (each serves only the tables built from it).
GAMES = [CRAM, TOADS, TICTACTOE]

CRAM_TABLE = "cram_rows3_cols4"
TOADS_TABLE = "toadsandfrogs_cells6"
TICTACTOE_TABLE = "tictactoe"

# Rectangles built beside the 3 x 4 board (rows, cols): every one is checked row by row;
# those with an even side also against Gardner's rule.
RECTANGLES = [(1, 2), (2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (3, 3), (4, 3), (4, 4)]


def cram_table(rows: int, cols: int) -> str:
    return f"cram_rows{rows}_cols{cols}"


def run_all(*commands: list) -> list[subprocess.CompletedProcess]:
    """``tablebase ARGS`` for each list of ARGS, all at once in child processes (each mostly waits
    on its imports or on the cluster), as ``helpers.tablebase`` runs one."""
    children = [
        subprocess.Popen([sys.executable, "-m", "tablebase", *map(str, args)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for args in commands
    ]
    out = []
    for args, child in zip(commands, children):
        stdout, stderr = child.communicate(timeout=300)
        out.append(subprocess.CompletedProcess(args, child.returncode, stdout, stderr))
    return out


def named() -> list[str]:
    """``--game REF`` for each example game."""
    return [arg for game in GAMES for arg in ("--game", game)]


def all_rows(root: Path, table: str) -> list[dict]:
    with tablebase.open(root) as tb:  # SQL needs no game
        return tb.sql(f"SELECT * FROM {table} ORDER BY key").to_pylist()


# -- the tables, built once ------------------------------------------------------------------


@pytest.fixture(scope="module")
def examples(tmp_path_factory, scheduler) -> dict[str, tuple[Path, dict]]:
    """Each example's (folder, build summaries by table), built at once on the session's cluster:
    Toads and Frogs and Tic-tac-toe as the examples' docstrings build them, Cram's 3 x 4 board
    and the other rectangles from one job file."""
    roots = {game: tmp_path_factory.mktemp(game) for game in ("cram", "toads", "tictactoe")}
    job = tmp_path_factory.mktemp("jobs") / "cram_rectangles.toml"
    job.write_text("".join(f'[[table]]\ngame = "{CRAM}"\nrows = {r}\ncols = {c}\n\n' for r, c in [(3, 4), *RECTANGLES]))
    builds = {"cram": ["--job", job], "toads": [TOADS, "--cells", 6], "tictactoe": [TICTACTOE]}
    results = run_all(*(["build", *args, "--out", roots[game], "--scheduler", scheduler, "--quiet"]
                        for game, args in builds.items()))
    out = {}
    for (game, args), result in zip(builds.items(), results):
        assert result.returncode == 0, (args, result.stderr)
        summaries = (json.loads(line) for line in result.stdout.splitlines())  # one per table
        out[game] = roots[game], {s["table"]: s for s in summaries}
    return out


@pytest.fixture
def cram(examples):
    return examples["cram"]


@pytest.fixture
def toads(examples):
    return examples["toads"]


@pytest.fixture
def tictactoe(examples):
    return examples["tictactoe"]


# -- Cram -------------------------------------------------------------------------------------


@pytest.mark.parametrize("rows, cols", [(3, 4), *RECTANGLES])
def test_cram_every_row_against_brute_force(cram, rows, cols):
    """Each table holds exactly the boards reachable from the empty one, with level = empty cells,
    and each row's Grundy value (the mex of the children's), outcome (P iff Grundy 0), remoteness
    (winner hurries, loser delays) and best move (to a child of the least remoteness that is lost
    for the opponent, or of the greatest when every child wins) as a brute-force search finds them."""
    root, summaries = cram
    table = cram_table(rows, cols)
    rules = CramRules(rows, cols)
    oracle = Oracle(rules.children)
    stored = all_rows(root, table)
    reachable = rules.reachable()
    assert summaries[table]["positions"] == len(stored) == len(reachable)
    assert {rules.read(r["position"]) for r in stored} == reachable
    for row in stored:
        board = rules.read(row["position"])
        assert row["position"] == rules.spell(board)
        assert row["level"] == rules.empty_cells(board), row
        assert row["grundy"] == oracle.grundy(board), row
        assert row["outcome"] == ("N" if oracle.grundy(board) else "P"), row
        assert row["remoteness"] == oracle.remoteness(board), row
        if rules.moves(board):
            assert rules.play(board, row["best_move"]) in oracle.optimal_children(board), row
        else:
            assert row["best_move"] is None, row


@pytest.mark.parametrize("rows, cols", [(r, c) for r, c in [(3, 4), *RECTANGLES] if r % 2 == 0 or c % 2 == 0])
def test_cram_gardner_symmetry_rule(cram, rows, cols):
    """Gardner: on an empty board with both sides even the second player wins by answering each
    domino with its image through the centre; with one side even and the other odd the first
    player wins by filling the two centre cells first, then mirroring."""
    root, _ = cram
    empty = "|".join(["." * cols] * rows)
    with tablebase.open(root, GAMES) as tb:
        row = tb.lookup(cram_table(rows, cols), empty)
    assert row["level"] == rows * cols
    assert row["outcome"] == ("P" if rows % 2 == 0 and cols % 2 == 0 else "N")


def test_cram_transposed_board_keeps_its_figures(cram):
    """Turning a board a quarter-turn changes nothing about the game: every board of the 4 x 3
    table has the Grundy value and remoteness of its transpose in the 3 x 4 table."""
    root, _ = cram
    wide = {r["position"]: r for r in all_rows(root, cram_table(3, 4))}
    tall = all_rows(root, cram_table(4, 3))
    assert len(tall) == len(wide)
    for row in tall:
        lines = row["position"].split("|")
        turned = "|".join("".join(line[c] for line in lines) for c in range(3))
        assert (wide[turned]["grundy"], wide[turned]["remoteness"]) == (row["grundy"], row["remoteness"]), turned


def test_cram_lookup_lists_every_domino(cram):
    """A lookup of each 3 x 4 board lists exactly the dominoes that fit, each with the board it
    leaves and that board's stored figures, best move first."""
    root, _ = cram
    rules = CramRules(3, 4)
    stored = {r["position"]: r for r in all_rows(root, CRAM_TABLE)}
    with tablebase.open(root, GAMES) as tb:
        for position, row in stored.items():
            found = tb.lookup(CRAM_TABLE, position)
            board = rules.read(position)
            assert {m["move"]: rules.read(m["position"]) for m in found["moves"]} == rules.moves(board)
            for move in found["moves"]:
                child = stored[move["position"]]
                assert (move["grundy"], move["remoteness"]) == (child["grundy"], child["remoteness"])
            if found["moves"]:
                assert found["moves"][0]["move"] == row["best_move"]


# -- Toads and Frogs --------------------------------------------------------------------------

# Worked out by hand. 'T.': Left's one move leaves '.T', 0, and Right has none: {0|} = 1.
# '.F' is its mirror, -1. 'TF': no one can move, 0. 'T.F': either side moves into the gap
# and leaves a dead row, {0|0} = *. 'T..': {'.T.'|} = {1|} = 2. 'T.T': the right toad is
# stuck, {'.TT'|} = {0|} = 1. 'TF.': Left's only move is a jump, to '.FT' = {|'F.T'} = {|0}
# = -1, and Right has none: {-1|} = 0. 'TF..': Left jumps to '.FT.' = {'.F.T'|'F.T.'}
# = {{|0}|{0|}} = {-1|1} = 0, and Right has no move: {0|} = 1 (0 if toads could not jump).
HAND_VALUES = {"T.": "1", ".F": "-1", "TF": "0", "T.F": "*", "T..": "2", "T.T": "1", "TF.": "0", "TF..": "1"}


@pytest.mark.parametrize("position", HAND_VALUES)
def test_toads_values_worked_out_by_hand(toads, position):
    """Small rows whose values follow from the rules in a line or two (see above)."""
    root, _ = toads
    with tablebase.open(root, GAMES) as tb:
        assert tb.lookup(TOADS_TABLE, position)["value"] == HAND_VALUES[position]


def test_toads_table_holds_every_row_with_its_moves(toads):
    """Every row of 1 to 6 cells is stored once, with each side's number of moves by the rules
    and its level: the cells each toad still has to its right plus each frog to its left."""
    root, summaries = toads
    stored = all_rows(root, TOADS_TABLE)
    assert summaries[TOADS_TABLE]["positions"] == len(stored) == 3 + 9 + 27 + 81 + 243 + 729
    assert sorted(r["position"] for r in stored) == sorted(every_row(6))
    for row in stored:
        p = row["position"]
        assert (row["left_moves"], row["right_moves"]) == (len(hops(p, True)), len(hops(p, False))), p
        to_go = sum(len(p) - 1 - i for i, c in enumerate(p) if c == "T") + sum(i for i, c in enumerate(p) if c == "F")
        assert row["level"] == to_go, p


def test_toads_every_value_by_the_definition(toads):
    """G = v exactly when G - v is a second-player win: for every stored row, whoever moves first
    in the row plus the negated value loses (a plain search: the row is played by its rules, the
    value by its options). The outcome letter is who wins the row alone, by the same search."""
    root, _ = toads
    for row in all_rows(root, TOADS_TABLE):
        p, value = row["position"], parse(row["value"])
        assert not mover_wins(p, -value, True), (p, row["value"])
        assert not mover_wins(p, -value, False), (p, row["value"])
        assert row["outcome"] == outcome_class(p), (p, row["outcome"])


def test_toads_best_moves_follow_the_documented_preference(toads):
    """Each side's best move is one of its moves by the rules (None when it has none); it leads to
    a canonical option of the stored value if any move does (docs/partizan.md), and among those
    to a win for the mover if one of them wins (by plain search of the row left behind)."""
    root, _ = toads
    stored = {r["position"]: r for r in all_rows(root, TOADS_TABLE)}
    for p, row in stored.items():
        value = parse(row["value"])
        for left, best, options in ((True, row["best_left"], value.left_options),
                                    (False, row["best_right"], value.right_options)):
            moves = dict(hops(p, left))
            if not moves:
                assert best is None, p
                continue
            assert best in moves, (p, best)
            canonical = {m for m, child in moves.items() if parse(stored[child]["value"]) in options}
            candidates = canonical or set(moves)
            winning = {m for m in candidates if not wins_moving_first(moves[m], not left)}
            assert best in (winning or candidates), (p, best, canonical, winning)


def test_toads_lookup_lists_each_sides_moves(toads):
    """A lookup of each row lists every move of each side by the rules, with the row it leaves and
    that row's stored value; each side's best move comes first among its moves."""
    root, _ = toads
    stored = {r["position"]: r for r in all_rows(root, TOADS_TABLE)}
    with tablebase.open(root, GAMES) as tb:
        for p, row in stored.items():
            found = tb.lookup(TOADS_TABLE, p)
            for side, left in (("Left", True), ("Right", False)):
                listed = [m for m in found["moves"] if m["side"] == side]
                assert {m["move"]: m["position"] for m in listed} == dict(hops(p, left)), p
                assert all(m["value"] == stored[m["position"]]["value"] for m in listed), p
                if listed:
                    assert listed[0]["move"] == row["best_left" if left else "best_right"], p


# -- Tic-tac-toe ------------------------------------------------------------------------------


def test_tictactoe_published_counts(tictactoe):
    """5,478 positions are reachable from the empty board: 1, 9, 72, 252, 756, 1,260, 1,520, 1,140,
    390 and 78 with 0 to 9 marks. 958 games are over: 626 won by X, 316 by O, 16 drawn; each is
    stored from the view of the player to move, so a won game is a 'P' (lost) and a draw 'D'.
    The empty board is a draw."""
    root, summaries = tictactoe
    stored = all_rows(root, TICTACTOE_TABLE)
    assert summaries[TICTACTOE_TABLE]["positions"] == len(stored) == 5478
    by_marks = [sum(1 for r in stored if r["level"] == 9 - marks) for marks in range(10)]
    assert by_marks == [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]
    over = [r for r in stored if r["best_move"] is None]
    winners = [three_in_a_row(ttt_read(r["position"])) for r in over]
    assert (len(over), winners.count("X"), winners.count("O"), winners.count(None)) == (958, 626, 316, 16)
    assert sorted(r["outcome"] for r in over) == ["D"] * 16 + ["P"] * 942
    assert all(r["plies"] == 0 for r in over if r["outcome"] == "P")
    empty = next(r for r in stored if r["position"] == "...|...|...")
    assert (empty["outcome"], empty["plies"]) == ("D", None)


def test_tictactoe_every_row_against_minimax(tictactoe):
    """The table holds exactly the boards reachable from the empty one (level = empty cells), each
    with the outcome and plies of a plain minimax (winner hurrying, loser delaying, draws without
    plies), and a best move to an optimal child: lost for the opponent in one ply fewer when the
    mover wins, drawn when it is a draw, the longest defence when the mover loses."""
    root, _ = tictactoe
    stored = all_rows(root, TICTACTOE_TABLE)
    assert {ttt_read(r["position"]) for r in stored} == ttt_reachable()
    for row in stored:
        board = ttt_read(row["position"])
        assert row["position"] == ttt_spell(board)
        assert row["level"] == board.count("."), row
        outcome, plies = minimax(board)
        assert (row["outcome"], row["plies"]) == (outcome, plies), row
        moves = ttt_moves(board)
        if not moves:
            assert row["best_move"] is None, row
            continue
        child_outcome, child_plies = minimax(moves[row["best_move"]])
        if outcome == "D":
            assert child_outcome == "D", row
        else:
            assert child_outcome == ("P" if outcome == "N" else "N"), row
            assert child_plies == plies - 1, row


def test_tictactoe_lookup_lists_every_free_cell(tictactoe):
    """A lookup of each board with at most three marks lists every free cell with the board it
    leaves and that board's stored outcome and plies, best move first."""
    root, _ = tictactoe
    stored = {r["position"]: r for r in all_rows(root, TICTACTOE_TABLE)}
    with tablebase.open(root, GAMES) as tb:
        for p, row in stored.items():
            if row["level"] < 6:
                continue
            found = tb.lookup(TICTACTOE_TABLE, p)
            assert {m["move"]: ttt_read(m["position"]) for m in found["moves"]} == ttt_moves(ttt_read(p)), p
            for move in found["moves"]:
                child = stored[move["position"]]
                assert (move["outcome"], move["plies"]) == (child["outcome"], child["plies"]), p
            assert found["moves"][0]["move"] == row["best_move"], p


# -- all three --------------------------------------------------------------------------------

TABLES = {"cram": CRAM_TABLE, "toads": TOADS_TABLE, "tictactoe": TICTACTOE_TABLE}


@pytest.fixture
def db(request):
    """(folder, table) of the example named by the test's ``game`` parameter."""
    game = request.node.callspec.params["game"]
    root, _ = request.getfixturevalue(game)
    return root, TABLES[game]


@pytest.mark.parametrize("game", TABLES)
def test_probe_and_lookup_many_give_the_stored_rows(db, game):
    """The fast point lookups answer from memory what SQL reads from the files: lookup_many of every
    stored position, odd keys first, gives each its row in that order; probe gives the same."""
    root, table = db
    stored = all_rows(root, table)
    order = stored[1::2] + stored[::2]
    with tablebase.open(root, GAMES) as tb:
        many = tb.lookup_many(table, [r["position"] for r in order]).to_pylist()
        assert len(many) == len(order)
        for row, got in zip(order, many):
            assert {k: got[k] for k in row if k in got} == {k: row[k] for k in row if k in got}
            assert got["position"] == row["position"] and got["key"] == row["key"]
        for row in stored[::7]:
            probed = tb.probe(table, row["position"])
            assert probed["key"] == row["key"]
            assert {k: probed[k] for k in row if k in probed} == {k: row[k] for k in row if k in probed}


def test_verify_rederives_every_row(examples):
    """``tablebase verify`` of each example's table re-derives every stored row from its children
    and finds no problem (the three run at once)."""
    results = run_all(*(["verify", "--db", examples[game][0], table, "--quiet", *named()]
                        for game, table in TABLES.items()))
    for table, result in zip(TABLES.values(), results):
        assert result.returncode == 0, (table, result.stdout, result.stderr)
        assert result.stdout.startswith(f"{table}: ") and "no problems" in result.stdout, result.stdout


FINISHED = [
    # game, position, figures of the stored row
    ("cram", "####|####|####", {"grundy": 0, "outcome": "P", "remoteness": 0, "best_move": None, "level": 0}),
    ("cram", ".##.|####|.##.", {"grundy": 0, "outcome": "P", "remoteness": 0, "best_move": None, "level": 4}),
    ("toads", "TTFF", {"value": "0", "outcome": "P", "best_left": None, "best_right": None}),
    ("toads", "F.T", {"value": "0", "outcome": "P", "best_left": None, "best_right": None}),
    ("tictactoe", "XOX|XOO|OXX", {"outcome": "D", "plies": None, "best_move": None, "level": 0}),
    ("tictactoe", "XXX|OO.|...", {"outcome": "P", "plies": 0, "best_move": None, "level": 4}),
]


def finished_by_the_rules(game: str, position: str) -> bool:
    """Whether the oracle's rules reach the position from the start and leave no move in it."""
    if game == "cram":
        rules = CramRules(3, 4)
        board = rules.read(position)
        return board in rules.reachable() and not rules.moves(board)
    if game == "toads":
        return not hops(position, True) and not hops(position, False)  # every row is stored
    board = ttt_read(position)
    return board in ttt_reachable() and not ttt_moves(board)


@pytest.mark.parametrize("game, position, figures", FINISHED)
def test_lookup_of_a_finished_position(db, game, position, figures):
    """A lookup where the game is over gives the stored row with the figures the rules imply
    (lost or drawn for the player to move, no best move) and lists no moves."""
    assert finished_by_the_rules(game, position)
    root, table = db
    with tablebase.open(root, GAMES) as tb:
        row = tb.lookup(table, position)
    assert row["position"] == position
    assert {k: row[k] for k in figures} == figures
    assert row["moves"] == []


BAD = [
    # game, position, a word of the error
    ("cram", "x...|....|....", "bad position"),
    ("cram", "#...|....|....", "not a position of this table"),  # one filled cell: no domino fills one cell
    ("toads", "TXF", "bad position"),
    ("toads", "T......", "at most 6"),  # longer than the table's rows
    ("tictactoe", "XO|..", "bad position"),
    ("tictactoe", "XXX|XXX|XXX", "not a position of this table"),  # X never has more marks than O plus one
]


@pytest.mark.parametrize("game, position, word", BAD)
def test_lookup_of_a_bad_position_is_refused(db, game, position, word):
    """A malformed position, or a well-formed one the table cannot hold, raises PositionError
    naming it, from lookup, probe and lookup_many alike."""
    root, table = db
    with tablebase.open(root, GAMES) as tb:
        for ask in (tb.lookup, tb.probe, lambda t, p: tb.lookup_many(t, [p])):
            with pytest.raises(PositionError, match=word) as caught:
                ask(table, position)
            assert position in str(caught.value)


def test_cli_lookup_of_finished_and_malformed_positions(examples):
    """On the command line, per example (all at once): ``lookup --json`` of a finished position
    prints its row with no moves; a malformed position exits with status 2 and one line on
    stderr naming it, no traceback."""
    finished = {"cram": "####|####|####", "toads": "TTFF", "tictactoe": "XOX|XOO|OXX"}
    malformed = {"cram": "x...|....|....", "toads": "TXF", "tictactoe": "XO|.."}
    commands = [["lookup", "--db", examples[game][0], table, finished[game], "--json", *named()]
                for game, table in TABLES.items()]
    commands += [["lookup", "--db", examples[game][0], table, malformed[game], *named()]
                 for game, table in TABLES.items()]
    results = run_all(*commands)
    for game, result in zip(TABLES, results[:3]):
        assert result.returncode == 0, (game, result.stderr)
        row = json.loads(result.stdout)
        assert (row["table"], row["position"], row["moves"]) == (TABLES[game], finished[game], []), row
    for game, result in zip(TABLES, results[3:]):
        assert_clean_error(result, "bad position", malformed[game])


def test_check_game_finds_no_defects():
    """``check-game`` lists a small table, solves it with the engine and by a plain recursive
    search, and compares them: Cram on a 3 x 3 board and Toads and Frogs up to 4 cells have no
    defects (both run at once). Tic-tac-toe has no options to make it small: its whole table is
    checked above, by minimax and by ``verify``."""
    checks = [[CRAM, "--rows", 3, "--cols", 3], [TOADS, "--cells", 4]]
    for check, result in zip(checks, run_all(*(["check-game", *args, "--quiet"] for args in checks))):
        assert result.returncode == 0, (check, result.stdout, result.stderr)
        assert result.stdout.strip().endswith("no defects"), (check, result.stdout)


@pytest.mark.parametrize("ref, params, position, cells, marks", [
    ("cram.py:Cram", {"rows": 2, "cols": 3}, ".#.|...", 6, []),
    ("cram_compiled.py:CramCompiled", {"rows": 2, "cols": 3}, ".#.|...", 6, []),
    ("tictactoe.py:TicTacToe", {}, "X..|.O.|..X", 9, ["X", "O", "X"]),
    ("toads_and_frogs.py:ToadsAndFrogs", {"cells": 5}, "TT.FF", 5, ["T", "T", "F", "F"]),
])
def test_every_example_game_draws_its_board(ref, params, position, cells, marks):
    """A cell a square, and each piece written in its cell: not the notation in a box."""
    from tablebase.games import find_game
    from tablebase.games.shapes import Rect, Text

    cls, _ = find_game(str(EXAMPLES / ref))
    picture = cls(**params).draw(position)
    assert sum(isinstance(s, Rect) for s in picture.shapes) == cells
    assert [s.text for s in picture.shapes if isinstance(s, Text) and s.text in "XOTF"] == marks
    assert picture.svg().startswith("<svg") and position in picture.title


KAYLES = f"{EXAMPLES / 'kayles.py'}:Kayles"


def kayles_by_definition(longest: int) -> list[int]:
    """Grundy values of single rows by the definition: the mex over every move of the XOR of the pieces left."""
    values: list[int] = []
    for n in range(longest + 1):
        reached = {values[a] ^ values[n - width - a] for width in (1, 2) for a in range(n - width + 1)}
        values.append(min(set(range(len(reached) + 1)) - reached))
    return values


# OEIS A002186, Kayles' Grundy values from a row of 0 pins (Guy and Smith 1956; Winning Ways, ch. 4).
KAYLES_PUBLISHED = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7, 4, 1, 2, 8, 5, 4, 7, 2,
                    1, 8, 6, 7, 4, 1, 2, 3, 1, 4, 7, 2, 1, 8, 2, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1, 4, 2, 7]


def test_kayles_rows_and_any_sum_of_rows(tmp_path):
    """A table of single rows answers for any set of rows by XOR: lookup, probe and batch; its moves'
    values are those of the sums they leave, and the moves that win come first."""
    assert kayles_by_definition(len(KAYLES_PUBLISHED) - 1) == KAYLES_PUBLISHED
    result = subprocess.run([sys.executable, "-m", "tablebase", "build", "--game", KAYLES, "--max", "40", "--out",
                             str(tmp_path), "--quiet"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    truth = kayles_by_definition(40)
    with tablebase.open(tmp_path, [KAYLES]) as tb:
        stored = tb.sql("SELECT position, grundy, outcome FROM kayles_max40 ORDER BY key").to_pylist()
        assert {int(r["position"]): r["grundy"] for r in stored} == {n: truth[n] for n in range(1, 41)}
        assert "remoteness" not in tb.sql("SELECT * FROM kayles_max40 LIMIT 0").column_names  # a sum has none
        for rows in [(13, 7, 4), (40, 1), (9, 9), (5,), (2, 3, 5, 7, 11)]:
            total = 0
            for n in rows:
                total ^= truth[n]
            for text in (" ".join(map(str, rows)), " + ".join(map(str, rows))):
                found = tb.lookup("kayles_max40", text)
                assert (found["grundy"], found["outcome"]) == (total, "N" if total else "P")
                assert tb.probe("kayles_max40", text)["grundy"] == total
                wins = [m["grundy"] == 0 for m in found["moves"]]
                assert wins == sorted(wins, reverse=True) and any(wins) == (total != 0)
                for move in found["moves"]:
                    after = 0
                    for part in move["position"].split(" + "):
                        after ^= truth[int(part)] if part != "0" else 0
                    assert move["grundy"] == after, move
        batch = tb.lookup_many("kayles_max40", ["13 7 4", "9 + 9"]).to_pylist()
        assert [r["grundy"] for r in batch] == [truth[13] ^ truth[7] ^ truth[4], 0]


def test_check_game_finds_components_that_do_not_describe_the_rules(tmp_path):
    """A ``components`` that says a row is two rows passes nothing: the parts' XOR is not the row solved whole."""
    wrong = tmp_path / "wrong_kayles.py"
    wrong.write_text((EXAMPLES / "kayles.py").read_text().replace(
        "        return [(n,) for n in rows]",
        "        return [(k,) for n in rows for k in ((n - 1, 1) if n > 2 else (n,))]"))
    result = subprocess.run([sys.executable, "-m", "tablebase", "check-game", f"{wrong}:Kayles", "--max", "9",
                             "--quiet"], capture_output=True, text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "table says grundy" in result.stdout and "a plain recursive search says" in result.stdout


def test_check_game_finds_partizan_components_that_do_not_describe_the_rules(tmp_path):
    """Toads and Frogs split in two halves that are not independent (a toad may hop into the other half):
    check-game solves each stored row whole, by its moves, and the values differ."""
    wrong = tmp_path / "wrong_toads.py"
    wrong.write_text((EXAMPLES / "toads_and_frogs.py").read_text().replace(
        "    def format(self, row):",
        "    def components(self, row):\n"
        "        return [row[:len(row) // 2], row[len(row) // 2:]] if len(row) > 1 else [row]"
        "\n\n    def format(self, row):"))
    result = subprocess.run([sys.executable, "-m", "tablebase", "check-game", f"{wrong}:ToadsAndFrogs", "--cells",
                             "4", "--quiet"], capture_output=True, text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "'..F': the engine's table says value -1, a plain recursive search says -2" in result.stdout
