"""Each kind of game answers for itself: the columns its rows hold, and that compact files are refused where
they cannot spell positions; and the generic layers never ask what kind a game is."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import assert_clean_error, tablebase

from tablebase.builders import builder_of
from tablebase.games import find_game, make_game
from tablebase.kinds import kind_named

ROOT = Path(__file__).resolve().parent.parent
GENERIC = ["tablebase/build", "tablebase/query", "tablebase/store", "tablebase/cli", "tablebase/http"]


@pytest.mark.parametrize("ref, params, level", [
    ("nim", {"heaps": 2, "max_heap": 3}, 2),
    ("chomp", {"rows": 2, "cols": 3}, 3),
    ("wythoff", {"max": 4}, 3),
    ("domineering", {"max_cells": 4}, 3),
    ("tanhinmin", {"max_card": 3, "max_hand": 2}, 2),
])
def test_a_solver_writes_exactly_the_columns_its_kind_names(ref, params, level):
    game = make_game(ref, params)
    builder = builder_of(game)
    solver = builder.solver()
    for below in range(level):
        keys = game.level_keys(below, 0, game.level_size(below))
        solver.remember(below, solver.solve(keys) if len(keys) else None)
    rows = solver.solve(game.level_keys(level, 0, game.level_size(level)))
    assert rows.column_names == builder.kind.columns()


def test_a_plain_scored_game_without_scores_or_passes_has_no_such_columns():
    cls, _ = find_game(f"{ROOT / 'examples' / 'tictactoe.py'}:TicTacToe")
    assert kind_named(cls.kind).columns_of(cls) == ["key", "position", "outcome", "plies", "best_move"]


def test_games_lists_each_games_columns():
    games = {g["game"]: g for g in json.loads(tablebase("games", "--json").stdout)}
    assert games["tanhinmin"]["columns"][:5] == ["key", "position", "outcome", "score", "plies"]
    assert "misere_outcome" in games["nim"]["columns"] and "misere_outcome" not in games["chomp"]["columns"]


@pytest.mark.slow  # the command, as a user runs it
def test_compact_is_refused_in_one_place_however_asked(tmp_path):
    """A partizan table cannot leave out its position text: refused from the options, and from a job file
    whose tables are made compact by --compact (the way the refusal was once skipped)."""
    assert_clean_error(tablebase("build", "domineering", "--max-cells", 4, "--compact", "--out", tmp_path / "a"),
                       "--compact is refused", "read rows by position")
    job = tmp_path / "job.toml"
    job.write_text('[[table]]\ngame = "domineering"\nmax_cells = 4\n')
    assert_clean_error(tablebase("build", "--job", job, "--compact", "--out", tmp_path / "b"), "--compact is refused")
    plain = f"{ROOT / 'examples' / 'cram.py'}:Cram"
    assert_clean_error(tablebase("build", plain, "--rows", 2, "--cols", 2, "--compact", "--out", tmp_path / "c"),
                       "keys of a plain game")
    assert not any((tmp_path / name).exists() for name in "abc")


def test_the_generic_layers_never_ask_what_kind_a_game_is():
    """Kind-specific behaviour belongs to the kind objects: no `kind ==` and no probing of games elsewhere."""
    found = []
    for place in GENERIC:
        for path in sorted((ROOT / place).rglob("*.py")) if (ROOT / place).is_dir() else [ROOT / place]:
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if re.search(r"\bkind\s*(==|!=|in\b)|hasattr\((self\.)?game|getattr\((self\.)?(game|view)", line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []
