"""A table built with --symmetry against the same table built without, position by position.

Two games declare a symmetry: examples/connect_four.py (the board's left-right
mirror) and tests/plugins/two_heaps.py (an impartial game whose heaps may be
swapped). Each is built with and without the symmetry on the session's
cluster, through the command line, and the oracle is the test's own: the
Connect-Four boards and their minimax from tests/test_examples_connect_four.py
(a board as its columns, mirrored by reversing them), the two heaps' rules
and Grundy values written again here. The reduced table holds exactly one
position of each orbit the oracle counts; the full one is the oracle's, row
for row; every position of the full table is read in the reduced one, by
lookup, probe and lookup_many, with the same figures, and its moves as asked.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from helpers import tablebase
from test_examples_connect_four import check_against_minimax, drops, every_board, spell

import tablebase as tb_api

pytestmark = pytest.mark.slow  # the command and the session's cluster: see conftest.py

HERE = Path(__file__).resolve().parent
CONNECT_FOUR = f"{HERE.parent / 'examples' / 'connect_four.py'}:ConnectFour"
TWO_HEAPS = f"{HERE / 'plugins' / 'two_heaps.py'}:TwoHeaps"
BOARDS = [(3, 4, 3), (4, 3, 3)]  # (rows, cols, connect): an even and an odd number of columns
MOST = 7  # the two heaps' largest heap
C4_FIGURES = ("outcome", "plies")
HEAP_FIGURES = ("grundy", "outcome", "remoteness")
ASKED = 150  # mirrored positions looked up one by one, move by move, in each table


def c4_table(rows: int, cols: int, connect: int) -> str:
    return f"connectfour_rows{rows}_cols{cols}_connect{connect}"


@pytest.fixture(scope="module")
def root(tmp_path_factory, scheduler) -> Path:
    """Each game built with and without its symmetry: Connect-Four by its command-line option, the two heaps
    by a job file's ``symmetry`` key beside the same table without it."""
    folder = tmp_path_factory.mktemp("symmetry")
    out = folder / "tb"
    for rows, cols, connect in BOARDS:
        for asked in ((), ("--symmetry",)):
            result = tablebase("build", CONNECT_FOUR, "--rows", rows, "--cols", cols, "--connect", connect, *asked,
                               "--out", out, "--scheduler", scheduler, "--quiet")
            assert result.returncode == 0, result.stderr
    job = folder / "heaps.toml"
    job.write_text(f'[[table]]\ngame = "{TWO_HEAPS}"\nmax = {MOST}\n\n'
                   f'[[table]]\ngame = "{TWO_HEAPS}"\nmax = {MOST}\nsymmetry = true\n')
    result = tablebase("build", "--job", job, "--out", out, "--scheduler", scheduler, "--quiet")
    assert result.returncode == 0, result.stderr
    return out


# -- the oracles: each game's positions, its mirror, its figures --------------------------------------


@cache
def heap_moves(a: int, b: int) -> dict[str, tuple[int, int]]:
    """The two heaps' moves by name, written again from the rules."""
    found = {f"a-{t}": (a - t, b) for t in (1, 2, 3) if t <= a}
    found.update({f"b-{t}": (a, b - t) for t in (1, 2, 3) if t <= b})
    found.update({f"ab-{t}": (a - t, b - t) for t in (1, 2) if t <= min(a, b)})
    return found


@cache
def heap_figures(a: int, b: int) -> dict:
    """Grundy value (mex), outcome and remoteness (the winner hurrying, the loser delaying) by the definitions."""
    children = [heap_figures(*child) for child in heap_moves(a, b).values()]
    grundy = next(g for g in range(len(children) + 1) if all(c["grundy"] != g for c in children))
    lost = [c["remoteness"] for c in children if c["outcome"] == "P"]
    remoteness = 0 if not children else 1 + (min(lost) if lost else max(c["remoteness"] for c in children))
    return {"grundy": grundy, "outcome": "N" if grundy else "P", "remoteness": remoteness}


class Game:
    """What the checks need of one game's oracle: every position by text, each one's moves and mirror."""

    def __init__(self, ref: str, table: str, figures: tuple[str, ...], positions: dict[str, object],
                 moves, mirror, start: str, board: tuple[int, int, int] | None = None) -> None:
        self.ref, self.table, self.figures, self.positions = ref, table, figures, positions
        self.board = board  # Connect-Four's (rows, cols, connect)
        self.moves, self.mirror, self.start = moves, mirror, start  # moves(text): {name: child's text}

    @property
    def reduced(self) -> str:
        return self.table + "_symmetry"

    def orbits(self) -> set[frozenset[str]]:
        return {frozenset((text, self.mirror(text))) for text in self.positions}


def connect_four(rows: int, cols: int, connect: int) -> Game:
    boards = every_board(rows, cols, connect)

    def moves(text: str) -> dict[str, str]:
        return {name: spell(child, rows) for name, child in drops(boards[text], rows, connect).items()}

    return Game(CONNECT_FOUR, c4_table(rows, cols, connect), C4_FIGURES, boards, moves,
                lambda text: spell(boards[text][::-1], rows), spell(((),) * cols, rows), (rows, cols, connect))


def two_heaps() -> Game:
    pairs = {f"{a} {b}": (a, b) for a in range(MOST + 1) for b in range(MOST + 1)}

    def moves(text: str) -> dict[str, str]:
        return {name: f"{a} {b}" for name, (a, b) in heap_moves(*pairs[text]).items()}

    return Game(TWO_HEAPS, f"twoheaps_max{MOST}", HEAP_FIGURES, pairs, moves,
                lambda text: " ".join(reversed(text.split())), f"{MOST} {MOST}")


