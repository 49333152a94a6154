"""Every stored row of every impartial game against solvers written from the rules alone."""

from __future__ import annotations

import math
import re

import pytest
from conftest import rows_of
from oracles import (
    Oracle,
    chomp_board,
    chomp_boards,
    chomp_moves,
    colon_value,
    fibonacci_moves,
    nim_moves,
    nim_positions,
    subtraction_moves,
    tree_moves,
    tree_parse,
    tree_shape,
    trees_up_to,
    wythoff_moves,
    wythoff_p_positions,
)


def canon(p) -> str:
    return repr(sorted(p)) if isinstance(p, frozenset) else repr(p)


def ints(text: str) -> list[int]:
    return [int(t) for t in text.split()]


def cut_edge(text: str, i: int):
    """Remove the i-th edge (its i-th '(' after the ground's) and all above it."""
    opens = [m.start() for m in re.finditer(r"\(", text)][1:]
    start = opens[i - 1]
    depth = 0
    for end in range(start, len(text)):
        depth += 1 if text[end] == "(" else -1
        if depth == 0:
            break
    return tree_shape(tree_parse(text[:start] + text[end + 1 :]))


def apply_nim(p: str, move: str):
    h, v = map(int, move.split("->"))
    heaps = ints(p)
    heaps[heaps.index(h)] = v
    return tuple(sorted(heaps))


def apply_wythoff(p: str, move: str):
    a, b = ints(p)
    which, d = move.split("-")
    d = int(d)
    return tuple(sorted((a - d if "a" in which else a, b - d if "b" in which else b)))


def apply_fibonacci(p: str, move: str):
    n, k = ints(p)
    t = -int(move)
    assert 1 <= t <= k
    return (n - t, min(2 * t, n - t))


def apply_chomp(p: str, move: str):
    r, c = (int(x) - 1 for x in move.strip("()").split(","))
    board = chomp_board(p)
    assert (r, c) in board and (r, c) != (0, 0)
    return frozenset((x, y) for x, y in board if x < r or y < c)


