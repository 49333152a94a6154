"""A table's commit where there is no rename: a reader sees a whole generation of a table or the one before,
never a mix, whatever a writer killed on the way left; and ``tablebase gc`` removes what no manifest records.

Each check runs in a folder and on a real S3-protocol server (tests/object_store.py). The oracle of what a
reader should see is the keys each generation's files were written with (``keys_of``); of what the store
holds, the folder read with the standard library or the bucket listed with botocore.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import assert_clean_error, tablebase
from object_store import commit, keys_of, seen, write_parts

from tablebase.errors import DamagedTable
from tablebase.store import commits, placed
from tablebase.store.commits import Head
from tablebase.store.garbage import collect, tables_at
from tablebase.store.location import Conflict
from tablebase.store.places import location_of

TESTS = str(Path(__file__).resolve().parent)


def _writer(url: str, generation: int, then: str = "") -> subprocess.Popen:
    """A writer in its own process: it writes a generation's files, says so, then does ``then`` and waits to
    be killed."""
    code = (f"import sys, time\nsys.path.insert(0, {TESTS!r})\nfrom object_store import *\n"
            f"from tablebase.store.places import location_of\nlocation = location_of({url!r})\n"
            f"files = write_parts(location, 't', {generation})\nprint('written', flush=True)\n{then}\n"
            "time.sleep(120)\n")
    writer = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    assert writer.stdout.readline().strip() == "written"
    return writer


def test_a_reader_sees_each_commit_whole(place):
    url = place.url
    location = location_of(url)
    assert seen(location, "t") is None
    commit(location, "t", 1)
    assert seen(location, "t") == (1, keys_of(1))
    commit(location, "t", 2, parts=3)
    assert seen(location, "t") == (2, keys_of(2, parts=3))


@pytest.mark.slow  # another process
def test_a_writer_killed_between_its_files_and_its_manifest_leaves_the_commit_before(place):
    url, there = place.url, place.there
    location = location_of(url)
    commit(location, "t", 1)
    committed = there()
    writer = _writer(url, 2)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert seen(location, "t") == (1, keys_of(1))
    left = set(there()) - set(committed)
    assert left
    # gc removes what the killed writer left, and nothing a reader reads
    found = collect(location, "t", grace=0)
    assert set(found.removed) == {name.removeprefix("t/") for name in left}
    assert there() == committed
    assert seen(location, "t") == (1, keys_of(1))


def test_on_an_object_store_no_name_is_written_with_other_bytes(s3):
    """A file written again with other bytes (a resumed build's, where the first was damaged) lies beside the
    first, and the manifest a reader holds still finds what it records."""
    location = location_of(s3.url)
    commit(location, "t", 1)
    name, record = next(iter(commits.load(location, "t").files.items()))
    again = placed.put_file(location, "t", name, b"other bytes of the same file")
    stored = s3.server.keys(f"{s3.prefix}/t/rows/")
    assert len(stored) == 3
    for key, data in stored.items():  # each under its bytes' hash
        assert key.endswith(f".{hashlib.sha256(data).hexdigest()[:16]}.parquet"), key
    assert placed.stored_name(location, name, again) != placed.stored_name(location, name, record)
    assert seen(location, "t") == (1, keys_of(1))


def test_a_reader_lists_nothing_so_a_stale_listing_shows_it_no_file(place):
    """A listing that still names deleted files and misses new ones (as an object store's may) is never
    what a reader goes by: it reads the manifest, then the files it records."""
    url = place.url
    location = location_of(url)
    commit(location, "t", 1)
    write_parts(location, "t", 2)  # a killed build's files, recorded nowhere

    class Stale(type(location)):
        def list(self, prefix: str = "") -> dict:
            raise AssertionError("a reader listed the store")

    stale = Stale.__new__(Stale)
    stale.__dict__.update(location.__dict__)
    assert seen(stale, "t") == (1, keys_of(1))


def test_a_file_that_is_not_what_its_record_says_is_refused(place):
    url = place.url
    location = location_of(url)
    commit(location, "t", 1)
    manifest = commits.load(location, "t")
    name, record = next(iter(manifest.files.items()))
    location.write(f"t/{placed.stored_name(location, name, record)}", b"other bytes")
    with pytest.raises(DamagedTable, match="is not the file the manifest records"):
        seen(location, "t")


def test_a_commit_over_a_version_another_writer_replaced_is_refused(place):
    url = place.url
    location = location_of(url)
    commit(location, "t", 1)
    mine, theirs = Head(location, "t"), Head(location, "t")
    manifest = mine.load()
    theirs.load()
    theirs.save(replace(manifest, params={"generation": 2}))
    with pytest.raises(Conflict, match="committed by another build") as raised:
        mine.save(replace(manifest, params={"generation": 3}))
    assert "\n" not in str(raised.value)
    assert commits.load(location, "t").params == {"generation": 2}
    first = Head(location, "u")
    second = Head(location, "u")  # both found no table: only one may make it
    first.save(replace(manifest, table="u"))
    with pytest.raises(Conflict):
        second.save(replace(manifest, table="u", params={"generation": 9}))


def test_gc_keeps_what_is_young_and_what_is_not_the_stores(place):
    url, there = place.url, place.there
    location = location_of(url)
    commit(location, "t", 1)
    write_parts(location, "t", 2)
    location.write("t/notes.txt", b"a person's file")  # not a name the store writes
    location.write("t/.rows.tmp-99", b"half")  # a temporary file a killed writer left
    before = there()
    found = collect(location, "t")  # the default grace: everything is seconds old
    assert found.removed == [] and found.kept >= 1
    assert collect(location, "t", grace=0, dry_run=True).removed and there() == before
    found = collect(location, "t", grace=0)
    assert ".rows.tmp-99" in found.removed and "notes.txt" not in found.removed
    assert "t/notes.txt" in there() and "t/.rows.tmp-99" not in there()
    assert seen(location, "t") == (1, keys_of(1))
    assert tables_at(location) == ["t"]


@pytest.mark.slow  # the command
def test_gc_from_the_command_line(place):
    url, there = place.url, place.there
    location = location_of(url)
    commit(location, "t", 1)
    committed = there()
    write_parts(location, "t", 2)
    result = tablebase("gc", "--db", url, "--dry-run", "--grace", "0", env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert "t: would remove 2 files" in result.stdout and there() != committed
    result = tablebase("gc", "--db", url, "--grace", "0", env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert "t: removed 2 files" in result.stdout
    assert there() == committed
    assert seen(location, "t") == (1, keys_of(1))
    assert_clean_error(tablebase("gc", "--db", url, "--grace", "-1", env=dict(os.environ)), "--grace")


@pytest.mark.slow
def test_an_upload_cut_off_is_never_seen_and_gc_aborts_it(s3):
    location = location_of(s3.url)
    commit(location, "t", 1)
    big = ("out = location.fs.open_output_stream(location.path('t/rows/0000009-0000009.00000.parquet'))\n"
           "out.write(b'x' * (12 << 20))\n")  # past a part's size: a multipart upload begun, never completed
    writer = _writer(s3.url, 2, then=big)
    deadline = time.monotonic() + 30
    while not s3.server.uploads(s3.prefix) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert s3.server.uploads(s3.prefix)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert not any("0000009-0000009" in key for key in s3.server.keys(s3.prefix))
    assert seen(location, "t") == (1, keys_of(1))
    found = collect(location, "t", grace=0)
    assert found.uploads == 1
    assert s3.server.uploads(s3.prefix) == []
