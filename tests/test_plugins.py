"""Games from outside the package, used as a stranger would: a game file, a module, an installed plugin.

The fixture games are in tests/plugins/ and are copied into temporary folders
(the tests that change rules edit the copy). Builds, lookups, stats, verify and
the rest run as commands in child processes, where the game is imported as a
user's command would import it; the rows are read back with SQL, which needs no
game. The oracles are closed forms of subtraction games (taking 1 or 2 tokens:
Grundy value n mod 3; taking 1 or 3: n mod 2) and a brute-force search of Cram
written here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import cache
from importlib import metadata
from itertools import pairwise
from pathlib import Path

import pytest
from conftest import rows_of
from helpers import assert_clean_error, file_hashes

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

PLUGINS = Path(__file__).parent / "plugins"
CRAM = Path(__file__).parent.parent / "examples" / "cram.py"


# -- helpers -------------------------------------------------------------------------
def start(*args: object, path: Path | None = None, cwd: Path | None = None,
          env: dict | None = None) -> subprocess.Popen:
    """``tablebase ARGS`` started in a child process, with ``path`` put first on its PYTHONPATH.

    Commands that only read are started together and then waited for (``finish``): the
    machine's two cores start Python twice as fast as one.
    """
    environ = dict(os.environ)
    if path is not None:
        environ["PYTHONPATH"] = os.pathsep.join([str(path), *filter(None, [environ.get("PYTHONPATH")])])
    environ.update(env or {})
    return subprocess.Popen([sys.executable, "-m", "tablebase", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd, env=environ)


def finish(*procs: subprocess.Popen) -> list[subprocess.CompletedProcess]:
    done = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


def run(*args: object, **where: object) -> subprocess.CompletedProcess:
    return finish(start(*args, **where))[0]


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, (result.returncode, result.stdout[-2000:], result.stderr[-2000:])
    return result


def game_copy(folder: Path, fixture: str = "take.py") -> Path:
    """A copy of a fixture game file in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(PLUGINS / fixture, folder / fixture))


def set_amounts(game_file: Path, amounts: str) -> None:
    """Change the rules of a copied fixture game: which amounts may be taken."""
    lines = game_file.read_text().splitlines(keepends=True)
    assert sum(line.startswith("AMOUNTS = ") for line in lines) == 1, "the fixture game has no AMOUNTS line"
    game_file.write_text("".join(f"AMOUNTS = ({amounts})\n" if line.startswith("AMOUNTS = ") else line
                                 for line in lines))


def grundy_of(rows: list[dict]) -> dict[str, int]:
    """Every row's Grundy value by its position text."""
    return {r["position"]: r["grundy"] for r in rows}


def heaps(top: int, rule) -> dict[str, int]:
    """A subtraction game's Grundy values by closed form: heap text -> rule(n)."""
    return {str(n): rule(n) for n in range(top + 1)}


def manifest(db: Path, table: str) -> dict:
    return json.loads((db / table / "_manifest.json").read_text())


def outside_pycache(folder: Path) -> dict[str, str]:
    """file_hashes of a folder, leaving out bytecode that Python may cache beside imported files."""
    return {k: v for k, v in file_hashes(folder).items() if "__pycache__" not in k}


# -- Cram by brute force ------------------------------------------------------------------
def cram_positions(rows: int, cols: int) -> dict[str, int]:
    """Every Cram position reachable from the empty board, spelt as the game spells it, with its Grundy value."""
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    dominoes = [frozenset({(r, c), (r2, c2)}) for r, c in cells for r2, c2 in ((r, c + 1), (r + 1, c))
                if r2 < rows and c2 < cols]

    @cache
    def grundy(filled: frozenset) -> int:
        options = {grundy(filled | d) for d in dominoes if not filled & d}
        return next(g for g in range(len(options) + 1) if g not in options)

    def spell(filled: frozenset) -> str:
        return "|".join("".join("#" if (r, c) in filled else "." for c in range(cols)) for r in range(rows))

    found, todo = {}, [frozenset()]
    while todo:
        filled = todo.pop()
        if spell(filled) not in found:
            found[spell(filled)] = grundy(filled)
            todo += [filled | d for d in dominoes if not filled & d]
    return found