# game, build options, oracle moves, notation -> oracle position, apply a named move, every position
CASES = {
    "nim": (
        "nim", dict(heaps=3, max_heap=6), nim_moves,
        lambda s: tuple(sorted(ints(s))), apply_nim, nim_positions(3, 6),
    ),
    "bash": (
        "subtraction", dict(bash=3, max=40), subtraction_moves(range(1, 4)),
        int, lambda p, m: int(p) + int(m), list(range(41)),
    ),
    "set134": (
        "subtraction", {"set": "1,3,4", "max": 60}, subtraction_moves([1, 3, 4]),
        int, lambda p, m: int(p) + int(m), list(range(61)),
    ),
    "take": (
        "subtraction", {"take": "3..5", "max": 50}, subtraction_moves(range(3, 6), take_all_below=3),
        int, lambda p, m: int(p) + int(m), list(range(51)),
    ),
    "wythoff": (
        "wythoff", {"max": 14}, wythoff_moves,
        lambda s: tuple(sorted(ints(s))), apply_wythoff,
        [(a, b) for b in range(15) for a in range(b + 1)],
    ),
    "fibonacci": (
        "fibonacci-nim", {"max": 25}, fibonacci_moves,
        lambda s: tuple(ints(s)), apply_fibonacci,
        [(n, k) for n in range(26) for k in range(n + 1)],
    ),
    "chomp": (
        "chomp", dict(rows=5, cols=5), chomp_moves,
        chomp_board, apply_chomp, chomp_boards(5, 5),
    ),
    "chomp_wide": (
        "chomp", dict(rows=3, cols=7), chomp_moves,
        chomp_board, apply_chomp, chomp_boards(3, 7),
    ),
    "hackenbush": (
        "green-hackenbush", dict(max_edges=7), tree_moves,
        lambda s: tree_shape(tree_parse(s)), lambda p, m: cut_edge(p, int(m.split()[1])),
        trees_up_to(7),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_row_matches_the_plain_solver(built, case):
    game, params, moves, read, apply_move, everything = CASES[case]
    # Small partitions so that levels span several files and tasks.
    root, table = built(game, partition_rows=7, **params)
    oracle = Oracle(lambda p: moves(p))
    rows = rows_of(root, table)
    assert sorted(map(canon, (read(r["position"]) for r in rows))) == sorted(map(canon, everything))
    for row in rows:
        p = read(row["position"])
        assert row["grundy"] == oracle.grundy(p), row
        assert row["outcome"] == ("N" if oracle.grundy(p) else "P"), row
        assert row["remoteness"] == oracle.remoteness(p), row
        if "misere_outcome" in row:
            assert row["misere_outcome"] == ("N" if oracle.misere_wins(p) else "P"), row
        if moves(p):
            assert apply_move(row["position"], row["best_move"]) in oracle.optimal_children(p), row
        else:
            assert row["best_move"] is None


def test_nim_xor_rule_and_misere_rule(built):
    root, table = built("nim", heaps=4, max_heap=7)
    rows = rows_of(root, table)
    assert len(rows) == math.comb(7 + 4, 4)
    for row in rows:
        heaps = ints(row["position"])
        xor = 0
        for h in heaps:
            xor ^= h
        assert row["grundy"] == xor
        assert row["outcome"] == ("N" if xor else "P")
        # Misère Nim (Bouton): with a heap of 2 or more, play as in normal Nim;
        # with only 0s and 1s, the mover wins when the number of 1s is even.
        if max(heaps) >= 2:
            assert row["misere_outcome"] == row["outcome"]
        else:
            assert row["misere_outcome"] == ("N" if heaps.count(1) % 2 == 0 else "P")


@pytest.mark.parametrize("m", [1, 2, 5])
def test_bash_is_n_mod_m_plus_one(built, m):
    root, table = built("subtraction", bash=m, max=200)
    for row in rows_of(root, table):
        n = int(row["position"])
        assert row["grundy"] == n % (m + 1)
        assert row["outcome"] == ("P" if n % (m + 1) == 0 else "N")


def test_wythoff_p_positions_are_the_golden_pairs(built):
    top = 300
    root, table = built("wythoff", max=top)
    pairs = wythoff_p_positions(top)
    with __import__("tablebase").open(root) as tb:
        p = tb.sql(f"SELECT position FROM {table} WHERE outcome = 'P'").column("position").to_pylist()
    assert set(p) == pairs


def test_fibonacci_nim_start_positions_lose_exactly_at_fibonacci_numbers(built):
    top = 400
    root, table = built("fibonacci-nim", max=top)
    fib = {1, 2}
    while max(fib) < top:
        a, b = sorted(fib)[-2:]
        fib.add(a + b)
    with __import__("tablebase").open(root) as tb:
        starts = tb.sql(
            f"SELECT position, outcome FROM {table} "
            "WHERE CAST(split_part(position, ' ', 2) AS INT) = CAST(split_part(position, ' ', 1) AS INT) - 1"
        ).to_pylist()
    assert len(starts) == top
    for row in starts:
        n = ints(row["position"])[0]
        assert row["outcome"] == ("P" if n in fib else "N"), row


def test_green_hackenbush_trees_follow_the_colon_principle(built):
    root, table = built("green-hackenbush", max_edges=9)
    rows = rows_of(root, table)
    # Rooted trees with n nodes (OEIS A000081): 1, 1, 2, 4, 9, 20, 48, 115, 286, 719.
    assert len(rows) == sum([1, 1, 2, 4, 9, 20, 48, 115, 286, 719])
    for row in rows:
        assert row["grundy"] == colon_value(tree_parse(row["position"])), row


def test_chomp_square_boards_are_first_player_wins(built):
    # Strategy stealing: every rectangle but the lone poisoned square is a first-player win.
    root, table = built("chomp", rows=5, cols=5, partition_rows=7)
    rows = {r["position"]: r for r in rows_of(root, table)}
    for r in range(1, 6):
        for c in range(1, 6):
            row = rows[" ".join([str(c)] * r)]
            assert row["outcome"] == ("P" if r == c == 1 else "N")
    # Square boards: bite (2,2) and mirror.
    for n in range(2, 6):
        assert rows[" ".join([str(n)] * n)]["best_move"] == "(2,2)"
