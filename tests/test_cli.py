"""The command line as a user meets it: build, lookup, query, stats, tables, games, and bad input."""

from __future__ import annotations

import json
import os
import socket

import psutil
import pytest
from helpers import assert_clean_error, file_hashes, tablebase

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py


@pytest.fixture(scope="module")
def db(tmp_path_factory, scheduler):
    root = tmp_path_factory.mktemp("cli")
    result = tablebase("build", "chomp", "--rows", 4, "--cols", 5, "--out", root, "--scheduler", scheduler)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["table"] == "chomp_4x5"
    assert summary["positions"] == 125  # C(9, 4) diagrams, less the empty one
    summary_fields = {"table", "positions", "levels", "seconds"}
    assert summary["levels"] == 20 and summary_fields <= set(summary)
    assert "ETA" in result.stderr and "level 20/20" in result.stderr
    return root


def test_games_lists_every_game_with_options_and_notation():
    result = tablebase("games", "--json")
    assert result.returncode == 0
    games = {g["game"]: g for g in json.loads(result.stdout)}
    assert set(games) >= {"nim", "subtraction", "wythoff", "fibonacci-nim", "chomp", "green-hackenbush"}
    assert [o["name"] for o in games["chomp"]["options"]] == ["--rows", "--cols"]
    assert "row lengths" in games["chomp"]["position"]
    text = tablebase("games").stdout
    assert "tablebase build nim --heaps INT --max-heap INT --out DIR" in text


def test_lookup_lists_the_row_and_every_move(db):
    result = tablebase("lookup", "--db", db, "chomp_4x5", "5 5 2", "--json")
    assert result.returncode == 0, result.stderr
    row = json.loads(result.stdout)
    assert row["position"] == "5 5 2" and row["level"] == 12
    assert len(row["moves"]) == 11  # every square but the poisoned one
    assert row["moves"][0]["move"] == row["best_move"]
    assert {m["position"] for m in row["moves"]} >= {"5 5", "1 1 1", "5 1 1"}
    # Another spelling of the same diagram finds the same row.
    again = json.loads(tablebase("lookup", "--db", db, "chomp_4x5", "5,5,2,0", "--json").stdout)
    assert again["key"] == row["key"]
    text = tablebase("lookup", "--db", db, "chomp_4x5", "5 5 2").stdout
    assert "11 moves" in text and "best_move" in text


def test_query_runs_sql_over_views_named_after_tables(db):
    result = tablebase(
        "query", "--db", db, "SELECT outcome, count(*) AS n FROM chomp_4x5 GROUP BY outcome ORDER BY outcome", "--json"
    )
    assert result.returncode == 0, result.stderr
    counts = {r["outcome"]: r["n"] for r in json.loads(result.stdout)}
    assert sum(counts.values()) == 125 and counts["P"] > 0
    text = tablebase("query", "--db", db, "SELECT position, grundy FROM chomp_4x5 WHERE level = 1").stdout
    assert text.split() == ["position", "grundy", "1", "0"]


def test_stats_and_tables(db):
    result = tablebase("stats", "--db", db, "chomp_4x5")
    assert result.returncode == 0, result.stderr
    for title in ("outcomes per level", "Grundy values", "longest games", "storage on disk", "summary"):
        assert title in result.stdout
    tables = json.loads(tablebase("tables", "--db", db, "--json").stdout)
    assert tables == [
        {
            "table": "chomp_4x5", "game": "chomp", "origin": "built-in", "params": {"rows": 4, "cols": 5},
            "levels": 20, "levels_done": 20,
            "positions": 125, "bytes": tables[0]["bytes"], "complete": True,
        }
    ]