def cram_terminal(position: str) -> bool:
    """Whether no domino fits: no two side-by-side empty cells in the spelt board."""
    grid = position.split("|")
    across = any(".." in row for row in grid)
    down = any(a == b == "." for upper, lower in pairwise(grid) for a, b in zip(upper, lower))
    return not (across or down)


# -- fixtures -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cram_job(tmp_path_factory, scheduler) -> Path:
    """A tablebase built from a job file naming examples/cram.py by a path relative to the job file.

    The job file sits in jobs/ and the command runs from the folder above, so the
    game file is found only if the path is taken relative to the job file's folder.
    """
    base = tmp_path_factory.mktemp("job")
    (base / "jobs").mkdir(exist_ok=True)
    shutil.copy(CRAM, base / "jobs" / "cram.py")
    (base / "jobs" / "cram.toml").write_text(
        '[[table]]\ngame = "cram.py:Cram"\nrows = 3\ncols = 3\nname = "cram_small"\n'
    )
    assert not (base / "cram.py").exists()
    ok(run("build", "--job", "jobs/cram.toml", "--out", "db", "--scheduler", scheduler, "--quiet", cwd=base))
    return base / "db"


@pytest.fixture(scope="module")
def bad_games(tmp_path_factory) -> Path:
    """A folder of broken game files: not a game, failing on import, an option that clashes with build's."""
    folder = tmp_path_factory.mktemp("bad")
    game_copy(folder)
    (folder / "notgame.py").write_text('class Thing:\n    name = "thing"\n\n\ndef moves(n):\n    return []\n')
    (folder / "boom.py").write_text('raise RuntimeError("boom at import")\n')
    clash = (PLUGINS / "take.py").read_text().replace(
        'options = (Option("heap", int, "tokens in the starting heap"),)',
        'options = (Option("heap", int, "tokens in the starting heap"), Option("out", str, "where to"))',
    )
    assert 'Option("out"' in clash
    (folder / "clash.py").write_text(clash)
    return folder


# -- 1. a game file ---------------------------------------------------------------------------
def test_game_file_builds_and_every_reader_works(tmp_path, scheduler):
    """``--game path/to/file.py:Class`` (a path relative to the working folder) builds a table whose rows are
    the closed form; lookup and verify, run from another folder, read it with the file named again by
    ``--game`` (a folder's own code never runs), stats needs no game; ``tables`` shows the origin as the
    reader judges it; the manifest records the source (ref, origin, version, digest)."""
    game = game_copy(tmp_path / "games").resolve()
    db = tmp_path / "db"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    built = ok(run("build", "--game", "games/take.py:Take", "--heap", 20, "--out", "db", "--scheduler", scheduler,
                   "--quiet", cwd=tmp_path))
    assert json.loads(built.stdout)["table"] == "take_heap20"
    assert grundy_of(rows_of(db, "take_heap20")) == heaps(20, lambda n: n % 3)
    named = ["--game", f"{game}:Take"]
    lookup, stats, verify, tables, trusted = finish(
        start("lookup", "--db", db, "take_heap20", "7", "--json", *named, cwd=elsewhere),
        start("stats", "--db", db, "take_heap20", "--json", cwd=elsewhere),
        start("verify", "--db", db, "take_heap20", "--quiet", *named, cwd=elsewhere),
        start("tables", "--db", db, "--json", cwd=elsewhere),
        start("tables", "--db", db, "--json", *named, cwd=elsewhere),
    )

    row = json.loads(ok(lookup).stdout)
    assert (row["position"], row["grundy"], row["outcome"]) == ("7", 1, "N")
    assert sorted((m["move"], m["position"], m["grundy"]) for m in row["moves"]) == [("-1", "6", 0), ("-2", "5", 2)]

    counts = json.loads(ok(stats).stdout)["grundy_values"]["rows"]
    assert {r["grundy"]: r["positions"] for r in counts} == {0: 7, 1: 7, 2: 7}

    assert "21 rows verified, no problems" in ok(verify).stdout

    listed = json.loads(ok(tables).stdout)
    assert [(t["table"], t["game"], t["origin"]) for t in listed] == [
        ("take_heap20", "take", f"file {game}, not loaded: pass --game")]
    listed = json.loads(ok(trusted).stdout)
    assert [(t["table"], t["game"], t["origin"]) for t in listed] == [("take_heap20", "take", f"file {game}")]

    source = manifest(db, "take_heap20")["source"]
    assert source["ref"] == f"{game}:Take"
    assert source["origin"] == f"file {game}"
    assert source["version"] == "0.3"  # the file's __version__
    assert len(source["digest"]) == 64 and int(source["digest"], 16) >= 0


