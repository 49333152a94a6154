"""SQL is bounded and a folder's path is only data: what one query may take, and what a path may do.

A runaway cross join is stopped by its time limit within its memory limit,
Ctrl-C ends a query in one line with status 130, and DuckDB's spills go to a
private folder that is removed afterwards, never to the working directory.
A folder whose path holds SQL, a quote or glob brackets is read as a path:
nothing is written, and each view reads its own files only.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import MEASURED, assert_clean_error, copy_table
from helpers import tablebase as cli

import tablebase
from tablebase.errors import TablebaseError
from tablebase.query.database import QueryError

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

RUNAWAY = "SELECT count(*) FROM range(1000000000000) a, range(1000000000000) b"
PEAK_BOUND = 1536 * 2**10  # KiB of resident memory: the interpreter, DuckDB and a 256 MiB limit, with room


@pytest.fixture
def nim(built) -> tuple[Path, str]:
    return built("nim", heaps=2, max_heap=3)


def _child(base: Path, *args: object) -> subprocess.Popen:
    """``tablebase ARGS`` measured into ``base/peak``, working in ``base/work``, its temporary folder
    ``base/temp`` (both made empty)."""
    for folder in ("work", "temp"):
        (base / folder).mkdir()
    return subprocess.Popen([sys.executable, "-c", MEASURED, str(base / "peak"), *map(str, args)], cwd=base / "work",
                            env={**os.environ, "TMPDIR": str(base / "temp")}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_a_runaway_query_is_stopped_by_its_time_limit(nim, tmp_path):
    """The cross join of two ranges of a trillion rows, with a time limit of 2 s and 256 MiB: one line
    naming the time limit, exit 2, a peak far below what it grew to unbounded (20 GB), and nothing left
    in the working folder or the temporary folder."""
    root, _ = nim
    work, temp = tmp_path / "work", tmp_path / "temp"
    child = _child(tmp_path, "query", "--db", root, RUNAWAY, "--timeout", 2, "--memory-limit", "256MiB")
    out, err = child.communicate(timeout=300)
    assert_clean_error(subprocess.CompletedProcess(child.args, child.returncode, out, err), "time limit of 2 s")
    assert int((tmp_path / "peak").read_text()) < PEAK_BOUND
    assert list(work.iterdir()) == [] and list(temp.iterdir()) == []


def test_ctrl_c_ends_a_query_in_one_line(nim, tmp_path):
    """SIGINT, once the query's private folder exists (the query is under way): exit 130, one line on
    stderr, no traceback, and the private folder removed."""
    root, _ = nim
    work, temp = tmp_path / "work", tmp_path / "temp"
    child = _child(tmp_path, "query", "--db", root, RUNAWAY, "--timeout", 600, "--memory-limit", "256MiB")
    while not any(temp.glob("tablebase-sql-*")) and child.poll() is None:
        time.sleep(0.05)
    time.sleep(0.5)  # into the query
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=300)
    assert child.returncode == 130, (out, err)
    assert err.splitlines() == ["tablebase: interrupted"] and out == ""
    assert list(work.iterdir()) == [] and list(temp.iterdir()) == []


def test_the_api_bounds_time_and_results(nim, tmp_path):
    """``timeout=`` stops a query with QueryError; a result larger than the memory limit is refused;
    a query within the limits answers, also after one was stopped; spills go to ``temp_directory``,
    whose private folder is gone once the Tablebase is closed."""
    root, table = nim
    with tablebase.open(root, memory_limit="64MiB", threads=1, timeout=1, temp_directory=tmp_path) as tb:
        with pytest.raises(QueryError, match="time limit of 1 s"):
            tb.sql(RUNAWAY)
        with pytest.raises(QueryError, match="memory limit of 64 MiB"):
            tb.sql("SELECT range AS a, range AS b FROM range(100000000)", timeout=None)
        assert tb.sql(f"SELECT count(*) AS n FROM {table}").column("n").to_pylist() == [10]
        spilled = tb.sql("SELECT count(*) AS n FROM (SELECT range, random() AS r FROM range(20000000) ORDER BY r)",
                         timeout=None)
        assert spilled.column("n").to_pylist() == [20_000_000]
        assert len(list(tmp_path.iterdir())) == 1  # its private folder, while open
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("limits, word", [
    ({"memory_limit": "lots"}, "memory limit"), ({"memory_limit": 1000}, "at least"),
    ({"threads": 0}, "threads"), ({"timeout": -1}, "time limit"), ({"temp_directory": "/no/such"}, "no folder"),
])
def test_bad_limits_are_one_line(nim, limits, word):
    with pytest.raises(TablebaseError, match=word):
        tablebase.open(nim[0], **limits)


def test_bad_limits_on_the_command_line(nim):
    assert_clean_error(cli("query", "--db", nim[0], "SELECT 1", "--memory-limit", "lots"), "memory limit", "lots")


def test_a_folder_path_of_sql_writes_nothing(nim, tmp_path):
    """A folder whose path ends a quoted string and adds a COPY (after a real file, so that pasted into
    SQL the statement before the COPY would run): the file it names is not written, and the table answers."""
    source, table = nim
    pwned = tmp_path / "pwned.csv"
    root = Path(f"{tmp_path}/x.parquet'); COPY (SELECT 'pwned' AS x) TO '{pwned}'; --")
    root.mkdir(parents=True)
    copy_table(source / table, root, table)
    shutil.copy(next((source / table / "rows").iterdir()), tmp_path / "x.parquet")
    with tablebase.open(root) as tb:
        assert tb.sql(f"SELECT count(*) AS n FROM {table}").column("n").to_pylist() == [10]
    assert not pwned.exists()


def test_a_quote_in_the_path_works(nim, tmp_path):
    source, table = nim
    root = tmp_path / "it's"
    root.mkdir()
    copy_table(source / table, root, table)
    result = cli("query", "--db", root, f"SELECT count(*) AS n FROM {table}", "--json")
    assert result.returncode == 0 and result.stdout.strip() == '[{"n": 10}]', result.stderr


def test_glob_brackets_in_the_path_read_only_its_own_files(built, tmp_path):
    """Folders ``[a]`` and ``a`` each hold a table ``t`` (of 10 and of 20 rows): ``[a]`` as a glob would
    match ``a``; its view reads its own files only."""
    for name, (source, table) in (("[a]", built("nim", heaps=2, max_heap=3)), ("a", built("nim", heaps=3, max_heap=3))):
        (tmp_path / name).mkdir()
        copy_table(source / table, tmp_path / name, "t")
    for name, rows in (("[a]", 10), ("a", 20)):
        with tablebase.open(tmp_path / name) as tb:
            assert tb.sql("SELECT count(*) AS n FROM t").column("n").to_pylist() == [rows]