@pytest.mark.parametrize(
    "args, words",
    [
        (["build", "go", "--out", "{new}"], ["invalid choice", "go"]),
        (["build", "chomp", "--rows", "3", "--out", "{new}"], ["--cols"]),
        (["build", "chomp", "--rows", "x", "--cols", "3", "--out", "{new}"], ["--rows", "int"]),
        (["build", "chomp", "--rows", "0", "--cols", "3", "--out", "{new}"], ["--rows", "between 1 and 30"]),
        (["build", "subtraction", "--max", "9", "--out", "{new}"], ["--set, --bash or --take"]),
        (["build", "subtraction", "--set", "1,a", "--max", "9", "--out", "{new}"], ["--set"]),
        (["build", "subtraction", "--take", "5..2", "--max", "9", "--out", "{new}"], ["--take"]),
        (["build", "--job", "{new}/nothing.toml", "--out", "{new}"], ["no job file"]),
        (["build", "chomp", "--rows", "2", "--cols", "2"], ["--out"]),
        (["build", "chomp", "--rows", "2", "--cols", "2", "--out", "/proc/tablebase-x"], ["cannot make the folder"]),
        (["build", "chomp", "--rows", "2", "--cols", "2", "--out", "/dev/null/x"], ["cannot make", "Not a directory"]),
        (["build", "fibonacci-nim", "--max", "3", "--out", "{new}", "\r"], ["unrecognized", "\\r"]),
        (["build", "fibonacci-nim", "--ro\rws", "3", "--max", "3", "--out", "{new}"], ["unrecognized", "\\r"]),
        (["lookup", "--db", "{db}", "chomp_4x5", "2 3"], ["non-increasing", "row lengths"]),
        (["lookup", "--db", "{db}", "chomp_4x5", "6 1"], ["outside", "4 x 5"]),
        (["lookup", "--db", "{db}", "chomp_4x5", "5 five"], ["whole numbers"]),
        (["lookup", "--db", "{db}", "chomp_4x5", "0"], ["poisoned"]),
        (["lookup", "--db", "{db}", "nim_3x3", "1 2"], ["no table", "chomp_4x5"]),
        (["lookup", "--db", "{new}", "chomp_4x5", "1"], ["no tablebase folder"]),
        (["query", "--db", "{db}", "SELEC 1"], ["SQL error"]),
        (["query", "--db", "{db}", "SELECT * FROM nosuch"], ["nosuch"]),
        (["query", "--db", "{db}", "DELETE FROM chomp_4x5"], ["only SELECT"]),
        (["query", "--db", "{db}", "COPY chomp_4x5 TO '{db}/x.csv'"], ["only SELECT"]),
        (["query", "--db", "{db}", "ATTACH '{db}/x.duckdb'"], ["only SELECT"]),
        (["query", "--db", "{db}", "INSTALL httpfs"], ["only SELECT"]),
        (["query", "--db", "{db}", "SELECT * FROM read_csv('/etc/passwd')"], ["SQL error"]),
        (["stats", "--db", "{db}", "chomp"], ["no table"]),
    ],
)
def test_bad_input_is_one_clean_line_and_changes_nothing(db, tmp_path, args, words):
    new = tmp_path / "new"
    before = file_hashes(db)
    result = tablebase(*[a.replace("{new}", str(new)).replace("{db}", str(db)) for a in args])
    assert_clean_error(result, *words)
    assert file_hashes(db) == before
    assert not new.exists()


def test_the_command_alone_shows_how_to_use_it():
    result = tablebase()
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("usage: tablebase")
    for verb in ("build", "lookup", "query", "serve", "cgt"):
        assert verb in result.stderr


def test_a_running_build_holds_its_table(tmp_path, scheduler):
    table = tmp_path / "chomp_2x2"
    table.mkdir()
    # This test's own process stands in for a running build.
    me = {"pid": os.getpid(), "host": socket.gethostname(), "started": psutil.Process().create_time()}
    (table / ".lock").write_text(json.dumps(me))
    result = tablebase("build", "chomp", "--rows", 2, "--cols", 2, "--out", tmp_path, "--scheduler", scheduler)
    assert_clean_error(result, "being built by process", str(os.getpid()))
    assert sorted(p.name for p in table.iterdir()) == [".lock"]
    # A lock left by a process that is gone does not block.
    (table / ".lock").write_text(json.dumps({**me, "pid": 2**22 + 12345}))
    result = tablebase("build", "chomp", "--rows", 2, "--cols", 2, "--out", tmp_path, "--scheduler", scheduler)
    assert result.returncode == 0, result.stderr
    assert not (table / ".lock").exists()


