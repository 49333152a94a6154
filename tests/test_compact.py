"""Compact tables: files without the position text, which SQL and lookups spell from the key."""

from __future__ import annotations

import glob

import pyarrow.parquet as pq
import pytest
from helpers import tablebase as cli

import tablebase
from tablebase.build import build_tables
from tablebase.build.jobs import spec_for
from tablebase.errors import TablebaseError
from tablebase.games import make_game

CASES = [("chomp", dict(rows=5, cols=5)), ("nim", dict(heaps=3, max_heap=7)), ("wythoff", dict(max=15))]


def build_both(root, scheduler, game, params):
    full, compact = spec_for(game, params, "full"), spec_for(game, params, "compact", compact=True)
    list(build_tables([full, compact], root, scheduler=scheduler, partition_rows=9, quiet=True))


@pytest.mark.parametrize("game,params", CASES)
def test_compact_table_reads_like_a_full_one(tmp_path, scheduler, game, params):
    build_both(tmp_path, scheduler, game, params)
    for path in glob.glob(str(tmp_path / "compact" / "level=*" / "*.parquet")):
        assert "position" not in pq.read_schema(path).names
    with tablebase.open(tmp_path) as tb:
        full = tb.sql('SELECT * FROM "full" ORDER BY key')
        compact = tb.sql("SELECT * FROM compact ORDER BY key")
        assert compact.column_names == full.column_names
        assert compact.to_pylist() == full.to_pylist()
        # Spelt positions read back as their own keys through the game's parser.
        rules = make_game(game, params)
        assert all(rules.parse(r["position"]) == r["key"] for r in compact.to_pylist())
        some = full.column("position")[len(full) // 2].as_py()
        assert tb.lookup("compact", some) == {**tb.lookup("full", some), "table": "compact"}
        filtered = tb.sql(f"SELECT key FROM compact WHERE position = '{some}'").column("key").to_pylist()
        assert filtered == [rules.parse(some)]


def test_compact_files_are_smaller_and_verify(tmp_path, scheduler):
    build_both(tmp_path, scheduler, "chomp", dict(rows=5, cols=5))
    with tablebase.open(tmp_path) as tb:
        assert tb._manifest("compact").bytes < tb._manifest("full").bytes
    result = cli("verify", "--db", str(tmp_path), "compact")
    assert result.returncode == 0 and "no problems" in result.stdout


def test_a_compact_build_does_not_resume_a_full_one(tmp_path, scheduler):
    list(build_tables([spec_for("nim", dict(heaps=2, max_heap=5))], tmp_path, scheduler=scheduler, quiet=True))
    with pytest.raises(TablebaseError, match="built as"):
        list(build_tables([spec_for("nim", dict(heaps=2, max_heap=5), compact=True)], tmp_path,
                          scheduler=scheduler, quiet=True))


def test_partizan_tables_are_never_compact():
    with pytest.raises(TablebaseError, match="compact"):
        spec_for("domineering", dict(max_cells=4), compact=True)
