"""A tablebase folder is data: reading it never runs code it names (docs/security.md).

The "evil tablebase" is built for real and then edited as a stranger could:
its tables' manifests name a ``rules.py`` inside the folder, a file elsewhere,
a module on the path, and the standard library's ``this``, and claim to be
built-in. Each of those game files writes a canary file when imported. Every
reading verb (query, lookup, stats, tables, plot, verify, serve) and the
Python API run over it, and the canary never appears: SQL answers, and
whatever needs the game says in one line which game to name. Naming the
game a table was built from (its digest) makes it readable; naming other
rules is refused in one line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import assert_clean_error, copy_table
from test_distributed import free_port
from test_plugins import finish, ok, run, start

import tablebase
from tablebase.build import build_tables
from tablebase.build.jobs import spec_for
from tablebase.errors import GameUnavailable
from tablebase.kinds import SOURCE_CHANGED

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

PLUGINS = Path(__file__).parent / "plugins"
ZEN = "Beautiful is better than ugly"  # what importing the standard library's ``this`` prints
PLAIN = ("inside", "outside", "module", "zen")  # tables of the plain game, by where their manifest points


@dataclass
class Evil:
    db: Path
    canary: Path
    site: Path  # on the path of every command: ``evilmod`` would import if anything tried
    take: str  # the honest game files the tables were built from, as --game takes them
    keyed: str


def _evil_copy(source: Path, target: Path, canary: Path) -> None:
    """A game file that works as the original, and writes the canary when imported."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"open({str(canary)!r}, 'a').write(__name__ + '\\n')\n" + source.read_text())


@pytest.fixture(scope="module")
def evil(tmp_path_factory, scheduler) -> Evil:
    base = tmp_path_factory.mktemp("evil")
    honest = {name: base / name for name in ("take", "keyed")}
    for folder in honest.values():
        folder.mkdir()
    take = Path(shutil.copy(PLUGINS / "take.py", honest["take"]))
    keyed = Path(shutil.copy(PLUGINS / "keyed_take.py", honest["keyed"]))
    built, db, canary, site = base / "built", base / "db", base / "canary", base / "site"
    specs = [spec_for(f"{take}:Take", {"heap": 10}), spec_for(f"{keyed}:KeyedTake", {"top": 12}, compact=True)]
    list(build_tables(specs, built, scheduler=scheduler, quiet=True))
    refs = {"inside": f"{db / 'inside' / 'rules.py'}:Take", "outside": f"{base / 'elsewhere' / 'rules.py'}:Take",
            "module": "evilmod:Take", "zen": "this:Take"}
    for name, ref in refs.items():
        copy_table(built / "take_heap10", db, name, ref=ref, origin="built-in")  # a lie, as any may tell
    copy_table(built / "keyed_take_top12", db, "compact", ref=f"{db / 'compact' / 'rules.py'}:KeyedTake",
               origin="built-in")
    _evil_copy(take, db / "inside" / "rules.py", canary)  # the folder's own code, beside its table
    _evil_copy(take, base / "elsewhere" / "rules.py", canary)
    _evil_copy(take, site / "evilmod.py", canary)
    _evil_copy(keyed, db / "compact" / "rules.py", canary)
    return Evil(db, canary, site, f"{take}:Take", f"{keyed}:KeyedTake")


def _untouched(evil: Evil, *results: subprocess.CompletedProcess) -> None:
    assert not evil.canary.exists(), evil.canary.read_text()
    for result in results:
        assert ZEN not in result.stdout + result.stderr and "Traceback" not in result.stderr, result


def test_sql_answers_without_running_the_folder(evil):
    """``query`` counts every table's rows (a compact one too, its positions never spelt), reads a plain
    table's positions, and selecting a compact table's positions says in one line to pass --game."""
    counts = [f"(SELECT count(*) FROM {name})" for name in (*PLAIN, "compact")]
    every, positions, spelt, figures = finish(
        start("query", "--db", evil.db, f"SELECT {', '.join(counts)}", "--json", path=evil.site),
        start("query", "--db", evil.db, "SELECT position, grundy FROM inside ORDER BY key", "--json", path=evil.site),
        start("query", "--db", evil.db, "SELECT position FROM compact", path=evil.site),
        start("query", "--db", evil.db, "SELECT sum(grundy)::BIGINT AS g, max(key) AS k FROM compact", "--json",
              path=evil.site),
    )
    assert list(json.loads(ok(every).stdout)[0].values()) == [11, 11, 11, 11, 13]
    assert [(r["position"], r["grundy"]) for r in json.loads(ok(positions).stdout)] == [
        (str(n), n % 3) for n in range(11)]
    assert_clean_error(spelt, "compact", "--game")
    assert json.loads(ok(figures).stdout) == [{"g": sum(n % 3 for n in range(13)), "k": 12}]
    _untouched(evil, every, positions, spelt, figures)


def test_every_verb_that_needs_the_game_says_what_to_pass(evil):
    """lookup and verify of each table, and plot of a position, stop with exit 2 and one line naming the
    table and --game; stats and a plot of outcomes (SQL only) work; none imports anything of the folder."""
    tables = (*PLAIN, "compact")
    results = finish(
        *(start("lookup", "--db", evil.db, name, "3", path=evil.site) for name in tables),
        *(start("verify", "--db", evil.db, name, "--quiet", path=evil.site) for name in tables),
        start("plot", "--db", evil.db, "inside", "position", "--position", "3", "--out", evil.db.parent / "p.png",
              path=evil.site),
    )
    for name, result in zip([*tables, *tables, "inside"], results):
        assert_clean_error(result, name, "--game")
    stats, outcomes = finish(
        start("stats", "--db", evil.db, "outside", "--json", path=evil.site),
        start("plot", "--db", evil.db, "module", "outcomes", "--out", evil.db.parent / "o.png", path=evil.site),
    )
    counts = json.loads(ok(stats).stdout)["grundy_values"]["rows"]
    assert {r["grundy"]: r["positions"] for r in counts} == {0: 4, 1: 4, 2: 3}
    ok(outcomes)
    assert (evil.db.parent / "o.png").stat().st_size > 0 and not (evil.db.parent / "p.png").exists()
    _untouched(evil, *results, stats, outcomes)