def test_cgt_calculator():
    result = tablebase("cgt", "{2|-1/2}", "--json")
    assert result.returncode == 0, result.stderr
    # Domineering 2 rows x 3 columns is {2|-1/2}: mean 3/4, temperature 5/4.
    assert json.loads(result.stdout) == {
        "value": "{2|-1/2}", "outcome": "N", "left_stop": "2", "right_stop": "-1/2",
        "mean": "3/4", "temperature": "5/4",
    }
    # Adding infinitesimals moves neither the mean nor the temperature.
    hot = json.loads(tablebase("cgt", "{2|-1/2} + ^ + *", "--json").stdout)
    assert (hot["mean"], hot["temperature"]) == ("3/4", "5/4")
    assert "^^*" in tablebase("cgt", "^ + ^ + *").stdout
    assert_clean_error(tablebase("cgt", "{2|1"), "at column")


def test_query_output_is_bounded_and_says_so_in_every_format(db, tmp_path):
    """125 rows, a limit of 10: ten rows printed and a line on stderr that says more were cut; 0 prints all."""
    everything = "SELECT key, position, grundy FROM chomp_4x5 ORDER BY key"
    shown = tablebase("query", "--db", db, everything, "--limit", 10)
    assert shown.returncode == 0 and len(shown.stdout.splitlines()) == 1 + 10
    assert "the first 10 rows" in shown.stderr
    assert len(tablebase("query", "--db", db, everything).stdout.splitlines()) == 1 + 100  # the default
    whole = tablebase("query", "--db", db, everything, "--limit", 0, "--format", "csv")
    lines = whole.stdout.splitlines()
    assert lines[0] == "key,position,grundy" and len(lines) == 1 + 125 and whole.stderr == ""
    rows = json.loads(tablebase("query", "--db", db, everything, "--format", "json", "--limit", 3).stdout)
    assert [r["key"] for r in rows] == sorted(r["key"] for r in rows) and len(rows) == 3
    out = tmp_path / "rows.parquet"
    assert tablebase("query", "--db", db, everything, "--format", "parquet", "--limit", 0, "--out", out).returncode == 0
    import pyarrow.parquet as pq

    assert pq.read_table(out).num_rows == 125
    assert_clean_error(tablebase("query", "--db", db, everything, "--format", "csv", "--json"), "two formats")
    assert_clean_error(tablebase("query", "--db", db, everything, "--limit", -1), "--limit")


def test_lookup_lists_as_many_moves_as_asked(db):
    text = tablebase("lookup", "--db", db, "chomp_4x5", "5 5 2", "--moves", 3)
    assert "11 moves, the 3 best:" in text.stdout and "8 more moves" in text.stderr
    assert len(json.loads(tablebase("lookup", "--db", db, "chomp_4x5", "5 5 2", "--json", "--moves", 4).stdout)
               ["moves"]) == 4


def test_the_folder_may_come_from_tablebase_db(db):
    result = tablebase("tables", "--json", env={**os.environ, "TABLEBASE_DB": str(db)})
    assert result.returncode == 0 and json.loads(result.stdout)[0]["table"] == "chomp_4x5"
    assert_clean_error(tablebase("tables", env={k: v for k, v in os.environ.items() if k != "TABLEBASE_DB"}),
                       "--db DIR or --db s3://BUCKET/PREFIX, or set TABLEBASE_DB")


def test_stats_json_is_keyed_by_names_that_stay(db):
    stats = json.loads(tablebase("stats", "--db", db, "chomp_4x5", "--json").stdout)
    assert {"grundy_values", "outcomes_by_level", "storage"} <= set(stats)
    assert stats["storage"]["title"] == "storage on disk" and stats["storage"]["rows"][0]["positions"] == 125
