"""The store's places: a folder and an object store (a real S3-protocol server, tests/object_store.py) do the
same operations alike, and a place that cannot be used says so in one line, writing nothing.

Each operation is checked against what is really there: the folder read with the standard library, the
bucket listed and read with botocore; neither is the store's code.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import assert_clean_error, tablebase

from tablebase.errors import StoreError, UsageError
from tablebase.store.location import Conflict, Folder
from tablebase.store.places import location_of, storage_options


def test_a_file_written_is_there_whole_and_read_back(place):
    location, there = location_of(place.url), place.there
    location.write("t/rows/a.parquet", b"first")
    location.write("t/_manifest.json", b"{}")
    location.write("t/rows/a.parquet", b"second, longer")  # written over, whole
    assert there() == {"t/rows/a.parquet": b"second, longer", "t/_manifest.json": b"{}"}
    assert location.read("t/rows/a.parquet") == b"second, longer"
    assert location.size("t/rows/a.parquet") == len(b"second, longer")
    assert location.exists("t/_manifest.json") and not location.exists("t/rows/b.parquet")
    assert location.size("t/rows/b.parquet") is None


def test_a_listing_names_every_file_under_a_prefix_and_nothing_else(place):
    location, there = location_of(place.url), place.there
    for name in ("t/rows/a.parquet", "t/rows/b.parquet", "t/.lock", "u/_manifest.json"):
        location.write(name, name.encode())
    listed = location.list("t/")
    assert sorted(listed) == ["t/.lock", "t/rows/a.parquet", "t/rows/b.parquet"]
    assert listed["t/rows/a.parquet"].size == len(b"t/rows/a.parquet")
    assert all(-5 < entry.age < 60 for entry in listed.values())
    assert sorted(location.list()) == sorted(there())
    assert location.list("nothing/") == {}


def test_deleted_files_are_gone_and_a_missing_one_is_no_error(place):
    location, there = location_of(place.url), place.there
    for name in ("t/rows/a.parquet", "t/rows/b.parquet", "t/_manifest.json"):
        location.write(name, b"x")
    location.delete(["t/rows/a.parquet", "t/rows/never.parquet"])
    assert sorted(there()) == ["t/_manifest.json", "t/rows/b.parquet"]


def test_reading_a_missing_file_is_one_line(place):
    location = location_of(place.url)
    with pytest.raises(StoreError, match="no such file") as raised:
        location.read("t/rows/none.parquet")
    assert "\n" not in str(raised.value)
    assert location.read_tagged("t/_manifest.json") is None


def test_create_writes_only_where_nothing_is(place):
    location, there = location_of(place.url), place.there
    tag = location.create("t/.lock", b"mine")
    with pytest.raises(Conflict):
        location.create("t/.lock", b"theirs")
    assert there() == {"t/.lock": b"mine"}
    assert location.read_tagged("t/.lock").tag == tag


def test_replace_writes_only_over_the_version_read(place):
    location, there = location_of(place.url), place.there
    location.write("t/_manifest.json", b"one")
    first = location.read_tagged("t/_manifest.json")
    second = location.replace("t/_manifest.json", b"two", first.tag)
    assert there() == {"t/_manifest.json": b"two"}
    with pytest.raises(Conflict):  # the version read is no longer there
        location.replace("t/_manifest.json", b"three", first.tag)
    with pytest.raises(Conflict):  # nor is anything, under another name
        location.replace("t/other.json", b"three", second)
    assert there() == {"t/_manifest.json": b"two"}
    assert location.read_tagged("t/_manifest.json").tag == second


def test_a_folder_writes_by_rename_and_leaves_no_temporary_file(tmp_path):
    location = location_of(tmp_path)
    location.write("t/rows/a.parquet", b"whole")
    location.create("t/.lock", b"mine")
    assert sorted(os.listdir(tmp_path / "t")) == [".lock", "rows"]
    assert os.listdir(tmp_path / "t" / "rows") == ["a.parquet"]
    assert isinstance(location, Folder) and location.root == tmp_path


@pytest.mark.parametrize("url, words", [
    ("gs://bucket/tables", "unknown scheme gs://"),
    ("http://127.0.0.1:9000/tables", "unknown scheme http://"),
    ("s3://Upper_Case/t", "is not a bucket's name"),
    ("s3://ab/t", "is not a bucket's name"),
    ("s3:///t", "is not a bucket's name"),
    ("s3://key:secret@tables/t", "credentials do not go in the URL"),
    ("s3://tables/a//b", "the prefix must be"),
    ("s3://tables/a/../b", "the prefix must be"),
    ("s3://tables/t?region=x", "the prefix must be"),
    ("file://relative/path", "absolute path"),
])
def test_a_bad_url_is_refused_in_one_line(url, words):
    with pytest.raises(UsageError) as raised:
        location_of(url)
    assert words in str(raised.value) and "\n" not in str(raised.value)


def test_storage_options_are_checked_and_typed():
    bucket = location_of("s3://tables/t", storage_options(["retry_seconds=2.5", "anonymous=true",
                                                          "endpoint_url=http://127.0.0.1:1"]))
    assert bucket.options == {"retry_seconds": 2.5, "anonymous": True, "endpoint_url": "http://127.0.0.1:1"}
    assert bucket.endpoint == "http://127.0.0.1:1"
    for pairs, words in ((["colour=blue"], "unknown storage option 'colour'"), (["retry_seconds=soon"], "seconds"),
                         (["anonymous=maybe"], "true or false"), (["region"], "KEY=VALUE")):
        with pytest.raises(UsageError, match=words):
            location_of("s3://tables/t", storage_options(pairs))
    with pytest.raises(UsageError, match="are for an object store"):
        location_of("/tmp/tb", {"region": "x"})
    assert location_of("file:///tmp/tb").root == Path("/tmp/tb")


@pytest.mark.slow
def test_refused_credentials_are_one_line_and_nothing_is_written(s3, monkeypatch):
    before = s3.server.keys()
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
    with pytest.raises(StoreError, match="refused the credentials") as raised:
        location_of(s3.url).write("t/rows/a.parquet", b"x")
    assert "\n" not in str(raised.value)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIANOSUCHKEY0000000")
    result = tablebase("gc", "--db", s3.url, "--grace", "0", env=dict(os.environ))
    assert_clean_error(result, s3.url, "refused the credentials")
    assert s3.server.keys() == before


@pytest.mark.slow
def test_a_bucket_that_is_not_there_is_one_line(s3):
    result = tablebase("gc", "--db", "s3://no-such-bucket/t", env=dict(os.environ))
    assert_clean_error(result, "has no bucket 'no-such-bucket'")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_a_store_that_does_not_answer_is_one_line(s3):
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    start = time.monotonic()
    result = tablebase("gc", "--db", s3.url, "--storage-option", f"endpoint_url={endpoint}",
                       "--storage-option", "retry_seconds=1", env=dict(os.environ))
    assert_clean_error(result, f"the store at {endpoint} did not answer")
    assert time.monotonic() - start < 30


@pytest.mark.slow
def test_a_store_away_for_seconds_is_waited_for(s3):
    location = location_of(s3.url)
    location.write("t/rows/a.parquet", b"before")  # it has answered: an outage is waited out
    start = time.monotonic()
    with s3.server.down(3):
        location.write("t/rows/b.parquet", b"during")
        assert location.read("t/rows/a.parquet") == b"before"
    assert time.monotonic() - start >= 2.5
    assert s3.server.keys(s3.prefix + "/") == {f"{s3.prefix}/t/rows/a.parquet": b"before",
                                               f"{s3.prefix}/t/rows/b.parquet": b"during"}


@pytest.mark.slow
def test_a_copy_of_a_place_in_a_process_the_store_answered_waits_an_outage_out(s3):
    """A place sent to a process (pickled, as Dask sends a task's arguments) where the store has answered
    already: an outage longer than a first contact's 5 s is waited out, as by the place it was copied from."""
    import pickle

    location = location_of(s3.url)
    location.write("t/rows/a.parquet", b"before")  # this process has been answered
    copy = pickle.loads(pickle.dumps(location))
    with s3.server.down(15):  # past what a first contact waits, tries of its own included
        copy.write("t/rows/b.parquet", b"during")
    assert s3.server.keys(s3.prefix + "/t/rows/b") == {f"{s3.prefix}/t/rows/b.parquet": b"during"}


@pytest.mark.slow
def test_the_verbs_take_a_url_and_make_no_folder_of_its_words(s3, tmp_path):
    """A reading verb and a build given an object store's URL go there (a bucket that is not there is one
    line), and make no folder of the URL's words where they run."""
    for args in (["tables", "--db", "s3://no-such-bucket/t"], ["query", "--db", "s3://no-such-bucket/t", "SELECT 1"],
                 ["build", "chomp", "--rows", "2", "--cols", "2", "--out", "s3://no-such-bucket/t"]):
        result = subprocess.run([sys.executable, "-m", "tablebase", *args], capture_output=True, text=True,
                                cwd=tmp_path, timeout=120)
        assert_clean_error(result, "s3://no-such-bucket/t", "has no bucket 'no-such-bucket'")
    assert os.listdir(tmp_path) == []  # no folder made of the URL's words