GAMES = {f"connect_four_{r}x{c}": (lambda r=r, c=c, k=k: connect_four(r, c, k)) for r, c, k in BOARDS}
GAMES["two_heaps"] = two_heaps


@pytest.fixture(scope="module", params=sorted(GAMES))
def game(request) -> Game:
    return GAMES[request.param]()


def rows_of(root: Path, game: Game, table: str) -> dict[str, dict]:
    with tb_api.open(root, [game.ref]) as tb:
        return {r["position"]: r for r in tb.sql(f"SELECT * FROM {table}").to_pylist()}


def figures(row: dict, game: Game) -> tuple:
    return tuple(row[f] for f in game.figures)


# -- the checks ---------------------------------------------------------------------------------------


def test_the_reduced_table_holds_one_position_of_each_orbit(root, game):
    full, reduced = rows_of(root, game, game.table), rows_of(root, game, game.reduced)
    orbits = game.orbits()
    assert len(full) == len(game.positions)
    assert len(reduced) == len(orbits) < len(full)
    assert {frozenset((text, game.mirror(text))) for text in reduced} == orbits  # each orbit once
    assert json.loads((root / game.reduced / "_manifest.json").read_text())["symmetry"] is True
    assert "symmetry" not in json.loads((root / game.table / "_manifest.json").read_text())
    with tb_api.open(root, [game.ref]) as tb:
        said = {t["table"]: t.get("symmetry") for t in tb.tables()}
    assert (said[game.table], said[game.reduced]) == (None, True)


def test_without_symmetry_the_rows_are_the_oracles(root, game):
    if game.board is not None:
        check_against_minimax(root, *game.board)
        return
    for text, row in rows_of(root, game, game.table).items():
        assert figures(row, game) == figures(heap_figures(*game.positions[text]), game), text


def test_every_position_has_its_mirrors_figures_and_its_representatives(root, game):
    full = rows_of(root, game, game.table)
    for text, row in full.items():
        assert figures(full[game.mirror(text)], game) == figures(row, game), text
    texts = sorted(full)
    with tb_api.open(root, [game.ref]) as tb:
        found = tb.lookup_many(game.reduced, texts).to_pylist()
        assert figures(tb.lookup(game.reduced, game.start), game) == figures(full[game.start], game)
    for text, row in zip(texts, found):
        assert figures(row, game) == figures(full[text], game), text
        assert row["position"] in (text, game.mirror(text))  # the representative's row


def test_a_mirrored_position_is_looked_up_as_asked(root, game):
    """A position stored as its mirror: its moves are its own (names and children as the rules give them),
    each child's figures are the full table's, and its best move is the full table's; probes and lines too."""
    reduced = rows_of(root, game, game.reduced)
    asked = sorted(text for text in game.positions if text not in reduced)
    asked = asked[:: max(1, len(asked) // ASKED)]
    assert asked
    with tb_api.open(root, [game.ref]) as tb:
        for text in asked:
            mine, whole = tb.lookup(game.reduced, text), tb.lookup(game.table, text)
            assert mine["position"] == whole["position"] == text
            assert figures(mine, game) == figures(whole, game), text
            legal = game.moves(text)
            assert {m["move"]: m["position"] for m in mine["moves"]} == legal, text
            assert [(m["move"], figures(m, game)) for m in mine["moves"]] == [
                (m["move"], figures(m, game)) for m in whole["moves"]], text
            assert mine["best_move"] == whole["best_move"], text
            probed = tb.probe(game.reduced, text)
            assert figures(probed, game) == figures(whole, game)
            assert probed["best_move"] == whole["best_move"], text
            assert tb.probe(game.reduced, text, columns=["best_move"]) == {"best_move": whole["best_move"]}
            assert tb.probe(game.reduced, text, columns=game.figures[:1]) == {game.figures[0]: probed[game.figures[0]]}
        line = tb.line(game.reduced, asked[0])["steps"]
        for step, after in zip(line, line[1:]):
            assert game.moves(step["position"])[step["move"]] == after["position"]
            assert figures(step, game) == figures(tb.probe(game.table, step["position"]), game)


def test_symmetry_asked_of_a_game_without_one_is_one_line(tmp_path):
    result = tablebase("build", "nim", "--heaps", 2, "--max-heap", 3, "--symmetry", "--out", tmp_path / "tb")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "--symmetry is refused" in result.stderr, result.stderr
    assert not (tmp_path / "tb").exists()


def test_verify_lists_a_reduced_table_again(root, game):
    result = tablebase("verify", "--db", root, "--game", game.ref, game.reduced)
    assert result.returncode == 0, result.stderr
    assert "no problems" in result.stdout


@pytest.mark.parametrize("edit, said", [
    (("        return tuple(sorted(heaps))", "        return heaps[1], heaps[0]"), "a representative must be its own"),
    (("            if t <= b:", "            if t <= b and t < 3:"), "it is no symmetry of the rules"),
])
def test_check_game_finds_a_canonical_that_is_no_symmetry(tmp_path, edit, said):
    source = (HERE / "plugins" / "two_heaps.py").read_text()
    assert edit[0] in source
    broken = tmp_path / "two_heaps.py"
    broken.write_text(source.replace(edit[0], edit[1]))
    result = tablebase("check-game", f"{broken}:TwoHeaps", "--max", 4, "--quiet")
    assert result.returncode != 0
    assert said in result.stdout, result.stdout + result.stderr


def test_a_reduced_build_does_not_resume_a_full_one(root):
    result = tablebase("build", TWO_HEAPS, "--max", MOST, "--symmetry", "--table", f"twoheaps_max{MOST}",
                       "--out", root, "--quiet")
    assert result.returncode == 2
    assert "symmetry" in result.stderr and result.stderr.strip().count("\n") == 0, result.stderr
