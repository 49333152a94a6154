"""Misère figures of impartial tables (``--misere``) against a brute force written here from the definitions.

Misère play: who cannot move wins. A position without moves is won in 0 moves; a won position's misère
remoteness is 1 + the least of its misère-lost children's, a lost one's 1 + the greatest of its children's.
The brute force below recurses over each game's moves as ``oracles.py`` and ``example_oracles.py`` write
them from the rules, memoised, and shares no code with the solver.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from functools import reduce
from pathlib import Path

import pytest
from conftest import rows_of
from example_oracles import CramRules
from oracles import chomp_board, chomp_moves, nim_moves
from test_games import CASES

import tablebase
from tablebase.build.jobs import read_job, spec_for
from tablebase.errors import UsageError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KAYLES = f"{EXAMPLES / 'kayles.py'}:Kayles"
CRAM = f"{EXAMPLES / 'cram.py'}:Cram"


class Misere:
    """Misère outcome and remoteness by the definitions, over a function from a position to its children."""

    def __init__(self, moves) -> None:
        self.moves = moves
        self.memo: dict = {}

    def __call__(self, p) -> tuple[bool, int]:
        """(whether the player to move wins, the misère remoteness)."""
        if p not in self.memo:
            children = [self(c) for c in self.moves(p)]
            if not children:
                self.memo[p] = (True, 0)
            else:
                lost = [r for wins, r in children if not wins]
                self.memo[p] = (True, 1 + min(lost)) if lost else (False, 1 + max(r for _, r in children))
        return self.memo[p]


def _check_rows(rows: list[dict], children, read, apply_move) -> None:
    """Every row's misère figures against the brute force, and its best misère move: to a misère-lost child
    of one less remoteness where the row is won, to a child of one less remoteness where it is lost."""
    misere = Misere(children)
    assert rows
    for row in rows:
        p = read(row["position"])
        wins, remoteness = misere(p)
        assert (row["misere_outcome"], row["misere_remoteness"]) == ("N" if wins else "P", remoteness), row
        if not children(p):
            assert row["misere_best_move"] is None, row
            continue
        after = misere(apply_move(row["position"], row["misere_best_move"]))
        assert after[1] == remoteness - 1, row
        assert after[0] is not wins, row  # a won position's move leaves a misère-lost one


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_built_in_games_misere_figures_are_the_definitions(built, case):
    game, params, moves, read, apply_move, _ = CASES[case]
    root, table = built(game, partition_rows=7, misere=True, **params)
    _check_rows(rows_of(root, table), moves, read, apply_move)


# -- Kayles, from the rules: rows of pins; a move knocks down one pin or two touching ones ------------------

def kayles_children(rows: tuple) -> list[tuple]:
    out = []
    for i, n in enumerate(rows):
        others = rows[:i] + rows[i + 1:]
        for width in (1, 2):
            for left in range(n - width + 1):
                out.append(tuple(sorted(others + tuple(k for k in (left, n - left - width) if k), reverse=True)))
    return out


def kayles_read(text: str) -> tuple:
    return tuple(sorted((int(t) for t in text.split() if t != "0"), reverse=True))


def kayles_play(text: str, move: str) -> tuple:
    """The rows a move named "3", "3-4" or "row 2: 3-4" (pins counted from the left from 1) leaves."""
    rows = list(kayles_read(text))
    where, _, pins = move.rpartition(": ")
    i = int(where.split()[1]) - 1 if where else 0
    first, _, last = pins.partition("-")
    a, b = int(first), int(last or first)
    n = rows.pop(i)
    assert 1 <= a and b <= n and b - a in (0, 1), move
    return tuple(sorted(rows + [k for k in (a - 1, n - b) if k], reverse=True))


def test_a_plugin_game_of_components_keeps_misere_figures_over_whole_positions(built):
    """Kayles declares components; with --misere its table holds whole positions, every one reachable from
    a row of at most 9 pins, each with its misère figures."""
    root, table = built(KAYLES, max=9, misere=True)
    rows = rows_of(root, table)
    reachable, todo = set(), [(n,) for n in range(1, 10)]
    while todo:
        p = todo.pop()
        if p not in reachable:
            reachable.add(p)
            todo += kayles_children(p)
    assert {kayles_read(r["position"]) for r in rows} == reachable
    _check_rows(rows, kayles_children, kayles_read, kayles_play)


def test_a_plain_plugin_games_misere_figures_are_the_definitions(built):
    rules = CramRules(3, 3)
    root, table = built(CRAM, rows=3, cols=3, misere=True)
    rows = rows_of(root, table)
    assert {rules.read(r["position"]) for r in rows} == rules.reachable()
    _check_rows(rows, rules.children, rules.read, lambda text, move: rules.play(rules.read(text), move))


def test_misere_nim_is_boutons_rule(built):
    """Bouton: with a heap of 2 or more, misère Nim is won exactly where normal Nim is (nim-sum not 0); with
    none, exactly where the number of 1-heaps is even."""
    root, table = built("nim", heaps=4, max_heap=7, misere=True)
    rows = rows_of(root, table)
    assert len(rows) == 330
    for row in rows:
        heaps = [int(t) for t in row["position"].split()]
        wins = reduce(lambda a, b: a ^ b, heaps) != 0 if max(heaps) > 1 else heaps.count(1) % 2 == 0
        assert row["misere_outcome"] == ("N" if wins else "P"), row
    _check_rows(rows, nim_moves, lambda s: tuple(sorted(int(t) for t in s.split())),
                CASES["nim"][4])


def test_every_reader_gives_the_misere_figures(built):
    """Lookups, probes, batches and SQL give what the rows hold; the manifest says misere."""
    root, table = built("chomp", rows=4, cols=5, misere=True)
    manifest = json.loads((root / table / "_manifest.json").read_text())
    assert manifest["misere"] is True and manifest["params"]["misere"] is True
    with tablebase.open(root) as tb:
        stored = {r["position"]: r for r in tb.sql(f"SELECT * FROM {table}").to_pylist()}
        figures = ("misere_outcome", "misere_remoteness", "misere_best_move")
        for text in ("5 5 5 5", "5 3 1", "1", "2 2"):
            found = tb.lookup(table, text)
            assert {f: found[f] for f in figures} == {f: stored[text][f] for f in figures}
            assert {f: tb.probe(table, text)[f] for f in figures} == {f: stored[text][f] for f in figures}
            for move in found["moves"]:
                assert move["misere_remoteness"] == stored[move["position"]]["misere_remoteness"]
        batch = tb.lookup_many(table, ["5 5 5 5", "1"]).to_pylist()
        assert [r["misere_remoteness"] for r in batch] == [stored["5 5 5 5"]["misere_remoteness"], 0]


def test_the_catalogue_gives_the_share_of_misere_p_positions_and_verify_checks_it(built, tmp_path):
    """Counted over every file of the table (small partitions: many files, the manifest saved as they come)."""
    root, table = built("chomp", rows=4, cols=5, misere=True, partition_rows=16)
    assert len(json.loads((root / table / "_manifest.json").read_text())["files"]) > 3
    misere = Misere(chomp_moves)
    rows = rows_of(root, table)
    lost = sum(not misere(chomp_board(r["position"]))[0] for r in rows)
    assert 0 < lost < len(rows)
    with tablebase.open(root) as tb:
        shown = next(t for t in tb.tables() if t["table"] == table)
    assert shown["misere"] == {"p_positions": lost, "p_share": round(lost / len(rows), 6)}
    shutil.copytree(root / table, tmp_path / table)
    manifest = tmp_path / table / "_manifest.json"
    manifest.write_text(manifest.read_text().replace(f'"p_positions": {lost},', f'"p_positions": {lost + 1},'))
    result = subprocess.run([sys.executable, "-m", "tablebase", "verify", "--db", str(tmp_path), table],
                            capture_output=True, text=True)
    assert result.returncode != 0 and f"misere recorded {{'p_positions': {lost + 1}" in result.stdout + result.stderr


# -- what may ask for misère figures, in the fast tier ---------------------------------------------------

def test_misere_is_an_option_of_every_impartial_game_and_names_no_other_table():
    spec = spec_for("subtraction", {"set": "1,3,4", "max": 20, "misere": True})
    assert spec.game.misere and spec.name == spec_for("subtraction", {"set": "1,3,4", "max": 20}).name
    assert not spec_for("subtraction", {"set": "1,3,4", "max": 20}).game.misere
    assert spec_for("nim", {"heaps": 2, "max_heap": 3, "misere": True}).game.params == {"heaps": 2, "max_heap": 3}
    assert spec_for(CRAM, {"rows": 2, "cols": 2}).with_misere().game.misere


@pytest.mark.parametrize("ref, params, words", [
    ("domineering", {"max_cells": 4}, "--misere is for impartial games"),
    ("chomp", {"rows": 2, "cols": 2, "misere": "yes"}, "misere must be true or false"),
])
def test_a_game_that_cannot_keep_misere_figures_refuses_them_in_one_line(ref, params, words):
    with pytest.raises(UsageError, match=words.replace("-", r"\-")):
        spec_for(ref, {"misere": True, **params})


def test_a_job_file_asks_for_misere_figures_for_all_or_one_table(tmp_path):
    job = tmp_path / "job.toml"
    job.write_text('misere = true\n[[table]]\ngame = "wythoff"\nmax = 5\n'
                   '[[table]]\ngame = "chomp"\nrows = 2\ncols = 2\nmisere = false\n')
    specs, _ = read_job(job)
    assert [s.game.misere for s in specs] == [True, False]
    job.write_text('[[table]]\ngame = "domineering"\nmax_cells = 3\nmisere = true\n')
    with pytest.raises(UsageError, match="table 1: domineering: --misere is for impartial games"):
        read_job(job)
