"""The probe index through the command: `tablebase index` for tables built before, `tablebase verify`
on damaged indexes, and bad input as one line."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import assert_clean_error, tablebase

from tablebase.probe import FILE_NAME
from tablebase.probe.format import read_directory
from tablebase.store import Manifest

pytestmark = pytest.mark.slow  # the command, run as a user runs it


@pytest.fixture
def table_copy(built, tmp_path):
    """A built Chomp table copied to a folder of its own, to damage (one without misère figures: its index is
    written from the values in key order)."""
    root, table = built("chomp", rows=4, cols=5, partition_rows=16)
    shutil.copytree(root / table, tmp_path / table)
    return tmp_path, table


def flip(path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x20
    path.write_bytes(bytes(data))


def test_a_clean_index_verifies(table_copy):
    root, table = table_copy
    result = tablebase("verify", "--db", root, table, "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no problems" in result.stdout


def test_a_flipped_byte_in_a_segment_is_reported_like_a_damaged_file(table_copy):
    root, table = table_copy
    segment = sorted((root / table / "probe").iterdir())[0]
    flip(segment, 100)
    result = tablebase("verify", "--db", root, table, "--quiet")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert f"{table} probe/{segment.name}: sha256 differs from the manifest" in lines
    assert any(line.startswith(f"{table} {FILE_NAME}: ") and "CRC-32 differs" in line for line in lines)


@pytest.mark.parametrize("damage, said", [("header", "damaged probe index (the directory's CRC-32 differs)"),
                                          ("missing", "file is missing"), ("cut", "bytes, the manifest says")])
def test_a_damaged_or_missing_index_is_one_line_each(table_copy, damage, said):
    root, table = table_copy
    path = root / table / FILE_NAME
    if damage == "header":
        flip(path, 30)
    elif damage == "missing":
        path.unlink()
    else:
        path.write_bytes(path.read_bytes()[:-100])
    result = tablebase("verify", "--db", root, table, "--quiet")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert any(line.startswith(f"{table} {FILE_NAME}: ") and said in line for line in result.stdout.splitlines())


def test_index_writes_the_index_of_a_table_built_before_it(table_copy):
    """A table built without an index (or whose index is of the first format) gets the one a build writes."""
    root, table = table_copy
    path = root / table / FILE_NAME
    built = {p.relative_to(root / table): p.read_bytes() for p in [path, *(root / table / "probe").iterdir()]}
    manifest = Manifest.load(root, table)
    manifest.probe = {}  # as a build of before wrote it
    manifest.save(root)
    shutil.rmtree(root / table / "probe")
    path.unlink()
    result = tablebase("index", "--db", root)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["table"] == table and summary["positions"] == manifest.positions
    assert "from its values in key order" in result.stderr
    again = {p.relative_to(root / table): p.read_bytes() for p in [path, *(root / table / "probe").iterdir()]}
    assert again == built
    assert summary["bytes"] == sum(map(len, built.values()))
    assert tablebase("verify", "--db", root, table, "--quiet").returncode == 0
    again = tablebase("index", "--db", root, table)
    assert again.returncode == 0 and not again.stdout and "there already" in again.stderr
    data = bytearray(path.read_bytes())
    data[8] = 1  # an index of the first format, as an earlier version wrote it
    path.write_bytes(bytes(data))
    forced = tablebase("index", "--db", root, table, "--quiet")
    assert forced.returncode == 0 and json.loads(forced.stdout)["table"] == table and not forced.stderr
    assert path.read_bytes() == built[path.relative_to(root / table)]


def test_the_manifest_leaves_the_segments_to_the_directory_and_reads_an_older_one_alike(table_copy):
    """Once the directory is written, the manifest records each segment file by its rows, bytes and sha256
    alone; a manifest written before, which lists every segment too, is read and verified the same."""
    root, table = table_copy
    manifest = Manifest.load(root, table)
    files = {name: record for name, record in manifest.probe.items() if name != FILE_NAME}
    assert files and all(set(record) == {"rows", "bytes", "sha256"} for record in files.values())
    answer = tablebase("lookup", "--db", root, table, "4 3 1", "--json")
    assert answer.returncode == 0, answer.stderr

    data = (root / table / FILE_NAME).read_bytes()
    directory = read_directory(data, FILE_NAME)
    for i in range(directory.segments):
        last, offset, length, file, crc = directory.entry(data, i)
        record = manifest.probe[f"probe/{directory.names[file]}"]
        record.setdefault("segments", []).append([directory.first(data, i), last, offset, length, crc])
    manifest.save(root)
    assert "segments" in (root / table / "_manifest.json").read_text()
    assert tablebase("verify", "--db", root, table, "--quiet").returncode == 0
    assert tablebase("lookup", "--db", root, table, "4 3 1", "--json").stdout == answer.stdout


def test_index_refuses_bad_input_in_one_line_and_writes_nothing(table_copy, tmp_path):
    root, table = table_copy
    assert_clean_error(tablebase("index", "--db", root, table, "nope"), "no table 'nope'")
    assert_clean_error(tablebase("index", "--db", tmp_path / "elsewhere"), "no tablebase folder")
    assert_clean_error(tablebase("index", "--db", root, "../x"), "bad table name")
    manifest = Manifest.load(root, table)
    manifest.complete = False
    manifest.save(root)
    (root / table / FILE_NAME).unlink()
    assert_clean_error(tablebase("index", "--db", root), "not complete")
    assert not (root / table / FILE_NAME).exists()
