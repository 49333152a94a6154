"""Random and malformed input at the command line and the Python API.

Every case must end with a correct answer or one clean line and exit status 2:
no traceback, and no file of the tablebase changed.
"""

from __future__ import annotations

import contextlib
import io
import json
import string

import pytest
from helpers import file_hashes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tablebase
from tablebase.cli import main
from tablebase.errors import TablebaseError

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

TABLES = {
    "chomp": dict(rows=3, cols=4),
    "nim": dict(heaps=3, max_heap=5),
    "wythoff": {"max": 9},
    "fibonacci-nim": {"max": 12},
    "subtraction": {"set": "1,3,4", "max": 30},
    "green-hackenbush": {"max_edges": 5},
}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main([str(a) for a in argv])
        except SystemExit as e:
            status = e.code
    return status, out.getvalue(), err.getvalue()


def clean(status: int, err: str) -> None:
    assert "Traceback" not in err
    if status != 0:
        assert status == 2, err
        assert len(err.strip().splitlines()) == 1, err


@pytest.fixture(scope="module")
def built_tables(built):
    return {game: built(game, **params) for game, params in TABLES.items()}


@pytest.fixture(scope="module")
def db(built_tables):
    (root,) = {root for root, _ in built_tables.values()}
    return root


@pytest.fixture(scope="module")
def tables(built_tables):
    return {game: name for game, (_, name) in built_tables.items()}


numbers = st.lists(st.integers(-3, 14), max_size=6)
separators = st.sampled_from([" ", ",", ", ", "  ", "\t", "/", "|"])
positions = st.one_of(
    st.text(max_size=20),
    st.text(alphabet="()", max_size=14),
    st.builds(lambda ns, sep: sep.join(map(str, ns)), numbers, separators),
)


@FUZZ
@given(game=st.sampled_from(sorted(TABLES)), text=positions)
def test_positions(db, tables, game, text):
    before = file_hashes(db)
    status, out, err = run("lookup", "--db", db, tables[game], text, "--json")
    clean(status, err)
    with tablebase.open(db) as tb:
        try:
            probed = tb.probe(tables[game], text)
        except TablebaseError:
            probed = None
    if status == 0:
        row = json.loads(out)
        assert probed is not None and probed["key"] == row["key"] and probed["grundy"] == row["grundy"]
        # A correct answer: the Grundy value is the mex of the listed moves' values.
        seen = {m["grundy"] for m in row["moves"]}
        assert row["grundy"] == min(set(range(len(seen) + 1)) - seen)
        assert row["outcome"] == ("N" if row["grundy"] else "P")
    else:
        assert probed is None
    assert file_hashes(db) == before


sql_words = st.sampled_from(
    ["SELECT", "*", "FROM", "chomp_3x4", "nim_3x5", "WHERE", "grundy", "=", "1", ";", "DELETE", "DROP", "VIEW",
     "COPY", "TO", "'x.csv'", "ATTACH", "INSTALL", "LOAD", "httpfs", "CREATE", "TABLE", "t", "AS", "(", ")",
     "count(*)", "GROUP", "BY", "ALL", "read_csv('/etc/passwd')", "PRAGMA", "SET", "threads=1", "UPDATE"]
)


@FUZZ
@given(query=st.one_of(st.text(max_size=40), st.lists(sql_words, max_size=9).map(" ".join)))
def test_sql(db, query):
    before = file_hashes(db)
    status, out, err = run("query", "--db", db, query, "--json")
    clean(status, err)
    if status == 0:
        assert isinstance(json.loads(out), list)
    assert file_hashes(db) == before


option_values = st.one_of(st.integers(-2, 4), st.text(alphabet=string.printable, max_size=5))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    game=st.sampled_from(sorted(TABLES) + ["go", ""]),
    options=st.dictionaries(
        st.sampled_from(["--rows", "--cols", "--heaps", "--max-heap", "--max", "--set", "--bash", "--take",
                         "--max-edges", "--workers", "--partition-rows", "--bogus"]),
        option_values, max_size=4,
    ),
)
def test_build_options(tmp_path_factory, scheduler, game, options):
    out = tmp_path_factory.mktemp("fuzz") / "tb"
    argv = ["build", game, "--out", out, "--scheduler", scheduler, "--quiet"]
    for name, value in options.items():
        argv += [name, value]
    status, stdout, err = run(*argv)
    clean(status, err)
    if status == 0:
        summary = json.loads(stdout)
        assert run("verify", "--db", out, summary["table"], "--quiet")[0] == 0
    else:
        assert not out.exists() or not any(out.iterdir())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    spec=st.one_of(
        st.text(max_size=60),
        st.lists(
            st.dictionaries(st.sampled_from(["game", "rows", "cols", "max", "name", "heaps", "max-heap", "x"]),
                            st.one_of(st.sampled_from(sorted(TABLES)), st.integers(-1, 3), st.text(max_size=4)),
                            max_size=4),
            max_size=3,
        ).map(lambda tables: "".join("[[table]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in t.items())
                                     for t in tables)),
    )
)
def test_job_specs(tmp_path_factory, scheduler, spec):
    folder = tmp_path_factory.mktemp("job")
    job = folder / "job.toml"
    job.write_text(spec)
    out = folder / "tb"
    status, stdout, err = run("build", "--job", job, "--out", out, "--scheduler", scheduler, "--quiet")
    clean(status, err)
    if status == 0:
        for line in stdout.splitlines():
            assert run("verify", "--db", out, json.loads(line)["table"], "--quiet")[0] == 0
    else:
        assert not out.exists() or not any(out.iterdir())
