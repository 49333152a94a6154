"""A program that only reads imports no builder: no Dask, no numba, no web server, no plotting.

Each check runs a fresh interpreter, as a user's program or the command would, and looks at
``sys.modules`` after it has answered. A read-only install has none of those packages: with them made
unimportable, reading still answers the same, and a verb that builds says in one line which extra to
install.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import tablebase
from tablebase.spelling import as_text
from tablebase.store.manifest import FILE_NAME

pytestmark = pytest.mark.slow  # other processes

BUILDERS = ("dask", "distributed", "numba", "fastapi", "uvicorn", "matplotlib", "jinja2")
REPO = Path(__file__).parent.parent
LOADED = f"""
import json, sys
print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(BUILDERS)!r})))
"""
BLOCKED = "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in BUILDERS)


def python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO,
                          check=False)


@pytest.fixture(scope="module")
def folder(built) -> tuple[Path, str, str]:
    root, chomp = built("chomp", rows=4, cols=4)
    root, domineering = built("domineering", max_cells=6)
    return root, chomp, domineering


def reading(root: Path, chomp: str, domineering: str) -> str:
    """A program that reads: open, probe, lookup, a batch; it prints what it found as JSON."""
    return f"""
import json, tablebase
from tablebase.spelling import as_text
tb = tablebase.open({str(root)!r})
found = [tb.probe({chomp!r}, "4 4 3 1"), tb.lookup({chomp!r}, "4 4 3 1"), tb.lookup({domineering!r}, "..|..|.."),
         tb.lookup_many({chomp!r}, ["4 4 3 1", "2 2"]).to_pylist()]
print(json.dumps(as_text(found)))
"""


def expected(root: Path, chomp: str, domineering: str) -> list:
    """The same, read in this process (where the games' functions are compiled)."""
    with tablebase.open(root) as tb:
        found = [tb.probe(chomp, "4 4 3 1"), tb.lookup(chomp, "4 4 3 1"), tb.lookup(domineering, "..|..|.."),
                 tb.lookup_many(chomp, ["4 4 3 1", "2 2"]).to_pylist()]
    return json.loads(json.dumps(as_text(found)))


def test_a_program_that_reads_imports_no_builder(folder):
    result = python(reading(*folder) + LOADED)
    assert result.returncode == 0, result.stderr
    answer, loaded = result.stdout.splitlines()
    assert json.loads(loaded) == []
    assert json.loads(answer) == expected(*folder)


def test_the_lookup_command_imports_no_builder(folder):
    root, chomp, _ = folder
    result = python(f"from tablebase.cli import main\ncode = main(['lookup', '--db', {str(root)!r}, {chomp!r}, "
                    f"'4 4 3 1', '--json'])\nassert code == 0\n" + LOADED)
    assert result.returncode == 0, result.stderr
    answer, loaded = result.stdout.splitlines()
    assert json.loads(loaded) == []
    assert json.loads(answer)["moves"] == expected(*folder)[1]["moves"]


def test_without_the_build_extra_reading_answers_the_same(folder):
    result = python(BLOCKED + reading(*folder))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == expected(*folder)


@pytest.mark.parametrize("verb", [["build", "chomp", "--rows", "2", "--cols", "2", "--out", "{out}"],
                                  ["serve", "--db", "{root}"],
                                  ["plot", "--db", "{root}", "{chomp}", "outcomes", "--out", "{picture}"]])
def test_without_the_build_extra_a_verb_that_needs_it_names_it_in_one_line(folder, tmp_path, verb):
    root, chomp, _ = folder
    argv = [a.format(out=tmp_path / "out", picture=tmp_path / "x.png", root=root, chomp=chomp) for a in verb]
    result = python(BLOCKED + f"from tablebase.cli import main\nraise SystemExit(main({argv!r}))")
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "pip install 'tablebase[build]'" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not list(tmp_path.iterdir())  # nothing half made


def test_a_program_that_probes_does_not_start_the_sql_engine(folder):
    """Opening a folder and probing it, by text and in a batch, reads manifests and the probe index: DuckDB
    (about 100 ms to import) comes in with the first SQL query, not before."""
    root, chomp, _ = folder
    code = f"""
import sys, tablebase
tb = tablebase.open({str(root)!r})
tb.probe({chomp!r}, "4 4 3 1")
tb.lookup_many({chomp!r}, ["4 4 3 1", "2 2"])
print("duckdb" in sys.modules)
tb.sql("SELECT count(*) FROM {chomp}")
print("duckdb" in sys.modules)
"""
    result = python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True"]


def test_a_probe_or_a_lookup_imports_neither_arrow_nor_numpy(folder):
    """A probe reads the position's text, the manifests and the index in plain Python, and a lookup lists
    Chomp's moves so too (``moves_of``): NumPy and Arrow, whose imports take longer than a whole lookup
    may, come in only where they do work, as in a batch."""
    root, chomp, _ = folder
    code = f"""
import sys, tablebase
def loaded():
    print(sorted({{"numpy", "pyarrow"}} & set(sys.modules)))
tb = tablebase.open({str(root)!r})
loaded()
tb.probe({chomp!r}, "4 4 3 1")
loaded()
tb.lookup({chomp!r}, "4 4 3 1")
loaded()
tb.lookup_many({chomp!r}, ["4 4 3 1", "2 2"])
loaded()
"""
    result = python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[]", "[]", "[]", "['numpy', 'pyarrow']"]


def test_the_lookup_command_imports_neither_arrow_nor_numpy(folder):
    root, chomp, _ = folder
    result = python(f"import sys\nfrom tablebase.cli import main\n"
                    f"code = main(['lookup', '--db', {str(root)!r}, {chomp!r}, '4 4 3 1'])\n"
                    f"print('pyarrow' in sys.modules, 'numpy' in sys.modules)\nraise SystemExit(code)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "False False"
    assert "(2,1)" in result.stdout  # its moves listed


def test_a_lookup_reads_its_own_table_and_imports_no_listing_engine(folder):
    """Opening a folder lists its tables; a lookup reads the manifest of the table it names, not every
    table's (each opened file is seen by an audit hook), and imports the listed forms of a game but not the
    engine that explores one, nor ctypes, which only its watchdog uses."""
    root, chomp, domineering = folder
    code = f"""
import sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
import tablebase
tb = tablebase.open({str(root)!r})
tb.lookup({chomp!r}, "4 4 3 1")
print(sorted({{p.split("/")[-2] for p in opened if p.endswith("/" + {FILE_NAME!r})}}))
print(sorted(m for m in ("tablebase.listing.explore", "tablebase.listing.expand", "ctypes") if m in sys.modules))
print(sorted({{{chomp!r}, {domineering!r}}} & set(tb._every_manifest)))  # the folder is shared with other test files
"""
    result = python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [str([chomp]), "[]", str(sorted([chomp, domineering]))]
