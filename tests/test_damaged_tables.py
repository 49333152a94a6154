"""One damaged Parquet file refuses its own table, not the folder: SQL, lookups and the explorer's pages of
every other table answer, and the damaged one says why in one line (a 503 over HTTP).

Each damage is made as a folder's maker could make it: a file truncated, or rewritten without its ``key``
or ``level`` column and recorded again in the manifest (so that its size and sha256 match), or a summary
that is not Parquet at all.
"""

from __future__ import annotations

import json
import math
import shutil

import pyarrow.parquet as pq
import pytest
from helpers import assert_clean_error, copy_without_index, rewrite_recorded, tablebase
from served import get, running

import tablebase as tb_api
from tablebase.http.app import create_app


@pytest.fixture(scope="module")
def tables(built):
    root, chomp = built("chomp", rows=5, cols=5, partition_rows=7)
    _, nim = built("nim", heaps=3, max_heap=6, partition_rows=7)
    return root, chomp, nim


def _names(folder, table: str) -> list[str]:
    return sorted(json.loads((folder / table / "_manifest.json").read_text())["files"])


def _truncated(folder, table: str) -> str:
    victim = folder / table / _names(folder, table)[0]
    victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2])
    return table


def _truncated_recorded(folder, table: str) -> str:
    name = _names(folder, table)[-1]  # not the first file: DuckDB meets it only as it reads
    rewrite_recorded(folder, table, name, (folder / table / name).read_bytes()[:200])
    return table


def _without(column: str, which: int):
    def damage(folder, table: str) -> str:
        name = _names(folder, table)[which]
        rewrite_recorded(folder, table, name, pq.read_table(folder / table / name).drop_columns([column]))
        return table
    return damage


def _garbage_summary(folder, table: str) -> str:
    (folder / "_summaries").mkdir()
    (folder / "_summaries" / "junk.parquet").write_bytes(b"PAR1" + b"\x00" * 64 + b"PAR1")
    return "junk"


DAMAGES = {"truncated": _truncated, "truncated and recorded": _truncated_recorded,
           "no key": _without("key", 0), "no level": _without("level", -1), "garbage summary": _garbage_summary}


@pytest.fixture(params=list(DAMAGES))
def damaged(request, tables, tmp_path):
    """(folder, the damaged table or summary, a table left whole, the chomp table)."""
    root, chomp, nim = tables
    for table in (chomp, nim):
        shutil.copytree(root / table, tmp_path / table)
    return tmp_path, DAMAGES[request.param](tmp_path, chomp), nim, chomp


def test_sql_of_the_other_tables_answers(damaged):
    folder, bad, good, _ = damaged
    ok = tablebase("query", "--db", folder, f"SELECT count(*) AS n FROM {good}", "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout) == [{"n": math.comb(6 + 3, 3)}], ok.stdout + ok.stderr
    refused = tablebase("query", "--db", folder, f"SELECT count(*), sum(key), max(level) FROM {bad}")
    assert_clean_error(refused, bad, "damaged")
    with tb_api.open(folder) as tb:
        assert tb.sql(f"SELECT count(*) AS n FROM {good}").column("n")[0].as_py() == math.comb(6 + 3, 3)
        with pytest.raises(tb_api.DamagedTable, match=bad) as caught:
            tb.sql(f"SELECT sum(key), max(level) FROM {bad}")
        assert "\n" not in str(caught.value)
        assert tb.sql(f"SELECT count(*) AS n FROM {good}").column("n")[0].as_py() == math.comb(6 + 3, 3)  # still


def test_the_pages_of_the_other_tables_answer(damaged):
    folder, bad, good, chomp = damaged
    with running(create_app(folder)) as base:
        assert get(f"{base}/tables/{good}")[0] == 200
        assert get(f"{base}/tables/{good}/lookup?position=1%202%203")[0] == 200
        assert get(f"{base}/tables/{good}/position?position=1%202%203")[0] == 200
        status, body = get(f"{base}/tables/{chomp}")
        if bad == chomp:
            assert status == 503 and b"damaged" in body and str(folder).encode() not in body, (status, body[:300])
        else:
            assert status == 200


def test_lookups_of_a_table_without_an_index_and_a_file_without_keys_refuse_in_one_line(tables, tmp_path):
    root, _, nim = tables
    copy_without_index(root, nim, tmp_path)
    _without("key", 0)(tmp_path, nim)
    assert_clean_error(tablebase("lookup", "--db", tmp_path, nim, "1 2 3"), nim, "key")