# -- 2. module:Class --------------------------------------------------------------------------
def test_module_and_class_on_the_python_path(tmp_path):
    """``module:Class`` names a game in a package found on PYTHONPATH: the build (on its own local
    cluster, whose workers inherit that path) gives the closed form, and the manifest names the module
    and the package's version. A lookup that names the game reads it; one that does not says in one
    line which game to name, whether or not the package is on the path (the folder's word is not trust)."""
    site = tmp_path / "site"
    game_copy(site / "strangegames")
    (site / "strangegames" / "__init__.py").write_text('__version__ = "1.2.3"\n')
    db = tmp_path / "db"
    ok(run("build", "strangegames.take:Take", "--heap", 15, "--out", db, "--workers", 1, "--quiet", path=site))

    source = manifest(db, "take_heap15")["source"]
    assert (source["ref"], source["origin"], source["version"]) == (
        "strangegames.take:Take", "module strangegames.take", "1.2.3")
    assert grundy_of(rows_of(db, "take_heap15")) == heaps(15, lambda n: n % 3)
    lookup, unnamed, lost = finish(
        start("lookup", "--db", db, "take_heap15", "14", "--json", "--game", "strangegames.take:Take", path=site),
        start("lookup", "--db", db, "take_heap15", "14", path=site),
        start("lookup", "--db", db, "take_heap15", "14"),  # without the package on the path
    )
    row = json.loads(ok(lookup).stdout)
    assert row["grundy"] == 14 % 3 and {m["position"] for m in row["moves"]} == {"13", "12"}
    assert_clean_error(unnamed, "take_heap15", "strangegames", "--game")
    assert_clean_error(lost, "take_heap15", "strangegames", "--game")


# -- 3. an installed plugin ------------------------------------------------------------------
def test_plugin_from_entry_points(tmp_path):
    """A distribution that declares ``[tablebase.games] mygame = mymod:MyGame``: ``games --json`` lists
    mygame from that distribution and version, ``--version`` prints the tablebase version and a line per
    game naming where it comes from, and ``build mygame`` builds the closed form (on its own local cluster),
    which lookups read with no --game and ``tables`` shows as the plugin's."""
    site = tmp_path / "site"
    site.mkdir()
    source = (PLUGINS / "take.py").read_text()
    mymod = source.replace("class Take(", "class MyGame(").replace('name = "take"', 'name = "mygame"')
    assert "class MyGame(" in mymod and 'name = "mygame"' in mymod
    (site / "mymod.py").write_text(mymod)
    dist = site / "mygames-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mygames\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[tablebase.games]\nmygame = mymod:MyGame\n")
    db = tmp_path / "db"

    build, games, version = finish(
        start("build", "mygame", "--heap", 12, "--out", db, "--workers", 1, "--quiet", path=site),
        start("games", "--json", path=site),
        start("--version", path=site),
    )
    listing = json.loads(ok(games).stdout)
    by_name = {g["game"]: g for g in listing}
    assert "mygame" in by_name and "error" not in by_name["mygame"], by_name.get("mygame")
    assert "mygames 0.1" in by_name["mygame"]["origin"] and by_name["mygame"]["version"] == "0.1"
    assert [o["name"] for o in by_name["mygame"]["options"]] == ["--heap"]
    assert by_name["nim"]["origin"] == "built-in"

    lines = ok(version).stdout.splitlines()
    assert lines[0] == f"tablebase {metadata.version('tablebase')}"
    assert len(lines) == 1 + len(listing)
    for line, game in zip(lines[1:], listing):
        assert line.strip().startswith(f"{game['game']}: {game['origin']}"), (line, game)
    assert any(line.strip().startswith("mygame:") and "mygames 0.1" in line for line in lines)

    ok(build)
    recorded = manifest(db, "mygame_heap12")["source"]
    assert recorded["ref"] == "mygame" and "mygames 0.1" in recorded["origin"] and recorded["version"] == "0.1"
    assert grundy_of(rows_of(db, "mygame_heap12")) == heaps(12, lambda n: n % 3)
    looked, tables = finish(start("lookup", "--db", db, "mygame_heap12", "12", "--json", path=site),
                            start("tables", "--db", db, "--json", path=site))
    row = json.loads(ok(looked).stdout)
    assert (row["grundy"], row["outcome"]) == (0, "P")  # an installed plugin needs no --game
    assert json.loads(ok(tables).stdout)[0]["origin"] == "plugin mygames 0.1 (mymod:MyGame)"


