"""How the server words a path: the folder by its name, any other absolute path by its last part, and nothing
else of a message touched (a fraction, a board, a URL)."""

from __future__ import annotations

import pytest

from tablebase.http.folder import ServedFolder


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "tb").mkdir()
    return ServedFolder(tmp_path / "tb")


def test_the_folder_is_named_by_its_name_and_its_files_within_it(folder, tmp_path):
    assert folder.name == "tb"
    assert folder.public(f"no table 'x' in {tmp_path}/tb (tables: a)") == "no table 'x' in tb (tables: a)"
    assert folder.public(f"cannot read {tmp_path}/tb/nim/part-0.parquet") == "cannot read tb/nim/part-0.parquet"


def test_the_folder_is_named_alike_through_a_link(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    linked = ServedFolder(tmp_path / "link")
    assert linked.public(f"in {tmp_path}/link and in {tmp_path}/real/t") == "in real and in real/t"


@pytest.mark.parametrize("said, public", [
    ("its game cannot be loaded (no file /home/someone/games/take.py); install it",
     "its game cannot be loaded (no file take.py); install it"),
    ("file /srv/a/b/c.py:Take", "file c.py:Take"),
    ("'/etc/passwd' is not a position", "'passwd' is not a position"),
])
def test_other_absolute_paths_are_named_by_their_last_part(folder, said, public):
    assert folder.public(said) == public


@pytest.mark.parametrize("said", ["{1/2|-1/4}", "value 3/8 and -1/2", "..#|...", "see http://example.org/a/b",
                                  "a / b", "built-in", "plugin tablebase-games 1.0 (games:Take)", "/", "/tmp"])
def test_text_without_a_path_is_left_as_it_is(folder, said):
    assert folder.public(said) == said
