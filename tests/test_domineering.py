"""Domineering tables against the definition, published values, cgt-py, and lookups of any board.

Left places vertical dominoes, Right horizontal ones. The test reads boards
with its own code: a board is a frozenset of empty (row, column) cells.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import rows_of

import tablebase
from tablebase.cgt import Value, from_options, parse

sys.path.insert(0, str(Path(__file__).parent / "cgt"))
from cgt_helpers import import_cgt_py, negate, outcome_by_play, raw_of  # noqa: E402


def board(text: str) -> frozenset:
    return frozenset((r, c) for r, row in enumerate(text.split("|")) for c, ch in enumerate(row) if ch == ".")


def dominoes(cells: frozenset, vertical: bool):
    dr, dc = (1, 0) if vertical else (0, 1)
    for r, c in cells:
        if (r + dr, c + dc) in cells:
            yield cells - {(r, c), (r + dr, c + dc)}


@lru_cache(maxsize=None)
def mover_wins(cells: frozenset, g: Value, left: bool) -> bool:
    """Whether the player to move wins the sum of the region and the game ``g``, by plain search."""
    rest = [(c, g) for c in dominoes(cells, left)]
    rest += [(cells, x) for x in (g.left_options if left else g.right_options)]
    return any(not mover_wins(c, x, not left) for c, x in rest)


def test_every_value_by_the_definition(built):
    """The region minus its stored value is a second-player win, for every region of up to 8 cells."""
    root, table = built("domineering", max_cells=8)
    rows = rows_of(root, table)
    assert [sum(1 for r in rows if r["level"] == n) for n in range(1, 9)] == [1, 1, 2, 5, 12, 35, 108, 369]
    for row in rows:
        cells, value = board(row["position"]), parse(row["value"])
        assert len(cells) == row["level"]
        assert not mover_wins(cells, -value, True), row["position"]
        assert not mover_wins(cells, -value, False), row["position"]
        assert row["outcome"] == value.outcome
        assert (row["left_moves"], row["right_moves"]) == (
            sum(1 for _ in dominoes(cells, True)), sum(1 for _ in dominoes(cells, False)))


PUBLISHED = {
    "..|..": "+-1",
    "...|...|...": "+-1",
    "...|...": "{2|-1/2}",  # 2 rows x 3 columns; Left places vertical dominoes
    "..|..|..": "{1/2|-2}",  # its transpose, the negative
    "....|....": "Miny(2)",  # 2 rows x 4 columns
    "....|....|....|....": "+-{0,{{2|0},2Tiny(2)|{2|0},Miny(2)}}",
}


@pytest.mark.parametrize("position", PUBLISHED)
def test_published_values(built, position):
    root, table = built("domineering", max_cells=10)
    with tablebase.open(root) as tb:
        row = tb.lookup(table, position)
    assert parse(row["value"]) == parse(PUBLISHED[position])
    assert row["searched"] == (len(board(position)) > 10)


def test_every_region_against_cgt_py(built):
    cgt_py = import_cgt_py()
    memo: dict = {}

    def ours(form) -> Value:
        key = repr(form)
        if key not in memo:
            memo[key] = from_options([ours(x) for x in form.left_options], [ours(x) for x in form.right_options])
        return memo[key]

    root, table = built("domineering", max_cells=10)
    rows = rows_of(root, table)
    assert len(rows) == 1 + 1 + 2 + 5 + 12 + 35 + 108 + 369 + 1285 + 4655
    for row in rows:
        assert ours(cgt_py.Domineering(row["position"]).canonical_form) == parse(row["value"]), row["position"]


@pytest.fixture(scope="module")
def table8(built):
    return built("domineering", max_cells=8)


def test_lookup_of_a_disconnected_board(table8):
    root, table = table8
    with tablebase.open(root) as tb:
        row = tb.lookup(table, "...#..|...#..")
        assert parse(row["value"]) == parse("{2|-1/2}") + parse("+-1")
        assert row["key"] is None and not row["searched"]
        sides = [m["side"] for m in row["moves"]]
        assert (sides.count("Left"), sides.count("Right")) == (3 + 2, 4 + 2)
        for move in row["moves"]:  # each move's value is the value of the board it leaves
            assert move["value"] == tb.lookup(table, move["position"])["value"]
        best = next(m for m in row["moves"] if m["side"] == "Left" and m["move"] == row["best_left"])
        assert parse(best["value"]) in parse(row["value"]).left_options


@pytest.mark.parametrize("turned", ["...|##.", ".##|...", "##.|...", "..|.#|.#", ".#|.#|..", "..|#.|#.", "#.|#.|.."])
def test_lookup_in_other_orientations(table8, turned):
    """The four images of '...|.##' keep its value; the four transposes are worth the negative."""
    root, table = table8
    with tablebase.open(root) as tb:
        original = parse(tb.lookup(table, "...|.##")["value"])
        value = parse(tb.lookup(table, turned)["value"])
    rows = turned.split("|")
    assert value == (original if len(rows) == 2 else -original)
    assert len(rows) == 2 or original != -original


def test_lookup_of_a_transpose(table8):
    root, table = table8
    with tablebase.open(root) as tb:
        a = tb.lookup(table, "....|..##|.###")
        b = tb.lookup(table, "...|..#|.##|.##")
    assert parse(a["value"]) == -parse(b["value"])
    assert a["key"] == b["key"]
    assert sorted(m["value"] for m in a["moves"] if m["side"] == "Left") == sorted(
        str(-parse(m["value"])) for m in b["moves"] if m["side"] == "Right")


def test_lookup_of_a_board_larger_than_the_table(table8):
    root, table = table8
    with tablebase.open(root) as tb:
        row = tb.lookup(table, "...|...|...|...")  # 12 cells: searched, regions of 8 or fewer from the table
    assert row["searched"] and "search" in row["note"]
    cells = board("...|...|...|...")
    value = parse(row["value"])
    assert not mover_wins(cells, -value, True) and not mover_wins(cells, -value, False)


def test_bad_boards(table8):
    from tablebase.errors import PositionError

    root, table = table8
    with tablebase.open(root) as tb:
        for bad in ["..x|...", "", "| |"]:
            with pytest.raises(PositionError):
                tb.lookup(table, bad)


def test_statistics(table8):
    root, table = table8
    with tablebase.open(root) as tb:
        stats = {s.title: s.rows for s in tb.stats(table)}
        rows = rows_of(root, table)
    by_kind = next(v for k, v in stats.items() if k.startswith("values by kind")).to_pylist()
    kinds = {r["kind"]: r["positions"] for r in by_kind}
    assert sum(kinds.values()) == len(rows)
    assert kinds["number"] == sum(1 for r in rows if parse(r["value"]).is_number)
    hottest = next(v for k, v in stats.items() if k.startswith("the hottest")).to_pylist()
    assert [h["temperature"] for h in hottest] == [max(r["temperature"] for r in rows if r["level"] == n)
                                                   for n in range(1, 9)]
    ups = {r["value"] for r in next(v for k, v in stats.items() if k.startswith("the nimbers")).to_pylist()}
    assert "*" in ups and "v" in ups and ups <= {r["value"] for r in rows}
    outcomes = next(v for k, v in stats.items() if k.startswith("outcome classes")).to_pylist()
    assert sum(o["l_positions"] + o["r_positions"] + o["n_positions"] + o["p_positions"] for o in outcomes) == len(rows)
    for title, table in stats.items():  # no statistic of another kind's outcomes, which would leave some out
        for row in table.to_pylist():
            counts = [v for k, v in row.items() if k.endswith("_positions")]
            assert "positions" not in row or not counts or sum(counts) == row["positions"], (title, row)


def test_verify_rederives_every_row(table8):
    from tablebase.checks.verify import verify_table

    root, table = table8
    checked, problems = verify_table(root, table)
    assert checked == 1 + 1 + 2 + 5 + 12 + 35 + 108 + 369 and problems == []


def images(cells: frozenset) -> set:
    """The region under the eight symmetries of the square, each moved to the origin."""
    out = set()
    for flip_r in (1, -1):
        for flip_c in (1, -1):
            for swap in (False, True):
                moved = [((c * flip_c, r * flip_r) if swap else (r * flip_r, c * flip_c)) for r, c in cells]
                r0, c0 = min(r for r, _ in moved), min(c for _, c in moved)
                out.add(frozenset((r - r0, c - c0) for r, c in moved))
    return out


def random_region(rng: random.Random, n: int) -> frozenset:
    cells = {(0, 0)}
    while len(cells) < n:
        r, c = rng.choice(sorted(cells))
        dr, dc = rng.choice([(0, 1), (1, 0), (0, -1), (-1, 0)])
        cells.add((r + dr, c + dc))
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def spelt(cells: frozenset) -> str:
    h, w = max(r for r, _ in cells) + 1, max(c for _, c in cells) + 1
    return "|".join("".join("." if (r, c) in cells else "#" for c in range(w)) for r in range(h))


def test_keys_of_regions_up_to_15_cells():
    """One key per region up to the eight symmetries, its level on top, and the key spells the region back."""
    import numpy as np

    from tablebase.games.domineering import Domineering

    game = Domineering(max_cells=15)
    rng = random.Random(5)
    owners: dict[int, frozenset] = {}
    regions = [random_region(rng, n) for n in (9, 12, 13, 14, 15) for _ in range(150)]
    line = frozenset((0, c) for c in range(15))
    staircase = frozenset((r, r) for r in range(8)) | frozenset((r, r + 1) for r in range(7))  # an 8 x 8 box
    regions += [line, staircase]
    for cells in regions:
        key = game.parse(spelt(cells))
        assert 0 <= key < 2**63 and game.level_of(key) == len(cells)
        back = board(game.format_positions(np.array([key], dtype=np.int64)).to_strings()[0])
        assert back in images(cells)
        canonical = min(images(cells), key=sorted)
        assert owners.setdefault(key, canonical) == canonical
        assert game.parse(spelt(frozenset((c, r) for r, c in cells))) == key  # the transpose shares the key
    assert len(owners) > 600


def test_regions_per_level_are_the_free_polyominoes():
    import numpy as np

    from tablebase.games.domineering import Domineering

    game = Domineering(max_cells=11)
    # OEIS A000105: every region once, up to the eight symmetries
    assert [game.level_size(n) for n in range(1, 12)] == [1, 1, 2, 5, 12, 35, 108, 369, 1285, 4655, 17073]
    keys = game.level_keys(11, 0, game.level_size(11))
    assert (np.diff(keys) > 0).all() and {game.level_of(k) for k in keys.tolist()} == {11}


def better_by_play(a: str, b: str, left: bool) -> bool:
    """Whether value ``a`` is strictly better than ``b`` for the side (Left: larger; Right: smaller), by
    playing out a - b as option sets (cgt_helpers' brute force), not by the algebra's comparison."""
    difference = outcome_by_play(raw_of(parse(a)), negate(raw_of(parse(b))))
    return difference == ("L" if left else "R")


def left_wins(outcome: str, left: bool) -> bool:
    """Whether the side that moved wins the position its move left (the other side moves next)."""
    return outcome in (("L", "P") if left else ("R", "P"))


@pytest.mark.parametrize("position", ["..#|...|...", "....|....", "...|...|.#.", "....#|.....", "..|..|..|.."])
def test_moves_are_listed_best_first_by_the_value_each_side_gets(table8, position):
    """After the best move, no move comes after one that is strictly worse for its side (values are
    partially ordered), and the moves that win for their side come before those that do not."""
    root, table = table8
    with tablebase.open(root) as tb:
        row = tb.lookup(table, position)
    for side, left in (("Left", True), ("Right", False)):
        moves = [m for m in row["moves"] if m["side"] == side]
        assert moves[0]["move"] == row["best_" + side.lower()]
        for i, earlier in enumerate(moves):
            for later in moves[i + 1:]:
                assert not better_by_play(later["value"], earlier["value"], left), (side, earlier, later)
        wins = [left_wins(m["outcome"], left) for m in moves[1:]]
        assert wins == sorted(wins, reverse=True), (side, [m["move"] for m in moves])


def test_means_temperatures_and_stops_are_exact(table8):
    """Lookups give Fractions in Python and fractions as text in JSON (the command's --json), never floats:
    a temperature of 5/4 or a stop of -1/2 is what the algebra says, not a nearby binary number."""
    root, table = table8
    with tablebase.open(root) as tb:
        row = tb.lookup(table, "..#|...|...")
    for figures in [row, *row["moves"]]:
        value = parse(figures["value"])
        for name in ("mean", "temperature", "left_stop", "right_stop"):
            assert type(figures[name]) is Fraction and figures[name] == getattr(value, name), (name, figures)
    printed = subprocess.run([sys.executable, "-m", "tablebase", "lookup", "--db", str(root), table, "..#|...|...",
                              "--json"], capture_output=True, text=True, check=True).stdout
    spelt = json.loads(printed)
    assert (spelt["mean"], spelt["temperature"], spelt["left_stop"]) == ("0", "3/2", "3/2")
    assert {m["value"]: m["temperature"] for m in spelt["moves"]}["{1/2|-2}"] == "5/4"


# -- boards taller than a board is wide ---------------------------------------------------
@lru_cache(maxsize=None)
def by_definition(cells: frozenset) -> Value:
    """A board's value from the definition {Left's options | Right's options}, the board kept whole."""
    return from_options([by_definition(c) for c in dominoes(cells, True)],
                        [by_definition(c) for c in dominoes(cells, False)])


def column(n: int) -> str:
    return "|".join(["."] * n)


TALL = {
    column(16): 8,  # a strip of one column: only Left (vertical dominoes) moves there, n // 2 times
    column(17): 8,
    column(21): 10,
    "..|" + column(15): None,  # 17 cells: a column with a cell beside its top; Right has one move
    "..|..|" + column(14): None,
}


@pytest.fixture(scope="module")
def table4(built):
    return built("domineering", max_cells=4)


def test_a_board_taller_than_fifteen_rows_is_searched_in_every_reader(table4):
    """A single column of 16 or more cells (or any board of more than 15 rows) used to fail in the
    normal form, which turned it on its side: a row of 16 cells, wider than a board. Its value by
    the definition, from the Python API, the command and the HTTP API alike."""
    from test_distributed import free_port
    from test_serve import call, q

    root, table = table4
    expected = {}
    for text, integer in TALL.items():
        value = by_definition(board(text))
        assert integer is None or value == parse(str(integer)), (text, value)
        expected[text] = value
    with tablebase.open(root) as tb:
        for text, value in expected.items():
            row = tb.lookup(table, text)
            assert parse(row["value"]) == value and row["searched"], text
            assert row["level"] == len(board(text))
            for move in row["moves"]:  # each move leaves a board worth the value listed
                assert parse(move["value"]) == by_definition(board(move["position"])), (text, move)
    looked = subprocess.run([sys.executable, "-m", "tablebase", "lookup", "--db", str(root), table, column(16),
                             "--json"], capture_output=True, text=True, timeout=300)
    assert looked.returncode == 0, looked.stderr
    assert parse(json.loads(looked.stdout)["value"]) == parse("8")
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "tablebase", "serve", "--db", str(root), "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if call(base, "/health")[0] == 200:
                    break
            except OSError:
                assert server.poll() is None, server.stderr.read()
                time.sleep(0.2)
        for text, value in expected.items():
            status, row = call(base, f"/tables/{table}/lookup?position={q(text)}")
            assert status == 200, (text, status, row)
            assert parse(row["value"]) == value, text
    finally:
        server.terminate()
        server.wait(timeout=30)
