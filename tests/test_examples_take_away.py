"""examples/take_away.py, built through the command line, against the definitions worked here.

The game has one position a level (a pile of n tokens; a move takes 1, 2 or
5), so the engine's listing plays a thousand levels of one position: one task
plays them all and numbers them (build/census/small_levels.py). Every row is compared with
the definitions, computed here from the rules alone: the Grundy value is the
mex of the children's, which for the subtraction set {1, 2, 5} is n mod 3 (the
closed form, checked too); the remoteness and best move as the engine defines
them (the quickest win, the longest defence, ties to the smallest move).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import rows_of
from helpers import tablebase

pytestmark = pytest.mark.slow  # the command: see conftest.py

TAKE_AWAY = f"{Path(__file__).resolve().parent.parent / 'examples' / 'take_away.py'}:TakeAway"
TAKES = (1, 2, 5)


def definitions(top: int) -> list[tuple[int, str, int, int | None]]:
    """(Grundy value, outcome, remoteness, best move) of every pile 0..top, from the definitions."""
    out: list[tuple[int, str, int, int | None]] = []
    for n in range(top + 1):
        children = [(take, out[n - take]) for take in TAKES if take <= n]
        grundy = next(g for g in range(len(children) + 1) if g not in {c[0] for _, c in children})
        losing = [(c[2], take) for take, c in children if c[1] == "P"]
        if not children:
            out.append((grundy, "P", 0, None))
        elif losing:  # the quickest win: the least remoteness, then the smallest move
            remoteness, take = min(losing)
            out.append((grundy, "N", remoteness + 1, take))
        else:  # the longest defence: the most remoteness, then the smallest move
            remoteness, take = min((-c[2], take) for take, c in children)
            out.append((grundy, "P", 1 - remoteness, take))
    return out


def test_a_thousand_levels_of_one_position_each_hold_the_definitions(tmp_path):
    result = tablebase("build", "--game", TAKE_AWAY, "--max", 1000, "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    # Listed by one task; its figures held wide from the start (a small table), so never started again.
    assert "found in one task" not in result.stderr and "holding it wide" not in result.stderr, result.stderr
    summary = json.loads(result.stdout.splitlines()[-1])
    assert summary["positions"] == 1001 and summary["levels"] == 1001
    rows = rows_of(tmp_path, "take_away_max1000")
    assert [(r["key"], r["position"], r["level"]) for r in rows] == [(n, str(n), n) for n in range(1001)]
    expected = definitions(1000)
    assert [g for g, *_ in expected] == [n % 3 for n in range(1001)]  # the closed form: period 3
    got = [(r["grundy"], r["outcome"], r["remoteness"], None if r["best_move"] is None else int(r["best_move"]))
           for r in rows]
    assert got == expected
    assert max(r["remoteness"] for r in rows) > 255  # the figure a build holds in one byte did not fit it
    looked = tablebase("lookup", "--db", tmp_path, "take_away_max1000", "1000", "--game", TAKE_AWAY, "--json")
    assert looked.returncode == 0, looked.stderr
    answer = json.loads(looked.stdout)
    assert answer["grundy"] == 1 and {m["move"] for m in answer["moves"]} == {"1", "2", "5"}
