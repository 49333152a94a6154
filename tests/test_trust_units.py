"""The trust model's and the store's checks, each alone: no cluster, no other process (the fast tier).

``Trust`` judges a manifest without importing anything and loads only what
may run; ``first_outside`` finds a name that leaves a folder; a manifest's
fields are checked on load; sizes parse; and SQL literals survive DuckDB.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import duckdb
import pytest

from tablebase.errors import GameUnavailable, StoreError, TablebaseError
from tablebase.games import find_game
from tablebase.kinds import Trust
from tablebase.query.sql import parse_size, sql_text
from tablebase.store import Manifest, first_outside

TAKE = f"{Path(__file__).parent / 'plugins' / 'take.py'}:Take"


def manifest(ref: str, game: str = "take", digest: str = "d" * 64, kind: str = "impartial") -> Manifest:
    return Manifest(table="t", game=game, kind=kind, params={"heap": 3}, version="0", partition_rows=1,
                    source={"ref": ref, "origin": "built-in", "digest": digest})


def test_a_manifests_word_is_judged_without_importing_it(tmp_path):
    """A file, a module and an unknown name are not loaded, whatever origin the manifest claims; the
    module ``this`` stays unimported; a built-in name is the built-in game."""
    canary = tmp_path / "canary"
    (tmp_path / "rules.py").write_text(f"open({str(canary)!r}, 'w')\n")
    trust = Trust()
    cases = {f"{tmp_path / 'rules.py'}:Take": f"file {tmp_path / 'rules.py'}, not loaded: pass --game",
             "this:Take": "module this, not loaded: pass --game",
             "nosuch": "nosuch (not installed), not loaded: pass --game"}
    for ref, origin in cases.items():
        assert trust.origin(manifest(ref)) == origin
        with pytest.raises(GameUnavailable, match="--game PATH:Class"):
            trust.load(manifest(ref))
    assert not canary.exists() and "this" not in sys.modules
    assert trust.origin(manifest("nim", game="nim")) == "built-in"
    game, changed = trust.load(Manifest(table="t", game="nim", kind="impartial", params={"heaps": 2, "max_heap": 3},
                                        version="0", partition_rows=1, source={"ref": "nim", "digest": "x"}))
    assert game.name == "nim" and changed


def test_a_named_game_serves_the_tables_of_its_digest():
    """The game named serves a table naming a game of its name and kind with its digest, whatever file the
    manifest names; another digest is refused naming both; a table of another game is left alone."""
    _, source = find_game(TAKE)
    trust = Trust([TAKE])
    game, changed = trust.load(manifest("/elsewhere/rules.py:Take", digest=source.digest))
    assert (game.name, game.params, changed) == ("take", {"heap": 3}, False)
    assert trust.origin(manifest("/elsewhere/rules.py:Take", digest=source.digest)) == source.origin
    with pytest.raises(GameUnavailable, match=f"built from other rules .*{source.digest[:12]}"):
        trust.load(manifest("/elsewhere/rules.py:Take"))
    assert trust.judge(manifest("/x.py:Other", game="other")).how == "untrusted"
    assert trust.judge(manifest("/x.py:Take", digest=source.digest, kind="partizan")).how == "untrusted"


def test_a_name_that_does_not_load_is_one_error():
    with pytest.raises(TablebaseError, match="nosuchgame"):
        Trust(["nosuchgame"])


def test_first_outside(tmp_path):
    """Relative names inside pass; absolute names, ``..``, symlinks out (of a file or a folder) and
    non-text do not."""
    folder, elsewhere = tmp_path / "t", tmp_path / "elsewhere"
    (folder / "rows").mkdir(parents=True)
    elsewhere.mkdir()
    (elsewhere / "x.parquet").write_text("x")
    (folder / "rows" / "in.parquet").write_text("x")
    (folder / "rows" / "link.parquet").symlink_to(elsewhere / "x.parquet")
    (folder / "out").symlink_to(elsewhere, target_is_directory=True)
    (folder / "rows" / "near.parquet").symlink_to(folder / "rows" / "in.parquet")
    assert first_outside(folder, ["rows/in.parquet", "rows/near.parquet", "rows/missing.parquet"]) is None
    for name in (str(elsewhere / "x.parquet"), "../elsewhere/x.parquet", "rows/../../elsewhere/x.parquet",
                 "rows/link.parquet", "out/x.parquet", "", 7):
        assert first_outside(folder, ["rows/in.parquet", name]) == name


def test_a_manifest_is_checked_on_load(tmp_path):
    """A manifest naming another table, with files that are not a mapping, or a record without its sha256
    is a damaged manifest, in one line."""
    good = manifest("nim", game="nim")
    good.save(tmp_path)
    path = tmp_path / "t" / "_manifest.json"
    original = path.read_text()
    assert Manifest.load(tmp_path, "t").game == "nim"
    for change in ({"table": "u"}, {"files": ["rows/a.parquet"]}, {"params": "heaps"}, {"game": "nim\x1b[2J"},
                   {"files": {"rows/a.parquet": {"rows": 1, "bytes": 1}}}):
        data = json.loads(path.read_text())
        data.update(change)
        path.write_text(json.dumps(data))
        with pytest.raises(StoreError, match="damaged manifest"):
            Manifest.load(tmp_path, "t")
        path.write_text(original)


@pytest.mark.parametrize("text, size", [("4GiB", 4 * 2**30), ("512MB", 512 * 10**6), ("2G", 2 * 2**30),
                                        (1000, 1000), ("1.5 gib", 3 * 2**29), ("64", 64)])
def test_sizes(text, size):
    assert parse_size(text) == size


def test_a_size_that_is_not_one():
    with pytest.raises(TablebaseError, match="4GiB"):
        parse_size("lots")


def test_sql_text_is_the_string_itself():
    """Quotes, semicolons, comments and newlines inside a literal come back as they went in."""
    texts = ["it's", "x.parquet'); COPY (SELECT 1) TO 'p.csv'; --", "a\nb", "''", "/*", "\\'"]
    con = duckdb.connect()
    try:
        assert [con.execute(f"SELECT {sql_text(t)}").fetchone()[0] for t in texts] == texts
    finally:
        con.close()
