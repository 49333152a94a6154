"""`tablebase verify` checks the rows' schema against the kind's columns and types: a figure stored as text,
or a column the kind does not write (nested or not), is a problem even when every value reads the same."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
from helpers import copy_without_index, file_of, rewrite_recorded, tablebase


def _tampered(built, tmp_path, change) -> tuple[str, str]:
    """A copy of a small Nim table whose first file of rows is changed and recorded again as a build would,
    without a probe index (as a table built before indexes is: nothing but the rows to check them against)."""
    root, table = built("nim", heaps=3, max_heap=5)
    copy_without_index(root, table, tmp_path)
    name = file_of(tmp_path, table, 0)
    rewrite_recorded(tmp_path, table, name, change(pq.read_table(tmp_path / table / name)))
    return table, name


def _verified(tmp_path, table: str) -> str:
    result = tablebase("verify", "--db", tmp_path, table, "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def test_a_grundy_column_stored_as_text_fails(built, tmp_path):
    def as_text(rows: pa.Table) -> pa.Table:
        at = rows.schema.get_field_index("grundy")
        return rows.set_column(at, "grundy", rows.column("grundy").cast(pa.string()))

    table, name = _tampered(built, tmp_path, as_text)
    out = _verified(tmp_path, table)
    assert f"{table} {name}: column 'grundy' holds string, the table's kind stores integers" in out.splitlines(), out


def test_an_extra_nested_column_fails(built, tmp_path):
    def nested(rows: pa.Table) -> pa.Table:
        extra = pa.array([{"a": [i]} for i in range(rows.num_rows)], pa.struct([("a", pa.list_(pa.int64()))]))
        return rows.append_column("payload", extra)

    table, name = _tampered(built, tmp_path, nested)
    out = _verified(tmp_path, table)
    assert f"{table} {name}: column 'payload' is not one of the table's kind" in out.splitlines(), out


def test_an_extra_plain_column_fails(built, tmp_path):
    table, name = _tampered(built, tmp_path, lambda rows: rows.append_column("note", pa.array(["x"] * rows.num_rows)))
    assert f"{table} {name}: column 'note' is not one of the table's kind" in _verified(tmp_path, table).splitlines()


def test_a_file_without_its_key_column_is_a_problem_not_a_traceback(built, tmp_path):
    table, name = _tampered(built, tmp_path, lambda rows: rows.drop_columns(["key"]))
    assert f"{table} {name}: column 'key' is missing" in _verified(tmp_path, table).splitlines()
