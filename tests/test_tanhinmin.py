"""Two-player Tanhinmin against oracles that share no code with the solver.

* a plain minimax over the rules, written here, that bounds the number of
  plies instead of detecting cycles (and checks that the bound is not felt);
* Kitani and Ono's linear-time winner rule and the winning moves of its Coq
  formalisation (fugotheory/CoqDaifugo, Tanhinmin.v: ``mu_win_iff``,
  ``win_move_pass_if_not_puttable``, ``win_move_vmin_if_min_not_puttable``,
  ``min_or_second_cond``);
* Ohto and Kitani's score rule: the winner's score is s exactly when the winner
  still wins after the loser's s-1 weakest cards are removed, and no longer
  after s.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations_with_replacement

import numpy as np
import pytest
from conftest import rows_of

import tablebase
from tablebase.builders import builder_of
from tablebase.checks.verify import verify_table
from tablebase.errors import PositionError, TablebaseError
from tablebase.games import make_game

Position = tuple[tuple[int, ...], tuple[int, ...], int]  # mover's hand, opponent's hand (sorted), field


# -- the rules, from scratch ------------------------------------------------------------


def read(text: str) -> Position:
    mover, other, field = text.split("/")
    return _hand(mover), _hand(other), int(field)


def _hand(part: str) -> tuple[int, ...]:
    return tuple(sorted(int(c) for c in part.replace(",", " ").split() if c != "-"))


def moves(p: Position) -> list[tuple[str, Position]]:
    mover, other, field = p
    if not mover or not other:
        return []
    out = [("pass", (other, mover, 0))]
    for card in sorted(set(mover)):
        if card > field:
            rest = list(mover)
            rest.remove(card)
            out.append((f"play {card}", (other, tuple(rest), card)))
    return out


def final_score(p: Position) -> int:
    """The game is over: + the opponent's cards if the mover went out, else - the mover's cards."""
    mover, other, _ = p
    return len(other) if not mover and other else -len(mover)


def positions(top: int, most: int) -> list[Position]:
    hands = [h for n in range(most + 1) for h in combinations_with_replacement(range(1, top + 1), n)]
    return [(a, b, f) for a in hands for b in hands for f in range(top + 1)]


# -- minimax with a ply horizon ---------------------------------------------------------


@lru_cache(maxsize=None)
def negamax(p: Position, depth: int) -> int:
    """The signed score the mover can force within ``depth`` plies; 0 if neither side can."""
    options = moves(p)
    if not options:
        return final_score(p)
    if depth == 0:
        return 0
    return max(-negamax(child, depth - 1) for _, child in options)


@lru_cache(maxsize=None)
def passes(p: Position, depth: int) -> tuple[float, float]:
    """(mover's passes, the mover minimising; opponent's passes, the opponent minimising),
    the other side maximising, in a game cut off after ``depth`` plies (infinite if unfinished)."""
    options = moves(p)
    if not options:
        return 0, 0
    if depth == 0:
        return math.inf, math.inf
    mine = min((name == "pass") + passes(child, depth - 1)[1] for name, child in options)
    theirs = max(passes(child, depth - 1)[0] for _, child in options)
    return mine, theirs


class Minimax:
    """Exact values once the horizon no longer changes anything (a fixed point)."""

    def __init__(self, everything: list[Position], horizon: int):
        self.horizon = horizon
        for p in everything:
            assert negamax(p, horizon) == negamax(p, horizon - 1), ("horizon too short", p)
            assert passes(p, horizon) == passes(p, horizon - 1), ("horizon too short", p)

    def score(self, p: Position) -> int:
        return negamax(p, self.horizon)

    def plies(self, p: Position) -> int:
        return next(d for d in range(self.horizon + 1) if negamax(p, d) != 0 or not moves(p))

    def passes(self, p: Position) -> tuple[float, float]:
        return passes(p, self.horizon)


# -- Kitani and Ono's rule --------------------------------------------------------------


def mu(ys: list[int], zs: list[int]) -> int:
    """Most disjoint pairs (y, z), y from ys, z from zs, z < y: greedy over both sorted lists."""
    ys, zs = sorted(ys), sorted(zs)
    pairs = j = 0
    for y in ys:
        if j < len(zs) and zs[j] < y:
            pairs += 1
            j += 1
    return pairs


def rule_wins(mover: tuple[int, ...], other: tuple[int, ...], field: int) -> bool:
    """Does the mover win? Both hands non-empty: mu(mover, other- + field) > mu(other, mover-)."""
    if not other:
        return False  # the opponent has gone out
    if not mover:
        return True  # the mover has gone out
    return mu(list(mover), list(other[1:]) + [field]) > mu(list(other), list(mover[1:]))


def rule_winning_move(mover: tuple[int, ...], other: tuple[int, ...], field: int) -> str:
    """The winning move the formalisation names in a won position (hands sorted)."""
    if mover[-1] <= field:
        return "pass"
    if len(mover) == 1:
        return f"play {mover[0]}"
    if mover[0] <= field:
        return f"play {min(c for c in mover if c > field)}"
    without_second = list(mover[:1]) + list(mover[2:])
    if mu(list(other), list(mover[1:])) == mu(list(other), without_second):
        return f"play {mover[0]}"
    return f"play {mover[1]}"


def table_rows(built, **params) -> tuple[list[dict], dict[Position, dict]]:
    root, table = built("tanhinmin", **params)
    rows = rows_of(root, table)
    return rows, {read(r["position"]): r for r in rows}


# -- tests --------------------------------------------------------------------------------


@pytest.mark.parametrize("top, most", [(4, 4), (6, 2), (1, 5)])
def test_every_row_matches_minimax(built, top, most):
    rows, by_position = table_rows(built, max_card=top, max_hand=most)
    everything = positions(top, most)
    assert sorted(by_position) == sorted(everything)
    oracle = Minimax(everything, horizon=6 * most + 6)
    for p, row in by_position.items():
        score = oracle.score(p)
        assert row["score"] == score and (score != 0 or not moves(p)), row
        assert row["outcome"] == ("N" if score > 0 else "P"), row
        assert row["plies"] == oracle.plies(p), row
        assert (row["mover_passes"], row["opponent_passes"]) == oracle.passes(p), row
        named = dict(moves(p))
        if not named:
            assert row["best_move"] is None and row["best_score_move"] is None, row
            continue
        child = named[row["best_move"]]
        want = row["plies"] - 1
        assert oracle.plies(child) == want and (oracle.score(child) < 0) == (score > 0), row
        assert oracle.score(named[row["best_score_move"]]) == -score, row
        mine, theirs = row["best_mover_passes_move"], row["best_opponent_passes_move"]
        assert (mine == "pass") + oracle.passes(named[mine])[1] == row["mover_passes"], row
        assert oracle.passes(named[theirs])[0] == row["opponent_passes"], row


def test_best_moves_play_out(built):
    """Following the stored best moves ends the game as the stored figures say."""
    rows, by_position = table_rows(built, max_card=4, max_hand=4)
    for row in rows:
        if not moves(read(row["position"])):
            continue
        # Both sides on best_move: the game lasts `plies` moves and the mover loses on even ones.
        p, r, steps = read(row["position"]), row, 0
        while r["best_move"] is not None:
            p, steps = dict(moves(p))[r["best_move"]], steps + 1
            r = by_position[p]
        assert steps == row["plies"] and (steps % 2 == 0) == (row["outcome"] == "P"), row
        # Both sides on best_score_move: the loser ends up with |score| cards.
        p, r, steps = read(row["position"]), row, 0
        while r["best_score_move"] is not None and steps <= 100:
            p, steps = dict(moves(p))[r["best_score_move"]], steps + 1
            r = by_position[p]
        assert steps <= 100 and len(p[0]) == abs(row["score"]) and (steps % 2 == 0) == (row["outcome"] == "P"), row
        # The mover keeps their passes down, the opponent pushes them up: `mover_passes` passes.
        p, r, steps, passed = read(row["position"]), row, 0, 0
        while moves(p) and steps <= 100:
            move = r["best_mover_passes_move" if steps % 2 == 0 else "best_opponent_passes_move"]
            passed += steps % 2 == 0 and move == "pass"
            p, steps = dict(moves(p))[move], steps + 1
            r = by_position[p]
        assert steps <= 100 and passed == row["mover_passes"], row


@pytest.mark.parametrize("top, most", [(5, 4), (3, 6)])
def test_outcomes_follow_kitani_ono(built, top, most):
    rows, _ = table_rows(built, max_card=top, max_hand=most)
    assert len(rows) == math.comb(top + most, most) ** 2 * (top + 1)
    for row in rows:
        mover, other, field = read(row["position"])
        if not mover and not other:
            assert row["outcome"] == "P" and row["score"] == 0, row  # the documented convention
        else:
            assert row["outcome"] == ("N" if rule_wins(mover, other, field) else "P"), row


@pytest.mark.parametrize("top, most", [(5, 4), (3, 6)])
def test_named_winning_moves_win(built, top, most):
    rows, by_position = table_rows(built, max_card=top, max_hand=most)
    checked = 0
    for row in rows:
        p = read(row["position"])
        if moves(p) and rule_wins(*p):
            move = rule_winning_move(*p)
            assert by_position[dict(moves(p))[move]]["outcome"] == "P", (row, move)
            checked += 1
    assert checked > len(rows) // 4


@pytest.mark.parametrize("top, most", [(5, 4), (3, 6)])
def test_scores_follow_ohto_kitani(built, top, most):
    rows, _ = table_rows(built, max_card=top, max_hand=most)
    for row in rows:
        mover, other, field = read(row["position"])
        if not mover or not other:
            continue
        s = abs(row["score"])
        assert 1 <= s, row
        if row["outcome"] == "N":  # the opponent loses: drop the opponent's weakest cards
            assert rule_wins(mover, other[s - 1 :], field) and not rule_wins(mover, other[s:], field), row
        else:  # the mover loses: drop the mover's weakest cards
            assert not rule_wins(mover[s - 1 :], other, field) and rule_wins(mover[s:], other, field), row


def test_build_reports_no_draws(built):
    for top, most in [(5, 4), (3, 6), (4, 4)]:
        root, table = built("tanhinmin", max_card=top, max_hand=most)
        with tablebase.open(root) as tb:
            drawn = tb.sql(f"SELECT count(*) AS n FROM {table} WHERE outcome = 'D' OR plies IS NULL").to_pylist()
            assert drawn == [{"n": 0}]
            stats = {s.title: s.rows for s in tb.stats(table)}
        per_level = stats["Tanhinmin: outcomes and draws per level"].to_pylist()
        assert sum(r["positions"] for r in per_level) == math.comb(top + most, most) ** 2 * (top + 1)
        assert all(r["draws"] == 0 for r in per_level)
    # The solver's own count, level by level, in this process.
    game = make_game("tanhinmin", {"max_card": 4, "max_hand": 4})
    solver = builder_of(game).solver()
    for level in range(game.max_level + 1):
        solver.remember(level, solver.solve(game.level_keys(level, 0, game.level_size(level))))
    assert sorted(solver.draws) == list(range(game.max_level + 1))
    assert sum(solver.draws.values()) == 0


def test_a_level_must_be_solved_whole():
    game = make_game("tanhinmin", {"max_card": 3, "max_hand": 2})
    solver = builder_of(game).solver()
    solver.remember(0, solver.solve(game.level_keys(0, 0, game.level_size(0))))
    size = game.level_size(1)
    with pytest.raises(TablebaseError, match="solved whole"):
        solver.solve(game.level_keys(1, 0, size - 1))
    with pytest.raises(RuntimeError, match="not loaded"):
        solver.solve(game.level_keys(3, 0, game.level_size(3)))


def test_lookup_lists_every_move(built):
    root, table = built("tanhinmin", max_card=5, max_hand=4)
    with tablebase.open(root) as tb:
        found = tb.lookup(table, "1 1 3 / 2 4 / 0")
        assert found["position"] == "1 1 3 / 2 4 / 0"
        assert found["outcome"] in ("N", "P") and found["plies"] > 0
        listed = {m["move"]: m for m in found["moves"]}
        assert sorted(listed) == ["pass", "play 1", "play 3"]
        for name, child in moves(((1, 1, 3), (2, 4), 0)):
            assert read(listed[name]["position"]) == child
            assert {"outcome", "score", "plies", "mover_passes", "opponent_passes"} <= set(listed[name])
        for spelling in ("3,1,1/4 2/0", " 1 1 3 /2 4/ 0 "):
            assert tb.lookup(table, spelling)["key"] == found["key"]
        empty = tb.lookup(table, "- / 2 5 / 3")
        assert empty["outcome"] == "N" and empty["score"] == 2 and empty["moves"] == []
        assert tb.lookup(table, "/ 2 5 / 3")["key"] == empty["key"]
        with pytest.raises(PositionError):
            tb.lookup(table, "1 6 / 2 / 0")  # no card 6 in this table
        with pytest.raises(PositionError):
            tb.lookup(table, "1 2 / 3")


def test_notation_round_trip():
    game = make_game("tanhinmin", {"max_card": 4, "max_hand": 3})
    keys = np.concatenate([game.level_keys(lvl, 0, game.level_size(lvl)) for lvl in range(game.max_level + 1)])
    assert np.array_equal(np.sort(keys), np.arange(game.key_space))
    texts = game.format_positions(keys).to_strings()
    for key, text in zip(keys.tolist(), texts):
        assert game.parse(text) == key
        mover, other, _ = read(text)
        assert game.level_of(key) == len(mover) + len(other)
    for bad in ("1 2 / 3 / 5", "0 / 1 / 0", "1 1 1 1 / 2 / 0", "1 / 2", "1 / 2 / 1 2", "a / 1 / 0"):
        with pytest.raises(PositionError):
            game.parse(bad)


def test_verify_rederives_every_row(built):
    root, table = built("tanhinmin", max_card=5, max_hand=4)
    checked, problems = verify_table(root, table)
    assert checked == math.comb(9, 4) ** 2 * 6 and problems == []
