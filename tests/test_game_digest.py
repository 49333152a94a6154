"""A game's digest covers what the game runs: every file of code it can import from its own folder or
package, whenever it imports it (a sub-package beside a game file, a module imported only inside ``moves``,
a module beside a top-level module), or the game is refused in one line saying why the digest cannot.

The oracle is the digest's definition: a byte changed in any such file changes it; files no import can
reach (a hidden folder, ``__pycache__``) do not.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tablebase.errors import TablebaseError
from tablebase.games.registry import MAX_CODE_FILES, find_game

TAKE = (Path(__file__).parent / "plugins" / "take.py").read_text()


def _write(path: Path, text: str) -> None:
    """Write a file and move its time on, so that no stamp of it can look unchanged."""
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text)
    os.utime(path, ns=(before + 10**9, before + 10**9))


def _digest(ref: str) -> str:
    return find_game(ref)[1].digest


def _changes_with(ref: str, path: Path, text: str) -> tuple[str, str]:
    before = _digest(ref)
    _write(path, text)
    return before, _digest(ref)


def test_a_sub_package_beside_a_game_file_counts(tmp_path):
    """The issue's case: rules in ``helperpkg/__init__.py`` beside the game file."""
    game = tmp_path / "games" / "game.py"
    _write(tmp_path / "games" / "helperpkg" / "__init__.py", "AMOUNTS = (1, 2)\n")
    _write(game, TAKE.replace("AMOUNTS = (1, 2)\n", "from helperpkg import AMOUNTS\n"))
    ref = f"{game}:Take"
    cls = find_game(ref)[0]
    assert [n for _, n in cls(heap=5).moves(5)] == [4, 3]
    before, after = _changes_with(ref, tmp_path / "games" / "helperpkg" / "__init__.py", "AMOUNTS = (1, 3)\n")
    assert before != after
    assert [n for _, n in find_game(ref)[0](heap=5).moves(5)] == [4, 2]  # the changed rules, loaded again


def test_a_module_imported_only_inside_moves_counts(tmp_path):
    game = tmp_path / "games" / "game.py"
    _write(tmp_path / "games" / "later" / "rules.py", "AMOUNTS = (1, 2)\n")
    _write(game, TAKE.replace("        for t in AMOUNTS:", "        from later.rules import AMOUNTS\n\n"
                                                          "        for t in AMOUNTS:"))
    before, after = _changes_with(f"{game}:Take", tmp_path / "games" / "later" / "rules.py", "AMOUNTS = (1, 3)\n")
    assert before != after


def test_a_module_beside_a_top_level_module_counts(tmp_path, monkeypatch):
    site = tmp_path / "site"
    _write(site / "amounts_of_take.py", "AMOUNTS = (1, 2)\n")
    _write(site / "lonely_take.py", TAKE.replace("        for t in AMOUNTS:",
                                                 "        from amounts_of_take import AMOUNTS\n\n"
                                                 "        for t in AMOUNTS:"))
    monkeypatch.syspath_prepend(str(site))
    before, after = _changes_with("lonely_take:Take", site / "amounts_of_take.py", "AMOUNTS = (1, 3)\n")
    assert before != after


def test_files_no_import_can_reach_do_not_count(tmp_path):
    game = tmp_path / "games" / "game.py"
    _write(game, TAKE)
    ref = f"{game}:Take"
    for unreachable in (".hidden/x.py", "__pycache__/game.cpython-311.pyc", "not-a-package/x.py", "notes.txt"):
        before, after = _changes_with(ref, tmp_path / "games" / unreachable, "x = 1\n")
        assert before == after, unreachable


def test_a_folder_with_more_code_than_a_digest_may_cover_is_refused(tmp_path):
    game = tmp_path / "games" / "game.py"
    _write(game, TAKE)
    for i in range(MAX_CODE_FILES):
        (tmp_path / "games" / "pkg").mkdir(exist_ok=True)
        (tmp_path / "games" / "pkg" / f"m{i}.py").write_text("")
    with pytest.raises(TablebaseError) as caught:
        find_game(f"{game}:Take")
    said = str(caught.value)
    assert "\n" not in said and "more folders or files of code than a game's digest may cover" in said, said


def test_the_engines_digest_is_kept_between_processes_and_changes_with_a_byte_of_it(tmp_path, monkeypatch):
    """The built-in games' digest (this package's games, listing, solvers and kinds) is kept in the cache
    folder by the files' paths, times and sizes, so a reader's first probe does not hash them all again; a
    kept entry that is not a digest is not believed, and a changed file is a new entry with a new digest.
    The oracle is the digest computed with no cache at all."""
    from tablebase.games import registry

    package = tmp_path / "package"
    for part in registry._ENGINE:
        for source in (Path(registry._PACKAGE) / part).glob("*.py"):
            (package / part).mkdir(parents=True, exist_ok=True)
            (package / part / source.name).write_bytes(source.read_bytes())
    monkeypatch.setattr(registry, "_PACKAGE", str(package))
    monkeypatch.setenv("TABLEBASE_CACHE", str(tmp_path / "cache"))
    registry._cached_digest.cache_clear()
    uncached = registry._digest_of(sorted(str(p) for part in registry._ENGINE for p in (package / part).glob("*.py")))

    assert registry._builtin_digest() == uncached
    (kept,) = (tmp_path / "cache" / "digests").iterdir()
    assert kept.read_text() == uncached
    kept.write_text("not a digest")
    registry._cached_digest.cache_clear()
    assert registry._builtin_digest() == uncached and kept.read_text() == uncached

    _write(package / "games" / "chomp.py", (package / "games" / "chomp.py").read_text() + "\n# one more line\n")
    changed = registry._builtin_digest()
    assert changed != uncached and len(list((tmp_path / "cache" / "digests").iterdir())) == 2
