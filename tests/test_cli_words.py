"""What the command says, in words a reader takes at face value: where a position is stored, how many moves
are left out, which moves are best, what a line plays, every row of an export, and an option misspelt."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from helpers import assert_clean_error, tablebase

import tablebase as tb_api

pytestmark = pytest.mark.slow  # the command, on tables built on the session's cluster


@pytest.fixture(scope="module")
def chomp(built):
    return built("chomp", rows=4, cols=5)


@pytest.fixture(scope="module")
def octal(built):
    return built("octal", code="0.137", max=200)


@pytest.fixture(scope="module")
def domineering(built):
    return built("domineering", max_cells=6)


def _lookup(root, table, position, *more):
    result = tablebase("lookup", "--db", root, table, position, *more)
    assert result.returncode == 0, result.stderr
    return result


def test_a_sum_and_a_board_larger_than_the_table_say_they_are_not_stored(octal, domineering):
    root, table = octal
    first = _lookup(root, table, "9 + 9").stdout.splitlines()[0]
    assert "None" not in first and "not stored itself" in first
    root, table = domineering
    first = _lookup(root, table, "....|....").stdout.splitlines()[0]  # 8 cells, the table's at most 6
    assert "None" not in first and "level 8" in first and "not stored itself" in first
    stored = _lookup(root, table, "...|...").stdout.splitlines()[0]
    assert "level 6, key " in stored and "not stored" not in stored


def test_one_move_left_out_is_one_move(chomp):
    root, table = chomp
    moves = json.loads(_lookup(root, table, "5 5 2", "--json").stdout)["moves"]
    said = _lookup(root, table, "5 5 2", "--moves", len(moves) - 1).stderr
    assert "1 more move:" in said and "moves" not in said.split(":")[0]


def test_a_position_whose_moves_all_lose_lists_none_as_best(octal, chomp):
    """Two equal heaps are a second-player win whatever the game (their values' XOR is 0): every move
    loses, so none of them is "the best"."""
    root, table = octal
    text = _lookup(root, table, "9 + 9", "--moves", 3).stdout
    assert "every one losing; the first 3:" in text and "best" not in text.splitlines()[2]
    assert all(row.split()[-1] == "N" for row in text.splitlines()[4:7])
    root, table = chomp
    winning = _lookup(root, table, "5 5 2", "--moves", 3).stdout
    assert "11 moves, the 3 best:" in winning and "losing" not in winning


def test_a_board_searched_says_how_many_of_its_parts_were_too_large_whatever_came_before(domineering):
    root, table = domineering
    with tb_api.open(root) as tb:
        alone = tb.lookup(table, "....|....")["note"]
        assert alone.startswith("the board is one part, larger than the table")
        two = tb.lookup(table, "....|....|####|.#..")["note"]  # an 8-cell region and a 3-cell one
        assert two.startswith("1 of its 2 parts is larger than the table")
        assert tb.lookup(table, "....|....")["note"] == alone  # not a count of what this process searched before


def test_a_line_shows_the_move_it_plays_once(chomp, domineering):
    root, table = chomp
    text = _lookup(root, table, "5 5 2", "--line").stdout.splitlines()
    header = text[1].split()
    assert "move" in header and not [h for h in header if h.startswith("best_")]
    steps = json.loads(_lookup(root, table, "5 5 2", "--line", "--json").stdout)["steps"]
    assert [row.split()[-1] for row in text[2:-1]] == [s["move"] for s in steps[:-1]]
    root, table = domineering
    header = _lookup(root, table, "...|...", "--line", "--first", "Left").stdout.splitlines()[1].split()
    assert "move" in header and "mover" in header and "best_left" not in header


def test_an_export_holds_every_row_and_the_screen_is_cut(chomp, tmp_path):
    root, table = chomp
    everything = f"SELECT key, position FROM {table} ORDER BY key"
    count = tb_api.open(root).sql(f"SELECT count(*) AS n FROM {table}").to_pylist()[0]["n"]
    assert count == 125  # C(9, 4) - 1: more than the screen's 100
    parquet, csv = tmp_path / "rows.parquet", tmp_path / "rows.csv"
    for out, form in ((parquet, "parquet"), (csv, "csv")):
        result = tablebase("query", "--db", root, everything, "--format", form, "--out", out)
        assert result.returncode == 0 and result.stderr == "", result.stderr
    assert pq.read_table(parquet).num_rows == count
    assert len(csv.read_text().splitlines()) == 1 + count
    cut = tablebase("query", "--db", root, everything, "--format", "csv", "--limit", 7, "--out", csv)
    assert "the first 7 rows" in cut.stderr and len(csv.read_text().splitlines()) == 1 + 7
    shown = tablebase("query", "--db", root, everything)
    assert len(shown.stdout.splitlines()) == 1 + 100 and "the first 100 rows" in shown.stderr


@pytest.mark.parametrize("args, words", [
    (["build", "chomp", "--rows", "3", "--colz", "5", "--out", "{new}"], ["unrecognized option --colz",
                                                                          "did you mean --cols?"]),
    (["build", "--game", "chomp", "--rows", "3", "--colz", "5", "--out", "{new}"], ["--colz", "--cols?"]),
    (["lookup", "--db", "{new}", "--tabel", "x"], ["unrecognized option --tabel"]),
])
def test_an_option_misspelt_is_named_not_the_one_it_meant(tmp_path, args, words):
    new = tmp_path / "new"
    assert_clean_error(tablebase(*[a.replace("{new}", str(new)) for a in args]), *words)
    assert not new.exists()


def test_serve_says_what_host_and_port_are():
    text = " ".join(tablebase("serve", "--help").stdout.split())
    assert "--host HOST the address to listen on" in text and "--port PORT the TCP port to listen on" in text