def test_tables_show_the_readers_judgement_not_the_manifests(evil):
    """Every forged manifest says "built-in": ``tables`` says where the game would come from and that it is
    not loaded; with the honest game named, the tables built from it show that file."""
    plain, named = finish(start("tables", "--db", evil.db, "--json", path=evil.site),
                          start("tables", "--db", evil.db, "--json", "--game", evil.take, path=evil.site))
    origins = {t["table"]: t["origin"] for t in json.loads(ok(plain).stdout)}
    assert origins == {
        "inside": f"file {evil.db / 'inside' / 'rules.py'}, not loaded: pass --game",
        "outside": f"file {evil.db.parent / 'elsewhere' / 'rules.py'}, not loaded: pass --game",
        "module": "module evilmod, not loaded: pass --game",
        "zen": "module this, not loaded: pass --game",
        "compact": f"file {evil.db / 'compact' / 'rules.py'}, not loaded: pass --game",
    }
    origins = {t["table"]: t["origin"] for t in json.loads(ok(named).stdout)}
    assert {origins[name] for name in PLAIN} == {f"file {evil.take.rpartition(':')[0]}"}
    assert origins["compact"].endswith("not loaded: pass --game")
    _untouched(evil, plain, named)


def test_the_python_api_runs_nothing_of_the_folder(evil, monkeypatch):
    """``tablebase.open`` of the folder: tables, SQL and stats answer; lookup, probe, lookup_many and the game
    raise GameUnavailable naming --game; the module the folder names is never imported, though importable."""
    monkeypatch.syspath_prepend(str(evil.site))
    with tablebase.open(evil.db) as tb:
        assert {t["table"] for t in tb.tables()} == {*PLAIN, "compact"}
        assert tb.sql("SELECT count(*) AS n FROM zen").column("n").to_pylist() == [11]
        assert tb.stats("inside")
        for name in (*PLAIN, "compact"):
            for ask in (lambda t: tb.lookup(t, "3"), lambda t: tb.probe(t, "3"),
                        lambda t: tb.lookup_many(t, ["3"]), tb._game):
                with pytest.raises(GameUnavailable, match="--game"):
                    ask(name)
    assert "evilmod" not in sys.modules and "this" not in sys.modules
    _untouched(evil)


def test_serving_runs_nothing_of_the_folder(evil):
    """``serve``: the list of tables answers; a lookup and a table's page (which looks positions up) are a
    503 naming --game."""
    port = free_port()
    server = start("serve", "--db", evil.db, "--port", port, path=evil.site)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while _get(base, "/health")[0] != 200:
            assert server.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        status, body = _get(base, "/tables")
        assert status == 200 and {t["table"] for t in json.loads(body)} == {*PLAIN, "compact"}
        status, body = _get(base, "/tables/inside/lookup?position=3")
        assert status == 503 and "--game" in body
        status, body = _get(base, "/tables/outside")
        assert status == 503 and "--game" in body
    finally:
        server.terminate()
        server.communicate(timeout=30)
    _untouched(evil)


def _get(base: str, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(base + path, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError:
        return 0, ""


def test_naming_the_game_it_was_built_from_reads_it(evil, tmp_path):
    """``--game`` with the honest file (the digest the manifests record) answers lookups and spells the
    compact table's positions, whatever file the manifest names; a copy with other rules is refused in
    one line naming the table."""
    changed = tmp_path / "take.py"
    changed.write_text((PLUGINS / "take.py").read_text().replace("AMOUNTS = (1, 2)", "AMOUNTS = (1, 3)"))
    looked, spelt, refused = finish(
        start("lookup", "--db", evil.db, "inside", "7", "--json", "--game", evil.take, path=evil.site),
        start("query", "--db", evil.db, "SELECT position FROM compact ORDER BY key", "--json",
              "--game", evil.keyed, path=evil.site),
        start("lookup", "--db", evil.db, "outside", "7", "--game", f"{changed}:Take", path=evil.site),
    )
    row = json.loads(ok(looked).stdout)
    assert (row["grundy"], sorted(m["position"] for m in row["moves"])) == (1, ["5", "6"])
    assert [r["position"] for r in json.loads(ok(spelt).stdout)] == [str(n) for n in range(13)]
    assert_clean_error(refused, "table outside was built from other rules", f"{changed}:Take")
    _untouched(evil, looked, spelt, refused)


def test_a_built_in_game_changed_since_the_build_is_read_with_a_warning(built, tmp_path):
    """A built-in game whose engine changed since the build (its digest differs) still answers, with the
    warning that its moves are the rules as they are now; naming it changes nothing."""
    root, table = built("nim", heaps=2, max_heap=3)
    copy_table(root / table, tmp_path, table, digest="0" * 64)
    for games in ((), ("nim",)):
        with tablebase.open(tmp_path, games) as tb:
            row = tb.lookup(table, "1 2")
        assert row["warning"] == SOURCE_CHANGED and row["grundy"] == 1 ^ 2
    looked = run("lookup", "--db", tmp_path, table, "1 2")
    assert ok(looked).stderr.startswith("tablebase: warning: the game's source has changed")
