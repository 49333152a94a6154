"""`tablebase verify` re-derives every row and names what is wrong; damaged files fail cleanly."""

from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.parquet as pq
from helpers import assert_clean_error, file_of, tablebase


def test_a_clean_table_verifies(built):
    root, table = built("chomp", rows=5, cols=5, partition_rows=7)
    result = tablebase("verify", "--db", root, table)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "251 rows verified, no problems" in result.stdout


def test_a_flipped_value_is_named_by_position(built, tmp_path):
    root, table = built("nim", heaps=3, max_heap=6, partition_rows=7)
    shutil.copytree(root / table, tmp_path / table)
    name = file_of(tmp_path, table, 9)
    victim = tmp_path / table / name
    data = pq.read_table(victim)
    grundy = data.column("grundy").to_pylist()
    row = data.column("level").to_pylist().index(9) + 1
    grundy[row] += 1
    position = data.column("position")[row].as_py()
    data = data.set_column(data.schema.get_field_index("grundy"), "grundy",
                           pa.array(grundy, data.schema.field("grundy").type))
    pq.write_table(data, victim)
    result = tablebase("verify", "--db", tmp_path, table, "--quiet")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert f"{table} {name} position {position!r}: grundy stored {grundy[row]}, derived {grundy[row] - 1}" in lines
    assert any("sha256 differs" in line for line in lines)


def test_a_truncated_file_is_reported_not_crashed_on(built, tmp_path):
    root, table = built("wythoff", max=12, partition_rows=7)
    shutil.copytree(root / table, tmp_path / table)
    name = file_of(tmp_path, table, 10)
    victim = tmp_path / table / name
    victim.write_bytes(victim.read_bytes()[:100])
    result = tablebase("verify", "--db", tmp_path, table, "--quiet")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{table} {name}:" in result.stdout
    # Rows above the damaged level are still checked against the re-derived ones.
    assert "no problems" not in result.stdout
    # A lookup reads the probe index, which the damage to the rows did not touch; SQL reads the rows.
    lookup = tablebase("lookup", "--db", tmp_path, table, "5 5")
    assert lookup.returncode == 0 and "Traceback" not in lookup.stderr, lookup.stderr
    query = tablebase("query", "--db", tmp_path, f"SELECT count(*) FROM {table}")
    assert_clean_error(query, victim.name)


def test_verify_of_an_unknown_table_is_a_clean_error(built):
    root, _ = built("chomp", rows=5, cols=5, partition_rows=7)
    assert_clean_error(tablebase("verify", "--db", root, "nosuch"), "no table 'nosuch'")