# -- 4. a job file ------------------------------------------------------------------------------
def test_job_file_names_a_game_file_relative_to_itself(cram_job):
    """A job file's ``game = "cram.py:Cram"`` is found beside the job file (not in the working folder), and
    the table holds exactly the positions a brute-force search reaches, with their Grundy values."""
    assert grundy_of(rows_of(cram_job, "cram_small")) == cram_positions(3, 3)
    source = manifest(cram_job, "cram_small")["source"]
    assert source["origin"] == f"file {(cram_job.parent / 'jobs' / 'cram.py').resolve()}"


# -- 5. bad references -------------------------------------------------------------------------
BAD = {
    "unknown name": ("nosuchgame", ("nosuchgame",)),
    "missing file": ("{dir}/missing.py:Take", ("missing.py",)),
    "no such class": ("{dir}/take.py:NoSuchClass", ("NoSuchClass",)),
    "not a game": ("{dir}/notgame.py:Thing", ("Thing", "not a game")),
    "file raises on import": ("{dir}/boom.py:Boom", ("boom.py", "RuntimeError", "boom at import")),
    "module raises on import": ("boom:Boom", ("boom", "RuntimeError", "boom at import")),
    "option clashes with build's": ("{dir}/clash.py:Take", ("--out",)),
}


@pytest.fixture(scope="module")
def bad_builds(bad_games, tmp_path_factory, scheduler) -> dict:
    """Each bad reference's build, all started at once: case -> (result, its --out, whether the folder of
    game files was left as it was)."""
    outs = tmp_path_factory.mktemp("bad_outs")
    before = outside_pycache(bad_games)
    procs = {case: start("build", "--game", ref.format(dir=bad_games), "--heap", 3, "--out", outs / str(i),
                         "--scheduler", scheduler, path=bad_games)
             for i, (case, (ref, _)) in enumerate(BAD.items())}
    results = dict(zip(procs, finish(*procs.values())))
    untouched = outside_pycache(bad_games) == before
    return {case: (results[case], outs / str(i), untouched) for i, case in enumerate(BAD)}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_reference_is_one_clean_line_and_writes_nothing(case, bad_builds):
    """Each bad game reference stops the build with exit 2 and one line naming the problem, no traceback;
    no output folder is made and nothing beside the game files is written."""
    result, out, untouched = bad_builds[case]
    assert_clean_error(result, *BAD[case][1])
    assert not out.exists()
    assert untouched


# -- 6. a game that is gone ------------------------------------------------------------------
def test_table_whose_game_file_is_gone(tmp_path, scheduler):
    """After the game file is moved away, SQL still reads the rows (it needs no game), and lookup and verify
    stop with exit 2 and one line naming the table, the game file its manifest names, and --game."""
    game = game_copy(tmp_path / "games").resolve()
    db = tmp_path / "db"
    ok(run("build", "--game", f"{game}:Take", "--heap", 10, "--out", db, "--scheduler", scheduler, "--quiet"))
    game.rename(tmp_path / "moved.py")

    query, lookup, verify = finish(
        start("query", "--db", db, "SELECT position, grundy FROM take_heap10", "--json"),
        start("lookup", "--db", db, "take_heap10", "4"),
        start("verify", "--db", db, "take_heap10", "--quiet"),
    )
    assert grundy_of(json.loads(ok(query).stdout)) == heaps(10, lambda n: n % 3)
    assert_clean_error(lookup, "take_heap10", str(game), "--game")
    assert_clean_error(verify, "take_heap10", str(game), "--game")


