"""One shape of answer: what lookups take, what their errors are, what lookup_many gives, what JSON carries.

- ``lookup``, ``probe`` and ``line`` take a position as text, or as the game's own numbers where its notation
  is numbers; anything else is one PositionError saying what they take.
- Every error a user can cause is a ValueError or a LookupError as well as a TablebaseError.
- ``lookup_many`` gives the columns, order and Arrow types of ``SELECT * FROM table``, for every kind.
- The JSON API sends integers beyond 2^53 - 1 as strings, and says so in its description.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from fastapi.testclient import TestClient

import tablebase
from tablebase.build import build_tables
from tablebase.build.jobs import spec_for

ROOT = Path(__file__).resolve().parent.parent
CRAM = f"{ROOT / 'examples' / 'cram.py'}:Cram"
TOADS = f"{ROOT / 'examples' / 'toads_and_frogs.py'}:ToadsAndFrogs"
TICTACTOE = f"{ROOT / 'examples' / 'tictactoe.py'}:TicTacToe"

# One table of each kind and form: (game, options).
TABLES = {
    "dense impartial": ("chomp", {"rows": 4, "cols": 5}),
    "impartial with misère outcomes": ("nim", {"heaps": 3, "max_heap": 7}),
    "sparse impartial": ("green-hackenbush", {"max_edges": 6}),
    "octal": ("octal", {"code": "0.137", "max": 300}),
    "partizan board": ("domineering", {"max_cells": 6}),
    "partizan tree": ("hackenbush", {"max_edges": 4, "colors": "BRG", "shape": "tree"}),
    "scored": ("tanhinmin", {"max_card": 3, "max_hand": 2}),
    "plain impartial": (CRAM, {"rows": 3, "cols": 3}),
    "plain partizan": (TOADS, {"cells": 5}),
    "plain scored": (TICTACTOE, {}),
}


@pytest.fixture(scope="module")
def folder(built, scheduler, tmp_path_factory):
    names = {kind: built(game, **options)[1] for kind, (game, options) in TABLES.items()}
    root = built("chomp", rows=4, cols=5)[0]  # every table of the session is in one folder
    compact = spec_for("chomp", {"rows": 4, "cols": 4}, "chomp_4x4_compact", compact=True)
    list(build_tables([compact], root, scheduler=scheduler, quiet=True))
    names["compact"] = compact.name
    return root, names


@pytest.fixture(scope="module")
def tb(folder):
    root, _ = folder
    with tablebase.open(root, games=[CRAM, TOADS, TICTACTOE]) as handle:
        yield handle


# -- what a position may be ---------------------------------------------------------------------------------
def test_a_game_of_numbers_takes_them_as_numbers(built):
    """Wythoff's P-positions are the pairs (floor(n phi), floor(n phi^2)): (3, 5) is one, so every move from
    it wins for the opponent; a tuple, a list and the text are the same position."""
    root, table = built("wythoff", max=20)
    with tablebase.open(root) as tb:
        text = tb.lookup(table, "3 5")
        assert tb.lookup(table, (3, 5)) == text == tb.lookup(table, [5, 3])
        assert text["outcome"] == "P" and all(m["outcome"] == "N" for m in text["moves"])
        assert tb.probe(table, (3, 5)) == tb.probe(table, "3 5")
        assert tb.line(table, (4, 7)) == tb.line(table, "4 7")
    root, table = built("subtraction", bash=4, max=30)
    with tablebase.open(root) as tb:
        assert tb.probe(table, 10)["outcome"] == "P"  # Bash (take 1..4): a multiple of 5 is lost


@pytest.mark.parametrize("position", [True, 3.0, (3, "5"), [(3, 5)], {"a": 3}, None, b"3 5"])
def test_anything_else_is_one_position_error_saying_what_a_position_is(built, position):
    root, table = built("wythoff", max=20)
    with tablebase.open(root) as tb:
        for call in (tb.lookup, tb.probe, tb.line):
            with pytest.raises(tablebase.PositionError,
                               match=r"a position is text, or whole numbers: an int, or a tuple or list of them"):
                call(table, position)


def test_a_game_written_otherwise_takes_text_only(tb, folder):
    _, names = folder
    with pytest.raises(tablebase.PositionError, match=r"domineering: a position is text \(rows of"):
        tb.lookup(names["partizan board"], (1, 2))


# -- what an error is ----------------------------------------------------------------------------------------
def test_every_error_a_user_can_cause_is_a_value_or_lookup_error(tb, folder, tmp_path):
    root, names = folder
    partizan, impartial = names["partizan board"], names["dense impartial"]
    value_errors = [
        (lambda: tb.line(partizan, "..|.."), "a partizan table's line needs the side to move first"),
        (lambda: tb.line(partizan, "..|..", "Up"), "Left or Right, not 'Up'"),
        (lambda: tb.line(impartial, "5 5 2", "Left"), "only a partizan table's line starts with a side"),
        (lambda: tb.lookup(impartial, "2 3"), "non-increasing"),
        (lambda: tb.sql("SELEC 1"), "SQL error"),
        (lambda: tb.sql("DELETE FROM chomp_4x5"), "only SELECT"),
        (lambda: tablebase.open(root, memory_limit="lots"), "memory limit"),
        (lambda: tablebase.open(root, threads=0), "threads"),
        (lambda: tablebase.open(root, games=["no_such_game"]), "unknown game"),
    ]
    for call, said in value_errors:
        with pytest.raises(ValueError, match=said) as raised:
            call()
        assert isinstance(raised.value, tablebase.TablebaseError) and "\n" not in str(raised.value)
    lookup_errors = [
        (lambda: tb.lookup("no_such_table", "1"), "no table 'no_such_table'"),
        (lambda: tablebase.open(tmp_path / "nothing"), "no tablebase folder"),
        (lambda: tablebase.open(root).lookup(names["plain impartial"], "...|...|..."), "pass --game|--game"),
    ]
    for call, said in lookup_errors:
        with pytest.raises(LookupError, match=said) as raised:
            call()
        assert isinstance(raised.value, tablebase.TablebaseError)


# -- lookup_many: the shape of SQL -------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", [*TABLES, "compact"])
def test_lookup_many_gives_the_columns_order_and_types_of_sql(tb, folder, kind):
    table = folder[1][kind]
    stored = tb.sql(f"SELECT * FROM {table} ORDER BY key")
    many = tb.lookup_many(table, stored.column("position"))
    assert many.schema == stored.schema, (many.schema, stored.schema)
    # The same rows too, but for a Domineering board where no domino fits: dead, the sum of no parts, it is
    # answered as 0 with no key of its own.
    rows = [(a, b) for a, b in zip(many.to_pylist(), stored.to_pylist()) if b.get("left_moves", 1) or
            b.get("right_moves", 1)]
    assert rows and all(a == b for a, b in rows), next((a, b) for a, b in rows if a != b)
    without = tb.lookup_many(table, stored.column("position").to_pylist()[:5], with_positions=False)
    assert without.schema == stored.schema.remove(stored.schema.get_field_index("position"))


def test_lookup_many_of_positions_not_stored_keeps_the_shape(tb, folder):
    _, names = folder
    for kind, positions in (("dense impartial", ["5 5 2", "1"]), ("octal", ["9 + 9", "9"]),
                            ("partizan board", ["....|....", "..|.."])):
        table = names[kind]
        many = tb.lookup_many(table, positions)
        assert many.schema == tb.sql(f"SELECT * FROM {table} LIMIT 0").schema
    sums = tb.lookup_many(names["octal"], ["9 + 9"]).to_pylist()[0]
    assert sums["key"] is None and sums["grundy"] == 0 and sums["outcome"] == "P"  # equal heaps: XOR 0
    board = tb.lookup_many(names["partizan board"], ["....|...."]).to_pylist()[0]  # 8 cells, above the table's 6
    # Left's dominoes upright, one in each of 4 columns; Right's flat, 3 in each of 2 rows.
    assert board["key"] is None and (board["left_moves"], board["right_moves"]) == (4, 6)


# -- JSON: integers beyond 2^53 - 1 as text -------------------------------------------------------------------
def test_the_json_api_sends_wide_integers_as_text_and_says_so(folder):
    from tablebase.http.app import create_app

    root, names = folder
    client = TestClient(create_app(root))
    board, chomp = names["partizan board"], names["dense impartial"]
    looked = client.get(f"/tables/{board}/lookup", params={"position": "...|..."}).json()
    with tablebase.open(root) as tb:
        exact = tb.lookup(board, "...|...")
    assert exact["key"] > 2**53 and looked["key"] == str(exact["key"])
    assert looked["value_id"] == str(exact["value_id"]) if exact["value_id"] > 2**53 else exact["value_id"]
    assert all(isinstance(m["value_id"], str) or abs(m["value_id"]) < 2**53 for m in looked["moves"])
    many = client.post(f"/tables/{board}/lookup-many", json={"positions": ["...|..."]}).json()["rows"][0]
    assert many["key"] == str(exact["key"])
    assert isinstance(client.get(f"/tables/{chomp}/probe", params={"position": "5 5 2"}).json()["key"], int)
    text = json.dumps(client.get("/openapi.json").json()["info"]["description"])
    assert "2^53 - 1" in text and "strings" in text


def test_the_arrow_types_are_sqls_not_the_index_own(tb, folder):
    """The probe index holds figures at their narrowest and texts by dictionary; SQL gives the files' types."""
    table = folder[1]["dense impartial"]
    many = tb.lookup_many(table, ["5 5 2"])
    assert many.schema.field("grundy").type == pa.uint8() and many.schema.field("outcome").type == pa.string()
    assert many.column_names[:3] == ["key", "position", "level"] and many.schema.field("level").type == pa.int32()
