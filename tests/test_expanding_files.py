"""Small files that expand: a few megabytes of Parquet that hold tens of millions of rows, or a text of tens
of MiB squeezed to kilobytes, are weighed by their footers before anything reads them. Loading a table
without a probe index, ``verify``, ``stats`` and ``lookup_many`` refuse what would pass their bounds in one
line, and a footer whose rows are not those its manifest records refuses its table.

A command's peak memory, from its own rusage, is the oracle that nothing was loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import MEASURED, assert_clean_error, copy_without_index, file_of, rewrite_recorded

import tablebase as tb_api
from tablebase.store import Manifest

MANY = 20_000_000  # constant rows: about 2 MB of Parquet, 1.3 GB once read
LOADED = 1200 * 2**20  # what a child that loaded them would pass (verify's compiled loops alone take 700 MiB)


@pytest.fixture
def table(built, tmp_path):
    """A copy of a small Nim table without a probe index (a table built before indexes), and its first file."""
    root, table = built("nim", heaps=3, max_heap=6, partition_rows=7)
    copy_without_index(root, table, tmp_path)
    return tmp_path, table, file_of(tmp_path, table, 0)


def _constant(path, count: int) -> None:
    """``count`` copies of a file's first row, written a million at a time: a few megabytes."""
    first = pq.read_table(path).slice(0, 1)
    block = first.take(pa.array(np.zeros(min(count, 1_000_000), dtype=np.int32)))
    tmp = path.with_suffix(".tmp")
    with pq.ParquetWriter(tmp, first.schema, compression="zstd") as writer:
        for done in range(0, count, len(block)):
            writer.write_table(block.slice(0, min(len(block), count - done)), row_group_size=len(block))
    tmp.replace(path)


def _measured(*args: object) -> tuple[subprocess.CompletedProcess, int]:
    """The command run as ``helpers.tablebase`` runs it, and its own peak memory in bytes (``helpers.MEASURED``)."""
    with tempfile.TemporaryDirectory() as folder:
        peak = Path(folder) / "peak"
        result = subprocess.run([sys.executable, "-c", MEASURED, str(peak), *map(str, args)], capture_output=True,
                                text=True, timeout=600)
        return result, int(peak.read_text()) * 1024


def _recorded(folder, table: str, name: str, rows: int | None = None) -> None:
    """The file's size and sha256 recorded as a build would (and its rows, if given)."""
    rewrite_recorded(folder, table, name, (folder / table / name).read_bytes())
    if rows is not None:
        manifest = folder / table / "_manifest.json"
        data = json.loads(manifest.read_text())
        data["files"][name]["rows"] = rows
        manifest.write_text(json.dumps(data))


def test_a_lookup_refuses_a_file_holding_other_rows_than_its_manifest_records(table):
    folder, name, first = table
    _constant(folder / name / first, MANY)
    _recorded(folder, name, first)  # sizes and sha256 as they are; the rows as they were
    result, peak = _measured("lookup", "--db", folder, name, "1 2 3")
    assert_clean_error(result, name, f"holds {MANY:,} rows by its footer, its manifest records")
    assert peak < LOADED


def test_loading_a_table_without_an_index_is_bounded_by_the_memory_limit(table):
    folder, name, first = table
    _constant(folder / name / first, 2_000_000)
    _recorded(folder, name, first, rows=2_000_000)
    with tb_api.open(folder, memory_limit="64MiB") as tb, pytest.raises(tb_api.TablebaseError) as caught:
        tb.lookup(name, "1 2 3")
    assert "more than the memory limit of 64 MiB" in str(caught.value) and "tablebase index" in str(caught.value)
    with tb_api.open(folder) as tb:  # within the default limit it loads, and answers what the file says
        assert tb.probe(name, "0 0 0")["grundy"] == 0


def test_verify_reads_no_file_holding_more_rows_than_its_levels(table):
    folder, name, first = table
    _constant(folder / name / first, MANY)
    _recorded(folder, name, first, rows=MANY)
    result, peak = _measured("verify", "--db", folder, name, "--quiet")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    manifest = Manifest.load(folder, name)
    piece = manifest.layout().of_level(0)[0]
    held = manifest.plan.sizes(piece.first, piece.last)
    assert f"{name} {first}: holds {MANY:,} rows by its footer, its levels hold {sum(n for _, n in held)}" \
        in result.stdout.splitlines(), result.stdout
    assert peak < LOADED


def test_stats_refuses_a_long_text_in_a_small_file(table):
    folder, name, first = table
    rows = pq.read_table(folder / name / first)
    outcome = rows.column("outcome").to_pylist()
    outcome[0] = "P" * (64 << 20)
    rows = rows.set_column(rows.schema.get_field_index("outcome"), "outcome", pa.array(outcome, pa.string()))
    pq.write_table(rows, folder / name / first, compression="zstd")
    assert (folder / name / first).stat().st_size < 1 << 20
    _recorded(folder, name, first)
    result, peak = _measured("stats", "--db", folder, name)
    assert_clean_error(result, name, "bytes of text")
    assert peak < LOADED


def test_lookup_many_is_bounded_by_the_memory_limit(table):
    folder, name, _ = table
    with tb_api.open(folder, memory_limit="16MiB") as tb:
        assert tb.lookup_many(name, ["1 2 3"] * 1000).column("grundy").to_pylist() == [0] * 1000
        with pytest.raises(tb_api.TablebaseError, match="the rows of 1,000,000 positions would take about"):
            tb.lookup_many(name, ["1 2 3"] * 1_000_000)
        with pytest.raises(tb_api.TablebaseError, match="1,000,000 positions"):  # an iterable, counted as read
            tb.lookup_many(name, iter(["1 2 3"] * 1_000_000))