# -- 7. changed rules ------------------------------------------------------------------------
def changed_rules(tmp_path: Path, scheduler: str, fixture: str, cls: str, option: str, top: int, table: str) -> None:
    """Build with amounts 1, 2; change the file to amounts 1, 3: naming the changed file for the old table
    is refused in one line (its digest is not the table's), the old table cannot be built on, and a new
    build gives the new closed form and passes verify."""
    game = game_copy(tmp_path / "games", fixture)
    ref = f"{game}:{cls}"
    old_db, new_db = tmp_path / "old", tmp_path / "new"
    ok(run("build", "--game", ref, f"--{option}", top, "--out", old_db, "--scheduler", scheduler, "--quiet"))
    old_rows = rows_of(old_db, table)
    assert grundy_of(old_rows) == heaps(top, lambda n: n % 3)
    old_files = file_hashes(old_db)

    set_amounts(game, "1, 3")
    verify, refused, looked = finish(
        start("verify", "--db", old_db, table, "--quiet", "--game", ref),
        start("build", "--game", ref, f"--{option}", top, "--out", old_db, "--scheduler", scheduler),
        start("lookup", "--db", old_db, table, "1", "--json", "--game", ref),
    )
    for result in (verify, looked):
        assert_clean_error(result, table, "built from other rules", ref)
    assert_clean_error(refused, table, "source has changed")
    assert file_hashes(old_db) == old_files

    ok(run("build", "--game", ref, f"--{option}", top, "--out", new_db, "--scheduler", scheduler, "--quiet"))
    new_rows = rows_of(new_db, table)
    assert grundy_of(new_rows) == heaps(top, lambda n: n % 2)
    assert new_rows != old_rows
    assert manifest(new_db, table)["source"]["digest"] != manifest(old_db, table)["source"]["digest"]
    assert "no problems" in ok(run("verify", "--db", new_db, table, "--quiet", "--game", ref)).stdout


def test_changed_rules_of_a_plain_game_never_pass_as_the_old_table(tmp_path, scheduler):
    """A plain game file whose amounts change from 1, 2 to 1, 3 after a build: verify and lookup of the old
    table naming the changed file are refused in one line, building on the old table is refused in one
    line, and a build into a new folder gives the new rules' rows (n mod 2), which pass verify."""
    changed_rules(tmp_path, scheduler, "take.py", "Take", "heap", 20, "take_heap20")


def test_changed_rules_of_a_compiled_keyed_game_are_compiled_again(tmp_path, scheduler):
    """The same for a keyed game whose amounts are written into its numba move generator: the same workers
    that built the old table (and compiled its loop, cached on disk by the game's source) build the new
    rules' rows, not the old ones."""
    changed_rules(tmp_path, scheduler, "keyed_take.py", "KeyedTake", "top", 30, "keyed_take_top30")


def test_a_game_file_may_import_its_rules_from_beside_it(tmp_path, scheduler):
    """A game file that imports a module next to it builds; the module counts in the game's source, so
    changing only the module is a change of rules: verify, naming the game file, refuses the table."""
    games = tmp_path / "games"
    games.mkdir()
    (games / "amounts.py").write_text("AMOUNTS = (1, 2)\n")
    text = (Path(__file__).parent / "plugins" / "take.py").read_text()
    (games / "game.py").write_text(text.replace("AMOUNTS = (1, 2)\n", "from amounts import AMOUNTS\n"))
    db = tmp_path / "db"
    ref = f"{games / 'game.py'}:Take"
    ok(run("build", "--game", ref, "--heap", 12, "--out", db, "--scheduler", scheduler, "--quiet"))
    assert grundy_of(rows_of(db, "take_heap12")) == heaps(12, lambda n: n % 3)
    assert "no problems" in ok(run("verify", "--db", db, "take_heap12", "--quiet", "--game", ref)).stdout
    (games / "amounts.py").write_text("AMOUNTS = (1, 3)\n")
    assert_clean_error(run("verify", "--db", db, "take_heap12", "--quiet", "--game", ref), "take_heap12",
                       "built from other rules")


def test_a_game_files_sub_package_counts_in_its_rules(tmp_path, scheduler):
    """The same for rules kept in a sub-package beside the game file, ``helperpkg/__init__.py``, and for a
    module the game imports only when asked for moves: after either changes, lookups and verify naming the
    game file refuse the table rather than serve other rules."""
    games = tmp_path / "games"
    (games / "helperpkg").mkdir(parents=True)
    (games / "helperpkg" / "__init__.py").write_text("AMOUNTS = (1, 2)\n")
    (games / "later.py").write_text("SEEN = True\n")
    text = (Path(__file__).parent / "plugins" / "take.py").read_text()
    (games / "game.py").write_text(text.replace("AMOUNTS = (1, 2)\n", "from helperpkg import AMOUNTS\n").replace(
        "        for t in AMOUNTS:", "        import later  # noqa: F401\n\n        for t in AMOUNTS:"))
    db = tmp_path / "db"
    ref = f"{games / 'game.py'}:Take"
    ok(run("build", "--game", ref, "--heap", 12, "--out", db, "--scheduler", scheduler, "--quiet"))
    assert json.loads(ok(run("lookup", "--db", db, "take_heap12", "5", "--json", "--game", ref)).stdout)["grundy"] == 2
    for changed, text in ((games / "later.py", "SEEN = False\n"), (games / "helperpkg" / "__init__.py",
                                                                    "AMOUNTS = (1, 3)\n")):
        changed.write_text(text)
        for verb in (("lookup", "--db", db, "take_heap12", "5"), ("verify", "--db", db, "take_heap12", "--quiet")):
            assert_clean_error(run(*verb, "--game", ref), "take_heap12", "built from other rules")


# -- 8. terminal positions -----------------------------------------------------------------
def test_lookup_of_terminal_positions_of_a_plain_game(cram_job):
    """Positions where no domino fits are found by lookup with no moves, Grundy value 0, outcome P and
    remoteness 0; the table's rows without moves are exactly the positions brute force finds terminal."""
    terminal = sorted(p for p in cram_positions(3, 3) if cram_terminal(p))
    fullest = min(terminal, key=lambda p: p.count("."))
    emptiest = max(terminal, key=lambda p: p.count("."))
    assert fullest.count(".") < emptiest.count(".")
    assert sorted(r["position"] for r in rows_of(cram_job, "cram_small") if r["best_move"] is None) == terminal
    named = ["--game", f"{cram_job.parent / 'jobs' / 'cram.py'}:Cram"]
    as_json, as_text = finish(
        start("lookup", "--db", cram_job, "cram_small", fullest, "--json", *named),
        start("lookup", "--db", cram_job, "cram_small", emptiest, *named),
    )
    row = json.loads(ok(as_json).stdout)
    assert (row["position"], row["moves"], row["grundy"], row["outcome"], row["remoteness"], row["best_move"]) \
        == (fullest, [], 0, "P", 0, None)
    text = ok(as_text).stdout
    assert emptiest in text.splitlines()[0] and text.strip().endswith("no moves")


# -- 8. a game whose own code fails ------------------------------------------------------------
def test_a_game_whose_moves_fail_is_one_clean_line_and_the_fixed_game_builds(tmp_path, scheduler):
    games = tmp_path / "games"
    games.mkdir()
    text = (PLUGINS / "take.py").read_text()
    broken = text.replace("    def moves(self, n):\n",
                          "    def moves(self, n):\n        if n == 2:\n"
                          "            raise ValueError('no moves at 2')\n")
    assert broken != text
    (games / "take.py").write_text(broken)
    db = tmp_path / "db"
    result = run("build", games / "take.py:Take", "--heap", 5, "--out", db, "--scheduler", scheduler, "--quiet")
    assert_clean_error(result, "take", "position 2", "ValueError", "no moves at 2")
    (games / "take.py").write_text(text)
    ok(run("build", games / "take.py:Take", "--heap", 5, "--out", db, "--scheduler", scheduler, "--quiet"))
    grundy = ok(run("lookup", "--db", db, "take_heap5", "5", "--json", "--game", games / "take.py:Take"))
    assert json.loads(grundy.stdout)["grundy"] == 5 % 3


def test_a_compiled_generator_that_fails_on_a_worker_is_one_clean_line(tmp_path, scheduler):
    games = tmp_path / "games"
    games.mkdir()
    text = (PLUGINS / "keyed_take.py").read_text()
    broken = text.replace("    n = 0\n    for t in AMOUNTS:",
                          "    if key == 7:\n        raise ValueError('no moves at 7')\n"
                          "    n = 0\n    for t in AMOUNTS:")
    assert broken != text
    (games / "keyed_take.py").write_text(broken)
    result = run("build", games / "keyed_take.py:KeyedTake", "--top", 20, "--out", tmp_path / "db",
                 "--scheduler", scheduler, "--quiet")
    assert_clean_error(result, "keyed_take", "a task failed", "no moves at 7", "run the same command again")
